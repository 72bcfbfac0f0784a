"""`ask` and `answer`: a round as the question tool's payload, and the tool's result back.

`ask` opens the round the gate requires (the whole frontier, as `open-frontier` records it)
and prints it ready for `AskUserQuestion`; `answer` reads what the tool returned and records
each answer against its decision, so that an agent only relays. The work is
`services.rounds`'; a verb here parses, calls it and prints.
"""

from __future__ import annotations

import argparse
import json
import sys

from mdgrill.cli.verbs import Outcome, Verb, add_spec, on_spec
from mdgrill.services import rounds
from mdgrill.shell import store
from mdgrill.shell.session import spec_hint

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.services.result import Questionnaire
    from mdgrill.services.rounds import Asked


def _by(p: argparse.ArgumentParser) -> None:
    p.add_argument("--by", metavar="NAME", help="who answered (default: git's identity)")


def _collect_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    p.add_argument("file", metavar="FILE", nargs="?", help="another questionnaire file "
                   "(`### <question>` and the answer quoted under it, as agent skills "
                   "write them); default: the spec's questions.md")
    _by(p)


def _ask_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    p.add_argument("--format", choices=["json", "markdown"], default="json",
                   help="the tool's JSON payload (default) or the round as numbered text")


def _answer_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    p.add_argument("--tool-result", required=True, metavar="FILE",
                   help="what the question tool returned, as it came (`{\"answers\": "
                   "{question: answer}}`, also inside a hook's `tool_response`), or the "
                   "user's reply: each answer after its question's number or decision "
                   "ID, on one line or several (`Q1: a, Q2: 2`, `1) b  2) a`, `D1: the "
                   "option's words; D2: their own words`; a one-question round takes the "
                   "bare reply); FILE, or - for stdin")
    _by(p)


def _nothing_open(done: Asked | Questionnaire) -> str:
    return f"nothing is open: {_closing(done)}"


def _closing(done: Asked | Questionnaire) -> str:
    """The step a result's `next_command` names once nothing is pending."""
    if done.next == "node add":
        return ("an answer in the user's own words still owes its follow-up: add the decision "
                f"it leads to (`{done.next_command}`) and ask it")
    return f"present the approach with `{done.next_command}`"


def _questionnaire(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    done = rounds.questionnaire(spec)
    if not done.written:
        return Outcome(done.data, _nothing_open(done))
    return Outcome(done.data, f"wrote {done.path}: {len(done.questions)} question(s); answer them "
                   f"there and save, then `mdgrill collect {spec_hint(spec)}` (or keep "
                   "`mdgrill watch` running)")


def _collect(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    from mdgrill.core.questionnaire import FILE
    from mdgrill.services.answers import report_lines

    got = rounds.collect(spec, file=args.file, by=args.by)
    shown = args.file or f"{spec.rel_folder}/{FILE}"
    if got.problems:
        text = "\n".join(f"{shown}:{p['line']}:1: {p['message']}" for p in got.problems)
        return Outcome(got.data, text + "\nnothing was recorded from the file", 2)
    if got.done is None:
        return Outcome(got.data, f"{shown}: nothing answered yet ({len(got.open)} open)")
    # as `answer`: exit 3 when the gate refused every answer the file gave
    return Outcome(got.data, "\n".join(report_lines(got.done)),
                   0 if got.recorded or not got.refused else 3)


def _ask(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    from mdgrill.core import askround

    asked = rounds.ask(spec)
    if asked.kind in ("approval", "artifact") and args.format == "markdown":
        return Outcome(asked.data, str(asked.markdown))
    if asked.kind in ("approval", "artifact", "drift"):
        return Outcome(asked.data, json.dumps({"questions": asked.questions},
                                              ensure_ascii=False, indent=2))
    if asked.kind == "none" and asked.gate:  # the artifact awaits its revision
        return Outcome(asked.data, f"a revision of the artifact was requested: revise it with "
                       f"the recorded feedback, then `{asked.next_command}`")
    if asked.kind == "none":
        return Outcome(asked.data, _nothing_open(asked) if asked.status is None else
                       f"the interview is {asked.status}: nothing to ask")
    if args.format == "markdown":
        number = asked.round
        if number is None:
            from mdgrill.errors import InternalError

            raise InternalError("the round `ask` opened has no number: this is a defect of "
                                "mdgrill; please report it")
        text = askround.markdown(asked.asked, number)
    else:
        text = "\n".join(json.dumps(c, ensure_ascii=False, indent=2) for c in asked.batches)
    return Outcome(asked.data, text)


def _read(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    from mdgrill.formats.textfile import decode

    return decode(store.read_file(source, source), source).text


def _answer(spec: store.Spec, args: argparse.Namespace) -> Outcome:
    from mdgrill.services.answers import report_lines

    raw = _read(args.tool_result)
    done = rounds.answer(spec, tool_result=raw, by=args.by)
    if done.done is not None:
        lines = report_lines(done.done)
        if done.done.error is not None:
            lines.append(f"not all of the reply was recorded ({done.done.error['code']})")
        return Outcome(done.data, "\n".join(lines), done.exit_code)
    lines = list(done.unread_messages)  # a copy: the result's own list is printed as JSON
    if not lines:  # the tool's answers were all empty
        lines = [f"the reply answers no question of round {done.round}"]
    else:
        kind = done.classification
        if kind not in (None, "substantive") and not any("answers nothing" in m for m in lines):
            lines.append(f"(the reply reads as {str(kind).replace('_', ' ')}: it answers "
                         "nothing)")
    lines.append(f"nothing was recorded; ask the same round again (`{done.next_command}`)")
    return Outcome(done.data, "\n".join(lines), done.exit_code)


VERBS = (
    Verb("ask", "Open the round the gate requires and print it as AskUserQuestion's payload.",
         _ask_arguments, on_spec(_ask)),
    Verb("answer", "Record what the question tool returned (or the user's reply) against each "
         "decision.",
         _answer_arguments, on_spec(_answer)),
    Verb("questionnaire", "Write the open round as questions.md, to answer in an editor (ticks or "
         "own words).",
         add_spec, on_spec(_questionnaire)),
    Verb("collect", "Record the answers filled in questions.md, as `answer` records them.",
         _collect_arguments, on_spec(_collect)),
)
