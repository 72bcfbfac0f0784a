"""Who git says is working here: `Name <email>` as it would author a commit.

Apart from `vcs` because every answer asks it and most make no commit: importing `vcs` costs
more than this whole lookup.
"""

from __future__ import annotations

import os

from mdgrill.git.discovery import QUIET, executable

# (root, the environment git reads the identity from) -> the answer: resolved once per
# process. A server (`mdgrill mcp`) serves one person for its life; asking git again for
# every answer it records was a process start per call.
_IDENTITIES: dict[tuple[str, tuple[tuple[str, str], ...]], str | None] = {}


def git_identity(root: str) -> str | None:
    """`Name <email>` as git would author a commit in `root`, or None when git has none."""
    name, email = os.environ.get("GIT_AUTHOR_NAME"), os.environ.get("GIT_AUTHOR_EMAIL")
    if name and email is not None:  # what `git var` would answer, without starting git
        return f"{name} <{email}>"
    key = (root, tuple(sorted((k, v) for k, v in os.environ.items()
                              if k.startswith("GIT_") or k in ("EMAIL", "HOME",
                                                               "XDG_CONFIG_HOME"))))
    if key not in _IDENTITIES:
        _IDENTITIES[key] = _ask_git(root)
    return _IDENTITIES[key]


def _ask_git(root: str) -> str | None:
    """`git var GIT_AUTHOR_IDENT` in `root`, without its timestamp."""
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
