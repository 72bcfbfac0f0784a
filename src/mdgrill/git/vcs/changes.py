"""What git says changed since a commit: the paths touched (with renames), and the commits
that touched a path. `drift` asks these first so that only what changed is read again."""

from __future__ import annotations

import os
from typing import NamedTuple

from mdgrill.git.vcs.repo import Repo, bad_rev, check_git, open_repo, run_git
from mdgrill.git.vcs.trailers import LOG_CONFIG


class Touched(NamedTuple):
    """Paths changed between a commit and the work tree, and the renames among them."""

    paths: frozenset[str]
    renamed: dict[str, str]  # old path -> new path (git's rename detection)
    uncommitted: frozenset[str] = frozenset()  # of those, the ones changed since HEAD


class PathCommit(NamedTuple):
    """A commit that changed a path: sha, subject, author name, author date (ISO 8601)."""

    sha: str
    subject: str
    author: str
    date: str

    def to_json(self) -> dict[str, object]:
        return {"sha": self.sha, "subject": self.subject, "author": self.author,
                "date": self.date}


def _name_status(out: bytes) -> list[tuple[str, str, str | None]]:
    """`-z --name-status` records: (status letter, path, new path for a rename or copy)."""
    fields = out.split(b"\x00")
    found: list[tuple[str, str, str | None]] = []
    i = 0
    while i < len(fields):
        status = fields[i].decode("ascii", "replace")
        if not status or not status[0].isalpha() or i + 1 >= len(fields):
            i += 1
            continue
        if status[0] in "RC" and i + 2 < len(fields):
            found.append((status[0], os.fsdecode(fields[i + 1]), os.fsdecode(fields[i + 2])))
            i += 3
        else:
            found.append((status[0], os.fsdecode(fields[i + 1]), None))
            i += 2
    return found


def _touched(records: list[tuple[str, str, str | None]], reverse: bool = False) -> Touched:
    paths: set[str] = set()
    renamed: dict[str, str] = {}
    for status, path, new in records:
        paths.add(path)
        if new is not None:
            paths.add(new)
            if status == "R":
                if reverse:
                    renamed[new] = path
                else:
                    renamed[path] = new
    return Touched(frozenset(paths), renamed)


def touched_since(repo_root: str, commits: list[str],
                  paths: list[str] | None = None) -> dict[str, Touched]:
    """For each commit, what changed from it to the work tree (tracked files); with `paths`
    (literal paths, or globs as `:(glob)…` pathspecs) only there, and without renames (a
    rename's other side may be outside them: ask again without `paths` for those).

    One `git diff-tree --stdin` for every commit against HEAD (fed as `commit HEAD`, which
    git reads as the commit and its parent: the diff comes out reversed and is turned back),
    and one `git diff HEAD` for the work tree: two processes however many bindings there are.
    """
    wanted = [c for c in dict.fromkeys(commits) if not bad_rev(c)]
    result: dict[str, Touched] = {}
    limit = ["--", *paths] if paths is not None else ["--"]
    renames = ["-M"] if paths is None else ["--no-renames"]
    with open_repo(repo_root) as repo:
        head = check_git(repo, "rev-parse", "--verify", "HEAD^{commit}").decode("ascii").strip()
        # the work tree in full: git matches hundreds of pathspecs against every index entry
        # (slower than listing the few changed files of a 30,000-file tree)
        status, out, _ = run_git(repo, "diff", *renames, "--name-status", "-z", "--no-ext-diff",
                              "HEAD", "--")
        worktree = _touched(_name_status(out)) if status == 0 else Touched(frozenset(), {})
        older = [c for c in _existing(repo, wanted) if c != head]
        wanted = [c for c in wanted if c == head or c in older]
        per_commit: dict[str, list[tuple[str, str, str | None]]] = {c: [] for c in older}
        if older:
            import subprocess

            from mdgrill.git.vcs.repo import git_exe

            feed = "".join(f"{c} {head}\n" for c in older).encode("ascii")
            proc = subprocess.run(
                [git_exe(), *LOG_CONFIG, "diff-tree", "--stdin", "-r", *renames,
                 "--name-status", "-z", "--always", *limit], input=feed, cwd=repo.root,
                env=repo.env, capture_output=True, check=False)
            current: str | None = None
            fields = proc.stdout.split(b"\x00")
            i = 0
            while i < len(fields):
                field = fields[i].decode("utf-8", "surrogateescape")
                if field in per_commit:  # a header: the commit the next records belong to
                    current = field
                    i += 1
                    continue
                if current is None or not field or not field[0].isalpha():
                    i += 1
                    continue
                width = 3 if field[0] in "RC" else 2
                record = fields[i:i + width]
                if len(record) == width:
                    per_commit[current].append((field[0], os.fsdecode(record[1]),
                                                os.fsdecode(record[2]) if width == 3 else None))
                i += width
        for commit in wanted:
            committed = _touched(per_commit.get(commit, []), reverse=True)
            renamed = dict(committed.renamed)
            for old, new in list(renamed.items()):
                renamed[old] = worktree.renamed.get(new, new)
            for old, new in worktree.renamed.items():
                renamed.setdefault(old, new)
            result[commit] = Touched(committed.paths | worktree.paths, renamed, worktree.paths)
    return result


def _existing(repo: Repo, commits: list[str]) -> list[str]:
    """The commits this repository holds (a shallow clone may lack a binding's commit)."""
    import subprocess

    from mdgrill.git.vcs.repo import git_exe

    if not commits:
        return []
    proc = subprocess.run([git_exe(), "cat-file", "--batch-check=%(objecttype)"],
                          input="".join(f"{c}^{{commit}}\n" for c in commits).encode("ascii"),
                          cwd=repo.root, env=repo.env, capture_output=True, check=False)
    kinds = proc.stdout.decode("ascii", "replace").splitlines()
    return [c for c, kind in zip(commits, kinds, strict=False) if kind == "commit"]


def commits_touching(repo_root: str, since: str, paths: list[str],
                     limit: int = 20) -> list[PathCommit]:
    """The commits after `since` up to HEAD that changed any of `paths`, newest first."""
    if bad_rev(since) or not paths:
        return []
    from mdgrill.git.vcs.repo import literal_pathspec

    with open_repo(repo_root) as repo:
        status, out, _ = run_git(repo, *LOG_CONFIG, "log", f"--max-count={limit}",
                              "--format=%H%x1f%s%x1f%an%x1f%aI%x1e", f"{since}..HEAD", "--",
                              *(literal_pathspec(p) for p in dict.fromkeys(paths)))
    if status != 0:
        return []
    found: list[PathCommit] = []
    for record in out.decode("utf-8", "replace").split("\x1e"):
        parts = record.strip("\n").split("\x1f")
        if len(parts) == 4:
            found.append(PathCommit(*parts))
    return found


def head_sha(repo_root: str) -> str | None:
    """HEAD's full sha, or None in a repository with no commit yet."""
    with open_repo(repo_root) as repo:
        status, out, _ = run_git(repo, "rev-parse", "-q", "--verify", "HEAD^{commit}")
    return out.decode("ascii").strip() if status == 0 else None


def tracked_at(repo_root: str, rev: str) -> list[str]:
    """Every file path in the tree of `rev`."""
    with open_repo(repo_root) as repo:
        out = check_git(repo, "ls-tree", "-r", "-z", "--name-only", "--full-tree", rev)
    return [os.fsdecode(p) for p in out.split(b"\x00") if p]
