"""The open round as a file a person answers in their editor, and the answers read back (pure).

`render` writes each pending question numbered with its decision ID, its options as a task
list (the recommended one first and marked, none ticked: an untouched question is open,
never silent consent), the node's rationale and tradeoffs, and an `Other:` line for the
person's own words. `read` finds what was filled in: one ticked box or an `Other:` answer
answers a question; two answers to one question, or a question that is not pending any
more, is a problem with its line, and then nothing is recorded from the file.
"""

from __future__ import annotations

import re

from mdgrill.core.askround import option_parts
from mdgrill.formats.progress import Node

FILE = "questions.md"
_QUESTION = re.compile(r"^## Q(\d+) · (\S+?): (.*)$")
_BOX = re.compile(r"^\s*[-*] \[([ xX])\] (.*)$")
_OTHER = re.compile(r"^\s*[-*] Other:(.*)$")


def render(spec: str, interview: str, round_number: int, goal: str, nodes: list[Node]) -> str:
    lines = [f"<!-- mdgrill questionnaire for {spec}: interview {interview}, round "
             f"{round_number}. Tick one box ([x]) or write your answer after `Other:`, under "
             "as many questions as you like, and save; `mdgrill collect` (or a running "
             "`mdgrill watch`) records each answer in the round. An untouched question stays "
             "open. -->", "", f"# Round {round_number}: {goal}", ""]
    for number, node in enumerate(nodes, 1):
        lines += [f"## Q{number} · {node.id}: {node.title}", ""]
        for key in ("Rationale", "Tradeoffs", "Consequences"):
            value = node.first(key)
            if value:
                lines.append(f"{key}: {value}")
        if lines[-1]:
            lines.append("")
        options, recommended = node.choices()
        order = list(range(len(options)))
        if recommended is not None:
            order.remove(recommended - 1)
            order.insert(0, recommended - 1)
        for index in order:
            label, why = option_parts(options[index])
            mark = " (Recommended)" if recommended == index + 1 else ""
            lines.append(f"- [ ] {label}{mark}" + (f": {why}" if why else ""))
        lines += ["- Other: ", ""]
    return "\n".join(lines).rstrip() + "\n"


def without(text: str, decision_ids: set[str]) -> str:
    """The questionnaire with these decisions' sections taken out, the rest kept as the
    person left it (a refused answer stays in the file, to be fixed and collected again)."""
    kept: list[str] = []
    dropping = False
    for line in text.split("\n"):
        head = _QUESTION.match(line)
        if head is not None:
            dropping = head.group(2) in decision_ids
        if not dropping:
            kept.append(line)
    return "\n".join(kept)


class Filled:
    """What the file says: answers by decision ID, the questions left untouched, and the
    problems (line, message) that stop the whole file from being recorded."""

    __slots__ = ("answers", "untouched", "problems", "lines")

    def __init__(self) -> None:
        self.answers: dict[str, str] = {}
        self.untouched: list[str] = []
        self.problems: list[tuple[int, str]] = []
        self.lines: dict[str, int] = {}  # decision ID -> its heading's 1-based line


# the heading's text is group 1 with its trailing blanks stripped by hand: a lazy `(.*?)\s*$`
# tail is quadratic on a heading of spaces
_OTHER_HEADING = re.compile(r"### +(?:Q?\d+[.):]\s*)?(.*)")
_QUOTE = re.compile(r"^\s*> ?(.*)$")


def read_common(text: str, pending: list[str], titles: dict[str, str]) -> Filled:
    """A questionnaire in the shape agent skills write for answering offline: a `###`
    heading per question (its text, or an ID in it) and the answer quoted under it (`> …`).
    Each question is mapped to a pending decision by the ID it names, else by its text."""
    filled = Filled()
    def key(text: str) -> str:  # a question matched by its words, with or without its `?`
        return " ".join(text.lower().split()).rstrip("?").rstrip()

    by_title = {key(t): i for i, t in titles.items() if i in pending}
    current: str | None = None
    answer: list[str] = []

    def close() -> None:
        if current is None:
            return
        words = " ".join(" ".join(answer).split())
        if words:
            filled.answers[current] = words
        else:
            filled.untouched.append(current)

    for number, line in enumerate(text.split("\n"), 1):
        head = _OTHER_HEADING.match(line)
        if head is not None:
            close()
            answer = []
            question = head.group(1).rstrip()
            named = [i for i in pending if re.search(rf"(?<![\w.-]){re.escape(i)}(?![\w-])",
                                                     question)]
            current = named[0] if len(named) == 1 else by_title.get(key(question))
            if current is None:
                filled.problems.append((number, f"`{question}` is no pending question: name "
                                        "its decision ID in the heading, or use its exact text"))
            elif current in filled.lines:
                filled.problems.append((number, f"{current} is asked twice in the file"))
            else:
                filled.lines[current] = number
            continue
        quoted = _QUOTE.match(line)
        if quoted is not None and current is not None:
            answer.append(quoted.group(1))
    close()
    if filled.problems:
        filled.answers = {}
    return filled


def read(text: str, pending: list[str], titles: dict[str, str] | None = None) -> Filled:
    """The answers of a questionnaire: mdgrill's own shape, or (with `titles`, when the file
    has none of mdgrill's question headings) the common `###` + `>` shape."""
    if titles is not None and not any(_QUESTION.match(line) for line in text.split("\n")):
        return read_common(text, pending, titles)
    filled = Filled()
    current: str | None = None
    ticked: list[str] = []
    other = ""

    def close() -> None:
        if current is None:
            return
        answers = [*ticked, *([other] if other else [])]
        if answers and current not in pending:
            filled.problems.append((filled.lines[current], f"{current} is not pending any "
                                    "more (answered elsewhere, or another round is open): "
                                    "write the file again with `mdgrill questionnaire`"))
        elif len(answers) > 1:
            filled.problems.append((filled.lines[current], f"{current} has {len(answers)} "
                                    "answers (ticked boxes or an `Other:` too): keep one"))
        elif answers:
            filled.answers[current] = answers[0]
        else:
            filled.untouched.append(current)

    for number, line in enumerate(text.split("\n"), 1):
        head = _QUESTION.match(line)
        if head is not None:
            close()
            current, ticked, other = head.group(2), [], ""
            if current in filled.lines:
                filled.problems.append((number, f"{current} is asked twice in the file"))
            filled.lines[current] = number
            continue
        if current is None:
            continue
        box = _BOX.match(line)
        if box is not None and box.group(1) in "xX":
            ticked.append(option_parts(box.group(2))[0])
            continue
        rest = _OTHER.match(line)
        if rest is not None:
            other = rest.group(1).strip()
    close()
    if filled.problems:
        filled.answers = {}
    return filled
