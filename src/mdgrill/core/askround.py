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

from mdgrill.errors import GateRefusal, InputError
from mdgrill.formats.progress import Node

MAX_PER_CALL = 4  # the tool takes at most four questions at once
HEADER_CHARS = 12  # the tool's chip label
RECOMMENDED = " (Recommended)"
# A numbered line's number; its text is what follows (taken by hand in _numbered: a
# `\s*(.*)$` tail after the number backtracks quadratically over a long blank run)
_NUMBER = re.compile(r"\s*(?:Q\s*)?(\d{1,3})\s*[.):-]", re.I)


_MARK = re.compile(r"\(recommended\)", re.I)


def _parts(option: str) -> tuple[str, str]:
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
    return f"Q{number} - {node.id}: {node.title}"


def questions(nodes: list[Node]) -> list[dict[str, object]]:
    """One tool question per node, numbered from 1, the recommended option first.

    A node needs 2–4 options to be asked this way; nodes without them are refused together,
    with the command that adds them.
    """
    lacking = [n.id for n in nodes if not 2 <= len(n.options) <= MAX_PER_CALL]
    if lacking:
        raise GateRefusal("NODE_OPTIONS_REQUIRED",
                          f"{', '.join(lacking)} cannot be asked as a choice: a question needs "
                          "2–4 viable options (`mdgrill node add SPEC ID --option A --option B "
                          "--recommend 1`), or ask it in words and record the reply with "
                          "`record-answer`")
    out: list[dict[str, object]] = []
    for number, node in enumerate(nodes, 1):
        options, recommended = node.choices()
        order = list(range(len(options)))
        if recommended is not None:
            order.remove(recommended - 1)
            order.insert(0, recommended - 1)
        why = node.first("Rationale") or node.first("Recommendation") or ""
        tradeoff = node.first("Tradeoffs") or ""
        items = []
        for index in order:
            label, detail = _parts(options[index])
            is_rec = recommended is not None and index == recommended - 1
            description = detail or (why if is_rec else tradeoff) or label
            items.append({"label": label + (RECOMMENDED if is_rec else ""),
                          "description": description})
        out.append({"question": question_text(number, node), "header": _header(node),
                    "options": items, "multiSelect": False, "decision_id": node.id})
    return out


def batches(asked: list[dict[str, object]]) -> list[list[dict[str, object]]]:
    """The round in calls of at most four questions (the tool's own limit)."""
    return [asked[i:i + MAX_PER_CALL] for i in range(0, len(asked), MAX_PER_CALL)]


def tool_payload(batch: list[dict[str, object]]) -> dict[str, object]:
    """What goes to the tool: its own keys only (the decision IDs stay with mdgrill)."""
    return {"questions": [{k: v for k, v in q.items() if k != "decision_id"} for q in batch]}


def markdown(asked: list[dict[str, object]], round_number: int) -> str:
    """The same round as numbered text, for a host without the question tool."""
    lines = [f"Round {round_number}: please answer each question (a letter, the option, or "
             "your own words); answer `Q2: …` to skip around.", ""]
    for q in asked:
        lines.append(f"**{q['question']}**")
        options = q["options"]
        assert isinstance(options, list)
        for letter, option in zip("abcd", options, strict=False):
            lines.append(f"  {letter}) {option['label']} — {option['description']}")
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


def match(asked: list[dict[str, object]], reply: dict[str, str] | str) -> dict[str, str]:
    """One answer per decision ID, from the tool's answers (keyed by question text or its
    `Q<n>` number) or from a numbered plain reply (`1. …`, `Q2: …`); a plain reply that is
    not numbered answers the only question of a one-question round."""
    by_text = {str(q["question"]): str(q["decision_id"]) for q in asked}
    by_number = {i: str(q["decision_id"]) for i, q in enumerate(asked, 1)}
    out: dict[str, str] = {}
    if isinstance(reply, dict):
        for question, answer in reply.items():
            decision = by_text.get(question)
            if decision is None:
                m = _numbered(question)
                decision = by_number.get(m[0]) if m else None
            if decision is not None and answer.strip():
                out[decision] = _label(answer.strip())
        return out
    numbered = [_numbered(line) for line in reply.splitlines() if line.strip()]
    if numbered and all(m is not None for m in numbered):
        for m in numbered:
            assert m is not None
            decision = by_number.get(m[0])
            if decision is not None and m[1].strip():
                out[decision] = _label(m[1].strip())
        return out
    if len(asked) == 1:
        out[str(asked[0]["decision_id"])] = _label(reply.strip())
    return out


def option_of(node: Node, answer: str) -> str | None:
    """The node's option an answer names (its label, or a letter a–d of the Markdown form),
    or None when the answer is the user's own words (`Other`)."""
    options, recommended = node.choices()
    labels = [_parts(o)[0] for o in options]
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
    return None
