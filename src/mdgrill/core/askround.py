"""A round as the question tool wants it, and the tool's answer back as decisions.

Pure. The interview framework asks every round through `AskUserQuestion`: "2–4 viable
options", "the recommended option first, labelled `(Recommended)`", "at most four questions
per call", "number each question". `questions` builds that payload from the design tree;
`read_reply` and `match` turn what the tool returned (or a plain-text reply to the Markdown
form of the round) into one answer per decision ID.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, NamedTuple

from mdgrill.core.machine import APPROVAL_OPTIONS
from mdgrill.core.machine.rounds import options_refusal, without_choices
from mdgrill.errors import InputError
from mdgrill.formats.progress import Node, Progress
from mdgrill.formats.schema import is_id

if TYPE_CHECKING:
    from typing import TypedDict

    class ToolOption(TypedDict):
        label: str
        description: str

    class ToolQuestion(TypedDict):
        """One question of a round as the question tool takes it, with the decision it asks
        (`decision_id`, which stays with mdgrill: `tool_payload` leaves it out)."""

        question: str
        header: str
        options: list[ToolOption]
        multiSelect: bool
        decision_id: str

MAX_PER_CALL = 4  # the tool takes at most four questions at once
HEADER_CHARS = 12  # the tool's chip label
RECOMMENDED = " (Recommended)"
# A numbered line's number; its text is what follows (taken by hand in _numbered: a
# `\s*(.*)$` tail after the number backtracks quadratically over a long blank run)
_NUMBER = re.compile(r"\s*(?:Q\s*)?(\d{1,3})\s*[.):-]", re.I)


_MARK = re.compile(r"\(recommended\)", re.I)


def option_parts(option: str) -> tuple[str, str]:
    """An option line's label and description (`Label: why`), without the tree's own
    `(Recommended)` mark (the tool's label carries it instead)."""
    label, _, detail = option.partition(":")
    return " ".join(part.strip() for part in _MARK.split(label)).strip(), detail.strip()


def _numbered(line: str) -> tuple[int, str] | None:
    """`3. text` / `Q3) text`: (3, the text), or None; the text holds no line break but a
    last one."""
    m = _NUMBER.match(line)
    if m is None:
        return None
    rest = line[m.end():].lstrip()
    if "\n" in rest[:-1]:
        return None
    return int(m.group(1)), rest.rstrip("\n")


def _header(node: Node) -> str:
    text = node.section or node.id
    return text if len(text) <= HEADER_CHARS else text[:HEADER_CHARS - 1] + "…"


def question_text(number: int, node: Node) -> str:
    """`Q1 - D1: title`; a node with no recommended option (symmetric options) carries its
    rationale and tradeoff here, as no option's description is theirs to carry: "State the
    recommendation rationale and the material tradeoff in the question or option
    description". The node's consequences (the framework's node holds "material
    consequences") belong to the decision, whichever way it goes: the question says them."""
    text = f"Q{number} - {node.id}: {node.title}"
    said = []
    if node.choices()[1] is None:
        why = node.first("Rationale") or node.first("Recommendation") or ""
        tradeoff = node.first("Tradeoffs") or ""
        said = [part for part in (why, f"tradeoff: {tradeoff}" if tradeoff else "") if part]
    consequences = node.first("Consequences")
    if consequences:
        said.append(f"consequences: {consequences}")
    return f"{text} ({'; '.join(said)})" if said else text


def _description(node: Node, label: str, detail: str, recommended: bool) -> str:
    """What an option's description says: its own `label: why`; the recommended one also
    says why it is recommended and what choosing costs (the node's rationale and tradeoff
    belong to the recommendation, never to another option). Never the label again: an
    option with nothing to add has an empty description."""
    if not recommended:
        return detail
    why = node.first("Rationale") or node.first("Recommendation") or ""
    tradeoff = node.first("Tradeoffs") or ""
    parts = [detail] if detail else []
    if why and why.casefold() not in (label.casefold(), detail.casefold()):
        parts.append(why)
    if tradeoff:
        parts.append(f"tradeoff: {tradeoff}")
    return "; ".join(parts)


def questions(nodes: list[Node], numbers: list[int] | None = None) -> list[ToolQuestion]:
    """One tool question per node, numbered from 1 (or by `numbers`: the round's own
    numbering, which a partial answer leaves as it was), the recommended option first.

    A node needs 2–4 options to be asked this way; nodes without them are refused together,
    with the command that adds them.
    """
    lacking = without_choices(nodes)
    if lacking:
        raise options_refusal(lacking)
    out: list[ToolQuestion] = []
    for number, node in zip(numbers or range(1, len(nodes) + 1), nodes, strict=True):
        options, recommended = node.choices()
        order = list(range(len(options)))
        if recommended is not None:
            order.remove(recommended - 1)
            order.insert(0, recommended - 1)
        items: list[ToolOption] = []
        for index in order:
            label, detail = option_parts(options[index])
            is_rec = recommended is not None and index == recommended - 1
            items.append({"label": label + (RECOMMENDED if is_rec else ""),
                          "description": _description(node, label, detail, is_rec)})
        out.append({"question": question_text(number, node), "header": _header(node),
                    "options": items, "multiSelect": False, "decision_id": node.id})
    return out


def batches(asked: list[ToolQuestion]) -> list[list[ToolQuestion]]:
    """The round in calls of at most four questions (the tool's own limit)."""
    return [asked[i:i + MAX_PER_CALL] for i in range(0, len(asked), MAX_PER_CALL)]


def tool_payload(batch: list[ToolQuestion]) -> dict[str, object]:
    """What goes to the tool: its own keys only (the decision IDs stay with mdgrill)."""
    return {"questions": [{k: v for k, v in q.items() if k != "decision_id"} for q in batch]}


def markdown(asked: list[ToolQuestion], round_number: int) -> str:
    """The same round as numbered text, for a host without the question tool."""
    lines = [f"Round {round_number}: please answer each question (a letter, the option, or "
             "your own words) by its number or its ID: `Q1: a`, `Q2: …` (or `D1: a`), on one "
             "line or several.", ""]
    for q in asked:
        lines.append(f"**{q['question']}**")
        for letter, option in zip("abcd", q["options"], strict=False):
            said = f" — {option['description']}" if option["description"] else ""
            lines.append(f"  {letter}) {option['label']}{said}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def read_reply(raw: str) -> dict[str, str] | str:
    """The tool's result as {question text: answer}, or a plain-text reply as it is.

    Accepted: the tool's own result (`{"answers": {...}}`, also inside `tool_response` as
    hooks see it) or a plain reply to the Markdown round.
    """
    text = raw.strip()
    if not text:
        raise InputError("EMPTY_ANSWER", "the tool result is empty: pass what the question "
                         "tool returned (or the user's reply) with --tool-result FILE|-")
    if text[0] not in "{[":
        return text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError("INVALID_JSON", f"the tool result is not JSON ({exc.msg}, line "
                         f"{exc.lineno}): pass the tool's result as it came") from None
    for key in ("tool_response", "toolResult", "result"):
        if isinstance(data, dict) and isinstance(data.get(key), dict):
            data = data[key]
    answers = data.get("answers") if isinstance(data, dict) else None
    if not isinstance(answers, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                for k, v in answers.items()):
        raise InputError("INVALID_JSON", "the tool result has no `answers` object of question "
                         "text -> answer text: pass the tool's result as it came")
    return dict(answers)


def _label(answer: str) -> str:
    return answer[:-len(RECOMMENDED)].strip() if answer.endswith(RECOMMENDED) else answer


class _Keys(NamedTuple):
    """How a tool answer names its question: by the question's text or its number."""

    by_text: dict[str, str]
    by_number: dict[int, str]
    ids: frozenset[str]


def _number(question: ToolQuestion) -> int:
    """The number a question was asked under (`Q3 - D3: …` -> 3)."""
    found = _numbered(str(question["question"]))
    return found[0] if found is not None else 0


def _keys(asked: list[ToolQuestion]) -> _Keys:
    return _Keys({str(q["question"]): str(q["decision_id"]) for q in asked},
                 {_number(q): str(q["decision_id"]) for q in asked},
                 frozenset(str(q["decision_id"]) for q in asked))


def _numbering(asked: list[ToolQuestion]) -> list[str]:
    """The round's numbering as far as the questions show it ("" where a number is not
    among them: a question answered already)."""
    out = [""] * max((_number(q) for q in asked), default=0)
    for q in asked:
        if _number(q) >= 1:
            out[_number(q) - 1] = str(q["decision_id"])
    return out


def _decision_of(keys: _Keys, question: str) -> str | None:
    """The decision a tool answer's key names: the question's text, the decision ID that text
    names, or its `Q<n>` number."""
    decision = keys.by_text.get(question)
    if decision is None:
        m = _numbered(question)
        # `Q2 - D2: …` as an `ask` asked it: the ID the text carries wins over the number
        # (a round keeps its numbers now, but a tool result of an older mdgrill, or of a
        # round reopened by a revise, may number otherwise); one answered already names none
        named = m[1].partition(":")[0].strip() if m and ":" in m[1] else ""
        if named and is_id(named):
            return named if named in keys.ids else None
        bare = _BARE_NUMBER.fullmatch(question[:12]) if m is None else None
        number = m[0] if m else int(bare.group(1)) if bare else None
        decision = keys.by_number.get(number) if number is not None else None
    return decision


_BARE_NUMBER = re.compile(r"\s*(?:Q\s*)?(\d{1,3})\s*", re.I)  # a key that is `Q2` or `2` alone


def match(asked: list[ToolQuestion], reply: dict[str, str] | str) -> dict[str, str]:
    """One answer per decision ID, from the tool's answers (keyed by question text or its
    `Q<n>` number) or from the parts of a plain reply (`core.plain_reply`: `Q2: …`, `2) …`,
    `D2: …`, on one line or several; the rest answers nothing); a plain reply with no
    marker answers the only question of a one-question round."""
    keys = _keys(asked)
    out: dict[str, str] = {}
    if isinstance(reply, dict):
        for question, answer in reply.items():
            decision = _decision_of(keys, question)
            if decision is not None and answer.strip():
                out[decision] = _label(answer.strip())
        return out
    from mdgrill.core.plain_reply import split_reply

    pending = [str(q["decision_id"]) for q in asked]
    for part in split_reply(reply, _numbering(asked), pending):
        if part.decision in pending and part.text and part.decision not in out:
            out[part.decision] = _label(part.text)
    return out


# What `answer` reads, said to a user whose reply it could not place.
REPLY_SHAPES = ("each answer after its question's number or ID, on one line or several: "
                "`Q1: a` (the letter or number shown), `Q2: the option's words`, `Q3: your "
                "own words`, `D1: a; D2: b`; a one-question round also takes the bare reply; "
                "or the question tool's JSON result as it came")


def unread_lines(asked: list[ToolQuestion], reply: dict[str, str] | str) -> list[str]:
    """The lines of a plain reply that `match` places under no question of the round: not
    numbered (in a round of several), numbered past its last question, or empty after the
    number; of the tool's answers, the keys that name no question. A reply `match` reads
    whole has none."""
    if isinstance(reply, dict):
        keys = _keys(asked)
        return [q for q in reply if _decision_of(keys, q) is None]
    from mdgrill.core.plain_reply import split_reply

    pending = [str(q["decision_id"]) for q in asked]
    seen: set[str] = set()
    unread: list[str] = []
    for part in split_reply(reply, _numbering(asked), pending):
        if part.decision not in pending or not part.text or part.decision in seen:
            unread.append(part.written)
        else:
            seen.add(part.decision)
    return unread


def option_of(node: Node, answer: str) -> str | None:
    """The node's option an answer names (its label, or a letter a–d or number 1–4 of the
    Markdown form, which lists the recommended option first), or None when the answer is the
    user's own words (`Other`)."""
    options, recommended = node.choices()
    labels = [option_parts(o)[0] for o in options]
    order = list(range(len(options)))
    if recommended is not None:
        order.remove(recommended - 1)
        order.insert(0, recommended - 1)
    folded = _label(answer.strip()).casefold()
    for index, label in enumerate(labels):
        if folded in (label.casefold(), options[index].strip().casefold()):
            return label
    if len(folded) == 1 and folded in "abcd"[:len(order)]:
        return labels[order["abcd".index(folded)]]
    if len(folded) == 1 and folded in "1234"[:len(order)]:  # as shown, like the letters
        return labels[order[int(folded) - 1]]
    return None


# What each approval option does, said to the user beside it (never the label again).
APPROVAL_SAYS = dict(zip(APPROVAL_OPTIONS, (
    "approve this approach and the decisions it rests on; the agent may then hand the work on",
    "name the decisions to change: they, and the answers that depended on them, are asked "
    "again",
    "stop here: nothing is delegated, the answers stay recorded",
), strict=True))
BRIEF_DECISIONS = 12  # the question names at most this many; the rest are counted


class Brief(NamedTuple):
    """What the approval question approves: the approach, and each decision it rests on as
    (ID, question, answer); an answer is `out of scope` for a decision the user set aside,
    and `<value> (default)` for one a skip defaulted."""

    confirmation_id: str
    approach: str
    decisions: list[tuple[str, str, str]]


def approval_brief(prog: Progress) -> Brief:
    """The brief of the interview awaiting confirmation, in the order it asked."""
    from mdgrill.model.tree import DEFAULTED_ANSWER, ledger_of

    iv = prog.data.get("interview")
    iv = iv if isinstance(iv, dict) else {}
    asked = [str(i) for i in iv.get("asked") or []]
    pending = {str(i) for i in iv.get("pending") or []}
    ledger = ledger_of(prog)
    known = set(prog.node_ids())
    # a skip defaults decisions never asked too ("present those choices in the final
    # brief"), and the user may place a branch out of scope before it is asked
    unasked = [i for i in ledger.order if ledger.answers.get(i) == DEFAULTED_ANSWER
               and i not in asked]
    unasked += sorted(i for i in ledger.out_of_scope if i not in asked)
    decisions = []
    for node_id in [*asked, *unasked]:
        if node_id in pending:
            continue
        node = prog.node(node_id) if node_id in known else None
        answer = "out of scope" if node_id in ledger.out_of_scope else \
            ledger.answers.get(node_id, "")
        if answer == DEFAULTED_ANSWER and node_id in ledger.defaults:
            answer = f"{ledger.defaults[node_id]} (default)"
        decisions.append((node_id, node.title if node is not None else "", answer))
    confirmation = next((i for i in asked if i in pending), "")
    return Brief(confirmation, str(iv.get("approach") or ""), decisions)


def _decision_line(decision: tuple[str, str, str]) -> str:
    node_id, title, answer = decision
    return f"{node_id}{' ' + title if title else ''} → {answer}"


def approval_question(brief: Brief, tag: str = "") -> dict[str, object]:
    """The approval question for the question tool, carrying what is approved: "present the
    recommended approach" and the decisions it rests on, then the three options. `tag`
    (`core.evidence.approval_tag`) ends the question: it names this approval, so the hook
    that journals the answer can tell it from the answers to other questions."""
    shown = brief.decisions[:BRIEF_DECISIONS]
    rest = len(brief.decisions) - len(shown)
    rests_on = "; ".join(_decision_line(d) for d in shown) + \
        (f"; and {rest} more (see the brief)" if rest else "")
    text = f"Approve and delegate? The approach: {brief.approach}" + \
        (f" — resting on: {rests_on}" if rests_on else "") + (f" {tag}" if tag else "")
    return {"question": text, "header": "Approval",
            "options": [{"label": label, "description": says}
                        for label, says in APPROVAL_SAYS.items()],
            "multiSelect": False}


def approval_markdown(brief: Brief) -> str:
    """The same approval question as text, for a host without the question tool."""
    lines = ["**Approve and delegate?**", "", f"The approach: {brief.approach}"]
    if brief.decisions:
        lines += ["", "It rests on these decisions:"]
        lines += [f"- {_decision_line(d)}" for d in brief.decisions]
    lines.append("")
    for letter, (label, says) in zip("abc", APPROVAL_SAYS.items(), strict=True):
        lines.append(f"  {letter}) {label} — {says}")
    lines += ["", "Only the explicit selection `Approve and delegate` approves; a `yes` is "
              "asked again."]
    return "\n".join(lines) + "\n"
