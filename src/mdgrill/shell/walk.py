"""The one walk of a folder tree (`validate`, `lint`, `watch`, `status` and the hooks all
look for specs and glossaries through it), and the one list of folders it skips.

Skipped, with everything under them: hidden folders (`.git`, `.hg`, `.svn`, `.venv`, `.tox`,
`.mypy_cache`, an editor's `.idea`…), the folders of tools and caches named in
`SKIPPED_NAMES`, and a Python environment of any name (a folder holding `pyvenv.cfg` or
`conda-meta`). Nobody keeps a spec there, and a virtualenv or `node_modules` can hold
hundreds of thousands of files (and Markdown of its own, like a package's `CONTEXT.md`).
"""

from __future__ import annotations

import os

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

SKIPPED_NAMES = frozenset({"node_modules", "bower_components", "__pycache__", "venv",
                           "site-packages"})
# A folder holding one of these is a Python environment, whatever its name
ENVIRONMENT_MARKERS = ("pyvenv.cfg", "conda-meta")


def skipped(name: str) -> bool:
    """Whether a folder of this name is left out of every walk."""
    return name.startswith(".") or name in SKIPPED_NAMES


def walk(top: str) -> Iterator[tuple[str, list[str], list[str]]]:
    """(folder, its subfolders, its files) for `top` and every folder under it that is not
    skipped, in sorted order; a Python environment yields nothing.

    The subfolders are listed in full (a folder named like a file can be reported); the
    caller may remove some of them, then the skipped ones are removed before the walk goes
    down. Symbolic links to folders are not followed.
    """
    for folder, subfolders, files in os.walk(top):
        if folder != top and any(marker in files or marker in subfolders
                                 for marker in ENVIRONMENT_MARKERS):
            subfolders[:] = []
            continue
        subfolders.sort()
        files.sort()
        yield folder, subfolders, files
        subfolders[:] = [name for name in subfolders if not skipped(name)]


def skipped_folder(folder: str, top: str) -> bool:
    """Whether `folder`, or a folder between it and `top`, is skipped by its name: what a
    file-system event under `top` is filtered by (the folders above `top`, whatever their
    names, are the user's choice; an environment is known by its name here, not its marker)."""
    rel = os.path.relpath(os.path.abspath(folder), os.path.abspath(top))
    if rel == os.curdir or rel.split(os.sep, 1)[0] == os.pardir:
        return False
    return any(skipped(part) for part in rel.split(os.sep))
