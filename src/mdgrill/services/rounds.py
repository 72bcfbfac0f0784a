"""A round as a whole: `ask` opens it for the question tool, `answer` records the tool's
result, `questionnaire` writes it for an editor and `collect` records what was filled in.

Each answer is recorded by `services.interview.record_answer` (through
`services.answers.record_reply`), the route `record-answer` takes, so the owners map and the
context's freshness hold here as there; the round is opened by `interview.open_frontier`.
"""

from __future__ import annotations

import os

from mdgrill.core import askround, machine
from mdgrill.errors import GateRefusal, InputError
from mdgrill.model.record import TERMINAL
from mdgrill.services import interview
from mdgrill.services.answers import Recorded, pending_nodes, pending_of
from mdgrill.services.result import Result
from mdgrill.shell import store
from mdgrill.shell.session import load


class Asked(Result):
    """What `ask` gives: the round's questions as the tool's payload (`batches`), or the
    approval question, or nothing to ask (`kind`: round, approval or none)."""

    __slots__ = ("asked",)

    def __init__(self, data: dict[str, object],
                 asked: list[dict[str, object]] | None = None) -> None:
        super().__init__("ask", data)
        self.asked = asked or []  # the questions, each with its decision_id (for markdown)

    @property
    def kind(self) -> str:
        return str(self.data["kind"])


class Answered(Result):
    """What a reply recorded: `recorded` (ID -> answer), `refused` (ID -> code, message),
    `open`, `other` (answered in the user's own words) and `next`."""

    __slots__ = ("done",)

    def __init__(self, data: dict[str, object], done: Recorded | None = None) -> None:
        super().__init__("answer", data)
        self.done = done

    @property
    def recorded(self) -> dict[str, str]:
        value = self.data.get("recorded")
        return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}

    @property
    def refused(self) -> dict[str, dict[str, str]]:
        value = self.data.get("refused")
        return value if isinstance(value, dict) else {}


def open_round(spec: store.Spec) -> dict[str, object]:
    """Open the next round for the whole frontier (as `open-frontier` records it), unless
    questions are pending already or nothing is open."""
    from mdgrill.model.tree import spec_frontier

    prog = load(spec)
    iv = machine.interview_of(prog.data)
    if pending_of(prog) or str(iv["status"]) != "collecting":
        return {"opened": False}
    frontier = spec_frontier(prog).frontier
    if not frontier:
        return {"opened": False}
    askround.questions(pending_nodes(prog, frontier))  # refuses before anything is written
    round_number = int(str(iv["round"]))
    if machine._current_round_block(prog, iv) is not None:
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
        brief = askround.approval_brief(prog)
        return Asked({"kind": "approval", "questions": [askround.approval_question(brief)],
                      "markdown": askround.approval_markdown(brief),
                      "next": "confirm --reply with the user's selection", "written": False})
    if status in TERMINAL:
        from mdgrill.services.bound_targets import drift_questions

        drifted = drift_questions(spec)  # issue 36: a bound decision whose code changed
        if drifted:
            payload = askround.tool_payload(drifted)
            return Asked({"kind": "drift", "questions": payload["questions"],
                          "decisions": {str(q["question"]): q["decision_id"] for q in drifted},
                          "next": "reaffirm SPEC --decision-id ID --reply <the selection>",
                          "written": False})
        return Asked({"kind": "none", "questions": [], "written": False, "status": status})
    opened = open_round(spec)
    prog = load(spec)
    iv = machine.interview_of(prog.data)
    pending = pending_of(prog)
    if not pending:
        return Asked({"kind": "none", "questions": [], "written": False,
                      "next": "await-confirmation"})
    asked = askround.questions(pending_nodes(prog, pending))
    calls = [askround.tool_payload(b) for b in askround.batches(asked)]
    return Asked({"kind": "round", "round": iv["round"], "questions": calls[0]["questions"],
                  "batches": calls, "decisions": {str(q["question"]): q["decision_id"]
                                                  for q in asked},
                  "written": bool(opened["opened"])}, asked)


def answer(spec: store.Spec, *, tool_result: str, by: str | None = None) -> Answered:
    """Record what the question tool returned (its JSON, as text) or the user's plain reply,
    each answer as `record-answer` records it."""
    from mdgrill.model.replies import classify
    from mdgrill.services.answers import record_reply
    from mdgrill.shell.people import who

    reply = askround.read_reply(tool_result)
    prog = load(spec)
    pending = pending_of(prog)
    if not pending:
        raise GateRefusal("NOTHING_ASKED", "no decision is pending: run `mdgrill ask SPEC` "
                          "and pass its questions to the user first")
    asked = askround.questions(pending_nodes(prog, pending))
    answers = askround.match(asked, reply)
    if isinstance(reply, str) and not answers:
        return Answered({"recorded": {}, "refused": {}, "open": pending,
                         "classification": classify(reply).kind, "next": "ask",
                         "written": False})
    done = record_reply(spec, answers, who(spec, by), pending)
    return Answered(done.to_json(), done)


def questionnaire(spec: store.Spec) -> Result:
    """Open the round the gate requires (as `ask` does) and write it as questions.md."""
    from mdgrill.core.questionnaire import FILE, read
    from mdgrill.formats.textfile import decode
    from mdgrill.services.answers import questionnaire_text

    path = os.path.join(spec.folder, FILE)
    if os.path.exists(path):
        old = decode(store.read_file(path, FILE, spec.root), FILE).text
        if read(old, pending_of(load(spec))).answers:
            raise InputError("NOT_EMPTY", f"{spec.rel_folder}/{FILE} holds answers not yet "
                             "recorded: run `mdgrill collect SPEC` first; nothing was written")
    opened = open_round(spec)
    text = questionnaire_text(spec)
    if text is None:
        return Result("questionnaire", {"written": False, "next": "await-confirmation",
                                        **opened})
    store.atomic_write(path, text.encode("utf-8"))
    return Result("questionnaire", {"written": True, "path": f"{spec.rel_folder}/{FILE}",
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
