"""Commit messages and what they record: the `Mdgrill-*` trailers (escaped so that no value
breaks a line), and the transition commits read back."""

from __future__ import annotations

import re

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


TRAILER_SPEC = "Mdgrill-Spec"
TRAILER_PHASE = "Mdgrill-Phase"
TRAILER_INTERVIEW = "Mdgrill-Interview"
TRAILER_TRANSITION = "Mdgrill-Transition"
TRAILER_CONTEXT_DIGEST = "Mdgrill-Context-Digest"
TRAILER_ARTIFACT_SHA256 = "Mdgrill-Artifact-Sha256"
TRAILER_ROUND = "Mdgrill-Round"
TRAILER_BY = "Mdgrill-By"  # who gave the approval (the commit's author, where git allows)

COMMIT_HOOKS = ("pre-commit", "prepare-commit-msg", "commit-msg")
# Config that would change what our log parsing sees (gpg output, --follow on one path).
LOG_CONFIG = ("-c", "log.showSignature=false", "-c", "log.follow=false")
NULL_OIDS = frozenset((b"0" * 40, b"0" * 64))

# --------------------------------------------------------------------------- trailers

# Escaped in trailer values: `%` itself, C0/DEL/C1 controls (newline, CR, NEL, ...), the
# Unicode line and paragraph separators, bidi overrides, and lone surrogates.
# Patterns are strings compiled on first use (re caches them): importing stays cheap.
_UNSAFE_CHAR = "[%\x00-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
_PERCENT = rb"%([0-9A-Fa-f]{2})"
_SUBJECT_JUNK = "[\\s\x00-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069]+"
_TRAILER_KEY = r"[A-Za-z0-9][A-Za-z0-9-]*\Z"
_TRAILER_HEAD = r"([A-Za-z0-9][A-Za-z0-9-]*):"  # the value is the rest, blanks stripped
HEX_OID = rb"(?:[0-9a-f]{40}|[0-9a-f]{64})\Z"
RECORD_START = rb"(?:[0-9a-f]{40}|[0-9a-f]{64})\x00"


def _percent(match: re.Match[str]) -> str:
    return "".join(f"%{b:02X}" for b in match.group().encode("utf-8", "surrogatepass"))


def escape_value(value: str) -> str:
    """Percent-encode a trailer value so it is one line that cannot forge another trailer."""
    escaped = re.sub(_UNSAFE_CHAR, _percent, value)
    # Leading/trailing blanks would be eaten by git's message cleanup.
    body = escaped.strip(" ")  # edge spaces as %20, by hand (`^ +| +$` restarts at each)
    if not body:
        return "%20" * len(escaped)
    lead = len(escaped) - len(escaped.lstrip(" "))
    return "%20" * lead + body + "%20" * (len(escaped) - lead - len(body))


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
        match = re.match(_TRAILER_HEAD, line)
        value = line[match.end():] if match else "\n"
        if match and "\n" not in value and match.group(1) not in result:
            result[match.group(1)] = unescape_value(value.strip(" \t"))
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
