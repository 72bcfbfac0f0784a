"""Approval evidence: the user's own captured answer to this approval question (issue 30).

Where the repository keeps a reply journal (or `.mdgrill.yaml` says `approval: evidence`),
`confirm`, the commit it retries, and `approve-artifact` each need the reply the hooks
captured as the user's answer to *their* question, given while *that* brief or artifact was
shown (`core/evidence.py` says which reply that is); the agent's word for it is not enough.
Without a journal, an approval rests on `--reply` as before.
"""

from __future__ import annotations

from mdgrill.core import evidence
from mdgrill.errors import GateRefusal
from mdgrill.shell import journal, store
from mdgrill.shell.session import spec_hint

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from mdgrill.formats.progress import Progress

NOT_EVIDENCED = "APPROVAL_NOT_EVIDENCED"


def journal_entries(spec: store.Spec) -> list[dict[str, object]] | None:
    """The journal's entries when an approval needs evidence here, else None."""
    from mdgrill.shell.project import requires_evidence

    found = journal.entries(spec.root)
    if found is None and not requires_evidence(spec.root):
        return None
    return found or []


def interview_evidence(spec: store.Spec, prog: Progress, confirmation: str,
                       entries: list[dict[str, object]]) -> evidence.Evidence:
    """The user's captured answer to the brief `confirmation` answers (`confirm` then holds
    it to the explicit selection), or a refusal when there is none."""
    iv = prog.data.get("interview")
    interview = str(iv.get("id")) if isinstance(iv, dict) else ""
    want = evidence.interview_record(spec.rel_folder, prog, confirmation)
    tag = evidence.approval_tag(spec.rel_folder, interview, confirmation)
    found: evidence.Evidence | str = "no brief for this confirmation ID was shown"
    if want is not None:
        # the approach as `ask` shows it (the record's; the scope check holds it to the brief)
        approach = str(iv.get("approach") or "") if isinstance(iv, dict) else ""
        found = evidence.find_evidence(entries, want, evidence.INTERVIEW_KEYS, tag,
                                       None,
                                       evidence.approach_shown(approach, tag))
    if isinstance(found, str):
        raise GateRefusal(
            NOT_EVIDENCED,
            f"no captured answer approves {confirmation} of interview {interview}: {found}. "
            f"Ask the approval question of `mdgrill ask {spec_hint(spec)}` as it is (it "
            "names this approval) and let the user answer; the plugin's hooks capture the "
            "answer. Nothing was written")
    return found


def require_retry_evidence(spec: store.Spec, prog: Progress, confirmation: str) -> None:
    """The commit `confirm` retries re-checks its evidence: the Confirmed block must name
    the captured answer to that brief (a block written without one, e.g. under `--root`
    where no journal was seen, is never committed as an approval here)."""
    entries = journal_entries(spec)
    if entries is None:
        return
    iv = prog.data.get("interview")
    interview = str(iv.get("id")) if isinstance(iv, dict) else ""
    confirmed = [b for b in prog.blocks if b.kind == "confirmed"
                 and b.first("Interview") == interview
                 and b.first("Confirmation ID") == confirmation]
    named = confirmed[-1].first("Reply sha256") if confirmed else None
    if not named:
        raise GateRefusal(
            NOT_EVIDENCED,
            f"the Confirmed block of {confirmation} names no captured reply (it was recorded "
            "where no reply journal was seen), and this repository keeps one: it is not "
            "committed as an approval. `mdgrill reopen` the phase and ask the approval "
            "question again")
    found = interview_evidence(spec, prog, confirmation, entries)
    if named != found.sha256:
        raise GateRefusal(
            NOT_EVIDENCED,
            f"the Confirmed block of {confirmation} names reply {named[:12]}…, not the user's "
            f"captured answer to that approval question ({found.sha256[:12]}…): it is not "
            "committed as an approval. `mdgrill reopen` the phase and ask again")


def _approves_artifact(prog: Progress) -> Callable[[str], bool]:
    from mdgrill.core.approval import APPROVE_ARTIFACT, resolve
    from mdgrill.model.replies import CONTROL_ONLY, classify

    def approves(words: str) -> bool:
        # "Do not infer … approval from a control-only reply" (the framework)
        return classify(words).kind != CONTROL_ONLY and \
            resolve(prog.data, words).action == APPROVE_ARTIFACT
    return approves


def artifact_evidence(spec: store.Spec, prog: Progress,
                      entries: list[dict[str, object]]) -> evidence.Evidence:
    """The captured answer that approves the artifact awaiting approval, or a refusal."""
    want = evidence.artifact_record(spec.rel_folder, prog)
    found: evidence.Evidence | str = "no artifact awaits approval"
    gate = str(want["artifact"]) if want is not None else ""
    if want is not None:
        found = evidence.find_evidence(entries, want, evidence.ARTIFACT_KEYS,
                                       evidence.artifact_tag(spec.rel_folder, gate),
                                       _approves_artifact(prog))
    if isinstance(found, str):
        raise GateRefusal(
            NOT_EVIDENCED,
            f"no captured selection approves {gate or 'the artifact'}: {found}. Ask the "
            "artifact's approval question (it names the file) and let the user answer; "
            "the plugin's hooks capture the answer. Nothing was written")
    return found


__all__ = ["NOT_EVIDENCED", "artifact_evidence", "interview_evidence", "journal_entries",
           "require_retry_evidence"]
