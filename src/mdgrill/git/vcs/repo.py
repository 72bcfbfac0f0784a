"""One repository, one environment policy, one git runner: every git process mdgrill starts
sees exactly this work tree (its GIT_* variables pinned) and speaks C locale."""

from __future__ import annotations

import os

from mdgrill.errors import InputError
from mdgrill.git.discovery import QUIET, executable, git_dirs, repo_root

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypedDict

    class HeadState(TypedDict):
        branch: str | None
        detached: bool
        unborn: bool
        shallow: bool
        head: str | None


# --------------------------------------------------------------------------- repository

def find_repo_root(path: str) -> str | None:
    """The root of the git work tree that contains `path` (need not exist), or None."""
    return repo_root(path)


def _not_a_repository(root: str) -> InputError:
    return InputError(
        "NOT_A_REPOSITORY",
        f"{root} is not the root of a git work tree: run `git init` there, or pass the "
        "folder that holds `.git`.", path=root)


def require_git_dirs(root: str) -> tuple[str, str]:
    """(git dir, common dir) of the work tree at `root`; not one is an error."""
    dirs = git_dirs(root)
    if dirs is None:
        raise _not_a_repository(root)
    return dirs


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:  # the current folder was deleted
        return os.sep


def _same_path(value: str, target: str, *, inside: bool = False) -> bool:
    real = os.path.realpath(os.path.join(_cwd(), value))
    want = os.path.realpath(target)
    return real == want or (inside and real.startswith(want + os.sep))


def _env_pins(root: str, git_dir: str, common_dir: str) -> dict[str, str]:
    """Overrides for inherited GIT_* variables that point at another repository."""
    env = os.environ
    pins: dict[str, str] = {}
    objects = os.path.join(common_dir, "objects")
    owned = (("GIT_DIR", git_dir), ("GIT_WORK_TREE", root),
             ("GIT_INDEX_FILE", os.path.join(git_dir, "index")),
             ("GIT_COMMON_DIR", common_dir), ("GIT_OBJECT_DIRECTORY", objects))
    for name, own in owned:
        value = env.get(name)
        if value is None:
            continue
        if name == "GIT_INDEX_FILE":  # index files (index, next-index-*.lock) live in git_dir
            here = _same_path(os.path.dirname(os.path.join(_cwd(), value)), git_dir)
        else:  # a quarantine object folder lives inside objects/
            here = _same_path(value, own, inside=name == "GIT_OBJECT_DIRECTORY")
        if not here:
            pins[name] = own
    if "GIT_DIR" in pins:
        pins["GIT_WORK_TREE"] = root
    return pins


class Repo:
    """A work tree and the environment its git processes run with."""

    __slots__ = ("root", "env")

    def __init__(self, root: str, env: dict[str, str]) -> None:
        self.root = root
        self.env = env

    def __enter__(self) -> Repo:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def open_repo(repo_root: str) -> Repo:
    """The work tree at `repo_root`, whose git processes see only this repo."""
    root = os.path.abspath(repo_root)
    git_dir, common_dir = require_git_dirs(root)
    env = dict(os.environ)
    env.update(_env_pins(root, git_dir, common_dir))
    # git's messages are parsed here and hooks must never wait for a terminal
    env.update(QUIET)
    return Repo(root, env)


def git_exe() -> str:
    return executable()


def run_git(repo: Repo, *args: str) -> tuple[int, bytes, str]:
    """Run `git args...` in the repo: (exit status, raw stdout, stderr); never raises."""
    import subprocess

    try:
        proc = subprocess.run([git_exe(), *args], cwd=repo.root, env=repo.env,
                              stdin=subprocess.DEVNULL, capture_output=True, check=False)
    except OSError as exc:
        raise InputError("GIT_NOT_AVAILABLE",
                         f"git cannot be run ({exc.strerror}): install git or fix PATH.") from exc
    return proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace")


def check_git(repo: Repo, *args: str) -> bytes:
    """Run git and return stdout; a failure is an InputError carrying git's message."""
    status, out, err = run_git(repo, *args)
    if status != 0:
        raise InputError("GIT_COMMAND_FAILED",
                         f"`git {' '.join(args)}` failed "
                         f"(exit {status}): {err.strip() or 'no message'}")
    return out


def head_sha(repo: Repo) -> str | None:
    status, out, _ = run_git(repo, "rev-parse", "-q", "--verify", "HEAD^{commit}")
    return out.decode("ascii").strip() if status == 0 else None


def head_branch_and_sha(repo: Repo) -> tuple[str | None, str | None]:
    """(branch short name or None when detached, HEAD commit sha or None when unborn)."""
    status, out, err = run_git(repo, "symbolic-ref", "-q", "HEAD")
    if status not in (0, 1):
        raise InputError("GIT_COMMAND_FAILED", f"git cannot read HEAD: {err.strip()}")
    ref = out.decode("utf-8", "surrogateescape").strip() if status == 0 else None
    branch = ref[len("refs/heads/"):] if ref and ref.startswith("refs/heads/") else ref
    return branch, head_sha(repo)


def is_shallow(repo_root: str) -> bool:
    """Whether the repository at `repo_root` is a shallow clone (its history is cut)."""
    return os.path.isfile(os.path.join(require_git_dirs(os.path.abspath(repo_root))[1], "shallow"))


def head_state(repo_root: str) -> HeadState:
    """Branch (None when detached), detached/unborn/shallow flags and the HEAD sha."""
    with open_repo(repo_root) as repo:
        branch, head = head_branch_and_sha(repo)
    return {"branch": branch, "detached": branch is None, "unborn": head is None,
            "shallow": is_shallow(repo_root), "head": head}


def bad_rev(rev: str) -> bool:
    # A revision starting with '-' would be read as an option.
    return not rev or rev.startswith("-") or "\n" in rev or "\x00" in rev


def rev_parse(repo_root: str, rev: str) -> str | None:
    """The full sha of the commit `rev` names, or None if it names no commit."""
    if bad_rev(rev):
        return None
    with open_repo(repo_root) as repo:
        status, out, _ = run_git(repo, "rev-parse", "-q", "--verify", f"{rev}^{{commit}}")
    return out.decode("ascii").strip() if status == 0 else None


def is_ancestor(repo_root: str, sha: str, of: str = "HEAD") -> bool:
    """True when commit `sha` is in the history of `of` (False when either is unknown)."""
    if bad_rev(sha) or bad_rev(of):
        return False
    with open_repo(repo_root) as repo:
        status, _, _ = run_git(repo, "merge-base", "--is-ancestor", sha, of)
    return status == 0


def merge_base_with_default(repo_root: str) -> str | None:
    """Merge base of HEAD with origin/HEAD, else main, else master; None if there is none."""
    candidates = ("refs/remotes/origin/HEAD", "refs/heads/main", "refs/remotes/origin/main",
                  "refs/heads/master", "refs/remotes/origin/master")
    with open_repo(repo_root) as repo:
        out = check_git(repo, "for-each-ref", "--format=%(refname)", *candidates)
        existing = set(out.decode("utf-8", "surrogateescape").split("\n"))
        for ref in candidates:
            if ref not in existing:
                continue
            status, base, _ = run_git(repo, "merge-base", "HEAD", ref)
            if status == 0:
                return base.decode("ascii").strip()
    return None


def changed_files(repo_root: str, rev_a: str, rev_b: str) -> list[str]:
    """Repo-relative POSIX paths whose content differs between the trees of two revisions."""
    for rev in (rev_a, rev_b):
        if bad_rev(rev):
            raise InputError("BAD_REVISION", f"{rev!r} is not a revision name.")
    with open_repo(repo_root) as repo:
        status, out, err = run_git(repo, "diff", "--name-only", "-z", "--no-renames",
                                "--no-ext-diff", rev_a, rev_b, "--")
    if status != 0:
        raise InputError("BAD_REVISION",
                         f"cannot compare {rev_a} and {rev_b}: {err.strip()}; "
                         "name two existing revisions.")
    return [os.fsdecode(p) for p in out.split(b"\x00") if p]


# --------------------------------------------------------------------------- paths

def repo_path(root: str, path: str) -> str:
    """`path` (repo-relative or absolute) as a repo-relative POSIX path inside the work tree."""
    if "\x00" in path:
        raise InputError("PATH_OUTSIDE_REPOSITORY", f"{path!r} is not a usable path.")
    root = os.path.abspath(root)
    full = os.path.normpath(path if os.path.isabs(path) else os.path.join(root, path))
    rel = os.path.relpath(full, root)
    if rel.startswith(os.pardir) or os.path.isabs(rel):
        # An absolute path may reach the repo through a symlink; compare resolved folders.
        real = os.path.join(os.path.realpath(os.path.dirname(full)), os.path.basename(full))
        rel = os.path.relpath(real, os.path.realpath(root))
    parts = rel.split(os.sep)
    if rel == os.curdir:
        raise InputError("NOT_A_FILE", f"{path} is the work tree itself: name a file in it.",
                         path=path)
    if parts[0] in (os.pardir, ".git"):
        raise InputError(
            "PATH_OUTSIDE_REPOSITORY",
            f"{path} is not a file in the work tree at {root}: name a file inside it.",
            path=path)
    return "/".join(parts)


def literal_pathspec(rel: str) -> str:
    # Pathspec magic would make `*.md` or `:x` match other files; this is local to the
    # argument (GIT_LITERAL_PATHSPECS would leak into hooks, which may rely on globs).
    return ":(literal)" + rel
