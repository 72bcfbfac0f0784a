"""Long-running or multi-step work built from the shell: approval commits and `watch`.

Rule: explicit arguments (never an argparse namespace); used by the CLI and integrations.
"""
