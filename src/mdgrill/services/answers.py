"""Recording a whole reply to the open round: one answer per decision, each through
`services.interview.record_answer`, the function `record-answer` calls (same owners rule, same
freshness check, same round, log and seal). `answer` (the question tool's result), `collect`
(the questionnaire file), `watch` and the LSP's code action all come through here."""

from __future__ import annotations

from typing import NamedTuple

from mdgrill.core import machine
from mdgrill.core.plain_reply import Part
from mdgrill.core.questionnaire import Filled
from mdgrill.errors import GateRefusal, MdgrillError
from mdgrill.formats.progress import Node, Progress
from mdgrill.shell import store
from mdgrill.shell.session import load, spec_hint


class Recorded:
    """What a reply did: recorded answers, refused ones (code, message), the decisions left
    open, those answered in the user's own words (the gate wants their follow-up), the
    reply's lines that named no question, and the next step (`next`, as a command: `command`)."""

    __slots__ = ("recorded", "refused", "open", "others", "owed", "unread", "notes", "next",
                 "spec", "confirmation_id", "round", "asked", "error")

    def __init__(self, spec: str) -> None:
        self.recorded: dict[str, str] = {}
        self.refused: dict[str, dict[str, str]] = {}
        self.open: list[str] = []
        self.others: list[str] = []
        self.owed: list[str] = []  # every `Other` of the interview still without its follow-up
        self.unread: list[str] = []
        self.notes: list[str] = []  # what is said of each unread piece, in the same order
        self.error: dict[str, str] | None = None  # REPLY_UNREAD: some content went unrecorded
        self.next = "ask"
        self.spec = spec  # as a hint names it (`session.spec_hint`)
        self.confirmation_id = "C1"  # the ID the next `await-confirmation` takes
        self.round = 0
        self.asked = 0  # how many questions the round asked

    def command(self) -> str:
        """The next step as a command to run."""
        if self.next == "await-confirmation":
            return f"mdgrill await-confirmation {self.spec} --decision-id " \
                f"{self.confirmation_id} --approach TEXT"
        if self.next == "node add":
            return f"mdgrill node add {self.spec} ID --title T --spawned-by {self.owed[0]}"
        return f"mdgrill {self.next} {self.spec}"

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "recorded": self.recorded, "refused": self.refused, "open": self.open,
            "other": self.others, "owed_followup": self.owed, "unread": self.unread,
            "unread_messages": self.notes, "next": self.next, "next_command": self.command(),
            "written": bool(self.recorded)}
        if self.error is not None:
            out["error"] = self.error
        elif self.refused and not self.recorded:
            # every answer refused: the failure names its code in `error`, as every failure
            # of `--json` does (docs/contract.md), the first refusal's
            first, why = next(iter(self.refused.items()))
            out["error"] = {"code": why["code"],
                            "message": f"the gate refused every answer given, each named "
                                       f"in `refused`; {first}: {why['message']}"}
        return out


def unread_message(line: str, round_number: int, asked: int) -> str:
    """What `answer` says of a line of the reply it placed under no question."""
    from mdgrill.core.askround import REPLY_SHAPES

    shown = line if len(line) <= UNREAD_CHARS else line[:UNREAD_CHARS - 1] + "…"
    numbers = "Q1" if asked == 1 else f"Q1–Q{asked}"
    return f"`{shown}` names no question of round {round_number} ({numbers}): {REPLY_SHAPES}"


UNREAD_CHARS = 80  # a line quoted back is cut here: a pasted page stays one readable line


class Placed(NamedTuple):
    """A plain reply read against the round: the answers to record (decision -> text), each
    piece not recorded with what is said of it, and whether one of those held content (a
    piece that only acknowledges, stops or skips answers nothing and sinks nothing)."""

    answers: dict[str, str]
    unread: list[str]
    notes: list[str]
    content_unread: bool


def _quoted(text: str) -> str:
    return text if len(text) <= UNREAD_CHARS else text[:UNREAD_CHARS - 1] + "…"


def place_reply(prog: Progress, parts: list[Part], numbering: list[str],
                pending: list[str], round_number: int) -> Placed:
    """Place the reply's pieces (`core.plain_reply.Part`s: a plain reply cut by question
    number or decision ID, or the tool's answers) and say, of each piece not recorded, why:
    it names no question, it answers one a second time, or the question it names was
    answered before (the same answer again holds no news and sinks nothing)."""
    from mdgrill.model.replies import NOT_AN_ANSWER, classify
    from mdgrill.model.tree import ledger_of

    answers: dict[str, str] = {}
    unread: list[str] = []
    notes: list[str] = []
    content = False
    recorded = None
    for part in parts:
        number = numbering.index(part.decision) + 1 if part.decision in numbering else 0
        named = f"Q{number} ({part.decision})"
        if part.decision is None or not part.text:
            note = unread_message(part.written, round_number, len(numbering))
            kind = classify(part.text).kind if part.text else None
            if kind in NOT_AN_ANSWER:
                note += f" (it reads as {str(kind).replace('_', ' ')}: it answers nothing)"
            else:
                content = True
        elif part.decision in answers:
            note = (f"`{_quoted(part.written)}` answers {named} a second time: only its first "
                    f"answer (`{_quoted(answers[part.decision])}`) is taken")
            content = True
        elif part.decision not in pending:
            recorded = recorded or ledger_of(prog).answers
            was = recorded.get(part.decision, "")
            note = (f"`{_quoted(part.written)}` names {named}, answered already"
                    + (f" (`{_quoted(was)}`)" if was else "") + ": nothing was recorded for "
                    "it; `mdgrill amend` corrects an answer's wording, and once the brief is "
                    "shown `mdgrill revise` changes it")
            said = part.text.removesuffix(" (Recommended)").strip().casefold()
            content = content or said != was.casefold()
        else:
            answers[part.decision] = part.text
            continue
        unread.append(part.written)
        notes.append(note)
    return Placed(answers, unread, notes, content)


def unread_error(done: Recorded) -> dict[str, str]:
    """REPLY_UNREAD: what `answer` says when part of a reply that holds content was not
    recorded (the rest was, as `recorded` lists)."""
    kept = ", ".join(done.recorded) if done.recorded else "nothing"
    return {"code": "REPLY_UNREAD",
            "message": f"part of the reply was not recorded ({len(done.unread)} piece(s), "
                       f"each named in `unread_messages`); recorded: {kept}. Ask the user "
                       "about the pieces named, then record their reply with `mdgrill "
                       f"answer {done.spec} --tool-result -`"}


def pending_of(prog: Progress) -> list[str]:
    iv = machine.interview_of(prog.data)
    pending = iv.get("pending")
    return [str(i) for i in pending] if isinstance(pending, list) else []


def pending_nodes(prog: Progress, ids: list[str]) -> list[Node]:
    found = [prog.node(i) for i in ids]
    missing = [i for i, n in zip(ids, found, strict=True) if n is None]
    if missing:
        raise GateRefusal("MISSING_REFERENCE", f"{', '.join(missing)} has no node in the design "
                          "tree: add it with `mdgrill node add`")
    return [n for n in found if n is not None]


def record_reply(spec: store.Spec, answers: dict[str, str], person: str | None,
                 pending: list[str]) -> Recorded:
    """Record each decision's answer (an option's label, or the user's own words, which
    become `Other`), in the order given; a refusal leaves that decision open."""
    from mdgrill.core import askround
    from mdgrill.model.replies import SUBSTANTIVE, classify
    from mdgrill.services.interview import record_answer

    prog = load(spec)
    nodes = {n.id: n for n in pending_nodes(prog, pending)}
    done = Recorded(spec_hint(spec))
    done.asked = len(pending)
    for decision, answer in answers.items():
        node = nodes[decision]
        option = askround.option_of(node, answer)
        options, recommended = node.choices()
        other = option is None and classify(answer, options, recommended).kind == SUBSTANTIVE
        try:  # the route `record-answer` takes: owners, freshness, signature, transaction
            result = record_answer(spec, decision_id=decision, answer=option or answer,
                                   by=person, other=other)
        except MdgrillError as exc:
            done.refused[decision] = {"code": exc.code, "message": exc.message}
            continue
        done.recorded[decision] = result.recorded
        if other:
            done.others.append(decision)
    done.open = [d for d in pending if d not in done.recorded]
    after = load(spec)
    iv = machine.interview_of(after.data)
    done.round = int(str(iv["round"]))
    done.confirmation_id = machine.next_confirmation_id(iv)
    done.next = "ask" if done.open or not _closed(spec) else "await-confirmation"
    from mdgrill.core.gate import others_without_followup

    done.owed = [d for d, _ in others_without_followup(after, str(iv["phase"]))]
    if done.owed:  # the gate wants the follow-up an `Other` leads to before it moves on
        done.next = "node add"
    return done


def _closed(spec: store.Spec) -> bool:
    """Whether nothing is left to ask once this round's answers are in."""
    from mdgrill.errors import InputError
    from mdgrill.model.tree import spec_frontier

    try:
        return not spec_frontier(load(spec)).frontier
    except InputError:
        return False


def report_lines(done: Recorded) -> list[str]:
    """What a reply did, line by line, ending with the next step as a command."""
    lines = [f"recorded {d} -> {t}" for d, t in done.recorded.items()]
    lines += [f"not recorded {d}: {r['code']}: {r['message']}" for d, r in done.refused.items()]
    lines += done.notes
    lines += [f"{d} was answered in the user's own words"
              f"{'' if d in done.others else ' (in an earlier reply)'}: add the decision it "
              f"leads to (`mdgrill node add {done.spec} ID --title T --spawned-by {d}`)"
              for d in done.owed]
    lines.append(f"still open: {', '.join(done.open)}" if done.open else "every question of "
                 "the round has its answer")
    lines.append(f"next: {done.command()}")
    return lines


def questionnaire_text(spec: store.Spec) -> str | None:
    """The questionnaire of the pending questions (None when nothing is pending)."""
    from mdgrill.core.askround import questions
    from mdgrill.core.questionnaire import render

    prog = load(spec)
    iv = machine.interview_of(prog.data)
    # awaiting approval, `pending:` holds the confirmation ID: the approval question is
    # `ask`'s, not a questionnaire's (it is no decision of the tree)
    pending = pending_of(prog) if iv.get("status") == "collecting" else []
    if not pending:
        return None
    nodes = pending_nodes(prog, pending)
    questions(nodes)  # the same refusal as `ask` for a node without 2-4 options
    return render(spec.rel_folder, str(iv["id"]), int(str(iv["round"])),
                  str(prog.data.get("goal") or ""), nodes)


class Collected:
    """What `collect` did with the questionnaire: the recording (None when nothing was
    recorded) and what the file said."""

    __slots__ = ("done", "filled", "path")

    def __init__(self, path: str) -> None:
        self.path = path
        self.done: Recorded | None = None
        self.filled: Filled | None = None


def collect(spec: store.Spec, person: str | None, source: str | None = None) -> Collected:
    """Record what the questionnaire answers, then write it again with what is still open
    (removed once nothing is): all of it, or, when the file has a problem, none of it.
    `source` names another questionnaire file (another tool's shape); that one is read,
    never rewritten."""
    import os

    from mdgrill.core.questionnaire import FILE, read
    from mdgrill.errors import InputError
    from mdgrill.formats.textfile import decode

    path = os.path.join(spec.folder, FILE) if source is None else source
    out = Collected(path)
    if not os.path.exists(path):
        raise InputError("NOT_FOUND", f"no {FILE} in {spec.rel_folder}: write one with "
                         f"`mdgrill questionnaire {spec_hint(spec)}`" if source is None else
                         f"{source} does not exist")
    raw = store.read_file(path, os.path.basename(path), spec.root)
    text = decode(raw, os.path.basename(path)).text
    prog = load(spec)
    pending = pending_of(prog)
    titles = {n.id: n.title for n in prog.nodes}
    filled = read(text, pending, titles)
    out.filled = filled
    if filled.problems or not filled.answers:
        return out
    out.done = record_reply(spec, filled.answers, person, pending)
    if source is not None:
        return out
    if out.done.refused:
        # keep what was refused as the person wrote it: taking it out would lose their answer
        from mdgrill.core.questionnaire import without

        rest: str | None = without(text, set(out.done.recorded))
    else:
        rest = questionnaire_text(spec)
    if rest is not None and rest.encode("utf-8") == raw:
        # nothing to take out (every answer refused): the file is left as it is, for a
        # rewrite of the same bytes is a save to `watch`, which would collect it again
        return out
    if not store.still(path, raw):
        return out  # saved again meanwhile: that save is the person's, and is kept
    if rest is None:
        os.unlink(path)
    else:
        store.atomic_write(path, rest.encode("utf-8"), expect=raw)
    return out
