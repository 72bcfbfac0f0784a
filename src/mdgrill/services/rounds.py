"""A round as a whole: `ask` opens it for the question tool, `answer` records the tool's
result, `questionnaire` writes it for an editor and `collect` records what was filled in.

Each answer is recorded by `services.interview.record_answer` (through
`services.answers.record_reply`), the route `record-answer` takes, so the owners map and the
context's freshness hold here as there; the round is opened by `interview.open_frontier`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, cast

from mdgrill.core import askround, machine
from mdgrill.core.machine.basics import current_round_block
from mdgrill.errors import GateRefusal, InputError, InternalError
from mdgrill.formats.schema import TERMINAL
from mdgrill.services import interview
from mdgrill.services.answers import Recorded, pending_nodes, pending_of
from mdgrill.services.result import Questionnaire, Result
from mdgrill.shell import store
from mdgrill.shell.session import load, spec_hint

if TYPE_CHECKING:
    from mdgrill.core.askround import ToolQuestion
    from mdgrill.core.plain_reply import Part
    from mdgrill.formats.progress import Progress


class Asked(Result):
    """What `ask` gives: the round's questions as the tool's payload (`batches`), or the
    approval question, or nothing to ask (`kind`: round, approval or none)."""

    __slots__ = ("asked",)

    def __init__(self, data: dict[str, object],
                 asked: list[ToolQuestion] | None = None) -> None:
        super().__init__("ask", data)
        self.asked = asked or []  # the questions, each with its decision_id (for markdown)

    @property
    def kind(self) -> str:
        return self._str("kind")

    @property
    def round(self) -> int | None:
        """The round asked (None for an approval question or nothing to ask)."""
        return self._opt_int("round")

    @property
    def batches(self) -> list[dict[str, object]]:
        """A round's questions as the question tool's payloads, at most four a call."""
        return self._dicts("batches", absent=True)

    @property
    def questions(self) -> list[dict[str, object]]:
        return self._dicts("questions", absent=True)

    @property
    def markdown(self) -> str | None:
        """The approval question as text to show the user (approval, artifact)."""
        return self._opt_str("markdown")

    @property
    def next(self) -> str | None:
        """When nothing is asked: the step to take instead (`await-confirmation`, `node add`,
        ...)."""
        return self._opt_str("next")

    @property
    def next_command(self) -> str | None:
        """When nothing is asked: the command of the step to take instead."""
        return self._opt_str("next_command")

    @property
    def gate(self) -> str | None:
        """The artifact gate the question (or the revision awaited) is of."""
        return self._opt_str("gate")


class Answered(Result):
    """What a reply recorded: `recorded` (ID -> answer), `refused` (ID -> code, message),
    `open`, `other` (answered in the user's own words) and `next`."""

    __slots__ = ("done",)

    def __init__(self, data: dict[str, object], done: Recorded | None = None) -> None:
        super().__init__("answer", data)
        self.done = done

    @property
    def recorded(self) -> dict[str, str]:
        return self._str_map("recorded", absent=True)

    @property
    def refused(self) -> dict[str, dict[str, str]]:
        value = self._mapping("refused") if "refused" in self.data else {}
        for why in value.values():
            if not isinstance(why, dict) or not all(isinstance(why.get(k), str)
                                                    for k in ("code", "message")):
                raise InternalError("the answer result's `refused` is not a mapping of codes "
                                    "and messages: this is a defect of mdgrill; please "
                                    "report it")
        return cast("dict[str, dict[str, str]]", value)

    @property
    def open(self) -> list[str]:
        """The decisions of the round still without an answer."""
        return self._strs("open", absent=True)

    @property
    def problems(self) -> list[dict[str, object]]:
        """`collect`: what in the file could not be read (its line and why); nothing was
        recorded from it."""
        return self._dicts("problems", absent=True)

    @property
    def classification(self) -> str | None:
        """When nothing was recorded: what the reply reads as (control_only, stop, ...)."""
        return self._opt_str("classification")

    @property
    def unread_messages(self) -> list[str]:
        """When nothing was recorded: what of the reply could not be read, and why."""
        return self._strs("unread_messages", absent=True)

    @property
    def round(self) -> int | None:
        return self._opt_int("round")

    @property
    def next_command(self) -> str | None:
        return self._opt_str("next_command")

    @property
    def exit_code(self) -> int:
        """2 when part of the reply that held content was not recorded (REPLY_UNREAD), 3
        when the gate refused every answer it gave, else 0."""
        error = self.data.get("error")
        if isinstance(error, dict) and error.get("code") == "REPLY_UNREAD":
            return 2
        return 0 if self.recorded or not self.refused else 3


def open_round(spec: store.Spec) -> dict[str, object]:
    """Open the next round for the whole frontier (as `open-frontier` records it); while
    questions are pending, add to the open round what the answers since unblocked ("Ask
    compatibility plus any decisions it unblocked", the framework's partial answer)."""
    from mdgrill.model.tree import spec_frontier

    prog = load(spec)
    iv = machine.interview_of(prog.data)
    if str(iv["status"]) != "collecting":
        return {"opened": False}
    frontier = spec_frontier(prog).frontier
    pending = pending_of(prog)
    if pending:
        unblocked = [i for i in frontier if i not in pending]
        if not unblocked or current_round_block(prog, iv) is None:
            return {"opened": False}  # (a round not last in the log takes no new Asked line)
        askround.questions(pending_nodes(prog, unblocked))  # refuses before anything is written
        interview.open_frontier(spec, round=int(str(iv["round"])), decision_ids=unblocked)
        return {"opened": False, "added": unblocked, "round": int(str(iv["round"]))}
    if not frontier:
        return {"opened": False}
    askround.questions(pending_nodes(prog, frontier))  # refuses before anything is written
    round_number = int(str(iv["round"]))
    if current_round_block(prog, iv) is not None:
        round_number += 1
    interview.open_frontier(spec, round=round_number, decision_ids=frontier)
    return {"opened": True, "round": round_number}


def ask(spec: store.Spec) -> Asked:
    """Open the round the gate requires and give it as the question tool's payload."""
    prog = load(spec)
    iv = machine.interview_of(prog.data)
    status = str(iv["status"])
    if status == "awaiting_confirmation":
        # the question carries what is approved: the approach and the decisions it rests on
        from mdgrill.core.evidence import approval_tag

        brief = askround.approval_brief(prog)
        tag = approval_tag(spec.rel_folder, str(iv["id"]), brief.confirmation_id)
        return Asked({"kind": "approval", "questions": [askround.approval_question(brief, tag)],
                      "markdown": askround.approval_markdown(brief),
                      **approval_next(spec, brief.confirmation_id or "CID"), "written": False})
    if status in TERMINAL:
        gate = artifact_question(spec, prog)
        if gate is not None:
            return gate
        from mdgrill.services.bound_targets import drift_questions

        drifted = drift_questions(spec)  # issue 36: a bound decision whose code changed
        if drifted:
            payload = askround.tool_payload(drifted)
            return Asked({"kind": "drift", "questions": payload["questions"],
                          "decisions": {str(q["question"]): q["decision_id"] for q in drifted},
                          "next": f"reaffirm {spec_hint(spec)} --decision-id ID --reply "
                          "<the selection>",
                          "written": False})
        return Asked({"kind": "none", "questions": [], "written": False, "status": status})
    opened = open_round(spec)
    prog = load(spec)
    iv = machine.interview_of(prog.data)
    pending = pending_of(prog)
    if not pending:
        step, command = closing_step(spec)
        return Asked({"kind": "none", "questions": [], "written": False, "next": step,
                      "next_command": command})
    from mdgrill.model.tree import unexplained

    asked = round_questions(prog, pending)
    calls = [askround.tool_payload(b) for b in askround.batches(asked)]
    # asked all the same (an option's own description may say why): said, as validate says
    warnings = [message for node in pending_nodes(prog, pending)
                for _, message in unexplained(node)]
    return Asked({"kind": "round", "round": iv["round"], "questions": calls[0]["questions"],
                  "batches": calls, "decisions": {str(q["question"]): q["decision_id"]
                                                  for q in asked},
                  "unblocked": opened.get("added", []),
                  "written": bool(opened["opened"] or opened.get("added")),
                  "warnings": warnings}, asked)


def approval_next(spec: store.Spec, cid: str) -> dict[str, object]:
    """What follows the approval question, over a channel the project accepts: the agent's
    `confirm --reply` only where the agent's relay (hook or `agent`) is accepted; else how the
    user approves themselves, since a `confirm --reply` would be refused
    `APPROVAL_CHANNEL_NOT_ACCEPTED`."""
    from mdgrill.services.channels import how_to
    from mdgrill.shell.project import accepted_channels

    hint = spec_hint(spec)
    accepted = accepted_channels(spec.root)
    if "hook" in accepted or "agent" in accepted:
        return {"next": "confirm --reply with the user's selection",
                "next_command": f"mdgrill confirm {hint} --decision-id {cid} --source "
                "approve-and-delegate --reply <the user's selection>"}
    command = {"terminal": f"mdgrill approve {hint}",
               "signed": f"mdgrill confirm {hint} --decision-id {cid} --source "
                         "approve-and-delegate --sign",
               "elicitation": "the MCP tool ask_approval"}
    return {"next": "the user approves over an accepted channel: "
                    + how_to(accepted, spec.rel_folder, cid),
            # the user's own terminal first: it works wherever the agent runs
            "next_command": next(command[c] for c in command if c in accepted),
            "channels": list(accepted)}


def artifact_question(spec: store.Spec, prog: Progress) -> Asked | None:
    """The artifact gate's own question while the phase's artifact awaits approval (issue 38
    part 4); after a revision request, the step that comes first; else None."""
    from mdgrill.core import artifact_gate
    from mdgrill.model import artifact as artifact_model

    art = artifact_model.artifact_of(prog.data)
    if art is None or art["status"] not in artifact_model.OPEN:
        return None
    hint = spec_hint(spec)
    if art["status"] == artifact_model.REVISION:
        return Asked({"kind": "none", "questions": [], "written": False,
                      "gate": artifact_model.gate_id(art), "next": "await-artifact-approval",
                      "next_command": f"mdgrill await-artifact-approval {hint} --artifact "
                      f"{art['path']}", "status": str(art["status"])})
    return Asked({"kind": "artifact", "gate": artifact_model.gate_id(art),
                  "questions": [artifact_gate.approval_question(art, spec.rel_folder)],
                  "options": artifact_gate.approval_options(art),
                  "markdown": artifact_gate.approval_markdown(art, spec.rel_folder),
                  "next": "resolve-approval with the user's selection",
                  "next_command": f"mdgrill resolve-approval {hint} --text <the user's "
                  "selection>", "written": False})


def answer(spec: store.Spec, *, tool_result: str, by: str | None = None) -> Answered:
    """Record what the question tool returned (its JSON, as text) or the user's plain reply,
    each answer as `record-answer` records it; every piece that answers no pending question is
    named back (`unread`, `unread_messages`), whether or not the others recorded, and one
    that held content makes the result REPLY_UNREAD (`error`)."""
    from mdgrill.core.plain_reply import round_numbering, split_reply
    from mdgrill.model.replies import classify
    from mdgrill.services.answers import place_reply, record_reply, unread_error
    from mdgrill.shell.people import who

    reply = askround.read_reply(tool_result)
    prog = load(spec)
    iv = machine.interview_of(prog.data)
    if str(iv["status"]) == "awaiting_confirmation":
        raise _approval_is_no_answer(spec, iv, reply)
    pending = pending_of(prog)
    gate = artifact_question(spec, prog) if not pending else None
    if gate is not None and gate.kind == "artifact":
        raise _artifact_is_no_answer(spec, prog, reply)
    if not pending:
        raise GateRefusal("NOTHING_ASKED", f"no decision is pending: run `mdgrill ask "
                          f"{spec_hint(spec)}` and pass its questions to the user first")
    numbering = round_numbering(prog, pending)
    round_number = int(str(iv["round"]))
    if isinstance(reply, str):
        parts = split_reply(reply, numbering, pending)
    else:
        parts = tool_parts(round_questions(prog, pending), reply, numbering)
    placed = place_reply(prog, parts, numbering, pending, round_number)
    if not placed.answers:
        data: dict[str, object] = {
            "recorded": {}, "refused": {}, "open": pending, "unread": placed.unread,
            "unread_messages": placed.notes, "round": round_number, "asked": len(numbering),
            "next": "ask", "next_command": f"mdgrill ask {spec_hint(spec)}", "written": False}
        if isinstance(reply, str):
            data["classification"] = classify(reply).kind
        if placed.content_unread:
            data["error"] = {"code": "REPLY_UNREAD",
                             "message": "nothing of the reply was recorded: no piece of it "
                             "answers a pending question of the round (each is named in "
                             "`unread_messages`); ask the same round again (`mdgrill ask "
                             f"{spec_hint(spec)}`)"}
        return Answered(data)
    done = record_reply(spec, placed.answers, who(spec, by), pending)
    done.asked = len(numbering)
    done.unread, done.notes = placed.unread, placed.notes
    if placed.content_unread:
        done.error = unread_error(done)
    return Answered(done.to_json(), done)


def tool_parts(asked: list[ToolQuestion], reply: dict[str, str],
               numbering: list[str]) -> list[Part]:
    """The tool's answers as pieces of a reply: each under the decision its question names
    (by text, ID or number); a question of the round answered already keeps its decision, so
    that it is named as such; an empty answer is no piece."""
    from mdgrill.core.plain_reply import Part, split_reply

    parts: list[Part] = []
    for question, text in reply.items():
        if not text.strip():
            continue
        found = askround.match(asked, {question: text})
        if found:
            decision, answer = next(iter(found.items()))
            parts.append(Part(decision, question, answer, question))
            continue
        named = split_reply(question, numbering, [])
        earlier = named[0].decision if named and named[0].marker else None
        parts.append(Part(earlier, "", text.strip(), question))
    return parts


def round_questions(prog: Progress, pending: list[str]) -> list[ToolQuestion]:
    """The pending questions, each numbered as the open round first numbered it."""
    from mdgrill.core.plain_reply import round_numbering

    order = round_numbering(prog, pending)
    return askround.questions(pending_nodes(prog, pending),
                              [order.index(d) + 1 for d in pending])


def _artifact_is_no_answer(spec: store.Spec, prog: Progress,
                           reply: dict[str, str] | str) -> GateRefusal:
    """`answer` given the artifact question's selection: what it resolves to, and the verb
    that records it (resolving only reads; approving is `approve-artifact`'s)."""
    import shlex

    from mdgrill.core import approval

    hint = spec_hint(spec)
    values = list(reply.values()) if isinstance(reply, dict) else [reply]
    words = " ".join(values[0].split()) if len(values) == 1 else ""
    found = approval.resolve(prog.data, words)
    if found.action == approval.APPROVE_ARTIFACT:
        how = (f"this is the approval: run `mdgrill approve-artifact {hint} --source "
               "approve-artifact`")
    else:
        how = (f"it resolves to {found.action} ({found.reason}); map the user's selection with "
               f"`mdgrill resolve-approval {hint} --text {shlex.quote(words or '…')}`")
    return GateRefusal("ILLEGAL_TRANSITION",
                       f"the {found.phase} artifact awaits the user's approval of the file, not "
                       f"answers to questions; nothing was recorded: {how}")


def _approval_is_no_answer(spec: store.Spec, iv: dict[str, object],
                           reply: dict[str, str] | str) -> GateRefusal:
    """`answer` given the approval question's selection: the verb that records it."""
    import shlex

    from mdgrill.core.approval import APPROVE_AND_DELEGATE, CANCEL, REVISE, approval_choice

    hint = spec_hint(spec)
    pending = iv.get("pending")
    cid = str(pending[0]) if isinstance(pending, list) and pending else "CID"
    values = list(reply.values()) if isinstance(reply, dict) else [reply]
    words = " ".join(values[0].split()) if len(values) == 1 else ""
    choice = approval_choice(words) if words else None
    if choice == APPROVE_AND_DELEGATE:
        how = (f"this is the approval: run `mdgrill confirm {hint} --decision-id {cid} "
               f"--source approve-and-delegate --reply {shlex.quote(words)}`")
    elif choice == REVISE:
        how = ("this asks to revise: ask which decisions to change, then run `mdgrill revise "
               f"{hint} --decision-id ID` (repeat --decision-id for each)")
    elif choice == CANCEL:
        how = f"this cancels: run `mdgrill cancel {hint} --reply {shlex.quote(words)}`"
    else:
        how = (f"ask the approval question (`mdgrill ask {hint}`) and record the user's "
               f"selection with `mdgrill confirm {hint} --decision-id {cid} --source "
               "approve-and-delegate --reply …`, `mdgrill revise` or `mdgrill cancel`")
    return GateRefusal("ILLEGAL_TRANSITION",
                       f"interview {iv['id']} awaits the user's approval of its approach, not "
                       f"answers to questions; nothing was recorded: {how}")


def closing_step(spec: store.Spec) -> tuple[str, str]:
    """What comes once nothing is pending, as (`next`, the command): the follow-up an `Other`
    answer still owes, else presenting the approach under a free confirmation ID."""
    from mdgrill.core.gate import others_without_followup

    prog = load(spec)
    iv = machine.interview_of(prog.data)
    hint = spec_hint(spec)
    owed = others_without_followup(prog, str(iv["phase"]))
    if owed:
        return "node add", f"mdgrill node add {hint} ID --title T --spawned-by {owed[0][0]}"
    return "await-confirmation", (f"mdgrill await-confirmation {hint} --decision-id "
                                  f"{machine.next_confirmation_id(iv)} --approach TEXT")


def questionnaire(spec: store.Spec) -> Questionnaire:
    """Open the round the gate requires (as `ask` does) and write it as questions.md."""
    from mdgrill.core.questionnaire import FILE, read
    from mdgrill.formats.textfile import decode
    from mdgrill.services.answers import questionnaire_text

    path = os.path.join(spec.folder, FILE)
    if os.path.exists(path):
        old = decode(store.read_file(path, FILE, spec.root), FILE).text
        if read(old, pending_of(load(spec))).answers:
            raise InputError("NOT_EMPTY", f"{spec.rel_folder}/{FILE} holds answers not yet "
                             f"recorded: run `mdgrill collect {spec_hint(spec)}` first; "
                             "nothing was written")
    opened = open_round(spec)
    text = questionnaire_text(spec)
    if text is None:
        if machine.interview_of(load(spec).data).get("status") != "collecting":
            # the approval question, an artifact's gate or nothing at all: `ask` says which
            step, command = "ask", f"mdgrill ask {spec_hint(spec)}"
        else:
            step, command = closing_step(spec)
        return Questionnaire("questionnaire", {"written": False, "next": step,
                                        "next_command": command, **opened})
    store.atomic_write(path, text.encode("utf-8"))
    return Questionnaire("questionnaire", {"written": True, "path": f"{spec.rel_folder}/{FILE}",
                                    "questions": pending_of(load(spec)), **opened})


def collect(spec: store.Spec, *, file: str | None = None, by: str | None = None) -> Answered:
    """Record the answers filled in the questionnaire (or `file`, another tool's shape);
    a file with a problem records nothing (`problems`)."""
    from mdgrill.services.answers import collect as collect_file
    from mdgrill.shell.people import who

    got = collect_file(spec, who(spec, by), file)
    filled = got.filled
    assert filled is not None  # collect reads the file before it returns
    if filled.problems:
        return Answered({"recorded": {}, "written": False,
                         "problems": [{"line": line, "message": message}
                                      for line, message in filled.problems]})
    if got.done is None:
        return Answered({"recorded": {}, "open": filled.untouched, "written": False})
    return Answered({**got.done.to_json(), "untouched": filled.untouched}, got.done)
