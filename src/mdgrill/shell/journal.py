"""The reply journal: what the user said, as the agent host's hooks captured it.

`hook userpromptsubmit` and `hook posttooluse` (AskUserQuestion) append one JSON line per
reply to `<git dir>/mdgrill/replies.jsonl`, each with the interviews under way at that moment.
When the journal exists, an approval must be one of those replies: the agent's word for it
is not enough. What this proves, and what not: the hooks run outside the model, so an agent
cannot record an approval by mistake or by paraphrase; an agent with a shell can still write
the file, which is why the approval block and commit carry the reply's sha256, and a reviewer
or `verify` can hold them to the journal.
"""

from __future__ import annotations

import json
import os

from mdgrill.formats.progress import Block
from mdgrill.git.discovery import git_dir

JOURNAL = os.path.join("mdgrill", "replies.jsonl")


def path_of(root: str) -> str | None:
    folder = git_dir(root)
    return None if folder is None else os.path.join(folder, JOURNAL)


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


def last_reply_while_awaiting(root: str, spec_rel: str,
                              interview: str) -> dict[str, object] | None:
    """The last reply captured while this interview awaited confirmation, or None."""
    found = entries(root) or []
    for entry in reversed(found):
        pending = entry.get("pending")
        if isinstance(pending, list) and any(
                isinstance(p, dict) and p.get("spec") == spec_rel
                and p.get("interview") == interview and p.get("status") == "awaiting_confirmation"
                for p in pending):
            return entry
    return None


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
