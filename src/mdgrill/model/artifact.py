"""The `artifact:` record of the front matter and the order of phases: what the artifact gate
reads and `validate` checks (the gate's transitions are in `core.artifact_gate`)."""

from __future__ import annotations

from mdgrill.formats.progress import Block
from mdgrill.formats.schema import PHASES, SHA256_RE, Problem, is_id

APPROVE_SOURCE = "approve-artifact"
AWAITING = "awaiting_approval"
REVISION = "revision_requested"
APPROVED = "approved"
ARTIFACT_STATUSES = (AWAITING, REVISION, APPROVED)
OPEN = frozenset({AWAITING, REVISION})
ARTIFACT_KEYS = ("phase", "path", "sha256", "status", "feedback_round", "interview")

# The file each phase normally produces, in the spec folder (an epic's triage: `epic.md`).
ARTIFACT_NAME = {"research": "research.md", "requirements": "requirements.md",
                 "design": "design.md", "tasks": "tasks.md", "triage": "epic.md"}
# start -> research -> requirements -> design -> tasks. `tasks` is the last phase of a spec;
# `triage` is the whole chain of an epic folder (its member specs start their own chains).
NEXT_PHASE: dict[str, str | None] = {"start": "research", "research": "requirements",
                                     "requirements": "design", "design": "tasks",
                                     "tasks": None, "triage": None}
RANK = {"start": 0, "triage": 0, "research": 1, "requirements": 2, "design": 3, "tasks": 4}


def gate_id(art: dict[str, object]) -> str:
    """`artifact:<repo-relative path>@<first 12 hex of its sha256>`."""
    return f"artifact:{art.get('path')}@{str(art.get('sha256'))[:12]}"


def artifact_of(data: dict[str, object]) -> dict[str, object] | None:
    art = data.get("artifact")
    if not isinstance(art, dict):
        return None
    import copy  # with weakref: only for a spec that has an artifact

    return copy.deepcopy(art)


def gate_used(data: dict[str, object], blocks: list[Block]) -> bool:
    """True once an artifact gate was ever opened in this spec (record or log says so)."""
    return isinstance(data.get("artifact"), dict) or \
        any(b.kind.startswith("artifact_") for b in blocks)


def interview_of(data: dict[str, object]) -> dict[str, object] | None:
    iv = data.get("interview")
    return iv if isinstance(iv, dict) else None


def valid_artifact_path(path: object) -> bool:
    if not isinstance(path, str) or not path or path.startswith("/") or "\\" in path:
        return False
    return all(part not in ("", ".", "..") for part in path.split("/"))


def check_artifact(data: dict[str, object]) -> list[Problem]:
    """The `artifact:` front matter invariants; an empty list when they hold (or it is absent)."""
    art = data.get("artifact")
    if art is None:
        return []
    problems: list[Problem] = []

    def bad(message: str) -> None:
        problems.append(Problem("INVALID_STATE", message, "artifact"))

    if not isinstance(art, dict):
        bad("artifact must be a mapping {phase, path, sha256, status, feedback_round, interview}")
        return problems
    missing = [k for k in ARTIFACT_KEYS if k not in art]
    if missing:
        bad(f"artifact lacks {', '.join(missing)}")
        return problems
    if art["phase"] not in PHASES:
        bad(f"artifact phase `{art['phase']}` is not one of {', '.join(PHASES)}")
    if not valid_artifact_path(art["path"]):
        bad(f"artifact path `{art['path']}` must be a repository-relative POSIX path "
            "(no leading `/`, no `..`)")
    if not (isinstance(art["sha256"], str) and SHA256_RE.match(art["sha256"])):
        bad("artifact sha256 must be 64 lowercase hex characters")
    if art["status"] not in ARTIFACT_STATUSES:
        bad(f"artifact status `{art['status']}` is not one of {', '.join(ARTIFACT_STATUSES)}")
    rnd = art["feedback_round"]
    if isinstance(rnd, bool) or not isinstance(rnd, int) or rnd < 0:
        bad("artifact feedback_round must be a whole number >= 0")
    elif art["status"] == REVISION and rnd < 1:
        bad("a revision_requested artifact has feedback_round >= 1")
    if not is_id(art["interview"]):
        bad(f"artifact interview `{art['interview']}` is not a valid interview ID")
    phase = data.get("phase")
    if art["phase"] in PHASES:
        # the spec's phase is the artifact's, or the next once that artifact was approved
        # (whether it was is in the log: checks.check_phase_approval reads it)
        allowed = {art["phase"], next_phase(str(art["phase"]))} - {None}
        if phase not in allowed:
            bad(f"`phase: {phase}` is not the artifact's phase ({art['phase']}) or the one "
                "after it: a phase advances only by `mdgrill approve-artifact`; set the phase "
                "back")
    return problems


def expected_path(spec_folder: str, phase: str) -> str | None:
    """The repository-relative path of the phase's usual artifact, if it has one."""
    name = ARTIFACT_NAME.get(phase)
    if name is None:
        return None
    return name if spec_folder in ("", ".") else f"{spec_folder}/{name}"


def next_phase(phase: str) -> str | None:
    return NEXT_PHASE.get(phase)
