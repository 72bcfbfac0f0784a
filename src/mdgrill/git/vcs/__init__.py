"""The thin git shell: commit exactly the named paths with escaped trailers, read history fast.

git is run as a child process (`subprocess`, imported on first use). GitPython was used for
that at first, but all this module ever asked of it was `repo.git.execute`, and importing it
costs 70-130 ms (it runs `git version`): more than the whole `confirm` it served. Every call
closes the `git cat-file` process it started before it returns.

Inherited environment: git exports GIT_INDEX_FILE to commit hooks (and GIT_DIR, GIT_WORK_TREE
in submodules and worktrees). mdgrill works on the repository it is given by path. A
repository variable that points at that repository is kept (we run inside its own hook and
git set it on purpose); one that points anywhere else is overridden, for our git processes
only, with this repository's own value. `os.environ` is never changed.
"""

from __future__ import annotations

from mdgrill.git.vcs.commit import (
    commit_paths,
)
from mdgrill.git.vcs.history import (
    all_transitions,
    approval_commits,
    blob_at,
    blobs_at,
    committed_as_is,
    file_history,
    ignored,
    iter_file_history,
    tracked_files,
    verify_commit,
)
from mdgrill.git.vcs.repo import (
    Repo,
    changed_files,
    find_repo_root,
    head_state,
    is_ancestor,
    is_shallow,
    merge_base_with_default,
    rev_parse,
)
from mdgrill.git.vcs.signing import Signature, commit_signature, signs_commits
from mdgrill.git.vcs.trailers import (
    TRAILER_ARTIFACT_SHA256,
    TRAILER_BY,
    TRAILER_CONTEXT_DIGEST,
    TRAILER_INTERVIEW,
    TRAILER_PHASE,
    TRAILER_ROUND,
    TRAILER_SPEC,
    TRAILER_TRANSITION,
    CommitResult,
    TransitionCommit,
    TransitionList,
    escape_value,
    format_message,
    parse_trailers,
    unescape_value,
)

__all__ = [
    "verify_commit",
    "Signature",
    "commit_signature",
    "signs_commits",
    "committed_as_is",
    "CommitResult",
    "Repo",
    "TRAILER_ARTIFACT_SHA256",
    "TRAILER_BY",
    "TRAILER_CONTEXT_DIGEST",
    "TRAILER_INTERVIEW",
    "TRAILER_PHASE",
    "TRAILER_ROUND",
    "TRAILER_SPEC",
    "TRAILER_TRANSITION",
    "TransitionCommit",
    "TransitionList",
    "all_transitions",
    "approval_commits",
    "blob_at",
    "blobs_at",
    "changed_files",
    "commit_paths",
    "escape_value",
    "file_history",
    "find_repo_root",
    "format_message",
    "head_state",
    "ignored",
    "is_ancestor",
    "is_shallow",
    "iter_file_history",
    "merge_base_with_default",
    "parse_trailers",
    "rev_parse",
    "tracked_files",
    "unescape_value",
]
