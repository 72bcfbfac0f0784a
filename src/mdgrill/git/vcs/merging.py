"""What the merge driver and `mdgrill merge` ask of git: its own three-way merge of a file,
the three versions of a conflicted path in the index, the driver's configuration."""

from __future__ import annotations

from mdgrill.git.vcs.repo import check_git, literal_pathspec, open_repo, run_git

ARGS = "merge-file %O %A %B %P"
ATTRIBUTES = (".progress.md merge=mdgrill", "**/.progress.md merge=mdgrill",
              "CONTEXT.md merge=mdgrill", "**/CONTEXT.md merge=mdgrill",
              "CONTEXT-MAP.md merge=mdgrill", "**/CONTEXT-MAP.md merge=mdgrill")
# the commit a merge, cherry-pick, revert or rebase is bringing in, as git names it
_INCOMING = ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REBASE_HEAD", "REVERT_HEAD")


def git_merge_file(repo_root: str, ours: str, base: str, theirs: str) -> tuple[bytes, int]:
    """git's own line merge of three files (ours, base, theirs): the merged bytes with git's
    conflict markers, and the number of conflicts (`git merge-file -p`)."""
    with open_repo(repo_root) as repo:
        status, out, _ = run_git(repo, "merge-file", "-p", "-L", "ours", "-L", "base", "-L",
                              "theirs", ours, base, theirs)
    return out, max(status, 0)


def index_stages(repo_root: str, rel: str) -> tuple[bytes | None, bytes | None, bytes | None]:
    """(base, ours, theirs) of a path git left conflicted: index stages 1, 2 and 3 (None for
    a stage the path does not have)."""
    found: list[bytes | None] = []
    with open_repo(repo_root) as repo:
        for stage in ("1", "2", "3"):
            status, out, _ = run_git(repo, "cat-file", "blob", f":{stage}:{rel}")
            found.append(out if status == 0 else None)
    return found[0], found[1], found[2]


def unmerged_paths(repo_root: str) -> list[str]:
    """The paths git has in conflict now (`git diff --name-only --diff-filter=U`)."""
    with open_repo(repo_root) as repo:
        out = check_git(repo, "diff", "--name-only", "--diff-filter=U", "-z")
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def mark_resolved(repo_root: str, rel: str) -> None:
    with open_repo(repo_root) as repo:
        check_git(repo, "add", "--", literal_pathspec(rel))


def install_driver(repo_root: str, driver: str) -> None:
    """`merge.mdgrill.*` in the repository's own config; `driver` is the whole command."""
    with open_repo(repo_root) as repo:
        check_git(repo, "config", "merge.mdgrill.name", "mdgrill: append-only rounds, node-wise "
               "tree, recomputed record")
        check_git(repo, "config", "merge.mdgrill.driver", driver)


def operation_versions(repo_root: str, rel: str,
                       ) -> tuple[bytes | None, bytes | None, bytes | None] | None:
    """(base, ours, theirs) of a path from the commits of the merge, cherry-pick, rebase or
    revert in progress, for when the index no longer has its stages (the path was added, or
    rerere ran); None when no such operation is in progress."""
    with open_repo(repo_root) as repo:
        for name in _INCOMING:
            status, out, _ = run_git(repo, "rev-parse", "-q", "--verify", f"{name}^{{commit}}")
            if status == 0:
                incoming = out.decode("ascii").strip()
                break
        else:
            return None
        if name == "MERGE_HEAD":
            status, out, _ = run_git(repo, "merge-base", "HEAD", incoming)
            base = out.decode("ascii").strip() if status == 0 else None
        elif name == "REVERT_HEAD":  # a revert brings in the parent, over the commit
            base, incoming = incoming, f"{incoming}^"
        else:
            base = f"{incoming}^"
        found: list[bytes | None] = []
        for commit in (base, "HEAD", incoming):
            status, out, _ = run_git(repo, "cat-file", "blob", f"{commit}:{rel}") if commit \
                else (1, b"", "")
            found.append(out if status == 0 else None)
    return found[0], found[1], found[2]
