"""`validate`'s checks: every problem of a spec, a glossary or a prompt, as diagnostics.

Rule: pure; reads `model` and `formats`, never the disk.
"""
