"""Committing exactly the named paths, and saying why git refused."""

from __future__ import annotations

import os
import re

from mdgrill.errors import GateRefusal, InputError
from mdgrill.git.vcs.repo import (
    Repo,
    check_git,
    git_exe,
    head_branch_and_sha,
    head_sha,
    literal_pathspec,
    open_repo,
    repo_path,
    require_git_dirs,
    run_git,
)
from mdgrill.git.vcs.trailers import COMMIT_HOOKS, CommitResult

# --------------------------------------------------------------------------- index lock

# A git process mdgrill starts to change the index is named by a marker file in the git dir
# (`mdgrill-git-<pid>`) for as long as it runs. mdgrill killed mid-commit leaves the marker:
# its git child, orphaned, usually finishes and removes `index.lock` itself, and the next
# verb waits for it; killed together with mdgrill (a process-group kill, the OOM killer), it
# leaves `index.lock` behind, and the next verb removes that lock, since the marker shows
# whose it was. A lock without a marker is someone else's and is left to git's own message.
MARK_PREFIX = "mdgrill-git-"
SETTLE_SECONDS = 60.0  # how long a verb waits for an orphaned commit to finish


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, owned by someone else
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


def _ancestors() -> set[int]:
    """This process's parents (a hook run inside an mdgrill commit must not wait for it)."""
    found = {os.getppid()}
    pid = os.getppid()
    for _ in range(32):
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                pid = int(handle.read().rsplit(b")", 1)[-1].split()[1])
        except (OSError, IndexError, ValueError):
            break
        if pid <= 1:
            break
        found.add(pid)
    return found


def settle_index(repo_root: str) -> None:
    """Wait for an index-changing git that another mdgrill process left running, and remove
    the `index.lock` of one that was killed (see MARK_PREFIX)."""
    if os.name == "nt":  # os.kill(pid, 0) would terminate the process there
        return
    import time

    try:
        git_dir, _ = require_git_dirs(os.path.abspath(repo_root))
        names = [n for n in os.listdir(git_dir) if n.startswith(MARK_PREFIX)]
    except (InputError, OSError):
        return
    if not names:
        return
    skip = _ancestors()
    deadline = time.monotonic() + SETTLE_SECONDS
    for name in names:
        mark = os.path.join(git_dir, name)
        try:
            pid = int(name[len(MARK_PREFIX):])
            marked = os.stat(mark).st_mtime
        except (ValueError, OSError):
            continue
        if pid in skip or pid == os.getpid():
            continue
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        if _alive(pid):
            continue  # still running: git will say the index is locked
        _remove_stale_lock(git_dir, pid, marked)
        try:  # noqa: SIM105 - nothing to do if another verb removed it first
            os.unlink(mark)
        except OSError:
            pass


def _remove_stale_lock(git_dir: str, pid: int, marked: float) -> None:
    """Remove the locks a killed git of ours left (not one taken after it started)."""
    for name in ("index.lock", f"next-index-{pid}.lock"):
        lock = os.path.join(git_dir, name)
        try:
            if os.stat(lock).st_mtime >= marked - 1.0:
                os.unlink(lock)
        except OSError:
            pass


def _run_marked(repo: Repo, git_dir: str, *args: str) -> tuple[int, bytes, str]:
    """`run_git` for a git that changes the index: named by a marker while it runs."""
    import subprocess

    try:
        proc = subprocess.Popen([git_exe(), *args], cwd=repo.root, env=repo.env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
    except OSError as exc:
        raise InputError("GIT_NOT_AVAILABLE",
                         f"git cannot be run ({exc.strerror}): install git or fix PATH.") from exc
    mark = os.path.join(git_dir, f"{MARK_PREFIX}{proc.pid}")
    try:
        try:
            os.close(os.open(mark, os.O_WRONLY | os.O_CREAT, 0o644))
        except OSError:
            mark = ""  # a git dir we cannot write to: git will fail and say so
        out, err = proc.communicate()
    finally:
        if proc.poll() is None:
            proc.wait()  # interrupted: let git finish and release its lock itself
        if mark:
            try:  # noqa: SIM105 - as above
                os.unlink(mark)
            except OSError:
                pass
    return proc.returncode, out, err.decode("utf-8", "replace")


# --------------------------------------------------------------------------- commit

def _identity_gaps(repo: Repo) -> list[str]:
    """The identity settings git would have to guess for this commit."""
    status, out, _ = run_git(repo, "config", "--get-regexp",
                          r"^(user|author|committer)\.(name|email)$")
    config: dict[str, str] = {}
    if status == 0:
        for line in out.decode("utf-8", "surrogateescape").splitlines():
            key, _, value = line.partition(" ")
            if value.strip():
                config[key.lower()] = value
    gaps: list[str] = []
    for field in ("name", "email"):
        for role in ("author", "committer"):
            if not (os.environ.get(f"GIT_{role.upper()}_{field.upper()}")
                    or config.get(f"{role}.{field}") or config.get(f"user.{field}")):
                gaps.append(f"user.{field}")
                break
    return gaps


def _hooks_present(repo: Repo, root: str) -> list[str]:
    status, out, _ = run_git(repo, "rev-parse", "--git-path", "hooks")
    if status != 0:
        return []
    hooks_dir = os.path.join(root, os.fsdecode(out.strip()))
    return [name for name in COMMIT_HOOKS
            if os.access(os.path.join(hooks_dir, name), os.X_OK)]


def _refuse_detached(repo_root: str, git_dir: str) -> GateRefusal:
    busy = [name for name in ("rebase-merge", "rebase-apply")
            if os.path.isdir(os.path.join(git_dir, name))]
    why = " (a rebase is in progress: finish it with `git rebase --continue` first)" \
        if busy else ""
    return GateRefusal(
        "GIT_DETACHED_HEAD",
        f"HEAD is detached in {repo_root}{why}: a commit there would be on no branch and "
        "could be lost. Switch to a branch (`git switch <branch>`, or `git switch -c <name>` "
        "to keep this position) and run the command again; nothing was committed.")


def _refuse_identity(gaps: list[str]) -> GateRefusal:
    setting = " and ".join(gaps)
    return GateRefusal(
        "GIT_IDENTITY_MISSING",
        f"git has no {setting} configured, and mdgrill does not let git guess one: run "
        "`git config user.name \"Your Name\"` and `git config user.email you@example.com` "
        "(add --global for every repository) and run the command again; nothing was "
        "committed.", details={"missing": gaps})


def _commit_failure(repo: Repo, root: str, status: int, out: bytes, err: str,
                    paths: list[str]) -> GateRefusal:
    output = "\n".join(s for s in (os.fsdecode(out).strip(), err.strip()) if s)
    if re.search(r"identity unknown|auto-detection is disabled|empty ident", output):
        return _refuse_identity(["user.name", "user.email"])
    hooks = _hooks_present(repo, root) if status == 1 else []
    if hooks:
        return GateRefusal(
            "GIT_HOOK_FAILED",
            f"the git {'/'.join(hooks)} hook refused the commit of {', '.join(paths)}; "
            f"nothing was committed. Hook output:\n{output or '(none)'}\n"
            "Fix what the hook reports and run the command again.",
            details={"hooks": hooks, "output": output})
    return GateRefusal(
        "GIT_COMMIT_FAILED",
        f"git could not commit {', '.join(paths)} (exit {status}): {output or 'no message'}; "
        "nothing was committed. Fix the cause and run the command again.",
        details={"output": output})


def _unstage(repo: Repo, git_dir: str, new: list[str]) -> None:
    """Make the paths we `git add`ed untracked again, as they were before."""
    if new:
        _run_marked(repo, git_dir, "rm", "--cached", "--quiet", "--ignore-unmatch", "--", *new)


def commit_paths(repo_root: str, paths: list[str], message: str,
                 author: str | None = None, sign: bool = False) -> CommitResult:
    """Commit exactly `paths` on the current branch; anything else staged stays staged.

    `author` (`Name <email>`) is the person who gave the approval; the committer stays git's
    own identity, so the history shows both who approved and who ran the command. `sign`
    asks git to sign (`-S`); without it git signs when `commit.gpgsign` says so."""
    root = os.path.abspath(repo_root)
    git_dir, _ = require_git_dirs(root)
    rels = list(dict.fromkeys(repo_path(root, p) for p in paths))
    if not rels:
        raise InputError("NOTHING_TO_COMMIT", "commit_paths needs at least one path.")
    real_root = os.path.realpath(root)
    for rel in rels:
        full = os.path.join(root, *rel.split("/"))
        if os.path.isdir(full) and not os.path.islink(full):
            raise InputError("NOT_A_FILE", f"{rel} is a folder: name the files to commit.",
                             path=rel)
        folder = os.path.realpath(os.path.dirname(full))
        if folder != real_root and not folder.startswith(real_root + os.sep):
            raise InputError(
                "PATH_OUTSIDE_REPOSITORY",
                f"{rel} goes through a symlink that leaves the work tree: name a file inside "
                "it.", path=rel)
    if "\x00" in message or not message.strip():
        raise ValueError("a commit message must be non-empty and contain no NUL")
    settle_index(root)
    with open_repo(root) as repo:
        branch, parent = head_branch_and_sha(repo)
        if branch is None:
            raise _refuse_detached(root, git_dir)
        gaps = _identity_gaps(repo)
        if gaps:
            raise _refuse_identity(gaps)
        specs = [literal_pathspec(rel) for rel in rels]
        # `commit --only` takes tracked paths straight from the work tree and leaves the
        # real index alone if it fails; only untracked paths need a `git add` first.
        tracked = set(check_git(repo, "ls-files", "-z", "--", *specs).split(b"\x00"))
        new = [spec for rel, spec in zip(rels, specs, strict=True)
               if os.fsencode(rel) not in tracked]
        if new:
            status, out, err = _run_marked(repo, git_dir, "add", "--", *new)
            if status != 0:  # e.g. an ignored path; others may have been added
                _unstage(repo, git_dir, new)
                raise _commit_failure(repo, root, 128, out, err, rels)
        status, out, err = _run_marked(
            repo, git_dir, "-c", "user.useConfigOnly=true", "commit", "--quiet", "--only",
            "--allow-empty", "--cleanup=whitespace", "-m", message,
            *([f"--author={author}"] if author else []), *(["-S"] if sign else []),
            "--", *specs)
        if status != 0:
            _unstage(repo, git_dir, new)
            raise _commit_failure(repo, root, status, out, err, rels)
        sha = head_sha(repo)
    if sha is None or sha == parent:
        raise GateRefusal("GIT_COMMIT_FAILED",
                          "git reported success but HEAD did not move; nothing was committed.")
    return CommitResult(sha, parent, branch, rels)
