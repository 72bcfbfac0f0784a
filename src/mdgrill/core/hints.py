"""The spec as a next-step hint names it: a command the user can paste as it stands.

Pure. Refusals and results say what to run next; they name the spec the user is working on,
not a `SPEC` placeholder (issue 35, point 5).
"""

from __future__ import annotations

import re

_PLAIN = re.compile(r"[\w@%+=:,./\\-]+")  # needs no quoting in a POSIX shell (shlex's set)


def spec_arg(progress_path: str) -> str:
    """The spec folder of a `.progress.md` path as shown, quoted for a shell when needed."""
    cut = max(progress_path.rfind("/"), progress_path.rfind("\\"))
    folder = progress_path[:cut] if cut > 0 else "."
    if _PLAIN.fullmatch(folder):
        return folder
    return "'" + folder.replace("'", "'\"'\"'") + "'"
