"""The artifact approval gate: old record + command -> new record + blocks to append, or a refusal.

Pure: no files, no git. After a phase's interview is approved and its artifact
(`requirements.md`, `design.md`, ...) is written, the user approves the artifact itself before
the spec moves on. The gate's state is the front matter key `artifact`; every transition
appends a `### <Phase> Artifact - ...` block. See docs/artifact-gate.md.
"""

from __future__ import annotations

from mdgrill.errors import GateRefusal, InputError
from mdgrill.formats.progress import (
    Block,
    Change,
    Progress,
    Transition,
    block_heading,
    single_line,
)
from mdgrill.formats.schema import PHASES, SHA256_RE, TERMINAL
from mdgrill.model.artifact import (
    APPROVE_SOURCE,
    APPROVED,
    AWAITING,
    OPEN,
    RANK,
    REVISION,
    artifact_of,
    expected_path,
    gate_id,
    gate_used,
    interview_of,
    next_phase,
    valid_artifact_path,
)
from mdgrill.model.record import int_field

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.core.machine.reports import (
        ArtifactApprovedReport,
        ReopenReport,
        RevisionReport,
        SubmitReport,
    )

# -- verbs ---------------------------------------------------------------------------------


def _gate_phase(data: dict[str, object], path: str) -> tuple[str, str, bool]:
    """(phase, interview id, continuing) of the gate that a submission of `path` opens."""
    art = artifact_of(data)
    iv = interview_of(data)
    iv_phase = iv.get("phase") if iv is not None else None
    went_back = iv_phase in RANK and art is not None and art.get("phase") in RANK and \
        RANK[str(iv_phase)] < RANK[str(art["phase"])]
    if art is not None and art.get("path") == path and not went_back:
        if iv is not None and iv_phase == art["phase"] and iv.get("id") != art["interview"]:
            raise GateRefusal("INTERVIEW_STALE",
                              f"{path} was submitted under interview {art['interview']}, but "
                              f"the {iv_phase} interview is now {iv.get('id')}: finish (confirm) "
                              "that interview, then submit the artifact again")
        return str(art["phase"]), str(art["interview"]), True
    if iv is None:
        raise GateRefusal("INTERVIEW_MISSING", "no interview is recorded in this spec: an "
                          "artifact is submitted after its phase's interview is approved "
                          "(`begin-interview` ... `confirm`)")
    if iv.get("status") not in TERMINAL:
        raise GateRefusal("INTERVIEW_INCOMPLETE",
                          f"the {iv_phase} interview {iv.get('id')} is {iv.get('status')}: an "
                          "artifact is submitted only after its interview is approved "
                          "(`confirm`), skipped or quick-bypassed")
    if data.get("phase") != iv_phase:
        raise GateRefusal("ILLEGAL_TRANSITION",
                          f"the spec is in phase {data.get('phase')}, but its last interview "
                          f"is for {iv_phase}: begin and approve the {data.get('phase')} "
                          "interview before submitting its artifact")
    if art is not None and art.get("status") in OPEN and art.get("phase") != iv_phase:
        raise GateRefusal("ARTIFACT_NOT_APPROVED",
                          f"the {art.get('phase')} artifact {art.get('path')} still awaits "
                          "approval: approve it (or request a revision) first")
    return str(iv_phase), str(iv.get("id")), False


def submit(data: dict[str, object], path: str, sha256: str, spec_folder: str,
           context_digest_now: str | None) -> Transition[SubmitReport]:
    """`await-artifact-approval`: record the artifact's sha256 and open (or re-open) the gate.

    `context_digest_now` is the digest of the interview's phase computed now (None when
    there is no interview); a stale context refuses, as check-delegation does.
    """
    if not valid_artifact_path(path):
        raise InputError("INVALID_PATH", f"`{path}` is not a repository-relative file path")
    phase, interview_id, continuing = _gate_phase(data, path)
    iv = interview_of(data)
    if iv is not None and iv.get("phase") == phase and \
            context_digest_now is not None and context_digest_now != iv.get("context_digest"):
        raise GateRefusal("CONTEXT_STALE",
                          f"the {phase} context changed since interview {iv.get('id')} was "
                          f"approved (recorded {str(iv.get('context_digest'))[:12]}…, now "
                          f"{context_digest_now[:12]}…): an artifact of a stale interview is "
                          "not submitted; begin a new interview for the new context")
    old = artifact_of(data)
    warnings: list[str] = []
    usual = expected_path(spec_folder, phase)
    if usual is not None and path != usual:
        warnings.append(f"the {phase} artifact is normally {usual}, not {path}")
    result: SubmitReport = {"phase": phase, "path": path, "sha256": sha256,
                            "interview": interview_id, "warnings": warnings}
    change = Change()
    if continuing and old is not None and old["sha256"] == sha256 and old["status"] != REVISION:
        # the same bytes again: nothing new to review (an approved one stays approved)
        result.update({"status": str(old["status"]), "resubmitted": False, "changed": False,
                       "gate": gate_id(old),
                       "feedback_round": int_field(old, "feedback_round", "artifact")})
        return Transition(change, result)
    rounds = int_field(old, "feedback_round", "artifact") if continuing and old is not None \
        else 0
    art: dict[str, object] = {"phase": phase, "path": path, "sha256": sha256,
                              "status": AWAITING, "feedback_round": rounds,
                              "interview": interview_id}
    change.updates["artifact"] = art
    lines = [f"- Artifact: {path}", f"- Sha256: {sha256}", f"- Interview: {interview_id}"]
    changed = True
    if continuing and old is not None:
        changed = old["sha256"] != sha256
        lines.append(f"- Replaces: {old['sha256']}" if changed else
                     "- Replaces: none (unchanged since the revision request)")
        if old["status"] == REVISION and not changed:
            warnings.append(f"{path} is byte-identical to the version a revision was requested "
                            "for: the feedback was not applied")
    if rounds:
        lines.append(f"- Feedback round: {rounds}")
    change.block(block_heading(phase, "Artifact - Awaiting Approval"), lines)
    result.update({"status": AWAITING, "resubmitted": continuing, "changed": changed,
                   "gate": gate_id(art), "feedback_round": rounds})
    return Transition(change, result)


def _open_artifact(data: dict[str, object], verb: str) -> dict[str, object]:
    art = artifact_of(data)
    if art is None:
        raise GateRefusal("ARTIFACT_NOT_SUBMITTED",
                          f"{verb}: no artifact awaits approval: submit it with `mdgrill "
                          "await-artifact-approval SPEC --artifact FILE` first")
    if art["status"] == APPROVED:
        raise GateRefusal("ILLEGAL_TRANSITION",
                          f"{verb}: the {art['phase']} artifact {art['path']} is already "
                          "approved: submit a changed version with await-artifact-approval")
    return art


def approve(data: dict[str, object], source: str, sha_now: str | None,
            context_digest_now: str | None) -> Transition[ArtifactApprovedReport]:
    """`approve-artifact`: the recorded bytes are approved and `phase:` moves to the next phase."""
    art = _open_artifact(data, "approve-artifact")
    if source != APPROVE_SOURCE:
        raise GateRefusal("INVALID_CONFIRMATION_SOURCE",
                          f"approve-artifact takes --source {APPROVE_SOURCE} (the user's "
                          f"explicit approval of the artifact), not `{source}`; the interview's "
                          "approval never stands in for it")
    if art["status"] == REVISION:
        raise GateRefusal("ARTIFACT_REVISION_REQUESTED",
                          f"a revision of {art['path']} was requested (feedback round "
                          f"{art['feedback_round']}): revise it and submit it again with "
                          "await-artifact-approval, then ask for approval")
    phase = str(art["phase"])
    iv = interview_of(data)
    if iv is not None and iv.get("phase") == phase:
        if iv.get("id") != art["interview"] or iv.get("status") not in TERMINAL:
            raise GateRefusal("INTERVIEW_STALE",
                              f"{art['path']} was submitted under interview {art['interview']}, "
                              f"but the {phase} interview is now {iv.get('id')} "
                              f"({iv.get('status')}): finish it and submit the artifact again")
        if context_digest_now is not None and context_digest_now != iv.get("context_digest"):
            raise GateRefusal("CONTEXT_STALE",
                              f"the {phase} context changed since interview {iv.get('id')} "
                              "was approved: begin a new interview for the new context")
    if sha_now != art["sha256"]:
        now = "missing" if sha_now is None else f"{sha_now[:12]}…"
        raise GateRefusal("ARTIFACT_CHANGED",
                          f"{art['path']} changed after it was submitted (submitted "
                          f"{str(art['sha256'])[:12]}…, now {now}): the user reviewed other "
                          "bytes; submit it again with await-artifact-approval and ask again",
                          details={"recorded": art["sha256"], "current": sha_now})
    art["status"] = APPROVED
    change = Change()
    change.updates["artifact"] = art
    following = next_phase(phase)
    current = data.get("phase")
    new_phase = str(current) if isinstance(current, str) else phase
    if following is not None and RANK.get(new_phase, -1) < RANK[following]:
        new_phase = following
    if new_phase != current:
        change.updates["phase"] = new_phase
    change.block(block_heading(phase, "Artifact - Approved"),
                 [f"- Artifact: {art['path']}", f"- Sha256: {art['sha256']}",
                  f"- Interview: {art['interview']}", f"- Source: {source}",
                  f"- Next phase: {following or f'none ({phase} is the last phase)'}"])
    return Transition(change, {"status": APPROVED, "phase": new_phase, "approved_phase": phase,
                               "advanced": new_phase != current, "path": str(art["path"]),
                               "sha256": str(art["sha256"]), "interview": str(art["interview"]),
                               "gate": gate_id(art)})


def request_revision(data: dict[str, object], feedback: str) -> Transition[RevisionReport]:
    """`request-revision`: record the user's feedback; the gate stays open."""
    art = _open_artifact(data, "request-revision")
    from mdgrill.model.replies import BARE_SKIP, CONTROL_ONLY, classify_reply

    if classify_reply(feedback) in (CONTROL_ONLY, BARE_SKIP):
        raise GateRefusal("CONTROL_ONLY_ANSWER",
                          f"`{feedback.strip()}` says nothing about what to change: record the "
                          "user's feedback itself (what should be different)")
    text = single_line(feedback, "--feedback")
    rnd = int_field(art, "feedback_round", "artifact")
    art["feedback_round"] = rnd + 1
    art["status"] = REVISION
    change = Change()
    change.updates["artifact"] = art
    change.block(block_heading(str(art["phase"]), "Artifact - Revision Requested"),
                 [f"- Artifact: {art['path']}", f"- Sha256: {art['sha256']}",
                  f"- Feedback round: {rnd + 1}", f"- Feedback: {text}"])
    return Transition(change, {"status": REVISION, "phase": str(art["phase"]),
                               "path": str(art["path"]),
                               "feedback_round": rnd + 1, "gate": gate_id(art)})


def check_begin(data: dict[str, object], blocks: list[Block], phase: str,
                artifact_sha_now: str | None) -> None:
    """Refuse to begin a later phase's interview before the earlier artifact is approved.

    Applies only once the gate was used in this spec (specs that never used it keep working).
    `artifact_sha_now` is the sha256 of the recorded artifact's file now (None if missing).
    """
    refusal = begin_refusal(data, phase, artifact_sha_now)
    if refusal is not None and gate_used(data, blocks):
        raise refusal


def begin_refusal(data: dict[str, object], phase: str,
                  artifact_sha_now: str | None) -> GateRefusal | None:
    """What `check_begin` refuses with when the gate was used (`gate_used`), asked first: the
    log's blocks, which only that needs, are read only for a refusal (resuming an interview
    reads no heading of a 10,000-round log)."""
    if phase not in RANK:
        return None
    art = artifact_of(data)
    iv = interview_of(data)
    here = iv.get("phase") if iv is not None else data.get("phase")
    if art is not None and art.get("phase") in RANK and RANK[phase] > RANK[str(art["phase"])]:
        if art.get("status") in OPEN:
            return GateRefusal("ARTIFACT_NOT_APPROVED",
                               f"the {art['phase']} artifact {art['path']} is "
                               f"{art['status']}: the {phase} interview begins after the user "
                               "approves it (`approve-artifact`)")
        if art.get("status") == APPROVED and artifact_sha_now != art.get("sha256"):
            return GateRefusal("ARTIFACT_CHANGED",
                               f"{art['path']} changed after its approval: submit it again "
                               "with `mdgrill await-artifact-approval` and have the user "
                               f"approve it before the {phase} interview")
    # `start` has no usual artifact: the chain of gates begins with research (or triage).
    if isinstance(here, str) and here in RANK and here != "start" and RANK[phase] > RANK[here]:
        approved = art is not None and art.get("phase") == here and art.get("status") == APPROVED
        if not approved:
            return GateRefusal("ARTIFACT_NOT_APPROVED",
                               f"the {here} artifact has not been approved: submit it "
                               "(`await-artifact-approval`) and have the user approve it "
                               f"(`approve-artifact`) before the {phase} interview begins")
    return None


# -- the approval question ------------------------------------------------------------------
# The artifact gate asks with options of its own, as the interview's final approval does: the
# framework keeps "the phase in artifact approval until the user explicitly approves", and
# "Do not infer … approval from a control-only reply". Only the first option approves.

CHOOSE_APPROVE = "approve"
CHOOSE_CHANGES = "request-changes"
CHOOSE_CANCEL = "cancel"
REQUEST_CHANGES = "Request changes"
CANCEL_LABEL = "Cancel"
RECOMMENDED_MARK = " (Recommended)"
_HEADER_CHARS = 12  # the question tool's chip label


def file_name(art: dict[str, object]) -> str:
    """The artifact's file name (`requirements.md`), as the options say it."""
    return str(art.get("path", "")).rsplit("/", 1)[-1]


def approve_label(art: dict[str, object]) -> str:
    """`Approve requirements.md and continue to design`; at the last phase (tasks, triage)
    `Approve tasks.md`: there is no phase to continue to."""
    following = next_phase(str(art.get("phase")))
    name = file_name(art)
    return f"Approve {name} and continue to {following}" if following else f"Approve {name}"


def approval_options(art: dict[str, object]) -> list[str]:
    """The artifact question's labels, in order; the first is the only approval."""
    return [approve_label(art) + RECOMMENDED_MARK, REQUEST_CHANGES, CANCEL_LABEL]


def _option_words(art: dict[str, object]) -> list[str]:
    """What each option does, said beside it (never the label again)."""
    following = next_phase(str(art.get("phase")))
    moves = f"the spec moves on to the {following} phase" if following else \
        f"{art.get('phase')} is the last phase: nothing follows it"
    return [f"approve these bytes of {file_name(art)} (sha256 {str(art.get('sha256'))[:12]}…); "
            f"{moves}",
            "say what should change: it is recorded, the file is revised and submitted again, "
            "and this question comes back; the phase stays here",
            "stop here: nothing is approved and the phase does not move"]


def approval_question_text(art: dict[str, object], spec_folder: str) -> str:
    """The question, naming the file, its spec and its bytes, so that a captured answer (a
    hook's `question: answer` line) can be matched to this gate and no other."""
    from mdgrill.core.evidence import artifact_tag

    following = next_phase(str(art.get("phase")))
    then = f" and continue to {following}" if following else ""
    # the tag is what a captured answer is matched by (core/evidence.py)
    return (f"Approve {art.get('path')}{then}? The {art.get('phase')} artifact of spec "
            f"{spec_folder}, sha256 {str(art.get('sha256'))[:12]} "
            f"{artifact_tag(spec_folder, gate_id(art))}")


def approval_question(art: dict[str, object], spec_folder: str) -> dict[str, object]:
    """The artifact approval question as the question tool takes it."""
    return {"question": approval_question_text(art, spec_folder),
            "header": str(art.get("phase")).capitalize()[:_HEADER_CHARS],
            "options": [{"label": label, "description": says} for label, says in
                        zip(approval_options(art), _option_words(art), strict=True)],
            "multiSelect": False}


def approval_markdown(art: dict[str, object], spec_folder: str) -> str:
    """The same question as text, numbered as `resolve-approval` reads the numbers."""
    lines = [f"**{approval_question_text(art, spec_folder)}**", ""]
    for number, (label, says) in enumerate(zip(approval_options(art), _option_words(art),
                                               strict=True), 1):
        lines.append(f"  {number}. {label} — {says}")
    lines += ["", f"Only the selection `{approve_label(art)}` (or `1`) approves the file; a "
              "`yes` or `continue` is asked again."]
    return "\n".join(lines) + "\n"


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


def artifact_choice(art: dict[str, object], text: str) -> str | None:
    """The option a reply selects exactly (`CHOOSE_APPROVE`, `CHOOSE_CHANGES`,
    `CHOOSE_CANCEL`), or None.

    A selection is the option's label (case and spacing aside, ` (Recommended)` allowed), its
    number as the question listed it, or for the approval a clear part of its label:
    `approve requirements.md` (or the file's path) or `continue to design`. Nothing else
    selects: `continue to requirements` at the requirements gate names no option.
    """
    said = text.strip()
    mark = RECOMMENDED_MARK.strip().casefold()
    if said[-len(mark):].casefold() == mark:  # by hand: a `\s*\(…\)\s*\Z` tail is quadratic
        said = said[:-len(mark)]
    said = _fold(said.strip().rstrip(".").strip())
    approve = _fold(approve_label(art))
    name, following = _fold(file_name(art)), next_phase(str(art.get("phase")))
    forms = {approve: CHOOSE_APPROVE, f"approve {name}": CHOOSE_APPROVE,
             f"approve {_fold(str(art.get('path')))}": CHOOSE_APPROVE,
             _fold(REQUEST_CHANGES): CHOOSE_CHANGES, _fold(CANCEL_LABEL): CHOOSE_CANCEL,
             "1": CHOOSE_APPROVE, "2": CHOOSE_CHANGES, "3": CHOOSE_CANCEL}
    if following:
        forms[f"approve {name} and continue"] = CHOOSE_APPROVE
        forms[f"continue to {following}"] = CHOOSE_APPROVE
    return forms.get(said)


# -- what still stands ----------------------------------------------------------------------


class Standing:
    """An artifact approval that still stands: the bytes the user approved for a phase."""

    __slots__ = ("phase", "path", "sha256", "line", "resubmitted")

    def __init__(self, phase: str, path: str, sha256: str, line: int) -> None:
        self.phase = phase
        self.path = path
        self.sha256 = sha256
        self.line = line  # 0-based line of the Approved block's heading
        self.resubmitted: str | None = None  # the sha256 submitted since, awaiting approval

    def __repr__(self) -> str:
        return f"Standing({self.phase}, {self.path}, {self.sha256[:12]})"


def log_blocks(prog: Progress, kinds: frozenset[str]) -> list[Block]:
    """The log's blocks of these kinds with their entries, without parsing the others (a
    10,000-round log has few blocks of the kinds an approval check reads)."""
    return [b for b in prog.blocks if b.kind in kinds]


STANDING_KINDS = frozenset({"artifact_approved", "artifact_awaiting", "reopened"})


def standing_approvals(blocks: list[Block]) -> list[Standing]:
    """Per phase, the last `Artifact - Approved` block, unless a `Reopened` block went back to
    that phase or before. A submission since does not replace it: until the user approves the
    new bytes, the approved ones are what stands (`resubmitted` says what awaits)."""
    standing: dict[str, Standing] = {}
    for block in blocks:
        phase = block.phase
        if phase is None:
            continue
        if block.kind == "artifact_approved":
            path, sha = block.first("Artifact"), block.first("Sha256")
            if path and sha and SHA256_RE.match(sha):
                standing[phase] = Standing(phase, path, sha, block.line)
        elif block.kind == "artifact_awaiting" and phase in standing:
            standing[phase].resubmitted = block.first("Sha256")
        elif block.kind == "reopened" and phase in RANK:
            for later in [p for p in standing if RANK.get(p, -1) >= RANK[phase]]:
                del standing[later]
    return sorted(standing.values(), key=lambda s: RANK.get(s.phase, 0))


# -- going back -----------------------------------------------------------------------------


def superseded_interviews(blocks: list[Block]) -> set[str]:
    """Interview IDs a `Reopened` block set aside: never to be begun or delegated again."""
    out: set[str] = set()
    for block in blocks:
        if block.kind == "reopened":
            for entry in block.get("Superseded"):
                for part in entry.value.split(","):
                    words = part.split()
                    if len(words) >= 3 and words[1] == "interview":
                        out.add(words[2])
    return out


def set_aside(prog: Progress, interview_id: str) -> bool:
    """Whether a `Reopened` block set this interview aside (`superseded_interviews`). Such a
    block names the interview in the log's text, so where the log's text does not hold the
    ID no block is read: resuming an interview reads no heading of a 10,000-round log."""
    span = prog.log_span()
    if span is None or prog.tf.text.find(interview_id, *span) < 0:
        return False
    return interview_id in superseded_interviews(log_blocks(prog, frozenset({"reopened"})))


def _approved_interviews(blocks: list[Block]) -> list[tuple[str, str]]:
    """(phase, interview) of each Confirmed, Skipped-then-Confirmed or Bypassed block that no
    Reopened block has set aside yet, in log order."""
    found: list[tuple[str, str]] = []
    for block in blocks:
        if block.phase is None:
            continue
        if block.kind in ("confirmed", "bypassed"):
            iv = block.first("Interview")
            if iv and (block.phase, iv) not in found:
                found.append((block.phase, iv))
        elif block.kind == "reopened" and block.phase in RANK:
            found = [(p, i) for p, i in found if RANK.get(p, -1) < RANK[block.phase]]
    return found


def reopen(data: dict[str, object], blocks: list[Block], phase: str, reason: str,
           ) -> Transition[ReopenReport]:
    """`reopen`: the one way back to an earlier phase (or to redo the current one).

    Every interview approval and artifact approval of `phase` and the phases after it is set
    aside: they stay in the log as history, named in the `Reopened` block, and the gates run
    again from `phase` (the record's `interview` and, when it is of those phases, `artifact`
    are cleared; `phase:` becomes `phase`).
    """
    if phase not in RANK:
        raise InputError("INVALID_PHASE", f"`{phase}` is not a phase: one of {', '.join(PHASES)}")
    current = data.get("phase")
    if not isinstance(current, str) or current not in RANK:
        raise GateRefusal("NOTHING_TO_REOPEN", "the spec has no phase yet: nothing to reopen")
    if RANK[phase] > RANK[current]:
        raise GateRefusal("REOPEN_FORWARD", f"the spec is at phase {current}: `reopen` goes back "
                          f"to it or an earlier phase, never forward to {phase}")
    text = single_line(reason, "--reason")
    superseded: list[str] = []
    iv = interview_of(data)
    for p, i in _approved_interviews(blocks):
        if RANK.get(p, -1) >= RANK[phase]:
            superseded.append(f"{p} interview {i}")
    if iv is not None and iv.get("phase") in RANK and RANK[str(iv["phase"])] >= RANK[phase]:
        entry = f"{iv['phase']} interview {iv.get('id')}"
        if entry not in superseded:
            superseded.append(entry)
    for standing in standing_approvals(blocks):
        if RANK.get(standing.phase, -1) >= RANK[phase]:
            superseded.append(f"{standing.phase} artifact {standing.path}@{standing.sha256[:12]}")
    art = artifact_of(data)
    art_goes = art is not None and RANK.get(str(art.get("phase")), -1) >= RANK[phase]
    if art_goes and art is not None and art.get("status") in OPEN:
        superseded.append(f"{art['phase']} artifact {art['path']} ({art['status']})")
    if not superseded:
        raise GateRefusal("NOTHING_TO_REOPEN", f"nothing of the {phase} phase or after it is "
                          "approved or under way: there is nothing to go back from")
    change = Change()
    change.updates["phase"] = phase
    if iv is not None and iv.get("phase") in RANK and RANK[str(iv["phase"])] >= RANK[phase]:
        change.updates["interview"] = None
    if art_goes:
        change.updates["artifact"] = None
    change.block(block_heading(phase, "Grill - Reopened"),
                 [f"- From phase: {current}", f"- Reason: {text}",
                  f"- Superseded: {', '.join(superseded)}"])
    return Transition(change, {"phase": phase, "from_phase": current, "reason": text,
                               "superseded": superseded})


def check_phase_order(prog: Progress, phase: str, interview_id: str) -> None:
    """For `begin-interview`: never an earlier phase than the spec's (that is a `reopen`),
    and never an interview ID a reopening set aside."""
    data = prog.data
    current = data.get("phase")
    iv = interview_of(data)
    resuming = iv is not None and iv.get("id") == interview_id and iv.get("phase") == phase
    if isinstance(current, str) and current in RANK and phase in RANK and \
            RANK[phase] < RANK[current] and not resuming:
        raise GateRefusal("PHASE_REGRESSION",
                          f"the spec is at phase {current}: going back to {phase} sets aside "
                          f"what was approved since, so it is recorded: `mdgrill reopen SPEC "
                          f"--phase {phase} --reason TEXT`, then begin the {phase} interview")
    if set_aside(prog, interview_id):
        raise GateRefusal("INTERVIEW_SUPERSEDED",
                          f"interview {interview_id} was set aside by a reopening: begin the "
                          "interview under a new ID")
