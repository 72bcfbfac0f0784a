"""The spec model: the record schema and its invariants, the design tree (frontier and
ledger), reply classification, the context digest.

Rule: pure reading of what `formats` parsed; imports only `formats` and the base modules.
"""
