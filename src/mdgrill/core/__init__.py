"""The rules that change a spec: the interview state machine, the gate, approval, the
artifact gate and reopening, history comparisons, restore, and the text views of reports.

Rule: pure; a verb is a function from the parsed file to a `Change` and a result.
"""
