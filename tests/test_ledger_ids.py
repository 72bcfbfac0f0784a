"""The ledger's reading of a round takes an ID of ASCII letters and digits, starting with a
letter, as it is written (`_read_round`: no `strip`, no ID_RE match, where `isalnum`,
`isascii` and `>= "A"` hold): it settles what the plain rules settle (`split_decision` or
`fact_id`, then `is_id`) for every ID-like text around an arrow, in every way the log is
read (block by block, one pass, the rows `validate` reads, the settled set of
`open-frontier`)."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mdgrill.formats.progress import Progress, split_ids
from mdgrill.formats.schema import is_id
from mdgrill.formats.textfile import TextFile
from mdgrill.model.tree import fact_id, ledger_of, log_settled, read_ledger, split_decision

PREFIX = "---\nmdgrill: 1\n---\n# T\n\n## Interview Responses\n"

# The characters an ID's test must tell apart: ASCII letters and digits (an ID), the other
# characters of ID_PATTERN (an ID, but not by the shortcut), blanks (stripped, or inside: no
# ID), letters and digits that are not ASCII (`isalnum` holds, `isascii` does not), and
# characters around "A" and "0" (the `>= "A"` test of the first one)
ID_CHARS = st.sampled_from(["D", "d", "A", "Z", "a", "z", "@", "[", "`", "{", "0", "1", "9",
                            "/", ":", ".", "_", "-", " ", "\t", "\u00a0", "\u2003", "é",
                            "Ω", "\u0661", "²", "ǅ", "ß"])
IDS = st.one_of(st.lists(ID_CHARS, max_size=5).map("".join),
                st.sampled_from(["D1", "1D", "0", "9a", "Z", "a", "x-1", "auth.users", "D1 "]))
ARROWS = st.sampled_from([" -> ", "->", " → ", "→", "  ->  ", " -> -> ", ": ", " "])
ANSWERS = st.sampled_from(["yes", "", " padded ", "a -> b", "\u00a0nbsp", "none"])
KEYS = st.sampled_from(["Decisions", "Facts resolved", "Out of scope", "Amended"])


def plain(text: str) -> tuple[dict[str, str], dict[str, int], set[str], list[str]]:
    """The rules of a round's answers, one entry at a time, with the plain helpers."""
    answers: dict[str, str] = {}
    lines: dict[str, int] = {}
    order: list[str] = []
    out_of_scope: set[str] = set()

    def settle(node_id: str, answer: str, line: int) -> None:
        if node_id not in lines:
            order.append(node_id)
        answers[node_id] = answer
        lines[node_id] = line
        out_of_scope.discard(node_id)

    for block in Progress(TextFile(text), "p.md").blocks:
        for entry in block.entries:
            key = entry.key_lower
            if key == "decisions":
                pair = split_decision(entry.value)
                if pair is not None and is_id(pair[0]):
                    settle(pair[0], pair[1], entry.line)
            elif key == "facts resolved":
                found = fact_id(entry.value)
                if found is not None:
                    settle(found, entry.value, entry.line)
            elif key == "out of scope" and entry.value != "none":
                for node_id in split_ids(entry.value):
                    if is_id(node_id):
                        out_of_scope.add(node_id)
                        answers.pop(node_id, None)
            elif key == "amended":
                pair = split_decision(entry.value)
                if pair is not None and pair[0] in answers:
                    old = answers[pair[0]]
                    answers[pair[0]] = entry.value if old.startswith(f"{pair[0]} -> ") \
                        else pair[1]
    return answers, lines, out_of_scope, order


def views(text: str) -> list[tuple[object, ...]]:
    rows = Progress(TextFile(text), "p.md")
    rows.read_log_rows()
    return [(ledger.answers, ledger.answer_line, ledger.out_of_scope, ledger.order)
            for ledger in (read_ledger(Progress(TextFile(text), "p.md").blocks),
                           ledger_of(Progress(TextFile(text), "p.md")), ledger_of(rows))]


@settings(max_examples=1500, deadline=None, derandomize=True)
@example([("Decisions", "D1", " -> ", "yes"), ("Facts resolved", "1D", " -> ", "x"),
          ("Decisions", "Dé", " -> ", "x"), ("Decisions", "D\u0661", " -> ", "x"),
          ("Facts resolved", "D2", " -> ", "fact"), ("Decisions", "D2 ", " -> ", " padded "),
          ("Decisions", "@1", " -> ", "x"), ("Decisions", "`a", " -> ", "x"),
          ("Decisions", "1D", " -> ", "x")])
@given(st.lists(st.tuples(KEYS, IDS, ARROWS, ANSWERS), max_size=8))
def test_an_id_read_without_its_match_settles_what_the_plain_rules_settle(
        bullets: list[tuple[str, str, str, str]]) -> None:
    body = "".join(f"- {key}: {node_id}{arrow}{answer}\n"
                   for key, node_id, arrow, answer in bullets)
    text = PREFIX + "### Requirements Grill - Round 1\n- Asked: D1\n" + body + \
        "### Requirements Grill - Round 2\n" + body.replace("Decisions", "Out of scope")
    want = plain(text)
    for view in views(text):
        assert view == want
    # the settled set `open-frontier` reads from the log's tokens, its IDs taken alike
    settled = log_settled(Progress(TextFile(text), "p.md"))
    assert (set(settled.answered), settled.out_of_scope) == (set(want[0]), want[2])
