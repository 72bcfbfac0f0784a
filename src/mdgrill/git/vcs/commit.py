"""Committing exactly the named paths, and saying why git refused."""

from __future__ import annotations

import os
import re

from mdgrill.errors import GateRefusal, InputError
from mdgrill.git.vcs.repo import (
    Repo,
    _check,
    _git_dirs,
    _head,
    _head_sha,
    _literal,
    _open,
    _repo_path,
    _run,
)
from mdgrill.git.vcs.trailers import _COMMIT_HOOKS, CommitResult

# --------------------------------------------------------------------------- commit

def _identity_gaps(repo: Repo) -> list[str]:
    """The identity settings git would have to guess for this commit."""
    status, out, _ = _run(repo, "config", "--get-regexp",
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
    status, out, _ = _run(repo, "rev-parse", "--git-path", "hooks")
    if status != 0:
        return []
    hooks_dir = os.path.join(root, os.fsdecode(out.strip()))
    return [name for name in _COMMIT_HOOKS
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


def _unstage(repo: Repo, new: list[str]) -> None:
    """Make the paths we `git add`ed untracked again, as they were before."""
    if new:
        _run(repo, "rm", "--cached", "--quiet", "--ignore-unmatch", "--", *new)


def commit_paths(repo_root: str, paths: list[str], message: str,
                 author: str | None = None) -> CommitResult:
    """Commit exactly `paths` on the current branch; anything else staged stays staged.

    `author` (`Name <email>`) is the person who gave the approval; the committer stays git's
    own identity, so the history shows both who approved and who ran the command."""
    root = os.path.abspath(repo_root)
    git_dir, _ = _git_dirs(root)
    rels = list(dict.fromkeys(_repo_path(root, p) for p in paths))
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
    with _open(root) as repo:
        branch, parent = _head(repo)
        if branch is None:
            raise _refuse_detached(root, git_dir)
        gaps = _identity_gaps(repo)
        if gaps:
            raise _refuse_identity(gaps)
        specs = [_literal(rel) for rel in rels]
        # `commit --only` takes tracked paths straight from the work tree and leaves the
        # real index alone if it fails; only untracked paths need a `git add` first.
        tracked = set(_check(repo, "ls-files", "-z", "--", *specs).split(b"\x00"))
        new = [spec for rel, spec in zip(rels, specs, strict=True)
               if os.fsencode(rel) not in tracked]
        if new:
            status, out, err = _run(repo, "add", "--", *new)
            if status != 0:  # e.g. an ignored path; others may have been added
                _unstage(repo, new)
                raise _commit_failure(repo, root, 128, out, err, rels)
        status, out, err = _run(
            repo, "-c", "user.useConfigOnly=true", "commit", "--quiet", "--only",
            "--allow-empty", "--cleanup=whitespace", "-m", message,
            *([f"--author={author}"] if author else []), "--", *specs)
        if status != 0:
            _unstage(repo, new)
            raise _commit_failure(repo, root, status, out, err, rels)
        sha = _head_sha(repo)
    if sha is None or sha == parent:
        raise GateRefusal("GIT_COMMIT_FAILED",
                          "git reported success but HEAD did not move; nothing was committed.")
    return CommitResult(sha, parent, branch, rels)
