"""glossary.py: CONTEXT.md / CONTEXT-MAP.md parse, checks and surgical writes, on real files."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mdgrill.diagnostics import Diagnostic
from mdgrill.errors import InputError, MdgrillError
from mdgrill.formats.glossary import (
    Glossary,
    Term,
    check_context_map,
    check_glossary,
    new_glossary,
    parse_context_map,
    parse_glossary,
    set_term,
)
from mdgrill.formats.textfile import TextFile, content, decode

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "context"
FILES = sorted(p.name for p in CORPUS.glob("*.md")) if CORPUS.is_dir() else []
GLOSSARIES = [f for f in FILES if f.endswith("_CONTEXT.md")]
# one skipped case with the reason when the corpus is not beside the checkout (a lone clone)
CORPUS_FILES = FILES or [pytest.param("", marks=pytest.mark.skip(
    reason=f"the real-world corpus {CORPUS} is not beside this checkout"))]


def corpus(name: str) -> TextFile:
    path = CORPUS / name
    if not path.is_file():
        pytest.skip("corpus not available")
    return decode(path.read_bytes(), name)


def parse(text: str, path: str = "CONTEXT.md") -> Glossary:
    return parse_glossary(TextFile(text), path)


def names(g: Glossary) -> list[str]:
    return [t.name for t in g.terms]


def codes(diags: list[Diagnostic]) -> list[str]:
    return [d.code for d in diags]


def variant(data: bytes, kind: str) -> bytes:
    if "crlf" in kind:
        data = data.replace(b"\n", b"\r\n")
    if "bom" in kind:
        data = b"\xef\xbb\xbf" + data
    if "nofinal" in kind:
        data = data.rstrip(b"\r\n")
    return data


VARIANTS = ["lf", "crlf", "bom", "bom-crlf", "nofinal"]


# --------------------------------------------------------------------------- corpus: reading

def test_corpus_is_complete() -> None:
    if not FILES:
        pytest.skip("corpus not available")
    assert len(FILES) == 15


# The only content errors in the corpus: agent-space lists other terms under _Avoid_
# ("Workspace: _Avoid_: Project" while Project is itself a term): a warning, naming both.
EXPECTED_ERRORS = {
    "0human__agent-space__CONTEXT.md": [
        ("AVOID_IS_TERM", 29), ("AVOID_IS_TERM", 33), ("AVOID_IS_TERM", 41),
        ("AVOID_IS_TERM", 106), ("AVOID_IS_TERM", 122), ("AVOID_IS_TERM", 130),
        ("AVOID_IS_TERM", 138), ("AVOID_IS_TERM", 154), ("AVOID_IS_TERM", 158),
        ("AVOID_IS_TERM", 170), ("AVOID_IS_TERM", 190),
    ],
}


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_every_corpus_file_parses_and_checks_as_expected(name: str) -> None:
    g = parse_glossary(corpus(name), name)
    assert [d for d in g.diagnostics if d.is_error] == []
    found = [(d.code, d.line) for d in check_glossary(g)]
    assert found == EXPECTED_ERRORS.get(name, [])
    if name != "enmaku__portfolio-site__CONTEXT-MAP.md":
        assert g.terms, name


def test_agent_space_avoid_error_names_both_lines() -> None:
    g = parse_glossary(corpus("0human__agent-space__CONTEXT.md"), "C.md")
    d = next(d for d in check_glossary(g) if d.line == 122)
    assert d.severity == "warning"  # real glossaries do this on purpose
    assert d.message.startswith('"Project" is listed under _Avoid_ for "Workspace" (line 122) '
                                "but is itself a term (line 104)")


EXACT_TERMS = {
    "mattpocock__skills__CONTEXT.md": ["Issue tracker", "Issue", "Decision ticket",
                                       "Triage role"],
    "0gnilc__auth__apps_server_CONTEXT.md": [
        "Authentication", "Authorization", "Permission Checking", "Granted Permission",
        "Required Permission", "Public Access Permission", "Access Context",
        "Access Environment", "Access Identity", "Access Target", "Access Decision",
        "Access Denied Handling"],
    "BowTiedDevil__degenbot__src_degenbot_connection_CONTEXT.md": [
        "Provider", "ProviderBackend", "Subscription", "LogListener", "LogSubscriptionFilter",
        "LOG_HANDLERS", "Connection Manager"],
    "BowTiedDevil__degenbot__src_degenbot_chainlink_CONTEXT.md": [
        "Price Feed", "Aggregator", "Round Data", "Latest Answer"],
    "BowTiedDevil__degenbot__CONTEXT-MAP.md": ["Bot", "Pool State Message", "Anvil Fork"],
    "ericdahl-dev__git-green__CONTEXT.md": [
        "Repo", "Workflow", "Run", "Job", "Step", "Org", "PR", "Branch section", "Config file",
        "Repo manager", "Stoplight", "Active-first sorting", "Dashboard tree", "Polling"],
    "Bruno0M__agents-for-commerce__apps_web_CONTEXT.md": ["Transporte", "Modo fixture"],
    "AtlasDevHQ__atlas__docs_contexts_notebooks_CONTEXT.md": ["Notebook", "Report"],
    "AlexRockShouts__lokalsicht__backend_internal_domain_notification_CONTEXT.md": [
        "Benachrichtigung", "Review-Benachrichtigung", "Präferenz"],
    "AntonOfTheWoods__pgxsinkit__apps_board_CONTEXT.md": [
        "User", "Member", "Admin", "Team", "Issue", "Status", "Assignee", "Priority",
        "Channel", "Message"],
    "enmaku__portfolio-site__CONTEXT-MAP.md": [],
}


@pytest.mark.parametrize("name", sorted(EXACT_TERMS))
def test_exact_terms_of_corpus_files(name: str) -> None:
    assert names(parse_glossary(corpus(name), name)) == EXACT_TERMS[name]


def lines_matching(name: str, pattern: str, lo: int = 0, hi: int = 10**9) -> list[str]:
    texts = [content(x) for x in corpus(name).lines]
    return [m.group(1) for t in texts[lo:hi] if (m := re.fullmatch(pattern, t))]


def test_big_files_terms_are_exactly_their_entry_lines() -> None:
    # dungeon-runner: every `### X` between `## Language` (line 7) and `## Relationships`
    dr = "enmaku__portfolio-site__src_features_dungeon-runner_CONTEXT.md"
    g = parse_glossary(corpus(dr), dr)
    assert names(g) == lines_matching(dr, r"### (.+)", 7, 448)
    assert len(g.terms) == 75 and "Mid-match dialog surface (live)" in names(g)
    # agent-space: `**X**：` lines; WaiTrade2: `**X:**` lines; construction: `**X**：...`
    # lines in the four groups, not the `## 避免使用` (avoid) bullets
    ag = "0human__agent-space__CONTEXT.md"
    assert names(parse_glossary(corpus(ag), ag)) == lines_matching(ag, r"\*\*(.+)\*\*：")
    wt = "nnasterw__WaiTrade2__docs_CONTEXT.md"
    assert names(parse_glossary(corpus(wt), wt)) == lines_matching(wt, r"\*\*(.+):\*\*")
    assert len(lines_matching(wt, r"\*\*(.+):\*\*")) == 36
    cm = "1131096740__intelligent-construction-management__packages_shared-domain_CONTEXT.md"
    g = parse_glossary(corpus(cm), cm)
    assert names(g) == lines_matching(cm, r"\*\*(.+?)\*\*：.*", 0, 90)
    assert len(g.terms) == 39
    assert sorted({t.group or "" for t in g.terms}) == sorted(
        ["参与主体", "账与事实", "盈亏与清算", "接管与更正"])


OTHER_SECTIONS = ("relationships", "example dialogue", "flagged ambiguities",
                  "resolved ambiguities", "known issues", "decisões", "ligações", "install",
                  "cli", "keybindings", "contexts", "module contexts", "instructions",
                  "cross-module relationships", "cross-module ambiguity rulings", "避免使用",
                  "plan reference", "sibling repositories", "architecture")


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_non_glossary_sections_yield_no_terms(name: str) -> None:
    texts = [content(x) for x in corpus(name).lines]
    heads = [(i, len(m.group(1)), m.group(2).strip().casefold())
             for i, t in enumerate(texts) if (m := re.match(r"(#{1,6}) (.*)", t))]
    spans = []
    for k, (line, level, title) in enumerate(heads):
        if title in OTHER_SECTIONS:
            end = next((ln for ln, lv, _ in heads[k + 1:] if lv <= level), len(texts))
            spans.append((line, end))
    g = parse_glossary(corpus(name), name)
    inside = [t.name for t in g.terms if any(a <= t.start_line < b for a, b in spans)]
    assert inside == []


RALPH = CORPUS.parent / "ralph"
RALPH_GLOSSARIES = {   # spec folders' Markdown: only their `## Glossary` sections are terms
    "informatico-madrid__ha-ev-trip-planner__e2e-ev-trip-planner/requirements.md": 8,
    "tzachbon__smart-ralph__adopt-grill-me-interview/requirements.md": 7,
    "vitorguima__conquer-server__conquer-online-server/requirements.md": 13,
}


def test_other_markdown_yields_only_its_glossary_sections() -> None:
    files = sorted(RALPH.glob("*/*.md")) if RALPH.is_dir() else []
    if not files:
        pytest.skip("corpus not available")
    for path in files:
        key = f"{path.parent.name}/{path.name}"
        g = parse_glossary(decode(path.read_bytes(), key), key)
        assert len(g.terms) == RALPH_GLOSSARIES.get(key, 0), key
        assert {t.group for t in g.terms} <= {"Glossary"}, key
        assert [d for d in g.diagnostics if d.is_error] == []


def term(g: Glossary, name: str) -> Term:
    found = g.find(name)
    assert len(found) == 1, name
    return found[0]


def test_corpus_entry_details() -> None:
    g = parse_glossary(corpus("mattpocock__skills__CONTEXT.md"), "C.md")
    issue = term(g, "Issue")
    assert (issue.start_line, issue.end_line, issue.line, issue.col, issue.group) == (
        10, 13, 11, 3, "Language")
    assert issue.avoid == ["ticket (use only when quoting external systems that call them "
                           "tickets, or for a **Decision ticket** — see below)"]
    assert term(g, "Decision ticket").avoid == []

    g = parse_glossary(corpus("AntonOfTheWoods__pgxsinkit__apps_board_CONTEXT.md"), "C.md")
    admin = term(g, "Admin")
    assert admin.definition.startswith("A User holding the workspace-wide Admin role (a JWT "
                                       "`app_metadata.roles` claim). An Admin sees every")
    assert "\n" not in admin.definition
    assert admin.avoid == ["manager", "moderator", "superuser", "owner"]
    assert admin.group == "Language — people and access"

    g = parse_glossary(corpus("0gnilc__auth__apps_server_CONTEXT.md"), "C.md")
    pc = term(g, "Permission Checking")
    assert pc.definition.endswith("or handle a denied outcome.")
    assert pc.avoid == ["Authorization check"]

    g = parse_glossary(corpus("0human__agent-space__CONTEXT.md"), "C.md")
    assert term(g, "Workflow Definition").avoid == ["Workflow template", "prompt chain"]

    g = parse_glossary(corpus("nnasterw__WaiTrade2__docs_CONTEXT.md"), "C.md")
    assert term(g, "结构上限证据 (Structural Limit Evidence)").avoid == [
        "单次失败", "参数未生效", "相邻值无差异"]
    assert term(g, "WFYS").name == "WFYS (Win-First-Your-Self)"  # found by its short form

    g = parse_glossary(corpus("AlexRockShouts__lokalsicht__backend_internal_domain_"
                              "notification_CONTEXT.md"), "C.md")
    assert [t.gloss for t in g.terms] == ["Notification", "Review Notification", "Preference"]
    assert term(g, "notification").name == "Benachrichtigung"

    g = parse_glossary(corpus("BowTiedDevil__degenbot__src_degenbot_connection_CONTEXT.md"),
                       "C.md")
    multi = term(g, "AsyncSubscriptionSupport")
    assert multi.names == ["ProviderBackend", "AsyncProviderBackend",
                           "SyncSubscriptionSupport", "AsyncSubscriptionSupport"]
    assert multi.definition == "Defined in [Provider CONTEXT.md](../provider/CONTEXT.md)."
    assert multi.group is None

    g = parse_glossary(corpus("BowTiedDevil__degenbot__src_degenbot_chainlink_CONTEXT.md"),
                       "C.md")
    rd = term(g, "Round Data")
    assert (rd.shape.kind, rd.line, rd.avoid) == ("table", 7, ["Price update", "round"])

    g = parse_glossary(corpus("AtlasDevHQ__atlas__docs_contexts_notebooks_CONTEXT.md"), "C.md")
    nb = term(g, "Notebook")
    assert (nb.shape.kind, nb.start_line, nb.end_line, nb.col) == ("list", 20, 23, 5)
    assert nb.definition.startswith("Retired surface — a cell-based analysis document")
    assert g.description.startswith("> **One of Atlas's bounded contexts.**")

    g = parse_glossary(corpus("Bruno0M__agents-for-commerce__apps_web_CONTEXT.md"), "C.md")
    tr = term(g, "Transporte")
    assert (tr.start_line, tr.end_line) == (9, 20)     # the table belongs to the entry
    assert tr.definition.startswith("de onde o dado da tela vem. Uma interface")
    assert "| `fixture` | payload congelado |" in tr.definition

    g = parse_glossary(corpus("ericdahl-dev__git-green__CONTEXT.md"), "C.md")
    stop = term(g, "Stoplight")
    assert (stop.shape.kind, stop.start_line, stop.end_line, stop.group) == (
        "heading", 51, 63, None)
    assert stop.avoid == ["badge", "indicator", "light"]
    assert term(g, "Repo").definition == ("A GitHub repository being monitored. Identified by "
                                          "`owner/name`.")

    dr = "enmaku__portfolio-site__src_features_dungeon-runner_CONTEXT.md"
    g = parse_glossary(corpus(dr), dr)
    match = term(g, "Match")
    assert (match.start_line, match.end_line, match.line, match.col) == (8, 13, 9, 5)
    assert match.avoid == ["“Game” alone (ambiguous with the whole app or a single dungeon run)"]
    pipeline = term(g, "Presentation motion pipeline")   # sub-labels stay in its definition
    assert "**Presentation motion catalog:**" in pipeline.definition
    assert g.title == "Dungeon Runner" and g.title_line == 1


# --------------------------------------------------------------------------- corpus: writing

NEW_DEF = "A brand new thing, made up for this test."


def split_change(old: list[str], new: list[str]) -> tuple[int, list[str], list[str]]:
    """Position, removed lines and added lines of the single change between two line lists."""
    p = 0
    while p < min(len(old), len(new)) and old[p] == new[p]:
        p += 1
    s = 0
    while (s < min(len(old), len(new)) - p and old[len(old) - 1 - s] == new[len(new) - 1 - s]):
        s += 1
    return p, old[p:len(old) - s], new[p:len(new) - s]


@pytest.mark.parametrize("kind", VARIANTS)
@pytest.mark.parametrize("name", CORPUS_FILES)
def test_adding_a_term_only_inserts_its_lines(name: str, kind: str) -> None:
    raw = variant(corpus(name).encode(), kind)
    tf = decode(raw, name)
    g = parse_glossary(tf, name)
    out = set_term(tf, g, "Zeta Widget", NEW_DEF, ["gizmo", "doohickey"])
    data = out.encode()
    assert data.startswith(b"\xef\xbb\xbf") == ("bom" in kind)
    assert data.endswith(b"\n") == ("nofinal" not in kind)
    if "crlf" in kind:
        assert data.count(b"\n") == data.count(b"\r\n")
    old_lines = [content(x) for x in tf.lines]
    new_lines = [content(x) for x in out.lines]
    _, removed, added = split_change(old_lines, new_lines)
    assert removed == []
    after = parse_glossary(out, name)
    zeta = term(after, "zeta widget")
    entry = new_lines[zeta.start_line:zeta.end_line]
    if not g.terms:     # a new `## Language` section at the end of the file
        assert added == ["", "## Language", ""] + entry
    else:               # the entry, with at most one blank separator line on each side
        assert added in (entry, [""] + entry, entry + [""], [""] + entry + [""])
    # byte-identical outside the insertion (line ends included)
    p, _, _ = split_change(tf.lines, out.lines)
    assert out.lines[:p] == tf.lines[:p]
    assert (zeta.definition, zeta.avoid) == (NEW_DEF, ["gizmo", "doohickey"])
    assert [(t.names, t.definition, t.avoid) for t in after.terms if t is not zeta] == [
        (t.names, t.definition, t.avoid) for t in g.terms]


@pytest.mark.parametrize("kind", VARIANTS)
@pytest.mark.parametrize("name", CORPUS_FILES)
def test_updating_each_term_changes_only_its_entry(name: str, kind: str) -> None:
    tf = decode(variant(corpus(name).encode(), kind), name)
    g = parse_glossary(tf, name)
    chosen = g.terms      # every term for two variants; first, middle and last for the others
    if kind not in ("lf", "bom-crlf") and len(chosen) > 3:
        chosen = [chosen[0], chosen[len(chosen) // 2], chosen[-1]]
    for t in chosen:
        out = set_term(tf, g, t.name, "Rewritten in one line.", None)
        old, new = tf.lines, out.lines
        grown = len(new) - len(old)
        assert new[:t.start_line] == old[:t.start_line], t.name
        assert new[t.end_line + grown:] == old[t.end_line:] or (
            "nofinal" in kind and t.end_line == len(old)), t.name
        if "nofinal" in kind and t.end_line == len(old):
            assert not out.text.endswith("\n")
        assert out.bom == tf.bom and out.newline == tf.newline
        back = term(parse_glossary(out, name), t.name)
        assert (back.names, back.definition, back.avoid) == (
            t.names, "Rewritten in one line.", t.avoid)


def test_update_keeps_the_entry_shape() -> None:
    cases = [
        ("ericdahl-dev__git-green__CONTEXT.md", "repo", ["project"],
         ["**Repo**: New text.", "_Avoid_: project"]),
        ("0gnilc__auth__apps_server_CONTEXT.md", "Permission Checking", None,
         ["**Permission Checking**: New text. _Avoid_: Authorization check"]),
        ("0human__agent-space__CONTEXT.md", "phase", None,
         ["**Phase**：", "New text.", "_Avoid_：Stage、milestone"]),
        ("nnasterw__WaiTrade2__docs_CONTEXT.md", "WFYS", [],
         ["**WFYS (Win-First-Your-Self):**", "New text."]),
        ("AlexRockShouts__lokalsicht__backend_internal_domain_notification_CONTEXT.md",
         "Notification", ["Alert"],
         ["**Benachrichtigung** (Notification):", "New text.", "_Avoid_: Alert"]),
        ("AtlasDevHQ__atlas__docs_contexts_notebooks_CONTEXT.md", "Report", ["memo"],
         ["- **Report**:", "  New text.", "  _Avoid_: memo."]),
        ("BowTiedDevil__degenbot__src_degenbot_chainlink_CONTEXT.md", "aggregator", None,
         ["| **Aggregator** | New text. | Price source |"]),
        ("BowTiedDevil__degenbot__src_degenbot_connection_CONTEXT.md", "ProviderBackend", ["x"],
         ["**ProviderBackend**, **AsyncProviderBackend**, **SyncSubscriptionSupport**, "
          "**AsyncSubscriptionSupport**:", "New text.", "_Avoid_: x"]),
        ("Bruno0M__agents-for-commerce__apps_web_CONTEXT.md", "Modo fixture", None,
         ["**Modo fixture** — New text."]),
        ("enmaku__portfolio-site__src_features_dungeon-runner_CONTEXT.md", "Seed", ["rng"],
         ["### Seed", "", "New text.", "", "_Avoid_: rng."]),
    ]
    for name, key, avoid, expected in cases:
        tf = corpus(name)
        g = parse_glossary(tf, name)
        t = term(g, key)
        out = set_term(tf, g, key, "New text.", avoid)
        p, removed, added = split_change([content(x) for x in tf.lines],
                                         [content(x) for x in out.lines])
        assert p >= t.start_line
        new_entry = [content(x) for x in out.lines][t.start_line:t.start_line + len(expected)]
        assert new_entry == expected, name
        assert removed or added


def test_real_file_round_trip_in_tmp_path(tmp_path: Path) -> None:
    src = CORPUS / "mattpocock__skills__CONTEXT.md"
    if not src.is_file():
        pytest.skip("corpus not available")
    path = tmp_path / "CONTEXT.md"
    original = b"\xef\xbb\xbf" + src.read_bytes().replace(b"\n", b"\r\n")
    path.write_bytes(original)
    tf = decode(path.read_bytes(), str(path))
    path.write_bytes(set_term(tf, None, "Skill", "A folder of instructions an agent loads.",
                              ["plugin"]).encode())
    data = path.read_bytes()
    assert data.startswith(original[:original.index(b"## Relationships")].rstrip(b"\r\n"))
    assert b"\r\n\r\n**Skill**:\r\nA folder of instructions an agent loads.\r\n" \
           b"_Avoid_: plugin\r\n\r\n## Relationships\r\n" in data
    assert data.endswith(original[original.index(b"## Relationships"):])


# --------------------------------------------------------------------------- shapes

def test_canonical_entries() -> None:
    g = parse("# Ordering\n\nOrders placed by customers.\n\n## Language\n\n**Order**:\n"
              "A customer's request to buy.\n_Avoid_: purchase, basket\n\n**Fulfilment**:\n"
              "Everything after payment.\n_Avoid_: shipping\n")
    assert g.title == "Ordering" and g.description == "Orders placed by customers."
    assert [(t.name, t.definition, t.avoid, t.start_line, t.end_line, t.line, t.col, t.group)
            for t in g.terms] == [
        ("Order", "A customer's request to buy.", ["purchase", "basket"], 6, 9, 7, 3, "Language"),
        ("Fulfilment", "Everything after payment.", ["shipping"], 10, 13, 11, 3, "Language")]
    assert g.diagnostics == []


@pytest.mark.parametrize("text, name, definition, avoid", [
    ("## Language\n\n**Order:**\nA request.\n_Avoid_: buy\n", "Order", "A request.", ["buy"]),
    ("## Language\n\n**Order**：A request.\n_Avoid_：buy、purchase\n", "Order", "A request.",
     ["buy", "purchase"]),
    ("## Language\n\n**Order**: A request. _Avoid_: buy\n", "Order", "A request.", ["buy"]),
    ("## Language\n\n**Order**:\nA request.\n_Avoid_:\n- buy\n- purchase\n\n**B**:\nb\n",
     "Order", "A request.", ["buy", "purchase"]),
    ("## Language\n\n**Order**:\nA request.\n_Avoid_: buy, purchase.\n", "Order", "A request.",
     ["buy", "purchase"]),
    ("## Termos\n\n**Order** — A request\nwrapped here.\n", "Order", "A request wrapped here.",
     []),
    ("## Language\n\n- **Order**:\n  A request.\n  _Avoid_: buy\n", "Order", "A request.",
     ["buy"]),
    ("## Language\n\n### Order\n\nA request.\n\n_Avoid_: buy\n", "Order", "A request.",
     ["buy"]),
    ("# Language\n\n**Order**:\nA request.\n", "Order", "A request.", []),
    ("## Language\n\n**Bestellung** (Order):\nA request.\n", "Bestellung", "A request.", []),
    ("## Language\n\n**Order**:\nFirst paragraph.\n\nSecond paragraph.\n_Avoid_: buy\n",
     "Order", "First paragraph.\n\nSecond paragraph.", ["buy"]),
    ("| Term | Definition | Aliases to avoid |\n|---|---|---|\n| **Order** | A request \\| "
     "ask | buy, purchase |\n", "Order", "A request | ask", ["buy", "purchase"]),
    ("## Language\n\n**Order**:\n\n> A quoted\n> request.\n", "Order",
     "> A quoted\n> request.", []),
])
def test_entry_variants(text: str, name: str, definition: str, avoid: list[str]) -> None:
    g = parse(text)
    assert [(t.name, t.definition, t.avoid) for t in g.terms][:1] == [(name, definition, avoid)]
    assert [d for d in g.diagnostics if d.is_error] == []


def test_term_without_colon_is_read_with_a_warning() -> None:
    g = parse("## Language\n\n**Order**\nA request.\n_Avoid_: buy\n")
    assert [(t.name, t.definition, t.avoid) for t in g.terms] == [("Order", "A request.",
                                                                     ["buy"])]
    assert [(d.code, d.line, d.col, d.severity) for d in g.diagnostics] == [
        ("TERM_NO_COLON", 3, 3, "warning")]


def test_groups_under_extra_headings() -> None:
    g = parse("# Shop\n\n## Language\n\n### People\n\n**User**:\nA person.\n\n### Work\n\n"
              "**Issue**:\nWork.\n\n## Language — chat\n\n**Message**:\nA post.\n")
    assert [(t.name, t.group) for t in g.terms] == [
        ("User", "People"), ("Issue", "Work"), ("Message", "Language — chat")]


def test_what_is_not_an_entry() -> None:
    text = ("# Shop\n\n## Language\n\n**Order**:\nA request.\n\n"
            "Some prose with **Bold**: inside it.\n\n"
            "**This whole line is a bold sentence.** More words.\n\n"
            "**A bold sentence with far too many words to be a term**: nope\n\n"
            "```\n**Code**: not a term\n```\n\n"
            "<!--\n**Hidden**: not a term\n-->\n\n"
            "Text <!-- an inline comment\n**Hidden2**: not a term -->\n\n"
            "> **Quoted**: not a term\n\n"
            "## Relationships\n\n- **Order**: has many lines\n\n**Rel**: no\n\n"
            "## Example dialogue\n\n**Dev:** \"hello\"\n\n"
            "## Flagged ambiguities\n\n**Amb**: no\n\n"
            "## Decisions\n\n**Decision one.** We chose X.\n\n"
            "## Install\n\n- **Homebrew**: `brew install x`\n")
    g = parse(text)
    assert names(g) == ["Order"]
    assert check_glossary(g) == []


def test_top_area_holds_terms_only_without_a_glossary_section() -> None:
    assert names(parse("# Ctx\n\n**A**:\nDef.\n\n## Relationships\n\n- x\n")) == ["A"]
    assert names(parse("# Ctx\n\n**Status:** draft\n\n## Language\n\n**A**:\nDef.\n")) == ["A"]


def test_neutral_sections_need_an_entry_first_or_an_avoid_line() -> None:
    g = parse("# Ctx\n\n## People\n\n**User**: A person.\n\n**Admin**: A boss.\n\n"
              "## Overview\n\nProse first.\n\n**Note**: not a term.\n\n"
              "## Stoplight\n\nThe health light.\n\n_Avoid_: lamp\n\n"
              "## CLI\n\n- **run**: runs it\n")
    assert [(t.name, t.shape.kind, t.avoid) for t in g.terms] == [
        ("User", "paragraph", []), ("Admin", "paragraph", []),
        ("Stoplight", "heading", ["lamp"])]


def test_prose_labels_outside_a_glossary_are_not_terms() -> None:
    g = parse("# Research: Language filtering\n\n## Python language detection libraries\n\n"
              "**Sources:**\n- a\n\n**Integration Point:** between crawl and chunk\n\n"
              "**Phase 1: Setup**\nDo things.\n\n## Verification Contract\n\n"
              "**Project type**: fullstack\n\n**Entry points**:\n- `POST /x`\n\n"
              "**Signals**:\n- PASS\n\n## Chosen approach\n\n**(A) Docker setup** — Build "
              "it.\n\n**1. Config** — Read it.\n\n**Phase 1: Setup** — Do it.\n\n"
              "## Glossary\n\n**Label:** a glossary may use it\n")
    assert [(t.name, t.group) for t in g.terms] == [("Label", "Glossary")]
    assert g.diagnostics == []


def test_glossary_subheading_with_entry_first_is_a_group_else_a_term() -> None:
    g = parse("## Language\n\n### Billing\n\n**Invoice**:\nA bill.\n\n### Ledger\n\n"
              "A book of accounts.\n\n**Ledger line:** one row.\n\n_Avoid_: journal\n")
    assert [(t.name, t.group, t.avoid) for t in g.terms] == [
        ("Invoice", "Billing", []), ("Ledger", "Language", ["journal"])]
    assert "**Ledger line:** one row." in g.terms[1].definition


def test_odd_shapes_give_warnings_not_errors() -> None:
    g = parse("## Language\n\n**A**:\n_Avoid_: \n\n**B**:\nb\n_Avoid_: x\n_Avoid_: y\n\n"
              "## Glossary\n\nNothing yet.\n\n```\nunclosed")
    found = sorted((d.code, d.line) for d in g.diagnostics)
    assert found == [("AVOID_EMPTY", 4), ("AVOID_REPEATED", 9), ("EMPTY_DEFINITION", 3),
                     ("EMPTY_GLOSSARY_SECTION", 11), ("UNCLOSED_FENCE", 15)]
    assert all(not d.is_error for d in g.diagnostics)


# --------------------------------------------------------------------------- checks

def test_duplicate_term_error_points_at_the_second_entry() -> None:
    g = parse("## Language\n\n**Order**:\nA.\n\n**Item**:\nB.\n\n**order**:\nC.\n")
    errors = check_glossary(g)
    assert [(d.code, d.line, d.col, d.severity) for d in errors] == [
        ("DUPLICATE_TERM", 9, 3, "error")]
    assert errors[0].message == ('"order" is already defined at line 3: merge the two entries '
                                 "into one, or rename one of them")


def test_duplicate_within_one_multi_name_entry() -> None:
    g = parse("**A**, **a**:\nDef.\n")
    assert [(d.code, d.line) for d in check_glossary(g)] == [("DUPLICATE_TERM", 1)]
    assert "earlier in this entry" in check_glossary(g)[0].message


def test_avoid_is_term_points_at_the_avoid_line() -> None:
    g = parse("## Language\n\n**Order**:\nA request.\n_Avoid_: purchase, “Basket”\n\n"
              "**Basket**:\nA cart.\n\n**Job**:\nWork.\n_Avoid_: step (a Step is smaller)\n\n"
              "**Step**:\nA part.\n")
    errors = check_glossary(g)
    assert [(d.code, d.line) for d in errors] == [("AVOID_IS_TERM", 5)]
    assert errors[0].severity == "warning"
    assert errors[0].message.startswith('"“Basket”" is listed under _Avoid_ for "Order" (line '
                                        "5) but is itself a term (line 7)")


def test_map_corpus_files() -> None:
    m = parse_context_map(corpus("enmaku__portfolio-site__CONTEXT-MAP.md"), "CONTEXT-MAP.md")
    assert [(c.name, c.path, c.line, c.col) for c in m.contexts][:2] == [
        ("Portfolio site", "./CONTEXT.md", 5, 4),
        ("Star-room P2P", "./src/features/p2p/CONTEXT.md", 6, 4)]
    assert len(m.contexts) == 8
    world = m.contexts[-1]       # one item with 16 links: the first one is the context
    assert (world.name, world.path) == ("World Builder", "./world-builder/CONTEXT.md")
    assert world.summary.startswith("Desktop procedural **worlds**")
    assert m.diagnostics == [] and check_context_map(m) == []

    m = parse_context_map(corpus("BowTiedDevil__degenbot__CONTEXT-MAP.md"), "CONTEXT-MAP.md")
    assert len(m.contexts) == 14 and m.contexts[0].name == "Pool Types & Trackers"
    assert [(d.code, d.line, d.severity) for d in check_context_map(m)] == [
        ("MAP_PATH_NOT_CONTEXT", 29, "warning")]


def test_map_checks() -> None:
    text = ("# Context Map\n\nIntro [not](a.md).\n\n## Contexts\n\n"
            "- [Ordering](src/ordering/CONTEXT.md): orders\n"
            "  - [Nested](x/CONTEXT.md): ignored\n"
            "- [Abs](/etc/CONTEXT.md): absolute\n"
            "- [Up](../other/CONTEXT.md): escapes\n"
            "- [Sneaky](a/../../CONTEXT.md): escapes too\n"
            "- [Fine](./a/../b/CONTEXT.md): stays inside\n"
            "- [Web](https://example.com/CONTEXT.md): a URL\n"
            "- [Win](C:\\repo\\CONTEXT.md): a drive\n"
            "- [ordering](src/other/CONTEXT.md): duplicate name\n"
            "- [Empty](): no path\n"
            "- plain item without a link\n\n"
            "## Relationships\n\n- [NotAContext](y/CONTEXT.md)\n")
    m = parse_context_map(TextFile(text), "CONTEXT-MAP.md")
    assert [c.name for c in m.contexts] == ["Ordering", "Abs", "Up", "Sneaky", "Fine", "Web",
                                            "Win", "ordering", "Empty"]
    assert [(d.code, d.line) for d in m.diagnostics] == [("MAP_ITEM_NO_LINK", 17)]
    found = [(d.code, d.line) for d in check_context_map(m)]
    assert found == [("MAP_PATH_ESCAPES", 9), ("MAP_PATH_ESCAPES", 10),
                     ("MAP_PATH_ESCAPES", 11), ("MAP_PATH_ESCAPES", 13),
                     ("MAP_PATH_ESCAPES", 14), ("DUPLICATE_CONTEXT", 15), ("MAP_PATH_EMPTY", 16)]
    escape = next(d for d in check_context_map(m) if d.line == 10)
    assert escape.message == ("context \"Up\" points at '../other/CONTEXT.md', outside the "
                              "repository: use a relative path to a CONTEXT.md inside it")
    # a map one folder below the root may go up one level
    assert "MAP_PATH_ESCAPES" not in [d.code for d in check_context_map(m, base_depth=1)
                                      if d.line == 10]


def test_map_without_contexts_section_warns() -> None:
    m = parse_context_map(TextFile("# Map\n\n- [A](a/CONTEXT.md)\n"), "M.md")
    assert m.contexts == [] and codes(m.diagnostics) == ["MAP_NO_CONTEXTS"]


# --------------------------------------------------------------------------- writer

def test_new_glossary_renders_the_canonical_file() -> None:
    text = new_glossary("Ordering", "Order", "A customer's request\nto buy.",
                        ["purchase", "basket"])
    assert text == ("# Ordering\n\n## Language\n\n**Order**:\nA customer's request to buy.\n"
                    "_Avoid_: purchase, basket\n")
    assert new_glossary("Ordering", "Order", "Def.", newline="\r\n") == (
        "# Ordering\r\n\r\n## Language\r\n\r\n**Order**:\r\nDef.\r\n")


def test_insert_creates_a_language_section_when_there_is_none() -> None:
    tf = TextFile("# Ordering\n\nJust prose.")
    out = set_term(tf, parse_glossary(tf, "C.md"), "Order", "A request.", [])
    assert out.text == "# Ordering\n\nJust prose.\n\n## Language\n\n**Order**:\nA request."
    empty = TextFile("")
    assert set_term(empty, None, "Order", "A request.", ["buy"]).text == (
        "## Language\n\n**Order**:\nA request.\n_Avoid_: buy\n")


def test_insert_into_an_empty_language_section() -> None:
    tf = TextFile("# X\n\n## Language\n\n## Relationships\n\n- a\n")
    out = set_term(tf, None, "Order", "A request.", None)
    assert out.text == ("# X\n\n## Language\n\n**Order**:\nA request.\n\n## Relationships\n\n"
                        "- a\n")


def test_insert_follows_the_last_glossary_entry_and_its_style() -> None:
    tf = TextFile("# X\n\n## Language\n\n- **A**: a\n- **B**: b\n\n## Stoplight\n\nLight.\n\n"
                  "_Avoid_: lamp\n")
    out = set_term(tf, None, "C", "c.", ["see"])
    assert out.text == ("# X\n\n## Language\n\n- **A**: a\n- **B**: b\n- **C**: c.\n"
                        "  _Avoid_: see\n\n## Stoplight\n\nLight.\n\n_Avoid_: lamp\n")


def test_insert_falls_back_to_a_new_language_section() -> None:
    # the only terms are `## Term` sections known by their _Avoid_ line; a new one without
    # avoided words would not read back as a term in that shape
    tf = TextFile("# X\n\n## Stoplight\n\nLight.\n\n_Avoid_: lamp\n")
    assert set_term(tf, None, "Zeta", "A thing.", []).text == (
        "# X\n\n## Stoplight\n\nLight.\n\n_Avoid_: lamp\n\n## Language\n\n**Zeta**:\n"
        "A thing.\n")
    assert set_term(tf, None, "Zeta", "A thing.", ["z"]).text == (
        "# X\n\n## Stoplight\n\nLight.\n\n_Avoid_: lamp\n\n## Zeta\n\nA thing.\n\n"
        "_Avoid_: z\n")


def test_table_rows_with_gloss_and_multiple_names() -> None:
    g = parse("| Term | Definition |\n|---|---|\n| **Auftrag** (Order) | A request |\n"
              "| **A**, **B** | Both |\n| plain | Not bold |\n|  | no term |\n")
    assert [(t.names, t.gloss, t.definition) for t in g.terms] == [
        (["Auftrag"], "Order", "A request"), (["A", "B"], None, "Both"),
        (["plain"], None, "Not bold")]
    assert [(d.code, d.line) for d in g.diagnostics] == [("TABLE_ROW_NO_TERM", 6)]


def test_update_with_avoid_none_keeps_and_empty_list_removes() -> None:
    tf = TextFile("## Language\n\n**Order**:\nOld.\n_Avoid_: buy\n\n**B**:\nb\n")
    assert set_term(tf, None, "order", "New.", None).text == (
        "## Language\n\n**Order**:\nNew.\n_Avoid_: buy\n\n**B**:\nb\n")
    assert set_term(tf, None, "Order", "New.", []).text == (
        "## Language\n\n**Order**:\nNew.\n\n**B**:\nb\n")


@pytest.mark.parametrize("name, definition, avoid, fragment", [
    ("Two\nlines", "Def.", [], "line break"),
    ("Bold*star", "Def.", [], "'*'"),
    ("Bell\x07", "Def.", [], "control character"),
    ("", "Def.", [], "empty"),
    ("Order:", "Def.", [], "colon"),
    ("This is a whole sentence.", "Def.", [], "sentence"),
    ("Phase 1: Setup", "Def.", [], "sentence"),
    ("Order", "Has a \x00 NUL.", [], "control character"),
    ("Order", "   \n  ", [], "empty"),
    ("Order", "Def.", ["two\nlines"], "line break"),
    ("Order", "Def.", ["a*b"], "'*'"),
    ("Order", "Def.", ["buy, purchase"], "would not read back"),
    ("Order", "Def.", ["etc."], "would not read back"),
    ("Order", "_Avoid_: x", [], "cannot be written"),
    ("Order", "## Heading", [], "cannot be written"),
])
def test_writer_refuses_invalid_input(name: str, definition: str, avoid: list[str],
                                      fragment: str) -> None:
    tf = TextFile("## Language\n\n**Item**:\nA thing.\n")
    with pytest.raises(InputError) as info:
        set_term(tf, None, name, definition, avoid)
    assert info.value.code == "INVALID_TERM"
    assert fragment in info.value.message
    assert info.value.exit_code == 2


def test_definition_newlines_are_joined() -> None:
    out = set_term(TextFile("## Language\n"), None, "Order", "One\r\ntwo\n  three.\u2028four",
                   [])
    assert out.text == "## Language\n\n**Order**:\nOne two three. four\n"


def test_writer_refuses_new_avoid_conflicts_but_not_old_ones() -> None:
    tf = TextFile("## Language\n\n**Order**:\nA.\n_Avoid_: purchase, Item\n\n**Item**:\nB.\n")
    with pytest.raises(InputError) as info:
        set_term(tf, None, "Purchase", "Buying.", [])
    assert info.value.code == "AVOID_IS_TERM" and info.value.line == 5
    with pytest.raises(InputError) as info:
        set_term(tf, None, "Item", "B2.", ["order"])
    assert info.value.code == "AVOID_IS_TERM"
    with pytest.raises(InputError):
        set_term(tf, None, "Thing", "T.", ["thing"])
    # Order already avoids the term Item: updating Order keeps that, it does not refuse
    out = set_term(tf, None, "Order", "A2.", None)
    assert "**Order**:\nA2.\n_Avoid_: purchase, Item\n" in out.text


def test_writer_refuses_to_pick_between_duplicates() -> None:
    tf = TextFile("**A**:\nx\n\n**a**:\ny\n")
    with pytest.raises(InputError) as info:
        set_term(tf, None, "A", "z", None)
    assert (info.value.code, info.value.line) == ("DUPLICATE_TERM", 4)


def test_table_without_avoid_column_refuses_avoid_words() -> None:
    tf = TextFile("| Term | Definition |\n|---|---|\n| **A** | a |\n")
    assert set_term(tf, None, "A", "b", None).text == "| Term | Definition |\n|---|---|\n" \
                                                      "| **A** | b |\n"
    with pytest.raises(InputError) as info:
        set_term(tf, None, "A", "b", ["c"])
    assert "no column for words to avoid" in info.value.message


# --------------------------------------------------------------------------- properties

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzéßABCDEFGHXYZ中文", min_size=1, max_size=8)
NAME = st.lists(WORD, min_size=1, max_size=3).map(" ".join)
SENTENCE = st.tuples(WORD, st.text(alphabet="abcdefg xyz,;:()'\"-/éü中。`", max_size=40)).map(
    lambda p: (p[0] + " " + p[1]).strip() + ".")


@st.composite
def glossaries(draw: st.DrawFn) -> list[tuple[str, str, list[str]]]:
    names_ = draw(st.lists(NAME, min_size=1, max_size=6, unique_by=lambda n: n.casefold()))
    folded = {n.casefold() for n in names_}
    entries = []
    for n in names_:
        avoid = draw(st.lists(NAME.filter(lambda w: w.casefold() not in folded), max_size=3,
                              unique_by=lambda w: w.casefold()))
        entries.append((n, draw(SENTENCE), avoid))
    return entries


@settings(max_examples=150, deadline=None)
@given(glossaries(), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_written_glossaries_read_back(entries: list[tuple[str, str, list[str]]],
                                      newline: str, bom: bool) -> None:
    first, *rest = entries
    tf = TextFile(new_glossary("Ctx", *first, newline=newline), bom=bom)
    for entry in rest:
        tf = set_term(tf, None, *entry)
    g = parse_glossary(tf, "C.md")
    assert [(t.name, t.definition, t.avoid) for t in g.terms] == entries
    assert [d for d in g.diagnostics + check_glossary(g) if d.is_error] == []
    assert decode(tf.encode()).text == tf.text
    # then rewrite one entry: only its lines change
    target = g.terms[len(g.terms) // 2]
    out = set_term(tf, g, target.name, "Changed.", ["zz top"])
    assert out.lines[:target.start_line] == tf.lines[:target.start_line]
    grown = len(out.lines) - len(tf.lines)
    assert out.lines[target.end_line + grown:] == tf.lines[target.end_line:]
    assert [(t.name, t.definition, t.avoid) for t in parse_glossary(out, "C.md").terms] == [
        (n, "Changed.", ["zz top"]) if n == target.name else (n, d, a) for n, d, a in entries]


MARKDOWNISH = st.lists(st.one_of(
    st.sampled_from(["", "# T", "## Language", "### G", "## Relationships", "**A**:", "**A**",
                     "**A:**", "**A**, **B**:", "- **A**: x", "  _Avoid_: y", "_Avoid_:",
                     "_Avoid_: a, b.", "- a", "| Term | Definition |", "|---|---|", "| **A** | d |",
                     "```", "~~~", "<!--", "-->", "> **Q**: x", "**A** (g): d", "**A** — d",
                     "1. **N**: n", "## Contexts", "- [A](../x/CONTEXT.md): s", "\t**T**:",
                     "**A**：定义", "_Avoid_：甲、乙。"]),
    st.text(max_size=30)), max_size=25).map("\n".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(MARKDOWNISH, st.text()))
def test_parsing_anything_never_raises(text: str) -> None:
    g = parse_glossary(TextFile(text), "C.md")
    check_glossary(g)
    for t in g.terms:
        assert 0 <= t.start_line < t.end_line <= len(TextFile(text).lines)
        assert t.line >= 1 and t.col >= 1
    m = parse_context_map(TextFile(text), "M.md")
    check_context_map(m)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MARKDOWNISH, st.one_of(NAME, st.text(max_size=12)), st.text(max_size=30),
       st.lists(st.text(max_size=8), max_size=3))
def test_writing_into_anything_raises_only_our_errors(text: str, name: str, definition: str,
                                                      avoid: list[str]) -> None:
    tf = TextFile(text)
    before = parse_glossary(tf, "C.md")
    try:
        out = set_term(tf, before, name, definition, avoid)
    except MdgrillError as exc:
        assert exc.code in ("INVALID_TERM", "AVOID_IS_TERM", "DUPLICATE_TERM")
        return
    after = parse_glossary(out, "C.md")
    def fold(x: str) -> str:
        return " ".join(x.split()).casefold()

    found = [t for t in after.terms if fold(name) in (fold(n) for n in t.names)]
    assert len(found) == 1 or before.find(name)


# --------------------------------------------------------------------------- import cost

def test_import_is_cheap() -> None:
    code = ("import sys; before = set(sys.modules); import mdgrill.formats.glossary; "
            "print(' '.join(sorted(set(sys.modules) - before)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert [m for m in out if not m.startswith("mdgrill")] == []
    # the glossary reads headings and fences by the same rules as `.progress.md` (issue 15)
    assert "mdgrill.formats.markdown" in out
