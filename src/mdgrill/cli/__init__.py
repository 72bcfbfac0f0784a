"""`mdgrill <verb>`: argument parsing, output, and one module per group of verbs.

Rule: verbs call services, shell and core; a verb module never imports another.
"""
