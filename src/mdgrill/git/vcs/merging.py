"""What the merge driver and `mdgrill merge` ask of git: its own three-way merge of a file,
the three versions of a conflicted path in the index, the driver's configuration."""

from __future__ import annotations

from mdgrill.git.vcs.repo import _check, _literal, _open, _run

ARGS = "merge-file %O %A %B %P"
ATTRIBUTES = (".progress.md merge=mdgrill", "**/.progress.md merge=mdgrill",
              "CONTEXT.md merge=mdgrill", "**/CONTEXT.md merge=mdgrill")


def git_merge_file(repo_root: str, ours: str, base: str, theirs: str) -> tuple[bytes, int]:
    """git's own line merge of three files (ours, base, theirs): the merged bytes with git's
    conflict markers, and the number of conflicts (`git merge-file -p`)."""
    with _open(repo_root) as repo:
        status, out, _ = _run(repo, "merge-file", "-p", "-L", "ours", "-L", "base", "-L",
                              "theirs", ours, base, theirs)
    return out, max(status, 0)


def index_stages(repo_root: str, rel: str) -> tuple[bytes | None, bytes | None, bytes | None]:
    """(base, ours, theirs) of a path git left conflicted: index stages 1, 2 and 3 (None for
    a stage the path does not have)."""
    found: list[bytes | None] = []
    with _open(repo_root) as repo:
        for stage in ("1", "2", "3"):
            status, out, _ = _run(repo, "cat-file", "blob", f":{stage}:{rel}")
            found.append(out if status == 0 else None)
    return found[0], found[1], found[2]


def unmerged_paths(repo_root: str) -> list[str]:
    """The paths git has in conflict now (`git diff --name-only --diff-filter=U`)."""
    with _open(repo_root) as repo:
        out = _check(repo, "diff", "--name-only", "--diff-filter=U", "-z")
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def mark_resolved(repo_root: str, rel: str) -> None:
    with _open(repo_root) as repo:
        _check(repo, "add", "--", _literal(rel))


def install_driver(repo_root: str, command: str) -> None:
    """`merge.mdgrill.*` in the repository's own config; `command` starts mdgrill."""
    with _open(repo_root) as repo:
        _check(repo, "config", "merge.mdgrill.name", "mdgrill: append-only rounds, node-wise "
               "tree, recomputed record")
        _check(repo, "config", "merge.mdgrill.driver", f"{command} {ARGS}")
