"""The ledger's fast reading of a round (`read_ledger`: `Decisions` tried first, a `none`
line skipped at once, the first arrow split by hand) settles what the contract's rules, read
line by line with the plain helpers, settle."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mdgrill.formats.progress import Block, Progress, split_ids
from mdgrill.formats.schema import is_id
from mdgrill.formats.textfile import TextFile
from mdgrill.model.tree import (
    DEFAULTED_ANSWER,
    fact_id,
    ledger_of,
    log_settled,
    read_ledger,
    split_decision,
)


class Plain:
    """The rules of the log's rounds, Revised, Reset, Amended and Skipped blocks, one line at a
    time."""

    def __init__(self, blocks: list[Block]) -> None:
        self.answers: dict[str, str] = {}
        self.lines: dict[str, int] = {}
        self.order: list[str] = []
        self.out_of_scope: set[str] = set()
        self.amended: dict[str, str] = {}
        for block in blocks:
            if block.kind in ("revised", "reset"):
                for entry in block.get("Reopened"):
                    for node_id in split_ids(entry.value):
                        self.answers.pop(node_id, None)
                        self.out_of_scope.discard(node_id)
            elif block.kind == "round":
                for entry in block.entries:
                    self.line(entry.key.lower(), entry.value, entry.line)
            elif block.kind == "amended":
                for entry in block.get("Amended"):
                    self.line("amended", entry.value, entry.line)
            elif block.kind == "skipped":
                for entry in block.get("Defaulted"):
                    for node_id in split_ids(entry.value):
                        if is_id(node_id):
                            self.settle(node_id, DEFAULTED_ANSWER, entry.line)

    def view(self) -> tuple[object, ...]:
        return self.answers, self.lines, self.out_of_scope, self.order, self.amended

    def settle(self, node_id: str, answer: str, line: int) -> None:
        if node_id not in self.answers and node_id not in self.lines:
            self.order.append(node_id)
        self.answers[node_id] = answer
        self.lines[node_id] = line
        self.out_of_scope.discard(node_id)

    def line(self, key: str, value: str, line: int) -> None:
        if key == "decisions":
            pair = split_decision(value)
            if pair is not None and is_id(pair[0]):
                self.settle(pair[0], pair[1], line)
        elif key == "facts resolved":
            found = fact_id(value)
            if found is not None:
                self.settle(found, value, line)
        elif key == "out of scope":
            for node_id in split_ids(value):
                if is_id(node_id):
                    self.out_of_scope.add(node_id)
                    self.answers.pop(node_id, None)
        elif key == "amended":
            pair = split_decision(value)
            if pair is not None and pair[0] in self.answers:
                old = self.answers[pair[0]]
                self.amended.setdefault(pair[0], old)
                self.answers[pair[0]] = value if old.startswith(f"{pair[0]} -> ") else pair[1]


VALUES = st.sampled_from([
    "none", "None", "NONE", " none", "none -> x", "none: x", "-", "n/a", "", "D1", "D2, D3",
    "D1 -> yes", "D1 → no", "D1->tight", "D2 -> a -> b", "D3: a fact", "D3 -> fact",
    "E1 -> ", "auth.users -> kept", "x-1 -> y", "D 4 -> spaced", "1D -> bad", "D1; D2",
    "D1 -> none", "D2 -> better words",
])
KEYS = st.sampled_from(["Decisions", "decisions", "**Decisions**", "Facts resolved",
                        "Out of scope", "OUT OF SCOPE", "Amended", "Asked", "By",
                        "Frontier after round", "Reopened", "Defaulted", "Default"])
HEADINGS = st.sampled_from(["### Requirements Grill - Round 1", "### Design Grill - Round 2",
                            "### Requirements Grill - Revised", "### Requirements Grill - Reset",
                            "### Requirements Grill - Skipped", "### Requirements Grill - Amended",
                            "### Notes"])


@st.composite
def log(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        lines.append(draw(HEADINGS))
        for _ in range(draw(st.integers(0, 6))):
            lines.append(f"- {draw(KEYS)}: {draw(VALUES)}".rstrip())
    return "---\nmdgrill: 1\n---\n# T\n\n## Interview Responses\n" + "\n".join(lines) + "\n"


def _view(text: str) -> tuple[object, ...]:
    ledger = read_ledger(Progress(TextFile(text), "p.md").blocks)
    return ledger.answers, ledger.answer_line, ledger.out_of_scope, ledger.order, ledger.amended


@settings(max_examples=500, deadline=None, derandomize=True)
@given(log())
def test_the_fast_round_reading_settles_what_the_plain_rules_settle(text: str) -> None:
    assert _view(text) == Plain(Progress(TextFile(text), "p.md").blocks).view()
    ledger = ledger_of(Progress(TextFile(text), "p.md"))  # the log read in one pass
    assert (ledger.answers, ledger.answer_line, ledger.out_of_scope, ledger.order,
            ledger.amended) == _view(text)


def test_a_round_closed_with_none_settles_nothing() -> None:
    text = ("---\nmdgrill: 1\n---\n# T\n\n## Interview Responses\n"
            "### Requirements Grill - Round 1\n- Asked: D1\n- Decisions: D1 -> yes\n"
            "- Facts resolved: none\n- Out of scope: none\n- Domain language: none\n"
            "- Frontier after round: none\n")
    answers, lines, out_of_scope, order, amended = _view(text)
    assert answers == {"D1": "yes"}
    assert lines == {"D1": 8}
    assert out_of_scope == set()
    assert order == ["D1"]
    assert amended == {}


@settings(max_examples=500, deadline=None, derandomize=True)
@given(log(), st.sampled_from(["\n", "\r\n"]), st.sampled_from(["", "- Asked: D9\n\n"]))
def test_the_settled_set_read_from_tokens_is_the_ledgers(text: str, nl: str, lead: str) -> None:
    text = text.replace("## Interview Responses\n", "## Interview Responses\n" + lead)
    text = text.replace("\n", nl)
    ledger = read_ledger(Progress(TextFile(text), "p.md").blocks)
    settled = log_settled(Progress(TextFile(text), "p.md"))
    assert (set(settled.answered), settled.out_of_scope) == \
        (set(ledger.answers), ledger.out_of_scope)
