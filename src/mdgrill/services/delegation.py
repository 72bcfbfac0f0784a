"""May the agent delegate? `check-delegation`, for the CLI verb and the agent hook alike."""

from __future__ import annotations

from mdgrill.core import machine
from mdgrill.errors import GateRefusal
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
    from mdgrill.services.channels import require_accepted_approval

    # the channel the selection came over, held to `.mdgrill.yaml` `approval:` (this also
    # keeps `approval: evidence`: a hook's approval must name its captured reply)
    commit = result.get("approval_commit")
    result.update(require_accepted_approval(spec, prog, interview_id, phase,
                                            commit if isinstance(commit, str) else None))
    text = f"allow: {phase} interview {interview_id} is {result['status']}"
    if result.get("checked") == "digest-only":
        text += " (not in a git repository: checked the digest alone)"
    return result, text
