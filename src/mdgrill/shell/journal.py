"""The reply journal: what the user said, as the agent host's hooks captured it.

`hook userpromptsubmit` and `hook posttooluse` (AskUserQuestion) append one JSON line per
reply to `<git common dir>/mdgrill/replies.jsonl` (one journal for every worktree of the
repository: a reply given in one checkout holds in all), each with what awaited the user's
word in each spec at that moment (`core.evidence.pending_records`) and a question tool's
answers each with its question; so does the MCP server for the approval it asked the user
itself (an elicitation). When the journal exists, an approval must be the user's answer to
that approval question while that brief was shown (`services/evidence.py`): the agent's word
for it is not enough. What this proves, and what not: the hooks run outside the model, so an agent
cannot record an approval by mistake or by paraphrase; an agent with a shell can still write
the file, which is why the approval block and commit carry the reply's sha256, and a reviewer
or `verify` can hold them to the journal.
"""

from __future__ import annotations

import json
import os

from mdgrill.formats.progress import Block
from mdgrill.git.discovery import git_dirs
from mdgrill.shell.store import write_all

JOURNAL = os.path.join("mdgrill", "replies.jsonl")


def path_of(root: str) -> str | None:
    """The journal of the repository at `root`: under git's common dir, shared by every
    worktree (a linked worktree's own git dir would hold a journal no other checkout sees, so
    a `Cancel` said in the main checkout would not stop an approval in the worktree)."""
    dirs = git_dirs(root)
    return None if dirs is None else os.path.join(dirs[1], JOURNAL)


def append(root: str, source: str, text: str, session: str | None = None,
           answers: list[tuple[str, str]] | None = None) -> None:
    """Append the user's reply, its sha256 and what awaited their word in each spec (the
    interviews collecting or awaiting confirmation, with the brief shown; the artifact
    awaiting approval) to the journal under the repository's git folder, outside the work
    tree the agent edits. `answers`: a question tool's (question, answer) pairs, kept apart
    so an answer is matched to the question it answers. Outside a repository nothing is
    kept."""
    from datetime import datetime, timezone
    from hashlib import sha256

    from mdgrill.core.evidence import pending_records
    from mdgrill.errors import MdgrillError
    from mdgrill.shell import store
    from mdgrill.shell.session import load

    path = path_of(root)
    if path is None:
        return
    pending: list[dict[str, object]] = []
    for spec_folder in store.find_specs(root):  # every spec: a cap left the 21st unapprovable
        try:
            prog = load(store.Spec(spec_folder, root), check=False)
        except MdgrillError:
            continue
        pending.extend(pending_records(store.relpath_posix(spec_folder, root), prog))
    entry: dict[str, object] = {
        "at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "source": source,
        "session": session, "text": text,
        "sha256": sha256(text.encode("utf-8", "surrogatepass")).hexdigest(),
        "pending": pending}
    if answers is not None:
        entry["answers"] = [[question, answer] for question, answer in answers]
    try:
        line = json.dumps(entry, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (JSON's `\ud800`): kept as the escape
        line = json.dumps(entry).encode("ascii")
    _append_line(path, line + b"\n")


def _append_line(path: str, line: bytes) -> None:
    """Append one line whole or not at all: a write that fails (a full disk) cuts the file back
    to what it was, and removes it when this call created it, since an empty journal that
    exists would make every approval need a reply it never kept."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o644)
        created = True
    except FileExistsError:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        created = False
    size = os.fstat(fd).st_size
    try:
        write_all(fd, line)
    except BaseException:
        os.ftruncate(fd, size)
        os.close(fd)
        if created:
            os.unlink(path)
        raise
    os.close(fd)


def entries(root: str) -> list[dict[str, object]] | None:
    """The journal's entries, oldest first; None when the repository keeps none."""
    path = path_of(root)
    if path is None or not os.path.isfile(path):
        return None
    out: list[dict[str, object]] = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line of a killed hook: the others stand
            if isinstance(entry, dict) and isinstance(entry.get("text"), str):
                out.append(entry)
    return out


def reply_words(entry: dict[str, object]) -> str:
    """The user's own words of an entry: a prompt as typed; for a question tool's answers,
    the answer (`question: answer` lines keep their answers)."""
    text = str(entry.get("text"))
    if entry.get("source") == "AskUserQuestion":
        answers = [line.rpartition(": ")[2] for line in text.splitlines() if ": " in line]
        return answers[-1] if answers else text
    return text


def unmatched_approvals(root: str, blocks: list[Block]) -> list[tuple[Block, str]]:
    """Confirmed blocks whose `Reply sha256` no reply of the journal has, when the repository
    keeps a journal (an approval it cannot vouch for)."""
    found = entries(root)
    if found is None:
        return []
    known = {str(e.get("sha256")) for e in found}
    out = []
    for block in blocks:
        sha = block.first("Reply sha256") if block.kind == "confirmed" else None
        if sha and sha not in known:
            out.append((block, sha))
    return out


def source_of(root: str, sha: str) -> str | None:
    """The `source` of the journal entry holding the reply `sha` (`MCPElicitation` for the
    MCP form, a hook event's name otherwise), or None when no entry holds it."""
    for entry in reversed(entries(root) or []):
        if entry.get("sha256") == sha:
            return str(entry.get("source"))
    return None
