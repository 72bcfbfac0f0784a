"""Reading history: transition commits, a file's versions, blobs at revisions."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from mdgrill.errors import InputError
from mdgrill.git.discovery import history_stamp

if TYPE_CHECKING:
    import subprocess
    from collections.abc import Generator
from mdgrill.git.vcs.commit import settle_index
from mdgrill.git.vcs.repo import (
    Repo,
    bad_rev,
    check_git,
    git_exe,
    head_sha,
    is_shallow,
    literal_pathspec,
    open_repo,
    repo_path,
    run_git,
)
from mdgrill.git.vcs.trailers import (
    HEX_OID,
    LOG_CONFIG,
    NULL_OIDS,
    RECORD_START,
    TRAILER_SPEC,
    TRAILER_TRANSITION,
    TransitionCommit,
    TransitionList,
    escape_value,
    parse_trailers,
)

# --------------------------------------------------------------------------- history

_LOG_FORMAT = "--format=%x1e%H%x00%aI%x00%an%x00%ae%x00%B"


def _log_records(out: bytes) -> list[list[bytes]]:
    """Split `_LOG_FORMAT` output into [sha, date, name, email, body] records."""
    records: list[bytes] = []
    for chunk in out.split(b"\x1e")[1:]:
        # A record separator inside a foreign commit's message belongs to that message.
        if records and not re.match(RECORD_START, chunk):
            records[-1] += b"\x1e" + chunk
        else:
            records.append(chunk)
    return [r.split(b"\x00", 4) for r in records if r.count(b"\x00") >= 4]


# (work tree, spec or None) -> (the history stamp it was read at, the transitions of HEAD):
# a long-lived process (`mdgrill mcp`) asks for them on every `status`; while HEAD, its
# branch and what can rewrite history stay as they were, `git log` would answer the same.
_KNOWN: dict[tuple[str, str | None], tuple[tuple[object, ...], TransitionList]] = {}
_KNOWN_SIZE = 16


def _transitions(repo_root: str, spec: str | None, rev: str) -> TransitionList:
    if bad_rev(rev):
        raise InputError("BAD_REVISION", f"{rev!r} is not a revision name.")
    # a commit another mdgrill process is still making (or was killed making) is settled
    # first, so an approval it records is seen, and its stale index.lock is not left behind
    settle_index(repo_root)
    if rev != "HEAD":
        return _read_transitions(repo_root, spec, rev)
    # taken before git reads: a commit made meanwhile changes the stamp for the next call
    stamp = history_stamp(repo_root)
    key = (os.path.abspath(repo_root), spec)
    known = _KNOWN.get(key)
    if stamp is not None and known is not None and known[0] == stamp:
        return TransitionList(known[1], known[1].shallow)
    found = _read_transitions(repo_root, spec, rev)
    if stamp is not None:
        _KNOWN.pop(key, None)
        while len(_KNOWN) >= _KNOWN_SIZE:
            del _KNOWN[next(iter(_KNOWN))]
        _KNOWN[key] = (stamp, TransitionList(found, found.shallow))
    return found


def _read_transitions(repo_root: str, spec: str | None, rev: str) -> TransitionList:
    greps = ["--fixed-strings", f"--grep={TRAILER_TRANSITION}:"]
    if spec is not None:
        greps += ["--all-match", f"--grep={TRAILER_SPEC}: {escape_value(spec)}"]
    with open_repo(repo_root) as repo:
        status, out, err = run_git(repo, *LOG_CONFIG, "log", "--encoding=UTF-8", "--no-color",
                                _LOG_FORMAT, *greps, rev, "--")
        if status != 0:
            if rev == "HEAD" and head_sha(repo) is None:
                return TransitionList([], is_shallow(repo_root))  # unborn: no commits yet
            raise InputError("GIT_COMMAND_FAILED", f"git log {rev} failed: {err.strip()}")
    commits: list[TransitionCommit] = []
    for sha, date, name, email, body in _log_records(out):
        message = body.decode("utf-8", "replace")
        trailers = parse_trailers(message)
        if TRAILER_TRANSITION not in trailers:
            continue
        if spec is not None and _norm_spec(trailers.get(TRAILER_SPEC, "")) != spec:
            continue
        subject = " ".join(message.split("\n\n", 1)[0].split())
        commits.append(TransitionCommit(
            sha.decode("ascii"), date.decode("ascii"), name.decode("utf-8", "replace"),
            email.decode("utf-8", "replace"), subject, trailers))
    return TransitionList(commits, is_shallow(repo_root))


def _norm_spec(spec: str) -> str:
    return spec.replace("\\", "/").strip("/")


def approval_commits(repo_root: str, spec_rel: str, rev: str = "HEAD") -> TransitionList:
    """Transition commits for the spec folder `spec_rel` reachable from `rev`, newest first."""
    return _transitions(repo_root, _norm_spec(spec_rel), rev)


def all_transitions(repo_root: str, rev: str = "HEAD") -> TransitionList:
    """Transition commits of every spec reachable from `rev`, newest first."""
    return _transitions(repo_root, None, rev)


# Names sent to `git cat-file --batch` before its answers are read: at most what any pipe
# holds (a page), so writing them never blocks while git waits for us to read its output.
_WINDOW_BYTES = 4096


class _BlobReader:
    """One `git cat-file --batch` process; names go to it a window at a time, so a whole
    history costs a few round trips rather than one per object (and no pipe deadlock)."""

    __slots__ = ("_proc",)

    def __init__(self, repo: Repo) -> None:
        import subprocess

        try:
            self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                [git_exe(), "cat-file", "--batch"], cwd=repo.root, env=repo.env,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError as exc:
            raise InputError("GIT_NOT_AVAILABLE",
                             f"git cannot be run ({exc.strerror}): install git or fix PATH."
                             ) from exc
        _widen_pipe(self._proc.stdout)

    def read_all(self, names: list[bytes | None],
                 ) -> Generator[tuple[bytes, bytes] | None, None, None]:
        """(object type, content) per name (an oid or `rev:path`) in order; None for a None
        name or a missing object."""
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        start = 0
        while start < len(names):
            end, size = start, 0
            while end < len(names):
                name = names[end]
                if name is not None:
                    if size and size + len(name) + 1 > _WINDOW_BYTES:
                        break
                    size += len(name) + 1
                    proc.stdin.write(name + b"\n")
                end += 1
            proc.stdin.flush()
            for name in names[start:end]:
                yield None if name is None else self._answer()
            start = end

    def _answer(self) -> tuple[bytes, bytes] | None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        header = proc.stdout.readline()
        parts = header.rstrip(b"\n").rsplit(b" ", 2)
        if len(parts) != 3 or not parts[2].isdigit() or not re.match(HEX_OID, parts[0]):
            if header.endswith((b" missing\n", b" ambiguous\n")):
                return None
            raise InputError("GIT_COMMAND_FAILED",
                             f"git cat-file stopped answering (got {header[:200]!r}).")
        size = int(parts[2])
        data = proc.stdout.read(size + 1)
        if len(data) != size + 1:
            raise InputError("GIT_COMMAND_FAILED", "git cat-file ended in the middle of an object.")
        return parts[1], data[:size]

    def close(self) -> None:
        proc = self._proc
        if proc is None:
            return
        self._proc = None
        import subprocess
        try:
            # answers still unread (a reader that stopped early) end git with a broken pipe
            # rather than leaving it blocked on a full one
            if proc.stdout is not None:
                proc.stdout.close()
            if proc.stdin is not None:
                proc.stdin.close()  # cat-file exits at end of input
            proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        finally:
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()


# How far git may write ahead of the reader: the most a pipe holds without privileges on
# Linux (fs.pipe-max-size); a spec's version is often more than the default 64 KB.
_PIPE_BYTES = 1 << 20


def _widen_pipe(stream: object) -> None:
    """Let git write up to `_PIPE_BYTES` ahead of us where the system allows it (Linux).

    With a 64 KB pipe, reading 200 versions of 130 KB took thousands of turns of git
    writing and us reading, and on a loaded machine each turn waited for the scheduler:
    most of `verify`'s wall time (issue 37, goal 5). Elsewhere, or when refused, the pipe
    stays as it was."""
    try:
        import fcntl

        fileno = getattr(stream, "fileno", None)
        setsize = getattr(fcntl, "F_SETPIPE_SZ", None)
        if fileno is not None and setsize is not None:
            fcntl.fcntl(fileno(), setsize, _PIPE_BYTES)
    except (ImportError, OSError):
        pass


def _path_log(repo: Repo, rel: str, rev_range: str | None, first_parent: bool,
              parents: dict[str, list[str]] | None = None) -> list[tuple[str, bytes | None]]:
    """(commit, new blob id or None when deleted) per commit touching `rel`, oldest first and
    parents before children; `parents` gets each one's parents among them (git's parent
    rewriting: the nearest commits that touched `rel`)."""
    args = [*LOG_CONFIG, "log", "-z", "-m", "--format=%H %P", "--parents", "--topo-order",
            "--raw", "--no-abbrev", "--no-renames", "--reverse"]
    if first_parent:
        args.append("--first-parent")
    status, out, err = run_git(repo, *args, rev_range or "HEAD", "--", literal_pathspec(rel))
    if status != 0:
        if rev_range is None and head_sha(repo) is None:
            return []  # unborn branch: no history yet
        raise InputError("BAD_REVISION", f"cannot read the history of {rel}: {err.strip()}")
    want = os.fsencode(rel)
    entries: list[tuple[str, bytes | None]] = []
    sha = ""
    tokens = out.split(b"\x00")
    i = 0
    while i < len(tokens):
        token = tokens[i].lstrip(b"\n")
        if token.startswith(b":"):
            path = tokens[i + 1] if i + 1 < len(tokens) else b""
            i += 2
            # `-m` repeats a merge once per parent; its new blob is the same each time.
            if path == want and not (entries and entries[-1][0] == sha):
                meta = token.split(b" ")  # :old_mode new_mode old_oid new_oid status
                oid = meta[3] if len(meta) > 4 else b""
                gitlink = meta[1] == b"160000" if len(meta) > 1 else False
                blob = None if oid in NULL_OIDS or gitlink else oid
                entries.append((sha, blob))
            continue
        if token:
            sha, *before = token.decode("ascii").split()
            if parents is not None:
                parents.setdefault(sha, before)
        i += 1
    return entries


def iter_file_history(repo_root: str, rel_path: str, rev_range: str | None = None, *,
                      first_parent: bool = False, parents: dict[str, list[str]] | None = None,
                      ) -> Generator[tuple[str, bytes], None, None]:
    """Like `file_history`, yielding one version at a time (close it if you stop early).
    `parents`, when given, is filled with each version's parents before the first yield."""
    rel = repo_path(repo_root, rel_path)
    if rev_range is not None and bad_rev(rev_range):
        raise InputError("BAD_REVISION", f"{rev_range!r} is not a revision range.")
    return _iter_history(repo_root, rel, rev_range, first_parent, parents)


def _iter_history(repo_root: str, rel: str, rev_range: str | None, first_parent: bool,
                  parents: dict[str, list[str]] | None = None,
                  ) -> Generator[tuple[str, bytes], None, None]:
    with open_repo(repo_root) as repo:
        entries = _path_log(repo, rel, rev_range, first_parent, parents)
        if not entries:
            return
        reader = _BlobReader(repo)
        try:
            answers = reader.read_all([blob for _, blob in entries])
            for (sha, blob), found in zip(entries, answers, strict=True):
                if blob is None:
                    yield sha, b""
                    continue
                if found is None:
                    raise InputError(
                        "GIT_OBJECT_MISSING",
                        f"the version of {rel} at {sha} is not in this clone (blob "
                        f"{blob.decode('ascii')}); fetch the full history and try again.")
                yield sha, found[1]
        finally:
            reader.close()


def file_history(repo_root: str, rel_path: str, rev_range: str | None = None, *,
                 first_parent: bool = False) -> list[tuple[str, bytes]]:
    """(commit sha, file bytes or b"" when deleted) per commit touching the file, oldest first."""
    return list(iter_file_history(repo_root, rel_path, rev_range, first_parent=first_parent))


def blobs_at(repo_root: str, wanted: list[tuple[str, str]]) -> list[bytes | None]:
    """`blob_at` for many (rev, path) pairs through one `git cat-file` process."""
    names = []
    for rev, rel_path in wanted:
        rel = repo_path(repo_root, rel_path)
        # A path with a newline cannot be named to `git cat-file --batch`: it reads as None.
        names.append(None if bad_rev(rev) or "\n" in rel or "\n" in rev
                     else f"{rev}:{rel}".encode("utf-8", "surrogateescape"))
    with open_repo(repo_root) as repo:
        if not any(names):
            return [None] * len(names)
        reader = _BlobReader(repo)
        try:
            return [found[1] if found is not None and found[0] == b"blob" else None
                    for found in reader.read_all(names)]
        finally:
            reader.close()


def blob_at(repo_root: str, rev: str, rel_path: str) -> bytes | None:
    """The file's bytes as stored at `rev` (no eol/smudge filters), or None if absent."""
    return blobs_at(repo_root, [(rev, rel_path)])[0]


def tracked_files(repo_root: str) -> list[str]:
    """Repo-relative POSIX paths of every file in the index (what `git ls-files` lists)."""
    with open_repo(repo_root) as repo:
        out = check_git(repo, "ls-files", "-z")
    return [os.fsdecode(p) for p in out.split(b"\x00") if p]


def _file_in(repo_root: str, path: str) -> tuple[Repo, str] | None:
    """The repository and `path` within it, or None when either is not usable."""
    root = os.path.abspath(repo_root)
    try:
        return open_repo(root), repo_path(root, path)
    except InputError:
        return None


def ignored(repo_root: str, path: str) -> bool:
    """Whether git ignores `path` (it need not exist), so `git add` of it would fail."""
    found = _file_in(repo_root, path)
    if found is None:
        return False
    status, _, _ = run_git(found[0], "check-ignore", "-q", "--", found[1])  # tracked: never
    return status == 0


def committed_as_is(repo_root: str, path: str) -> bool:
    """True when git tracks `path` and it holds exactly what is committed (history is then
    its backup)."""
    found = _file_in(repo_root, path)
    if found is None:
        return False
    repo, rel = found
    listed, _, _ = run_git(repo, "ls-files", "--error-unmatch", "--", rel)
    status, out, _ = run_git(repo, "status", "--porcelain", "--", rel)
    return listed == 0 and status == 0 and not out.strip()


def verify_commit(repo_root: str, sha: str) -> tuple[bool, str]:
    """(signed with a key git trusts, git's word) for one commit (`git verify-commit`)."""
    with open_repo(repo_root) as repo:
        status, _, err = run_git(repo, "verify-commit", "--", sha)
    return status == 0, err.strip().splitlines()[-1] if err.strip() else "no signature"
