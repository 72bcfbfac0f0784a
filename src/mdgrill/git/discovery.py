"""Where a repository is: the one reader of `.git` (a folder, or a worktree's `.git` file),
and how every git process is started (`executable`, `QUIET`).

Read from the file system, without starting git: every verb asks whether it is in a
repository, and most never run git at all.
"""

from __future__ import annotations

import os

# What every git process mdgrill starts gets on top of its environment: messages it can
# parse (C locale), and never a prompt for a terminal nobody watches.
QUIET = {"LC_ALL": "C", "LANGUAGE": "C", "GIT_TERMINAL_PROMPT": "0"}


def executable() -> str:
    """The git to run (`GIT_PYTHON_GIT_EXECUTABLE`, as GitPython users already set, else git)."""
    return os.environ.get("GIT_PYTHON_GIT_EXECUTABLE") or "git"


def is_dotgit(dotgit: str) -> bool:
    """A `.git` folder (holding HEAD) or a `.git` file pointing at one (worktrees)."""
    if os.path.isdir(dotgit):
        return os.path.isfile(os.path.join(dotgit, "HEAD"))
    if os.path.isfile(dotgit):
        try:
            with open(dotgit, "rb") as fh:
                return fh.read(8) == b"gitdir: "
        except OSError:
            return False
    return False


def repo_root(path: str) -> str | None:
    """The root of the git work tree that contains `path` (need not exist), or None."""
    current = os.path.abspath(path)
    while True:
        if is_dotgit(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def find_root(start: str) -> str:
    """The repository work tree above `start`, else `start` itself."""
    return repo_root(start) or os.path.abspath(start)


def in_repository(root: str) -> bool:
    return is_dotgit(os.path.join(root, ".git"))


def git_dirs(root: str) -> tuple[str, str] | None:
    """(git dir, common dir) of the work tree at `root`, or None when it is not one."""
    dotgit = os.path.join(root, ".git")
    if not is_dotgit(dotgit):
        return None
    if os.path.isdir(dotgit):
        git_dir = dotgit
    else:
        try:
            with open(dotgit, "rb") as fh:
                target = os.fsdecode(fh.read(4096)[len(b"gitdir: "):].strip())
        except OSError:
            return None
        git_dir = os.path.normpath(os.path.join(root, target))
        if not os.path.isdir(git_dir):
            return None
    common_dir = git_dir
    try:
        with open(os.path.join(git_dir, "commondir"), "rb") as fh:
            common = os.fsdecode(fh.read().strip())
        common_dir = os.path.normpath(os.path.join(git_dir, common))
    except OSError:
        pass
    return git_dir, common_dir


def git_dir(root: str) -> str | None:
    """The repository's own git folder (`.git`, or where a worktree's `.git` file points)."""
    dirs = git_dirs(root)
    return dirs[0] if dirs else None


def _file_stamp(path: str) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _read_small(path: str) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def history_stamp(root: str) -> tuple[object, ...] | None:
    """What decides the commits `git log HEAD` lists in the work tree at `root`, read from its
    git folder without starting git; None when that cannot be read exactly (ask git then).

    HEAD and the branch it names are read (their bytes are the commit); the files that can
    change which history a commit has (packed refs, replace refs, grafts, the shallow list,
    the configuration) are stat'ed: git replaces each by renaming a new file over it, never
    by rewriting it in place, so a change gives a new inode. Equal stamps, equal history.
    """
    dirs = git_dirs(root)
    if dirs is None:
        return None
    git_dir, common = dirs
    if os.path.exists(os.path.join(common, "reftable")):  # refs in a binary table
        return None
    head = _read_small(os.path.join(git_dir, "HEAD"))
    if head is None:
        return None
    branch: bytes | None = None
    packed: bytes | None = None
    if head.startswith(b"ref: "):
        name = os.fsdecode(head[5:].strip())
        if not name.startswith("refs/heads/") or ".." in name.split("/"):
            return None
        branch = _read_small(os.path.join(common, name))
        if branch is None:  # not loose: packed, or not born yet
            packed = _read_small(os.path.join(common, "packed-refs"))
        elif branch.startswith(b"ref: "):  # a branch naming another: git follows the chain
            return None
    home = os.path.expanduser("~")
    files = (os.path.join(common, "packed-refs"), os.path.join(common, "refs", "replace"),
             os.path.join(common, "info", "grafts"), os.path.join(common, "shallow"),
             os.path.join(common, "config"), os.path.join(git_dir, "config.worktree"),
             os.path.join(home, ".gitconfig"),
             os.path.join(os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config"),
                          "git", "config"))
    env = tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("GIT_")))
    return (git_dir, head, branch, packed, env, *(_file_stamp(f) for f in files))
