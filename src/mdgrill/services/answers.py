"""Recording a whole reply to the open round: one answer per decision, each through
`services.interview.record_answer`, the function `record-answer` calls (same owners rule, same
freshness check, same round, log and seal). `answer` (the question tool's result), `collect`
(the questionnaire file), `watch` and the LSP's code action all come through here."""

from __future__ import annotations

from mdgrill.core import machine
from mdgrill.core.questionnaire import Filled
from mdgrill.errors import GateRefusal, MdgrillError
from mdgrill.formats.progress import Node, Progress
from mdgrill.shell import store
from mdgrill.shell.session import load


class Recorded:
    """What a reply did: recorded answers, refused ones (code, message), the decisions left
    open, those answered in the user's own words (the gate wants their follow-up), next."""

    __slots__ = ("recorded", "refused", "open", "others", "next")

    def __init__(self) -> None:
        self.recorded: dict[str, str] = {}
        self.refused: dict[str, dict[str, str]] = {}
        self.open: list[str] = []
        self.others: list[str] = []
        self.next = "ask"

    def to_json(self) -> dict[str, object]:
        return {"recorded": self.recorded, "refused": self.refused, "open": self.open,
                "other": self.others, "next": self.next, "written": bool(self.recorded)}


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
    done = Recorded()
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
        done.recorded[decision] = str(result["recorded"])
        if other:
            done.others.append(decision)
    done.open = [d for d in pending if d not in done.recorded]
    done.next = "ask" if done.open or not _closed(spec) else "await-confirmation"
    if done.others:  # the gate wants the follow-up an `Other` leads to before it moves on
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
    lines = [f"recorded {d} -> {t}" for d, t in done.recorded.items()]
    lines += [f"not recorded {d}: {r['code']}: {r['message']}" for d, r in done.refused.items()]
    lines += [f"{d} was answered in the user's own words: add the decision it leads to "
              f"(`mdgrill node add SPEC ID --title T --spawned-by {d}`)" for d in done.others]
    lines.append(f"still open: {', '.join(done.open)}" if done.open else "every question of "
                 "the round has its answer")
    lines.append(f"next: mdgrill {done.next} SPEC" + {
        "await-confirmation": " --decision-id CID --approach TEXT",
        "node add": " ID --title T --spawned-by " + (done.others[0] if done.others else "ID"),
    }.get(done.next, ""))
    return lines


def questionnaire_text(spec: store.Spec) -> str | None:
    """The questionnaire of the pending questions (None when nothing is pending)."""
    from mdgrill.core.askround import questions
    from mdgrill.core.questionnaire import render

    prog = load(spec)
    pending = pending_of(prog)
    if not pending:
        return None
    nodes = pending_nodes(prog, pending)
    questions(nodes)  # the same refusal as `ask` for a node without 2-4 options
    iv = machine.interview_of(prog.data)
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
                         "`mdgrill questionnaire SPEC`" if source is None else
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
    if not store.still(path, raw):
        return out  # saved again meanwhile: that save is the person's, and is kept
    if rest is None:
        os.unlink(path)
    else:
        store.atomic_write(path, rest.encode("utf-8"), expect=raw)
    return out
