"""May the agent delegate? `check-delegation`, for the CLI verb and the agent hook alike."""

from __future__ import annotations

from mdgrill.core import machine
from mdgrill.errors import GateRefusal
from mdgrill.formats.progress import Progress
from mdgrill.services.approvals import approval_binding
from mdgrill.shell import store
from mdgrill.shell.context import context_sources, skills_stale
from mdgrill.shell.session import load


def check_delegation(spec: store.Spec, phase: str, interview_id: str,
                     context_digest: str | None = None,
                     discovery_revision: str | None = None) -> tuple[dict[str, object], str]:
    """The result and its one-line text; a refusal raises (GateRefusal, exit 3)."""
    prog = load(spec)
    machine.check_skills(prog.data, phase, interview_id, discovery_revision,
                         skills_stale(prog.data, spec))
    digest, _ = context_sources(prog, spec, phase)
    try:
        result = machine.check_delegation(prog, phase, interview_id, context_digest, digest,
                                          discovery_revision)
    except GateRefusal as exc:
        # a changed scope is often the trace of a forgery the history names more precisely
        # (an edited round, a record changed after its commit): that cause first
        if exc.code == "APPROVAL_SCOPE_CHANGED":
            approval_binding(spec, prog, phase, interview_id)
        raise
    result.update(approval_binding(spec, prog, phase, interview_id))
    _require_evidence(spec, prog, interview_id)
    text = f"allow: {phase} interview {interview_id} is {result['status']}"
    if result.get("checked") == "digest-only":
        text += " (not in a git repository: checked the digest alone)"
    return result, text


def _require_evidence(spec: store.Spec, prog: Progress, interview_id: str) -> None:
    """With `approval: evidence` in `.mdgrill.yaml`, a confirmed interview's Confirmed block
    must name the captured reply that approved it (`Reply sha256`)."""
    from mdgrill.core.artifact_gate import log_blocks
    from mdgrill.shell.project import requires_evidence

    if not requires_evidence(spec.root):
        return
    confirmed = [b for b in log_blocks(prog, frozenset({"confirmed"}))
                 if b.first("Interview") == interview_id]
    if confirmed and confirmed[-1].first("Reply sha256"):
        return
    raise GateRefusal("APPROVAL_NOT_EVIDENCED",
                      f"this project requires every approval to be a reply the hooks captured "
                      f"(`approval: evidence` in .mdgrill.yaml), and interview {interview_id}'s "
                      "approval names none: run the interview's approval again with the "
                      "plugin's hooks installed (`mdgrill reopen` the phase)")
