"""The language server revalidates a `.progress.md` from its last parse (issue 37, goal 4):
the front matter, the log's ledger and the bullets of every block and node whose text did
not change are taken from the parse of the buffer's earlier version. The property: after
any sequence of edits, the diagnostics are exactly `validate`'s of the same text (same
codes, lines, columns, messages, order); and a keystroke in one node reads that node again,
not the thousand others.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import import_part
from hypothesis import given, settings
from hypothesis import strategies as st

import_part("pygls", "the LSP server is the `lsp` extra (pip install -e '.[dev]' installs it)")
from mdgrill.checks.spec import NodeChecks, validate_progress_bytes  # noqa: E402
from mdgrill.formats.progress import Progress, read_progress, reread_progress  # noqa: E402
from mdgrill.formats.textfile import decode  # noqa: E402
from mdgrill.integrations.lsp import Buffers, diagnostics_of, revalidate  # noqa: E402
from mdgrill.model.tree import carry_ledger, ledger_of  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import genspec  # noqa: E402

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples" / "specs")
                  .glob("*/.progress.md"))
NAME = ".progress.md"

# What a person types or pastes: a key, a line end, a whole line of each kind, the marks
# that make a heading, a fence, a comment or a front matter fence.
FRAGMENTS = [
    "x", " ", "\n", "\r\n", "#", "-", ":", "D", "1", "`",
    "### D3: Another question\n", "### D1: Duplicate\n", "- Depends on: D2\n",
    "- Depends on: D99\n", "- Spawned by: D1, D2\n", "- Options:\n", "  - Yes (Recommended)\n",
    "  - No\n", "- Unknown: u\n", "stray words\n", "## Design Tree\n", "## Goal\n",
    "## Interview Responses\n", "### Requirements Grill - Round 2\n", "- Asked: D1\n",
    "- Decisions: D1 -> yes\n", "- Facts resolved: D2 -> Redis\n", "- Out of scope: D3\n",
    "```\n", "<!-- a comment -->\n", "---\n", "goal: something else\n", "  pending: [D1]\n",
]


def _bases() -> list[str]:
    texts = [genspec.progress_text(6), genspec.validate_text(3, 5),
             genspec.progress_text(4, pending=[])]
    texts += [path.read_text(encoding="utf-8") for path in EXAMPLES]
    texts.append(texts[0].replace("\n", "\r\n"))
    return texts


BASES = _bases()


@st.composite
def edit(draw: st.DrawFn) -> tuple[float, int, str]:
    """Where (a fraction of the text), how many characters go, what comes in."""
    return (draw(st.floats(0, 1)), draw(st.integers(0, 3)) ** 2,
            "".join(draw(st.lists(st.sampled_from(FRAGMENTS), min_size=0, max_size=3))))


def _apply(text: str, change: tuple[float, int, str]) -> str:
    where, deleted, inserted = change
    at = int(where * len(text))
    return text[:at] + inserted + text[at + deleted:]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.sampled_from(range(len(BASES))), st.lists(edit(), min_size=1, max_size=8))
def test_revalidating_after_any_edits_says_what_validate_says(
        base: int, changes: list[tuple[float, int, str]]) -> None:
    text = BASES[base]
    nodes = NodeChecks()
    found, earlier = revalidate(text.encode("utf-8"), NAME, None, nodes)
    assert found == validate_progress_bytes(text.encode("utf-8"), NAME)
    for change in changes:
        text = _apply(text, change)
        data = text.encode("utf-8")
        found, earlier = revalidate(data, NAME, earlier, nodes)
        assert [repr(d) for d in found] == [repr(d) for d in validate_progress_bytes(data, NAME)]


def test_a_keystroke_in_one_node_reads_that_node_again_and_no_other() -> None:
    text = genspec.progress_text(1000)
    earlier = read_progress(text.encode("utf-8"), NAME)
    earlier.read_all_bullets()
    ledger = ledger_of(earlier)
    typed = text.replace("### D500: Question number 500 ", "### D500: Question number 500? ")
    fresh = Progress(decode(typed.encode("utf-8"), NAME), NAME)
    # 999 nodes and every block of the log are taken; D500 is read again
    assert fresh.reuse_bullets(earlier) == 999 + len(earlier.blocks)
    prog = reread_progress(typed.encode("utf-8"), NAME, earlier)
    assert prog.fm is earlier.fm  # the front matter did not change: not parsed again
    d500 = prog.node("D500")
    assert d500 is not None and d500.title.startswith("Question number 500? ")
    assert d500.entries is not earlier.node("D500").entries  # type: ignore[union-attr]
    assert prog.node("D499").entries is earlier.node("D499").entries  # type: ignore[union-attr]
    assert prog.blocks[-1].entries is earlier.blocks[-1].entries
    assert carry_ledger(prog, earlier) and ledger_of(prog) is ledger
    nodes = NodeChecks()
    revalidate(text.encode("utf-8"), NAME, None, nodes)
    said = dict(nodes.found)
    assert validate_progress_bytes(typed.encode("utf-8"), NAME) == \
        revalidate(typed.encode("utf-8"), NAME, earlier, nodes)[0]
    # what was said of the 999 other nodes is what was said before; D500 was checked again
    assert len(nodes.found) == 1000 and len(set(nodes.found).difference(said)) == 1
    assert all(nodes.found[key] is said[key] for key in set(said).intersection(nodes.found))


def test_a_new_line_moves_the_parts_below_it_with_their_lines() -> None:
    text = genspec.progress_text(40)
    earlier = read_progress(text.encode("utf-8"), NAME)
    earlier.read_all_bullets()
    typed = text.replace("- Section: s3\n", "- Section: s3\n\n", 1)
    prog = reread_progress(typed.encode("utf-8"), NAME, earlier)
    before, after = earlier.node("D30"), prog.node("D30")
    assert before is not None and after is not None
    assert [e.line for e in after.entries] == [e.line + 1 for e in before.entries]
    assert [e.key for e in after.entries] == [e.key for e in before.entries]
    assert [o.line for o in after.options] == [o.line + 1 for o in before.options]
    assert not carry_ledger(prog, earlier)  # the log moved a line down: its lines differ
    assert prog.blocks[0].entries[0].line == earlier.blocks[0].entries[0].line + 1


@pytest.mark.parametrize("broken", ["---\nmdgrill: 1\n", "", "   \n", "---\n: [\n---\n"])
def test_a_buffer_that_does_not_read_says_what_validate_says_and_starts_again(
        broken: str) -> None:
    buffers = Buffers()
    uri = "file:///tmp/specs/x/.progress.md"
    text = genspec.progress_text(5)
    assert diagnostics_of(uri, text, buffers) == diagnostics_of(uri, text)
    assert diagnostics_of(uri, broken, buffers) == diagnostics_of(uri, broken)
    assert diagnostics_of(uri, text + "x", buffers) == diagnostics_of(uri, text + "x")


def test_a_node_that_names_an_id_is_checked_again_when_that_id_comes_or_goes() -> None:
    # D2 says `Depends on: D1` and does not change; D1's heading is renamed and back
    text = genspec.progress_text(6)
    renamed = text.replace("### D1: ", "### Q1: ")
    nodes = NodeChecks()
    _, earlier = revalidate(text.encode("utf-8"), NAME, None, nodes)
    for version in (renamed, text, renamed):
        data = version.encode("utf-8")
        found, earlier = revalidate(data, NAME, earlier, nodes)
        assert found == validate_progress_bytes(data, NAME)
        missing = [d for d in found if d.code == "MISSING_REFERENCE"]
        assert (version is renamed) == any("D2 depends on D1" in d.message for d in missing)


def test_a_loop_between_unchanged_nodes_is_still_found_after_an_edit_elsewhere() -> None:
    text = genspec.progress_text(6).replace("- Depends on: none", "- Depends on: D2", 1)
    nodes = NodeChecks()
    _, earlier = revalidate(text.encode("utf-8"), NAME, None, nodes)
    typed = text.replace("### D5: Question number 5", "### D5: Question number 5, typed")
    found, _ = revalidate(typed.encode("utf-8"), NAME, earlier, nodes)
    assert found == validate_progress_bytes(typed.encode("utf-8"), NAME)
    assert [d.message.split(" depend")[0] for d in found if d.code == "DEPENDENCY_CYCLE"] == \
        ["D1, D2"]


def test_typing_an_id_checks_again_only_the_nodes_that_name_it() -> None:
    # D500 renamed: D500 (its heading) and D501 (`Depends on: D500`) name it and are checked
    # again, the 998 others keep what was said of them; the result is validate's
    text = genspec.progress_text(1000)
    nodes = NodeChecks()
    _, earlier = revalidate(text.encode("utf-8"), NAME, None, nodes)
    said = dict(nodes.found)
    typed = text.replace("### D500: ", "### D500x: ")
    found, _ = revalidate(typed.encode("utf-8"), NAME, earlier, nodes)
    assert found == validate_progress_bytes(typed.encode("utf-8"), NAME)
    assert [d.message.split(",")[0] for d in found if d.code == "MISSING_REFERENCE"] == \
        ["D501 depends on D500"]
    again = [key for key in nodes.found if nodes.found[key] is not said.get(key)]
    assert sorted(key[1].split(":")[0] for key in again) == ["### D500x", "### D501"]
