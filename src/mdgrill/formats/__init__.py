"""Pure text formats: the Markdown scanner, front matter, `.progress.md`, glossaries.

Rule: text in, text or models out. No file, process, clock or git; only `errors`,
`diagnostics` and the standard library below.
"""
