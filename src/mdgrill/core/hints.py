"""The spec as a next-step hint names it: a command the user can paste as it stands.

Pure. Refusals and results say what to run next; they name the spec the user is working on,
not a `SPEC` placeholder (issue 35, point 5).
"""

from __future__ import annotations

# What needs no quoting in a POSIX shell (shlex's set): letters, digits and `_` (a word
# character, as the pattern `[\w@%+=:,./\\-]+` read it) and these marks, made a letter here so
# that `str.isalnum` reads the whole folder at once. By hand: the pattern's compile was 0.4 M
# instructions of every verb that names a spec in its hints.
_PLAIN_MARKS = str.maketrans(dict.fromkeys("_@%+=:,./\\-", "a"))


def spec_arg(progress_path: str) -> str:
    """The spec folder of a `.progress.md` path as shown, quoted for a shell when needed."""
    cut = max(progress_path.rfind("/"), progress_path.rfind("\\"))
    folder = progress_path[:cut] if cut > 0 else "."
    if folder.translate(_PLAIN_MARKS).isalnum():  # and not empty
        return folder
    return "'" + folder.replace("'", "'\"'\"'") + "'"
