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

import os
import re
from typing import TYPE_CHECKING

from mdgrill.errors import GateRefusal, InputError
from mdgrill.git.discovery import git_dirs, repo_root

if TYPE_CHECKING:
    import subprocess
    from collections.abc import Generator, Iterable
    from typing import TypedDict

    class HeadState(TypedDict):
        branch: str | None
        detached: bool
        unborn: bool
        shallow: bool
        head: str | None

__all__ = [
    "TRAILER_ARTIFACT_SHA256", "TRAILER_CONTEXT_DIGEST", "TRAILER_INTERVIEW", "TRAILER_PHASE",
    "TRAILER_BY", "TRAILER_ROUND", "TRAILER_SPEC", "TRAILER_TRANSITION", "CommitResult",
    "TransitionCommit",
    "TransitionList", "all_transitions", "approval_commits", "blob_at", "changed_files",
    "blobs_at", "commit_paths", "escape_value", "file_history", "find_repo_root",
    "format_message", "head_state", "is_ancestor", "iter_file_history",
    "merge_base_with_default", "parse_trailers", "rev_parse", "tracked_files",
    "unescape_value",
]

TRAILER_SPEC = "Mdgrill-Spec"
TRAILER_PHASE = "Mdgrill-Phase"
TRAILER_INTERVIEW = "Mdgrill-Interview"
TRAILER_TRANSITION = "Mdgrill-Transition"
TRAILER_CONTEXT_DIGEST = "Mdgrill-Context-Digest"
TRAILER_ARTIFACT_SHA256 = "Mdgrill-Artifact-Sha256"
TRAILER_ROUND = "Mdgrill-Round"
TRAILER_BY = "Mdgrill-By"  # who gave the approval (the commit's author, where git allows)

_COMMIT_HOOKS = ("pre-commit", "prepare-commit-msg", "commit-msg")
# Config that would change what our log parsing sees (gpg output, --follow on one path).
_LOG_CONFIG = ("-c", "log.showSignature=false", "-c", "log.follow=false")
_NULL_OIDS = frozenset((b"0" * 40, b"0" * 64))

# --------------------------------------------------------------------------- trailers

# Escaped in trailer values: `%` itself, C0/DEL/C1 controls (newline, CR, NEL, ...), the
# Unicode line and paragraph separators, bidi overrides, and lone surrogates.
# Patterns are strings compiled on first use (re caches them): importing stays cheap.
_UNSAFE_CHAR = "[%\x00-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
_EDGE_SPACES = "^ +| +$"
_PERCENT = rb"%([0-9A-Fa-f]{2})"
_SUBJECT_JUNK = "[\\s\x00-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069]+"
_TRAILER_KEY = r"[A-Za-z0-9][A-Za-z0-9-]*\Z"
_TRAILER_LINE = r"([A-Za-z0-9][A-Za-z0-9-]*):[ \t]*(.*?)[ \t]*\Z"
_HEX_OID = rb"(?:[0-9a-f]{40}|[0-9a-f]{64})\Z"
_RECORD_START = rb"(?:[0-9a-f]{40}|[0-9a-f]{64})\x00"


def _percent(match: re.Match[str]) -> str:
    return "".join(f"%{b:02X}" for b in match.group().encode("utf-8", "surrogatepass"))


def escape_value(value: str) -> str:
    """Percent-encode a trailer value so it is one line that cannot forge another trailer."""
    escaped = re.sub(_UNSAFE_CHAR, _percent, value)
    # Leading/trailing blanks would be eaten by git's message cleanup.
    return re.sub(_EDGE_SPACES, lambda m: "%20" * len(m.group()), escaped)


def unescape_value(text: str) -> str:
    """Reverse `escape_value` (a `%` not followed by two hex digits stays as it is)."""
    if "%" not in text:
        return text
    raw = re.sub(_PERCENT, lambda m: bytes((int(m.group(1), 16),)),
                 text.encode("utf-8", "surrogatepass"))
    try:
        return raw.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace")


def _clean_subject(subject: str) -> str:
    subject = re.sub(_SUBJECT_JUNK, " ", subject).strip()
    return subject.encode("utf-8", "replace").decode("utf-8")  # lone surrogates -> "?"


def format_message(subject: str, trailers: list[tuple[str, str]]) -> str:
    """A commit message: one-line subject, blank line, `Key: escaped-value` trailer lines."""
    clean = _clean_subject(subject)
    if not clean:
        raise ValueError("a commit subject must not be empty")
    lines = [clean]
    if trailers:
        lines.append("")
    for key, value in trailers:
        if not re.match(_TRAILER_KEY, key):
            raise ValueError(f"invalid trailer key {key!r}: use letters, digits and '-'")
        lines.append(f"{key}: {escape_value(value)}".rstrip(" "))
    return "\n".join(lines) + "\n"


def parse_trailers(message: str) -> dict[str, str]:
    """Decoded trailers of the message's last paragraph (never the subject); first key wins."""
    paragraphs: list[list[str]] = []
    current: list[str] = []
    for line in message.split("\n"):
        line = line.rstrip("\r")
        if line.strip():
            current.append(line)
        elif current:
            paragraphs.append(current)
            current = []
    if current:
        paragraphs.append(current)
    result: dict[str, str] = {}
    if len(paragraphs) < 2:
        return result
    for line in paragraphs[-1]:
        match = re.match(_TRAILER_LINE, line)
        if match and match.group(1) not in result:
            result[match.group(1)] = unescape_value(match.group(2))
    return result


# --------------------------------------------------------------------------- results

class CommitResult:
    """A commit made by `commit_paths`."""

    __slots__ = ("sha", "parent", "branch", "paths")

    def __init__(self, sha: str, parent: str | None, branch: str, paths: list[str]) -> None:
        self.sha = sha
        self.parent = parent
        self.branch = branch
        self.paths = paths

    def to_json(self) -> dict[str, object]:
        return {"sha": self.sha, "parent": self.parent, "branch": self.branch,
                "paths": list(self.paths)}

    def __repr__(self) -> str:
        return f"CommitResult(sha={self.sha!r}, branch={self.branch!r}, paths={self.paths!r})"


class TransitionCommit:
    """A commit whose trailers record an mdgrill transition."""

    __slots__ = ("sha", "date", "author", "email", "subject", "trailers")

    def __init__(self, sha: str, date: str, author: str, email: str, subject: str,
                 trailers: dict[str, str]) -> None:
        self.sha = sha
        self.date = date  # author date, strict ISO 8601
        self.author = author
        self.email = email
        self.subject = subject
        self.trailers = trailers

    def to_json(self) -> dict[str, object]:
        return {"sha": self.sha, "date": self.date, "author": self.author,
                "email": self.email, "subject": self.subject, "trailers": dict(self.trailers)}

    def __repr__(self) -> str:
        return f"TransitionCommit(sha={self.sha!r}, subject={self.subject!r})"


class TransitionList(list["TransitionCommit"]):
    """Transition commits, newest first; `shallow` says the history read was cut short."""

    __slots__ = ("shallow",)

    def __init__(self, items: Iterable[TransitionCommit] = (), shallow: bool = False) -> None:
        super().__init__(items)
        self.shallow = shallow


# --------------------------------------------------------------------------- repository

def find_repo_root(path: str) -> str | None:
    """The root of the git work tree that contains `path` (need not exist), or None."""
    return repo_root(path)


def _not_a_repository(root: str) -> InputError:
    return InputError(
        "NOT_A_REPOSITORY",
        f"{root} is not the root of a git work tree: run `git init` there, or pass the "
        "folder that holds `.git`.", path=root)


def _git_dirs(root: str) -> tuple[str, str]:
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


def _open(repo_root: str) -> Repo:
    """The work tree at `repo_root`, whose git processes see only this repo."""
    root = os.path.abspath(repo_root)
    git_dir, common_dir = _git_dirs(root)
    env = dict(os.environ)
    env.update(_env_pins(root, git_dir, common_dir))
    # git's messages are parsed here and hooks must never wait for a terminal
    env.update({"LC_ALL": "C", "LANGUAGE": "C", "GIT_TERMINAL_PROMPT": "0"})
    return Repo(root, env)


def _exe() -> str:
    return os.environ.get("GIT_PYTHON_GIT_EXECUTABLE") or "git"


def _run(repo: Repo, *args: str) -> tuple[int, bytes, str]:
    """Run `git args...` in the repo: (exit status, raw stdout, stderr); never raises."""
    import subprocess

    try:
        proc = subprocess.run([_exe(), *args], cwd=repo.root, env=repo.env,
                              stdin=subprocess.DEVNULL, capture_output=True, check=False)
    except OSError as exc:
        raise InputError("GIT_NOT_AVAILABLE",
                         f"git cannot be run ({exc.strerror}): install git or fix PATH.") from exc
    return proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace")


def _check(repo: Repo, *args: str) -> bytes:
    """Run git and return stdout; a failure is an InputError carrying git's message."""
    status, out, err = _run(repo, *args)
    if status != 0:
        raise InputError("GIT_COMMAND_FAILED",
                         f"`git {' '.join(args)}` failed "
                         f"(exit {status}): {err.strip() or 'no message'}")
    return out


def _head_sha(repo: Repo) -> str | None:
    status, out, _ = _run(repo, "rev-parse", "-q", "--verify", "HEAD^{commit}")
    return out.decode("ascii").strip() if status == 0 else None


def _head(repo: Repo) -> tuple[str | None, str | None]:
    """(branch short name or None when detached, HEAD commit sha or None when unborn)."""
    status, out, err = _run(repo, "symbolic-ref", "-q", "HEAD")
    if status not in (0, 1):
        raise InputError("GIT_COMMAND_FAILED", f"git cannot read HEAD: {err.strip()}")
    ref = out.decode("utf-8", "surrogateescape").strip() if status == 0 else None
    branch = ref[len("refs/heads/"):] if ref and ref.startswith("refs/heads/") else ref
    return branch, _head_sha(repo)


def _shallow(repo_root: str) -> bool:
    return os.path.isfile(os.path.join(_git_dirs(os.path.abspath(repo_root))[1], "shallow"))


def head_state(repo_root: str) -> HeadState:
    """Branch (None when detached), detached/unborn/shallow flags and the HEAD sha."""
    with _open(repo_root) as repo:
        branch, head = _head(repo)
    return {"branch": branch, "detached": branch is None, "unborn": head is None,
            "shallow": _shallow(repo_root), "head": head}


def _bad_rev(rev: str) -> bool:
    # A revision starting with '-' would be read as an option.
    return not rev or rev.startswith("-") or "\n" in rev or "\x00" in rev


def rev_parse(repo_root: str, rev: str) -> str | None:
    """The full sha of the commit `rev` names, or None if it names no commit."""
    if _bad_rev(rev):
        return None
    with _open(repo_root) as repo:
        status, out, _ = _run(repo, "rev-parse", "-q", "--verify", f"{rev}^{{commit}}")
    return out.decode("ascii").strip() if status == 0 else None


def is_ancestor(repo_root: str, sha: str, of: str = "HEAD") -> bool:
    """True when commit `sha` is in the history of `of` (False when either is unknown)."""
    if _bad_rev(sha) or _bad_rev(of):
        return False
    with _open(repo_root) as repo:
        status, _, _ = _run(repo, "merge-base", "--is-ancestor", sha, of)
    return status == 0


def merge_base_with_default(repo_root: str) -> str | None:
    """Merge base of HEAD with origin/HEAD, else main, else master; None if there is none."""
    candidates = ("refs/remotes/origin/HEAD", "refs/heads/main", "refs/remotes/origin/main",
                  "refs/heads/master", "refs/remotes/origin/master")
    with _open(repo_root) as repo:
        out = _check(repo, "for-each-ref", "--format=%(refname)", *candidates)
        existing = set(out.decode("utf-8", "surrogateescape").split("\n"))
        for ref in candidates:
            if ref not in existing:
                continue
            status, base, _ = _run(repo, "merge-base", "HEAD", ref)
            if status == 0:
                return base.decode("ascii").strip()
    return None


def changed_files(repo_root: str, rev_a: str, rev_b: str) -> list[str]:
    """Repo-relative POSIX paths whose content differs between the trees of two revisions."""
    for rev in (rev_a, rev_b):
        if _bad_rev(rev):
            raise InputError("BAD_REVISION", f"{rev!r} is not a revision name.")
    with _open(repo_root) as repo:
        status, out, err = _run(repo, "diff", "--name-only", "-z", "--no-renames",
                                "--no-ext-diff", rev_a, rev_b, "--")
    if status != 0:
        raise InputError("BAD_REVISION",
                         f"cannot compare {rev_a} and {rev_b}: {err.strip()}; "
                         "name two existing revisions.")
    return [os.fsdecode(p) for p in out.split(b"\x00") if p]


# --------------------------------------------------------------------------- paths

def _repo_path(root: str, path: str) -> str:
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


def _literal(rel: str) -> str:
    # Pathspec magic would make `*.md` or `:x` match other files; this is local to the
    # argument (GIT_LITERAL_PATHSPECS would leak into hooks, which may rely on globs).
    return ":(literal)" + rel


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


# --------------------------------------------------------------------------- history

_LOG_FORMAT = "--format=%x1e%H%x00%aI%x00%an%x00%ae%x00%B"


def _log_records(out: bytes) -> list[list[bytes]]:
    """Split `_LOG_FORMAT` output into [sha, date, name, email, body] records."""
    records: list[bytes] = []
    for chunk in out.split(b"\x1e")[1:]:
        # A record separator inside a foreign commit's message belongs to that message.
        if records and not re.match(_RECORD_START, chunk):
            records[-1] += b"\x1e" + chunk
        else:
            records.append(chunk)
    return [r.split(b"\x00", 4) for r in records if r.count(b"\x00") >= 4]


def _transitions(repo_root: str, spec: str | None, rev: str) -> TransitionList:
    if _bad_rev(rev):
        raise InputError("BAD_REVISION", f"{rev!r} is not a revision name.")
    greps = ["--fixed-strings", f"--grep={TRAILER_TRANSITION}:"]
    if spec is not None:
        greps += ["--all-match", f"--grep={TRAILER_SPEC}: {escape_value(spec)}"]
    with _open(repo_root) as repo:
        status, out, err = _run(repo, *_LOG_CONFIG, "log", "--encoding=UTF-8", "--no-color",
                                _LOG_FORMAT, *greps, rev, "--")
        if status != 0:
            if rev == "HEAD" and _head_sha(repo) is None:
                return TransitionList([], _shallow(repo_root))  # unborn: no commits yet
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
    return TransitionList(commits, _shallow(repo_root))


def _norm_spec(spec: str) -> str:
    return spec.replace("\\", "/").strip("/")


def approval_commits(repo_root: str, spec_rel: str, rev: str = "HEAD") -> TransitionList:
    """Transition commits for the spec folder `spec_rel` reachable from `rev`, newest first."""
    return _transitions(repo_root, _norm_spec(spec_rel), rev)


def all_transitions(repo_root: str, rev: str = "HEAD") -> TransitionList:
    """Transition commits of every spec reachable from `rev`, newest first."""
    return _transitions(repo_root, None, rev)


class _BlobReader:
    """One `git cat-file --batch` process, asked one object at a time (no pipe deadlock)."""

    __slots__ = ("_proc",)

    def __init__(self, repo: Repo) -> None:
        import subprocess

        try:
            self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                [_exe(), "cat-file", "--batch"], cwd=repo.root, env=repo.env,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError as exc:
            raise InputError("GIT_NOT_AVAILABLE",
                             f"git cannot be run ({exc.strerror}): install git or fix PATH."
                             ) from exc

    def read(self, name: bytes) -> tuple[bytes, bytes] | None:
        """(object type, content) of `name` (an oid or `rev:path`), None if it is missing."""
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(name + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline()
        parts = header.rstrip(b"\n").rsplit(b" ", 2)
        if len(parts) != 3 or not parts[2].isdigit() or not re.match(_HEX_OID, parts[0]):
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


def _path_log(repo: Repo, rel: str, rev_range: str | None,
              first_parent: bool) -> list[tuple[str, bytes | None]]:
    """(commit, new blob id or None when deleted) per commit touching `rel`, oldest first."""
    args = [*_LOG_CONFIG, "log", "-z", "-m", "--format=%H", "--raw", "--no-abbrev",
            "--no-renames", "--reverse"]
    if first_parent:
        args.append("--first-parent")
    status, out, err = _run(repo, *args, rev_range or "HEAD", "--", _literal(rel))
    if status != 0:
        if rev_range is None and _head_sha(repo) is None:
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
                blob = None if oid in _NULL_OIDS or gitlink else oid
                entries.append((sha, blob))
            continue
        if token:
            sha = token.decode("ascii")
        i += 1
    return entries


def iter_file_history(repo_root: str, rel_path: str, rev_range: str | None = None, *,
                      first_parent: bool = False) -> Generator[tuple[str, bytes], None, None]:
    """Like `file_history`, yielding one version at a time (close it if you stop early)."""
    rel = _repo_path(repo_root, rel_path)
    if rev_range is not None and _bad_rev(rev_range):
        raise InputError("BAD_REVISION", f"{rev_range!r} is not a revision range.")
    return _iter_history(repo_root, rel, rev_range, first_parent)


def _iter_history(repo_root: str, rel: str, rev_range: str | None,
                  first_parent: bool) -> Generator[tuple[str, bytes], None, None]:
    with _open(repo_root) as repo:
        entries = _path_log(repo, rel, rev_range, first_parent)
        if not entries:
            return
        reader = _BlobReader(repo)
        try:
            for sha, blob in entries:
                if blob is None:
                    yield sha, b""
                    continue
                found = reader.read(blob)
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
        rel = _repo_path(repo_root, rel_path)
        # A path with a newline cannot be named to `git cat-file --batch`: it reads as None.
        names.append(None if _bad_rev(rev) or "\n" in rel or "\n" in rev
                     else f"{rev}:{rel}".encode("utf-8", "surrogateescape"))
    results: list[bytes | None] = []
    with _open(repo_root) as repo:
        reader = _BlobReader(repo)
        try:
            for name in names:
                found = reader.read(name) if name is not None else None
                results.append(found[1] if found is not None and found[0] == b"blob" else None)
        finally:
            reader.close()
    return results


def blob_at(repo_root: str, rev: str, rel_path: str) -> bytes | None:
    """The file's bytes as stored at `rev` (no eol/smudge filters), or None if absent."""
    return blobs_at(repo_root, [(rev, rel_path)])[0]


def tracked_files(repo_root: str) -> list[str]:
    """Repo-relative POSIX paths of every file in the index (what `git ls-files` lists)."""
    with _open(repo_root) as repo:
        out = _check(repo, "ls-files", "-z")
    return [os.fsdecode(p) for p in out.split(b"\x00") if p]


def ignored(repo_root: str, path: str) -> bool:
    """Whether git ignores `path` (it need not exist), so `git add` of it would fail."""
    root = os.path.abspath(repo_root)
    try:
        repo = _open(root)
        rel = _repo_path(root, path)
    except InputError:
        return False
    status, _, _ = _run(repo, "check-ignore", "-q", "--", rel)  # a tracked file never is
    return status == 0

