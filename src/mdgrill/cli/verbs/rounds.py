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
from mdgrill.errors import GateRefusal, InputError, MdgrillError
from mdgrill.formats.progress import Change, Node, Progress
from mdgrill.model.record import TERMINAL
from mdgrill.shell import store
from mdgrill.shell.session import load, transaction


def configure(verb: str, p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", metavar="SPEC", help="spec folder or its .progress.md")
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
    return _ask(spec, args) if args.verb == "ask" else _answer(spec, args)


def _pending(iv: dict[str, object]) -> list[str]:
    pending = iv.get("pending")
    return [str(i) for i in pending] if isinstance(pending, list) else []


def _nodes(prog: Progress, ids: list[str]) -> list[Node]:
    found = [prog.node(i) for i in ids]
    missing = [i for i, n in zip(ids, found, strict=True) if n is None]
    if missing:
        raise GateRefusal("MISSING_REFERENCE", f"{', '.join(missing)} has no node in the design "
                          "tree: add it with `mdgrill node add`")
    return [n for n in found if n is not None]


def _ask(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    from mdgrill.model.tree import spec_frontier

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
        return Outcome({"kind": "none", "questions": [], "written": False},
                       f"the interview is {status}: nothing to ask")
    pending = _pending(iv)
    written = False
    if not pending:
        frontier = spec_frontier(prog).frontier
        if not frontier:
            return Outcome({"kind": "none", "questions": [], "written": False,
                            "next": "await-confirmation"},
                           "nothing is open: present the approach with `mdgrill "
                           "await-confirmation SPEC --decision-id CID --approach TEXT`")
        askround.questions(_nodes(prog, frontier))  # refuses before anything is written
        round_number = int(str(iv["round"]))
        if machine._current_round_block(prog, iv) is not None:
            round_number += 1
        transaction(spec, lambda p: machine.open_frontier(p.data, p, round_number, frontier,
                                                          args.spec))
        written = True
        prog = load(spec)
        iv = machine.interview_of(prog.data)
        pending = _pending(iv)
    asked = askround.questions(_nodes(prog, pending))
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


def _read(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    from mdgrill.formats.textfile import decode

    return decode(store.read_file(source, source), source).text


def _answer(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    from mdgrill.model.replies import SUBSTANTIVE, classify
    from mdgrill.shell.people import signed, who

    reply = askround.read_reply(_read(args.tool_result))
    prog = load(spec)
    iv = machine.interview_of(prog.data)
    pending = _pending(iv)
    if not pending:
        raise GateRefusal("NOTHING_ASKED", "no decision is pending: run `mdgrill ask SPEC` "
                          "and pass its questions to the user first")
    asked = askround.questions(_nodes(prog, pending))
    answers = askround.match(asked, reply)
    if isinstance(reply, str) and not answers:
        kind = classify(reply).kind
        return Outcome({"recorded": {}, "refused": {}, "open": pending,
                        "classification": kind, "next": "ask", "written": False},
                       f"`{reply}` answers no question ({kind}): nothing was recorded; ask the "
                       "same round again (`mdgrill ask SPEC`)")
    person = who(spec, args.by)
    recorded: dict[str, str] = {}
    refused: dict[str, dict[str, str]] = {}
    others: list[str] = []
    nodes = {n.id: n for n in _nodes(prog, pending)}
    for decision, answer in answers.items():
        node = nodes[decision]
        option = askround.option_of(node, answer)
        options, recommended = node.choices()
        other = option is None and classify(answer, options, recommended).kind == SUBSTANTIVE

        def step(p: Progress, d: str = decision, a: str = option or answer,
                 o: bool = other) -> tuple[Change, dict[str, object]]:
            return machine.record_answer(p.data, p, d, a, None, o)

        try:
            done = transaction(spec, signed(step, person, decision))
        except MdgrillError as exc:
            refused[decision] = {"code": exc.code, "message": exc.message}
            continue
        recorded[decision] = str(done["recorded"])
        if other:
            others.append(decision)
    left = [d for d in pending if d not in recorded]
    next_step = "ask" if left or not _closed(spec) else "await-confirmation"
    if others:  # the gate wants the follow-up an `Other` leads to before it moves on
        next_step = "node add"
    result: dict[str, object] = {"recorded": recorded, "refused": refused, "open": left,
                                 "other": others, "next": next_step,
                                 "written": bool(recorded)}
    lines = [f"recorded {d} -> {t}" for d, t in recorded.items()]
    lines += [f"not recorded {d}: {r['code']}: {r['message']}" for d, r in refused.items()]
    lines += [f"{d} was answered in the user's own words: add the decision it leads to "
              f"(`mdgrill node add SPEC ID --title T --spawned-by {d}`)" for d in others]
    lines.append(f"still open: {', '.join(left)}" if left else "every question of the round "
                 "has its answer")
    lines.append(f"next: mdgrill {next_step} SPEC" + {
        "await-confirmation": " --decision-id CID --approach TEXT",
        "node add": " ID --title T --spawned-by " + (others[0] if others else "ID"),
    }.get(next_step, ""))
    return Outcome(result, "\n".join(lines), 0 if recorded or not refused else 3)


def _closed(spec: store.Spec) -> bool:
    """Whether nothing is left to ask once this round's answers are in."""
    from mdgrill.model.tree import spec_frontier

    try:
        return not spec_frontier(load(spec)).frontier
    except InputError:
        return False
