"""Starting an interview: the mode, the skill load, beginning or resuming (the check that a
context is still the one the interview began on is in `basics`: every gate verb makes it)."""

from __future__ import annotations

from mdgrill.core.machine.basics import (
    next_interview_id,
    require_discovery,
    require_id,
    require_phase,
    reset_interview,
    stale_context,
)
from mdgrill.errors import GateRefusal, InputError
from mdgrill.formats.progress import Block, Change, Progress, Transition, block_heading
from mdgrill.formats.schema import PHASES, TERMINAL
from mdgrill.model.interview import first_round, quick_authorized, settled_in
from mdgrill.model.record import dict_list_field, int_field, new_interview

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.core.machine.reports import BeganReport, ModeSet, SkillLoad


def set_mode(data: dict[str, object], prog: Progress, quick: bool,
             now: str) -> Transition[ModeSet]:
    """Set the mode; `--quick` (only that exact flag reaches here) is recorded as a block,
    and `--interactive` after it records the revocation."""
    change = Change()
    mode = "quick" if quick else "interactive"
    change.updates["mode"] = mode
    iv = data.get("interview")
    reset = False
    if isinstance(iv, dict):
        incompatible = (quick and iv.get("status") != "bypassed_quick") or \
            (not quick and iv.get("status") == "bypassed_quick")
        if incompatible:
            reset = reset_interview(data, change, f"mode changed to {mode}")
    authorized = quick_authorized(prog)
    if quick != authorized:
        phase = str(data.get("phase") or "start")
        change.block(block_heading(phase if phase in PHASES else "start", "Grill - Mode"),
                     [f"- Mode: {mode}", "- Authorization: "
                      + ("the exact `mdgrill mode --quick` flag" if quick else
                         "`mdgrill mode --interactive` (quick mode revoked)"), f"- At: {now}"])
    return Transition(change, {"mode": mode, "interview_reset": reset,
                               "authorization_recorded": quick != authorized})


def record_skill_load(data: dict[str, object], header: dict[str, object],
                      skills: list[dict[str, object]]) -> Transition[SkillLoad]:
    change = Change()
    old = {"header": data.get("skill_manifest"), "skills": data.get("skills") or []}
    change.updates["skill_manifest"] = header
    change.updates["skills"] = skills
    reset = False
    changed = (old["header"], old["skills"]) != (header, skills)
    if changed and (old["header"] is not None or old["skills"]):
        reset = reset_interview(data, change, "the skill manifest changed")
    failed_core = [str(s["name"]) for s in skills
                   if s.get("core") and s.get("status") == "failed"]
    warnings = [f"domain skill {s['name']} failed to load: {_errors_text(s.get('errors'))}"
                for s in skills if not s.get("core") and s.get("status") == "failed"]
    return Transition(change, {"recorded": "skills", "interview_reset": reset,
                               "core_failed": failed_core, "warnings": warnings})


def _errors_text(errors: object) -> str:
    return ", ".join(str(e) for e in errors) if isinstance(errors, list) else ""


def check_skills(data: dict[str, object], phase: str, interview_id: str,
                 discovery_revision: object, stale_files: list[str]) -> list[str]:
    """Refuse on a stale or failed manifest; return warnings for failed domain skills."""
    header = data.get("skill_manifest")
    skills = dict_list_field(data, "skills", "the record's")
    if isinstance(header, dict):
        if header.get("phase") != phase or header.get("interview_id") != interview_id:
            raise GateRefusal("SKILL_LOAD_STALE",
                              f"the skill manifest was recorded for {header.get('phase')}/"
                              f"{header.get('interview_id')}, not {phase}/{interview_id}: "
                              "record the skills loaded for this interview")
        if discovery_revision is not None and header.get("discovery_revision") is not None \
                and str(header.get("discovery_revision")) != str(discovery_revision):
            raise GateRefusal("SKILL_LOAD_STALE",
                              f"the skill manifest is from discovery revision "
                              f"{header.get('discovery_revision')}, not {discovery_revision}")
    if stale_files:
        raise GateRefusal("SKILL_LOAD_STALE", "skill files changed since they were loaded: "
                          f"{', '.join(stale_files)}: load them again and record the manifest")
    failed = [str(s.get("name")) for s in skills
              if isinstance(s, dict) and s.get("core") and s.get("status") == "failed"]
    if failed:
        raise GateRefusal("SKILL_LOAD_FAILED", f"the core skill {', '.join(failed)} failed to "
                          "load: fix it and record the manifest again")
    return [f"domain skill {s.get('name')} failed to load" for s in skills
            if isinstance(s, dict) and not s.get("core") and s.get("status") == "failed"]


def _manifest_revision(data: dict[str, object]) -> str | None:
    header = data.get("skill_manifest")
    if isinstance(header, dict) and header.get("discovery_revision") is not None:
        return str(header.get("discovery_revision"))
    return None


def begin_interview(data: dict[str, object], phase: str, interview_id: str,
                    round_number: int | None, discovery_revision: str | None, digest: str,
                    context: list[dict[str, str]],
                    prog: Progress | None = None) -> Transition[BeganReport]:
    """Begin an interview, or resume it: "Reuse the existing interview ID, immutable digest,
    discovery revision, and round when resuming". An ID keeps the digest it began with, so a
    changed context is a new interview, which reopens what the old one settled.

    `prog`: the file, whose log (its blocks, its quick-mode authorization) is read only by a
    new interview, not by a resumed one (none when there is no log)."""
    require_phase(phase)
    require_id(interview_id, "interview ID")
    if round_number is not None and round_number < 1:
        raise InputError("INVALID_ROUND", "--round must be a positive whole number")
    change = Change()
    previous: dict[str, str] = {}
    existing = data.get("interview")
    if isinstance(existing, dict):
        same = existing.get("phase") == phase and existing.get("id") == interview_id
        stale = existing.get("context_digest") != digest
        if same and not stale:
            return Transition(change, _resumed(existing, interview_id, round_number,
                                               discovery_revision, digest))
        if same:
            raise GateRefusal(
                "CONTEXT_STALE",
                f"interview {interview_id} began on another context "
                f"({stale_context(existing, digest, context)}): an interview resumes only with "
                "the digest it began with, and its answers were given about the old context; "
                "nothing was written. Begin a new interview for the new context: `mdgrill "
                f"begin-interview SPEC --phase {phase} --interview-id "
                f"{next_interview_id(interview_id)}`"
                + ("" if existing.get("status") in TERMINAL else
                   f" (what {interview_id} settled is reopened, its old answers shown)"),
                details={"recorded": existing.get("context_digest"), "current": digest})
        if existing.get("status") not in TERMINAL:
            if not stale:
                raise GateRefusal("INTERVIEW_STALE",
                                  f"interview {existing.get('id')} ({existing.get('phase')}) is "
                                  f"still {existing.get('status')}: finish, skip or revise it "
                                  "before beginning another")
            # what the old interview settled was said about the old context: asked again
            previous = settled_in(_log(prog), str(existing.get("phase")))
            reset_interview(data, change, "the context changed (digest "
                            f"{str(existing.get('context_digest'))[:12]}… -> {digest[:12]}…)",
                            list(previous))
    quick = data.get("mode") == "quick"
    if quick and not (prog is not None and quick_authorized(prog)):
        raise GateRefusal("QUICK_NOT_AUTHORIZED",
                          "`mode: quick` is in the front matter, but the log holds no quick-mode "
                          "authorization: only the exact `mdgrill mode SPEC --quick` authorizes a "
                          "bypass (a hand-typed or imported quick flag never does). Run it, or "
                          "`mdgrill mode SPEC --interactive` to interview; nothing was written")
    status = "bypassed_quick" if quick else "collecting"
    # round numbers never repeat: after a Reset the next interview counts on
    iv = new_interview(phase, interview_id, round_number or first_round(_log(prog), phase),
                       status, digest, context)
    revision = discovery_revision if discovery_revision is not None else \
        _manifest_revision(data)
    if revision is None and data.get("discovery_revision") is not None:
        revision = str(data.get("discovery_revision"))
    if revision is not None:
        value: object = int(revision) if revision.isdigit() else revision
        iv["discovery_revision"] = value
        change.updates["discovery_revision"] = value
    change.updates["interview"] = iv
    change.updates["phase"] = phase
    if quick:
        change.block(block_heading(phase, "Grill - Bypassed"),
                     [f"- Interview: {interview_id}", "- Reason: Explicit --quick authorization",
                      f"- Context digest: {digest}"])
    result: BeganReport = {"status": status, "resumed": False,
                           "round": int_field(iv, "round", "interview"), "context_digest": digest}
    if previous:
        result["reopened"] = list(previous)
        result["previous_answers"] = previous
    return Transition(change, result)


def _log(prog: Progress | None) -> list[Block]:
    return prog.blocks if prog is not None else []


def _resumed(existing: dict[str, object], interview_id: str, round_number: int | None,
             discovery_revision: str | None, digest: str) -> BeganReport:
    """The result of resuming `existing`, refused when the resume is not the same one."""
    if existing.get("status") in TERMINAL:
        raise GateRefusal("INTERVIEW_TERMINAL",
                          f"interview {interview_id} is {existing.get('status')}: a finished "
                          "interview is never reopened; begin a new one with another "
                          "--interview-id")
    if round_number is not None and existing.get("round") != round_number:
        raise GateRefusal("ROUND_MISMATCH",
                          f"interview {interview_id} is in round {existing.get('round')}, "
                          f"not {round_number}")
    recorded = existing.get("discovery_revision")
    require_discovery(existing, interview_id, discovery_revision,
                      "an interview resumes with the discovery revision it began with; "
                      "nothing was written. Resume it with "
                      + ("no --discovery-revision" if recorded is None else
                         f"--discovery-revision {recorded}")
                      + ", or, after a new discovery pass, begin a new interview "
                      f"(`--interview-id {next_interview_id(interview_id)}`)")
    return {"status": str(existing["status"]), "resumed": True,
            "round": int_field(existing, "round", "interview"), "context_digest": digest}
