"""Other tools' formats and events: smart-ralph specs, agent hooks.

Rule: translate between another tool and mdgrill's services; no CLI parsing.
"""
