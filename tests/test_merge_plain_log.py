"""The merge's short way through the base's log (issue 37, goal 5): when both sides kept the
base's log up to its last block and that stretch is plain text that already reads as the
merged log's lines (`core/merge._plain_head`), it stands as one chunk of text and the blocks
before the last one are not read. Here the short way and the long way (every block read)
give the same merge, whatever the blank lines, headings, fences and other lines in that
stretch: hypothesis writes them into real versions made by the library, the same bytes on
the three sides (a stretch of the log both sides kept)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import git_init
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mdgrill.core.merge as merge_module
from mdgrill.api import Spec
from mdgrill.core.merge import Merged, merge_progress
from mdgrill.formats.progress import Progress
from mdgrill.formats.textfile import TextFile

PATH = "specs/a/.progress.md"


def _versions(s: Spec, base: str, ours: object, theirs: object) -> tuple[str, str, str]:
    p = Path(s.progress)
    out = [base]
    for step in (ours, theirs):
        p.write_text(base, encoding="utf-8")
        step(s)  # type: ignore[operator]
        out.append(p.read_text(encoding="utf-8"))
    return out[0], out[1], out[2]


class Versions(dict[str, tuple[str, str, str]]):
    """The versions by way, named briefly in a failure's report (they are 40 kB)."""

    def __repr__(self) -> str:
        return f"Versions({', '.join(self)})"


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[str, str, str]]]:
    """(base, ours, theirs) of a base with four closed rounds and round 5 open on D5, D6,
    for each way two branches go on from it."""
    tmp = tmp_path_factory.mktemp("plain-log")
    repo = tmp / "repo"
    repo.mkdir()
    git_init(repo)
    with pytest.MonkeyPatch.context() as env:
        env.chdir(repo)
        env.setenv("HOME", os.fspath(tmp))
        env.setenv("GIT_AUTHOR_NAME", "Test")
        env.setenv("GIT_AUTHOR_EMAIL", "test@example.com")
        s = Spec.init("specs/a", goal="Promo codes at checkout")
        # one question a round up to D4, then D5 and D6 together, then D7 and D8
        needs = {1: [], 2: ["D1"], 3: ["D2"], 4: ["D3"], 5: ["D4"], 6: ["D4"],
                 7: ["D5", "D6"], 8: ["D5", "D6"]}
        for i, deps in needs.items():
            s.add_node(f"D{i}", title=f"Question {i}?", depends_on=deps, options=["A", "B"],
                       recommend=1)
        s.begin_interview(phase="requirements", interview_id="r1")
        for n in range(1, 5):
            s.open_frontier(round=n, decision_ids=[f"D{n}"])
            s.record_answer(f"D{n}", "A")
        s.open_frontier(round=5, decision_ids=["D5", "D6"])
        base = Path(s.progress).read_text(encoding="utf-8")

        def answer(decision: str, value: str) -> object:
            return lambda x: x.record_answer(decision, value)

        def next_round(x: Spec) -> None:
            x.record_answer("D5", "A")
            x.record_answer("D6", "B")
            x.open_frontier(round=6, decision_ids=["D7", "D8"])
            x.record_answer("D7", "A")

        def other_round(x: Spec) -> None:
            x.record_answer("D5", "A")
            x.record_answer("D6", "B")
            x.open_frontier(round=6, decision_ids=["D7", "D8"])
            x.record_answer("D8", "B")

        def noted(x: Spec) -> None:  # an answer, and a comment in the front matter by hand
            x.record_answer("D6", "B")
            p = Path(x.progress)
            p.write_text(p.read_text(encoding="utf-8").replace("\nspec: a\n",
                                                               "\nspec: a\n# theirs\n", 1),
                         encoding="utf-8")

        yield Versions({
            "answers in the open round": _versions(s, base, answer("D5", "A"), answer("D6", "B")),
            "a new round on ours": _versions(s, base, next_round, answer("D6", "B")),
            "new rounds on both": _versions(s, base, next_round, other_round),
            "their side only": _versions(s, base, lambda x: None, answer("D6", "B")),
            "a comment in their front matter": _versions(s, base, answer("D5", "A"), noted),
            "one answer two ways": _versions(s, base, answer("D5", "A"), answer("D5", "B")),
        })


def _stretch(text: str) -> tuple[int, int]:
    """Where the base's first block starts and its last block's heading starts."""
    prog = Progress(TextFile(text), PATH)
    return prog.blocks[0].offset, prog.blocks[-1].offset


SEPARATORS = ["\n", "\n\n\n", "\n \n", "\n\xa0\n", "\n\x1c\n", "\n\t\n\n", "\n\n \n",
              "\n\n\n\n"]
LINES = ["#### A sub-heading", "#no heading", "###\tA tabbed heading", "### An extra block",
         "###", "", " ", "\xa0", "\t", "Some prose.", "  - nested", "```", "~~~",
         "<!-- a note -->", "    # indented", "  # indented", "- Note: x", "- Note: a # b"]


BEFORE = ["\n", " \n", "Intro.\n\n", "#### A sub-heading\n\n", "#no heading\n\n",
          "###\tA tabbed heading\n\n"]


@st.composite
def stretches(draw: st.DrawFn) -> tuple[list[str], list[list[str]], str]:
    """What stands between the four blocks before the last one (one blank line as mdgrill
    writes it, or another run of blank lines), lines added at each block's end, and text put
    before the first block: up to three changes to the stretch as mdgrill wrote it, so that
    many examples take the short way and each change meets it alone."""
    seps = ["\n\n"] * 4
    extra: list[list[str]] = [[] for _ in range(4)]
    before = ""
    for kind, at, pick in draw(st.lists(st.tuples(st.sampled_from(["sep", "line", "before"]),
                                                  st.integers(0, 3), st.integers(0, 99)),
                                        max_size=3)):
        if kind == "sep":
            seps[at] = SEPARATORS[pick % len(SEPARATORS)]
        elif kind == "line":
            extra[at].append(LINES[pick % len(LINES)])
        else:
            before = BEFORE[pick % len(BEFORE)]
    return seps, extra, before


def _rewrite(text: str, seps: list[str], extra: list[list[str]], before: str,
             stretch: str) -> str:
    """`text` with the base's `stretch` of the log rewritten: the same bytes for each side."""
    first = text.index(stretch, text.index("## Interview Responses"))
    last = first + len(stretch)
    blocks = stretch.rstrip("\n").split("\n\n### ")
    assert len(blocks) == len(seps) == len(extra)
    out = []
    for i, block in enumerate(blocks):
        body = block if i == 0 else "### " + block
        lines = [body, *extra[i]]
        out.append("\n".join(lines) + seps[i])
    return text[:first] + before + "".join(out) + text[last:]


def _same(a: Merged, b: Merged) -> None:
    assert (a.text, a.reason, a.notes, a.conflicts, a.marks, a.pattern) == \
        (b.text, b.reason, b.notes, b.conflicts, b.marks, b.pattern)
    assert [(w, c) for w, c in a.clashes] == [(w, c) for w, c in b.clashes]


def _long_way(texts: tuple[str, str, str], monkeypatch: pytest.MonkeyPatch) -> Merged:
    """The merge with every block of the base's log read, and the merged front matter read
    again to seal it (not taken from ours)."""
    with monkeypatch.context() as m:
        m.setattr(merge_module, "_plain_head", lambda base: None)
        m.setattr(merge_module, "_front_of", lambda head, ours: None)
        return merge_progress(*texts, PATH)


@settings(max_examples=int(os.environ.get("MDGRILL_MERGE_EXAMPLES", "150")), deadline=None,
          derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(way=st.sampled_from(["answers in the open round", "a new round on ours",
                            "new rounds on both", "their side only",
                            "a comment in their front matter", "one answer two ways"]),
       stretch=stretches())
def test_the_short_way_merges_as_the_long_way(
        sides: dict[str, tuple[str, str, str]], monkeypatch: pytest.MonkeyPatch, way: str,
        stretch: tuple[list[str], list[list[str]], str]) -> None:
    texts = sides[way]
    first, last = _stretch(texts[0])
    rewritten = tuple(_rewrite(t, *stretch, texts[0][first:last]) for t in texts)
    assert len(rewritten) == 3
    short = merge_progress(*rewritten, PATH)  # type: ignore[misc]
    _same(short, _long_way(rewritten, monkeypatch))  # type: ignore[arg-type]


def test_the_short_way_is_taken_for_a_log_mdgrill_wrote(
        sides: dict[str, tuple[str, str, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """Each way the branches went, as mdgrill wrote them: the base's stretch reads as the
    merged lines (the short way is taken, its count of blocks confirmed by the check), and
    the merge is the long way's."""
    taken = []
    real = merge_module._plain_head

    def spy(base: Progress) -> object:
        found = real(base)
        taken.append(found is not None)
        return found

    apart: list[str] = []  # merges whose seal the one parse did not confirm
    sealed_apart = merge_module._sealed_apart
    for way, texts in sides.items():
        with monkeypatch.context() as m:
            m.setattr(merge_module, "_plain_head", spy)
            m.setattr(merge_module, "_sealed_apart",
                      lambda *a, w=way: (apart.append(w), sealed_apart(*a))[1])
            short = merge_progress(*texts, PATH)
        assert taken.pop() is True, way
        _same(short, _long_way(texts, monkeypatch))
        if way != "one answer two ways":
            assert short.text is not None and not short.in_conflict, (way, short.reason)
    assert apart == ["one answer two ways"]  # conflicts are sealed apart, as they were
    found = merge_module._plain_head(Progress(TextFile(sides["new rounds on both"][0]), PATH))
    assert found is not None
    block, last, first, before, lines = found
    assert (last.title, before, len(lines)) == (block.title, 4, 1)


@pytest.mark.parametrize(("where", "line"), [
    ("between", "\n\xa0\n"), ("between", "\n\n\n"), ("between", "\n"),
    ("end", "\n \n"), ("end", "\n#### Sub\n"), ("end", "\n###\tTabbed\n"),
    ("end", "\n#no heading\n"), ("last", "\n"), ("last", "\n \n"), ("last", "\n\n\n"),
    ("before", "Intro.\n\n"), ("before", "#### Sub\n\n"), ("before", "###x\n\n"),
    ("end", "\n```\n"), ("end", "\n<!-- note -->\n")])
def test_a_stretch_that_does_not_read_as_the_merged_lines_goes_the_long_way(
        sides: dict[str, tuple[str, str, str]], where: str, line: str) -> None:
    """A line of only blanks (a no-break space), two blank lines, no blank line before a
    heading, a heading other than `### `, text before the first block, a fence or a
    comment: the stretch is not taken as it is."""
    base = sides["answers in the open round"][0]
    first, last = _stretch(base)
    stretch = base[first:last]
    at = stretch.index("\n\n### ", 1)
    if where == "last":
        stretch = stretch[:-2] + line
    elif where == "between":
        stretch = stretch[:at] + line + stretch[at + 2:]
    elif where == "end":
        stretch = stretch[:at] + line.rstrip("\n") + stretch[at:]
    else:
        stretch = line + stretch
    text = base[:first] + stretch + base[last:]
    assert merge_module._plain_head(Progress(TextFile(text), PATH)) is None

