"""`ask` and `answer`: a round as the question tool's payload, and the tool's result back.

`ask` opens the round the gate requires (the whole frontier, as `open-frontier` records it)
and prints it ready for `AskUserQuestion`; `answer` reads what the tool returned and records
each answer against its decision, so that an agent only relays.
"""

from __future__ import annotations

import argparse
import json
import sys

from mdgrill.cli.verbs import Outcome, spec_of
from mdgrill.core import askround, machine
from mdgrill.errors import GateRefusal, InputError
from mdgrill.model.record import TERMINAL
from mdgrill.services.answers import pending_nodes, pending_of
from mdgrill.shell import store
from mdgrill.shell.session import load, transaction


def configure(verb: str, p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", metavar="SPEC", help="spec folder or its .progress.md")
    if verb == "questionnaire":
        return
    if verb == "collect":
        p.add_argument("file", metavar="FILE", nargs="?", help="another questionnaire file "
                       "(`### <question>` and the answer quoted under it, as agent skills "
                       "write them); default: the spec's questions.md")
        p.add_argument("--by", metavar="NAME", help="who answered (default: git's identity)")
        return
    if verb == "ask":
        p.add_argument("--format", choices=["json", "markdown"], default="json",
                       help="the tool's JSON payload (default) or the round as numbered text")
    else:
        p.add_argument("--tool-result", required=True, metavar="FILE",
                       help="what the question tool returned (JSON), or the user's plain "
                       "reply to the Markdown round; - for stdin")
        p.add_argument("--by", metavar="NAME", help="who answered (default: git's identity)")


def run(args: argparse.Namespace) -> Outcome:
    spec = spec_of(args)
    if args.verb == "questionnaire":
        return _questionnaire(spec)
    if args.verb == "collect":
        return _collect(spec, args)
    return _ask(spec, args) if args.verb == "ask" else _answer(spec, args)


def _questionnaire(spec: store.Spec) -> Outcome:
    """Open the round the gate requires (as `ask` does) and write it as questions.md."""
    import os

    from mdgrill.core.questionnaire import FILE, read
    from mdgrill.formats.textfile import decode
    from mdgrill.services.answers import questionnaire_text

    path = os.path.join(spec.folder, FILE)
    if os.path.exists(path):
        old = decode(store.read_file(path, FILE, spec.root), FILE).text
        if read(old, pending_of(load(spec))).answers:
            raise InputError("NOT_EMPTY", f"{spec.rel_folder}/{FILE} holds answers not yet "
                             "recorded: run `mdgrill collect SPEC` first; nothing was written")
    opened = _open_round(spec)
    text = questionnaire_text(spec)
    if text is None:
        return Outcome({"written": False, "next": "await-confirmation", **opened},
                       "nothing is open: present the approach with `mdgrill "
                       "await-confirmation SPEC --decision-id CID --approach TEXT`")
    store.atomic_write(path, text.encode("utf-8"))
    pending = pending_of(load(spec))
    return Outcome({"written": True, "path": f"{spec.rel_folder}/{FILE}", "questions": pending,
                    **opened},
                   f"wrote {spec.rel_folder}/{FILE}: {len(pending)} question(s); answer them "
                   "there and save, then `mdgrill collect SPEC` (or keep `mdgrill watch` "
                   "running)")


def _collect(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    from mdgrill.core.questionnaire import FILE
    from mdgrill.services.answers import collect, report_lines
    from mdgrill.shell.people import who

    got = collect(spec, who(spec, args.by), args.file)
    filled = got.filled
    assert filled is not None  # collect reads the file before it returns
    shown = args.file or f"{spec.rel_folder}/{FILE}"
    if filled.problems:
        problems = [{"line": line, "message": message} for line, message in filled.problems]
        text = "\n".join(f"{shown}:{line}:1: {message}" for line, message in filled.problems)
        return Outcome({"recorded": {}, "problems": problems, "written": False},
                       text + "\nnothing was recorded from the file", 2)
    if got.done is None:
        return Outcome({"recorded": {}, "open": filled.untouched, "written": False},
                       f"{shown}: nothing answered yet ({len(filled.untouched)} open)")
    return Outcome({**got.done.to_json(), "untouched": filled.untouched},
                   "\n".join(report_lines(got.done)))


def _ask(spec: store.Spec, args: argparse.Namespace) -> Outcome:

    prog = load(spec)
    iv = machine.interview_of(prog.data)
    status = str(iv["status"])
    if status == "awaiting_confirmation":
        question = {"question": "Approve and delegate?", "header": "Approval",
                    "options": [{"label": label, "description": label.split(" (")[0]}
                                for label in machine.APPROVAL_OPTIONS],
                    "multiSelect": False}
        result: dict[str, object] = {"kind": "approval", "questions": [question],
                                     "next": "confirm --reply with the user's selection",
                                     "written": False}
        return Outcome(result, json.dumps({"questions": [question]}, ensure_ascii=False,
                                          indent=2))
    if status in TERMINAL:
        from mdgrill.services.bound_targets import drift_questions

        drifted = drift_questions(spec)  # issue 36: a bound decision whose code changed
        if drifted:
            payload = askround.tool_payload(drifted)
            return Outcome({"kind": "drift", "questions": payload["questions"],
                            "decisions": {str(q["question"]): q["decision_id"] for q in drifted},
                            "next": "reaffirm SPEC --decision-id ID --reply <the selection>",
                            "written": False}, json.dumps(payload, ensure_ascii=False, indent=2))
        return Outcome({"kind": "none", "questions": [], "written": False},
                       f"the interview is {status}: nothing to ask")
    opened = _open_round(spec)
    written = bool(opened["opened"])
    prog = load(spec)
    iv = machine.interview_of(prog.data)
    pending = pending_of(prog)
    if not pending:
        return Outcome({"kind": "none", "questions": [], "written": False,
                        "next": "await-confirmation"},
                       "nothing is open: present the approach with `mdgrill "
                       "await-confirmation SPEC --decision-id CID --approach TEXT`")
    asked = askround.questions(pending_nodes(prog, pending))
    calls = [askround.tool_payload(b) for b in askround.batches(asked)]
    result = {"kind": "round", "round": iv["round"], "questions": calls[0]["questions"],
              "batches": calls, "decisions": {str(q["question"]): q["decision_id"]
                                              for q in asked},
              "written": written}
    if args.format == "markdown":
        text = askround.markdown(asked, int(str(iv["round"])))
    else:
        text = "\n".join(json.dumps(c, ensure_ascii=False, indent=2) for c in calls)
    return Outcome(result, text)


def _open_round(spec: store.Spec) -> dict[str, object]:
    """Open the next round for the frontier, as `open-frontier` records it, unless questions
    are pending already or nothing is open."""
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
    transaction(spec, lambda p: machine.open_frontier(p.data, p, round_number, frontier,
                                                      spec.rel_folder))
    return {"opened": True, "round": round_number}


def _read(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    from mdgrill.formats.textfile import decode

    return decode(store.read_file(source, source), source).text


def _answer(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    from mdgrill.model.replies import classify
    from mdgrill.services.answers import record_reply, report_lines
    from mdgrill.shell.people import who

    reply = askround.read_reply(_read(args.tool_result))
    prog = load(spec)
    pending = pending_of(prog)
    if not pending:
        raise GateRefusal("NOTHING_ASKED", "no decision is pending: run `mdgrill ask SPEC` "
                          "and pass its questions to the user first")
    asked = askround.questions(pending_nodes(prog, pending))
    answers = askround.match(asked, reply)
    if isinstance(reply, str) and not answers:
        kind = classify(reply).kind
        return Outcome({"recorded": {}, "refused": {}, "open": pending,
                        "classification": kind, "next": "ask", "written": False},
                       f"`{reply}` answers no question ({kind}): nothing was recorded; ask the "
                       "same round again (`mdgrill ask SPEC`)")
    done = record_reply(spec, answers, who(spec, args.by), pending)
    return Outcome(done.to_json(), "\n".join(report_lines(done)),
                   0 if done.recorded or not done.refused else 3)


