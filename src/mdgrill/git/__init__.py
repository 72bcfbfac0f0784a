"""git, run directly: trailers, the repository and its environment, commits, history.

Rule: the only package that starts git (one runner, one environment policy).
"""
