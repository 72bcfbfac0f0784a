"""May the agent delegate? `check-delegation`, for the CLI verb and the agent hook alike."""

from __future__ import annotations

from mdgrill.core import machine
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
    result = machine.check_delegation(prog, phase, interview_id, context_digest, digest,
                                      discovery_revision)
    result.update(approval_binding(spec, prog, phase, interview_id))
    text = f"allow: {phase} interview {interview_id} is {result['status']}"
    if result.get("checked") == "digest-only":
        text += " (not in a git repository: checked the digest alone)"
    return result, text
