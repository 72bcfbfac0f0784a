"""Last good copies of `.progress.md`, kept outside the spec folder for `mdgrill restore`.

Inside a repository they live in `<git dir>/mdgrill/last-good/`, keyed by the sha256 of the
file's repo-relative path (so a clone elsewhere finds nothing stale, and git never shows
them); outside one, in `$XDG_CACHE_HOME/mdgrill/last-good/` (or `~/.cache/...`), keyed by the
sha256 of the absolute path.
"""

from __future__ import annotations

import os
from hashlib import sha256

from mdgrill.git.discovery import git_dir
from mdgrill.shell import store

SUBDIR = os.path.join("mdgrill", "last-good")


def cache_home() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return base


def snapshot_dir(root: str) -> str:
    """Where the last good copies of the repository at `root` are kept."""
    gd = git_dir(root)
    if gd is not None:
        return os.path.join(gd, SUBDIR)
    return os.path.join(cache_home(), SUBDIR)


def snapshot_path(root: str, progress: str) -> str:
    """The last good copy's path for the `.progress.md` at `progress`."""
    if git_dir(root) is not None:
        key = store.relpath_posix(os.path.abspath(progress), os.path.abspath(root))
    else:
        key = os.path.abspath(progress)
    name = sha256(key.encode("utf-8", "surrogateescape")).hexdigest() + ".md"
    return os.path.join(snapshot_dir(root), name)


def save(root: str, progress: str, data: bytes) -> str:
    """Keep `data` as the last good copy of `progress`; returns the copy's path."""
    path = snapshot_path(root, progress)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    store.atomic_write(path, data)
    return path


def load(root: str, progress: str) -> bytes | None:
    """The last good copy of `progress`, or None when there is none."""
    try:
        with open(snapshot_path(root, progress), "rb") as handle:
            return handle.read()
    except OSError:
        return None


def head_version(root: str, progress: str) -> bytes | None:
    """The file as committed at HEAD, or None outside git / untracked."""
    if git_dir(root) is None:
        return None
    from mdgrill.errors import MdgrillError
    from mdgrill.git.vcs import blob_at

    rel = store.relpath_posix(os.path.abspath(progress), os.path.abspath(root))
    try:
        return blob_at(root, "HEAD", rel)
    except MdgrillError:
        return None
