"""Who git says is working here: `Name <email>` as it would author a commit.

Apart from `vcs` because every answer asks it and most make no commit: importing `vcs` costs
more than this whole lookup.
"""

from __future__ import annotations

import os

from mdgrill.git.discovery import QUIET, executable


def git_identity(root: str) -> str | None:
    """`Name <email>` as git would author a commit in `root`, or None when git has none."""
    name, email = os.environ.get("GIT_AUTHOR_NAME"), os.environ.get("GIT_AUTHOR_EMAIL")
    if name and email is not None:  # what `git var` would answer, without starting git
        return f"{name} <{email}>"
    import subprocess

    try:
        proc = subprocess.run([executable(), "var", "GIT_AUTHOR_IDENT"], cwd=root,
                              env={**os.environ, **QUIET}, stdin=subprocess.DEVNULL,
                              capture_output=True, check=False)
    except OSError:
        return None
    ident = proc.stdout.decode("utf-8", "replace").strip() if proc.returncode == 0 else ""
    # "Name <email> 1700000000 +0000": the timestamp and zone are not the person
    return ident.rsplit(" ", 2)[0] if ident.count(" ") >= 2 else ident or None
