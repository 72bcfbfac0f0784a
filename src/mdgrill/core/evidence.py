"""Which captured reply is the user's answer to an approval question (pure; issue 30).

The reply journal (`shell/journal.py`) keeps what the user said and, for each spec, which gate
awaited their word at that moment. A reply is evidence for one approval only when:

- it was captured while *that* brief awaited approval: the journal entry names the spec, the
  interview, the confirmation ID, the brief's place in the log and its approval scope (or, at
  the artifact gate, the artifact's gate ID and the block that presented it). A brief shown
  again after `revise` is a new block, so a reply to the earlier brief no longer binds;
- it answers the approval question itself: a question tool's answer counts only for the
  question that carries this approval's tag (and, for an interview, its approach), so a
  `Cancel` to the approval question is not outvoted by `Approve and delegate` given to another
  question of the same call; a typed prompt counts only when one gate alone awaited a reply;
- it is the user's last such answer, and it selects approval.

A reply confirmed once is spent: the Confirmed block follows the brief, and no later brief of
the same interview can carry the same place in the log.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from mdgrill.model.artifact import AWAITING, gate_id
from mdgrill.model.scope import SCOPE_KEY, brief_block

if TYPE_CHECKING:
    from collections.abc import Callable

    from mdgrill.formats.progress import Progress

AWAITING_CONFIRMATION = "awaiting_confirmation"
PROMPT_SOURCE = "UserPromptSubmit"
# the keys a pending record is matched on (every one must be equal)
INTERVIEW_KEYS = ("spec", "interview", "status", "confirmation", "brief", "scope")
ARTIFACT_KEYS = ("spec", "artifact", "status", "presented")


class Evidence(NamedTuple):
    """The user's own words that approved, and the journal entry's sha256."""

    words: str
    sha256: str


def approval_tag(spec: str, interview: str, confirmation: str) -> str:
    """What the interview's approval question carries so its answer can be told apart."""
    return f"(approval {confirmation} of interview {interview}, {spec})"


def artifact_tag(spec: str, gate: str) -> str:
    """What the artifact's approval question carries: its gate ID (`artifact:PATH@SHA12`)."""
    return f"(approval of {gate}, {spec})"


def interview_record(spec: str, prog: Progress, confirmation: str) -> dict[str, object] | None:
    """The pending record of the brief `confirmation` answers, or None (no such brief)."""
    iv = prog.data.get("interview")
    if not isinstance(iv, dict):
        return None
    found = brief_block(prog, str(iv.get("phase")), confirmation)
    if found is None:
        return None
    index, block = found
    return {"spec": spec, "interview": iv.get("id"), "status": AWAITING_CONFIRMATION,
            "confirmation": confirmation, "brief": index, "scope": block.first(SCOPE_KEY)}


def artifact_record(spec: str, prog: Progress) -> dict[str, object] | None:
    """The pending record of the artifact awaiting approval, or None."""
    art = prog.data.get("artifact")
    if not isinstance(art, dict) or art.get("status") != AWAITING:
        return None
    presented = max((i for i, b in enumerate(prog.blocks) if b.kind == "artifact_awaiting"),
                    default=-1)
    return {"spec": spec, "artifact": gate_id(art), "status": AWAITING,
            "presented": presented}


def pending_records(spec: str, prog: Progress) -> list[dict[str, object]]:
    """What in this spec awaits the user's word now, as the journal records it."""
    out: list[dict[str, object]] = []
    iv = prog.data.get("interview")
    if isinstance(iv, dict) and iv.get("status") == "collecting":
        out.append({"spec": spec, "interview": iv.get("id"), "status": "collecting"})
    elif isinstance(iv, dict) and iv.get("status") == AWAITING_CONFIRMATION:
        pending = iv.get("pending")
        cid = str(pending[0]) if isinstance(pending, list) and pending else ""
        record = interview_record(spec, prog, cid)
        out.append(record if record is not None else
                   {"spec": spec, "interview": iv.get("id"), "status": AWAITING_CONFIRMATION})
    art = artifact_record(spec, prog)
    if art is not None:
        out.append(art)
    return out


def _bound(entry: dict[str, object], want: dict[str, object], keys: tuple[str, ...]) -> bool:
    pending = entry.get("pending")
    return isinstance(pending, list) and any(
        isinstance(p, dict) and all(p.get(k) == want.get(k) for k in keys) for p in pending)


def _gates_awaiting(entry: dict[str, object]) -> int:
    pending = entry.get("pending")
    return sum(1 for p in pending if isinstance(p, dict) and p.get("status") in
               (AWAITING_CONFIRMATION, AWAITING)) if isinstance(pending, list) else 0


def approach_shown(approach: str, tag: str) -> tuple[str, ...]:
    """How the approval question shows exactly this approach (`askround.approval_question`):
    followed by the decisions it rests on, or by the tag."""
    return (f"The approach: {approach} — resting on: ", f"The approach: {approach} {tag}")


def answer_to(entry: dict[str, object], tag: str, shown: tuple[str, ...] = ()) -> str | None:
    """The entry's answer to the question carrying `tag` (and one of `shown`), or None when
    it answers another question. A typed prompt answers the one gate that awaited a reply."""
    answers = entry.get("answers")
    if isinstance(answers, list):
        found = [str(pair[1]) for pair in answers
                 if isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)
                 and tag in pair[0] and (not shown or any(s in pair[0] for s in shown))]
        return found[-1] if found else None
    if entry.get("source") == PROMPT_SOURCE and _gates_awaiting(entry) == 1:
        return str(entry.get("text"))
    return None


def find_evidence(entries: list[dict[str, object]], want: dict[str, object],
                  keys: tuple[str, ...], tag: str, approves: Callable[[str], bool] | None,
                  shown: tuple[str, ...] = ()) -> Evidence | str:
    """The user's last answer to the approval `want` describes, or why there is none (a
    sentence). With `approves`, an answer it rejects is a refusal too; without, the caller
    judges the words (`confirm` refuses a `Cancel` as not explicit, as for a typed one)."""
    last: tuple[str, dict[str, object]] | None = None
    for entry in entries:
        if not _bound(entry, want, keys):
            continue
        words = answer_to(entry, tag, shown)
        if words is not None:
            last = (words, entry)
    if last is None:
        return "no answer of the user to this approval question was captured while it was " \
               "asked (a reply to another question, or to an earlier brief, does not count)"
    words, entry = last
    if approves is not None and not approves(words):
        return f"the user's last answer to this approval question was `{words}`, which does " \
               "not approve"
    return Evidence(words, str(entry.get("sha256")))


__all__ = ["ARTIFACT_KEYS", "INTERVIEW_KEYS", "Evidence", "answer_to", "approach_shown",
           "approval_tag",
           "artifact_record", "artifact_tag", "find_evidence", "interview_record",
           "pending_records"]
