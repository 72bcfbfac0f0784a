"""The shell around a spec: files, locks and the transaction, context sources, skills,
last good copies, drift of approved files, people and the project configuration.

Rule: the only place (with `git`) that touches the disk; calls the pure layers below it.
"""
