"""The checks behind `mdgrill validate`: each diagnostic's code, line and message."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mdgrill.checks.prompt import CHECKLIST_ROWS, validate_prompt_bytes
from mdgrill.checks.spec import validate_glossary_bytes, validate_progress_bytes
from mdgrill.diagnostics import Diagnostic
from mdgrill.formats.progress import log_digest

GOAL = "Let customers sign in with a one-time email link."
HEX = "ab" * 32


def interview(status: str = "collecting", asked: str = "[D1]", pending: str = "[D1]",
              approach: str = "null", confirmation: str = "null", bypass: str = "null",
              assumptions: str = "[]") -> str:
    return (f"interview:\n  id: req-1\n  phase: requirements\n  round: 1\n  status: {status}\n"
            f"  context_digest: {HEX}\n  context: []\n  asked: {asked}\n  pending: {pending}\n"
            f"  approach: {approach}\n  confirmation: {confirmation}\n"
            f"  bypass_reason: {bypass}\n  assumptions: {assumptions}\n")


# Structure checks read each block of an unsealed log (written by hand, or without `log:`);
# a sealed log is as mdgrill wrote it, so only its headings are checked again.
def progress(tree: str = "", log: str = "", *, iv: str | None = None, required: str = "[]",
             goal_section: str | None = GOAL, digest: bool = True, extra: str = "") -> str:
    """A `.progress.md` whose recorded log digest matches `log`."""
    front = f"---\nmdgrill: 1\nspec: login\ngoal: {GOAL}\nphase: requirements\n" \
            f"mode: interactive\nrequired_sections: {required}\n"
    front += iv if iv is not None else "interview: null\n"
    front += "skills: []\n" + extra
    if digest:
        front += f"log:\n  blocks: 1\n  sha256: {log_digest(log)}\n"
    body = "---\n# Login\n\n"
    if goal_section is not None:
        body += f"## Goal\n\n{goal_section}\n\n"
    body += f"## Design Tree\n\n{tree}\n## Interview Responses\n{log}"
    return front + body


def check(tmp_path: Path, text: str | bytes, name: str = ".progress.md") -> list[Diagnostic]:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return validate_progress_bytes(path.read_bytes(), str(path))


def codes(diags: list[Diagnostic]) -> list[tuple[str, str, int]]:
    return [(d.severity, d.code, d.line) for d in diags]


def line_of(text: str, needle: str) -> int:
    return text.split("\n").index(needle) + 1


ROUND1 = ("\n### Requirements Grill - Round 1\n- Asked: D1\n- Decisions: D1 -> Customers\n"
          "- Facts resolved: none\n- Out of scope: none\n- Domain language: none\n"
          "- Frontier after round: none\n")
NODE1 = ("### D1: Who signs in?\n- Section: users\n- Depends on: none\n- Options:\n"
         "  - Customers (Recommended): public site\n  - Staff: SSO\n")


# ---------------------------------------------------------------------------------------
# valid files


def test_a_valid_file_has_no_diagnostics(tmp_path: Path) -> None:
    assert check(tmp_path, progress(NODE1, ROUND1, required="[users]")) == []


def test_a_decision_without_a_node_is_fine(tmp_path: Path) -> None:
    log = ROUND1.replace("D1 -> Customers", "Q9 -> Customers")
    assert check(tmp_path, progress(NODE1, log)) == []


def test_the_open_last_round_need_not_be_closed(tmp_path: Path) -> None:
    log = ROUND1 + "\n### Requirements Grill - Round 2\n- Asked: D2\n"
    assert check(tmp_path, progress("", log)) == []


# ---------------------------------------------------------------------------------------
# unreadable input


def test_malformed_yaml_points_at_its_line_and_column(tmp_path: Path) -> None:
    diags = check(tmp_path, "---\nmdgrill: 1\ngoal: [unclosed\nphase: start\n---\n# X\n")
    assert len(diags) == 1
    d = diags[0]
    assert (d.severity, d.code, d.line, d.col) == ("error", "MALFORMED_FILE", 4, 6)
    assert d.message.startswith("the front matter is not valid YAML")
    assert "did not find expected ',' or ']'" in d.message


def test_a_duplicate_front_matter_key_is_an_error_at_its_line(tmp_path: Path) -> None:
    diags = check(tmp_path, "---\nmdgrill: 1\ngoal: x\ngoal: y\n---\n")
    assert codes(diags) == [("error", "MALFORMED_FILE", 4)]
    assert "the key `goal` appears twice" in diags[0].message


def test_an_unclosed_front_matter_is_an_error(tmp_path: Path) -> None:
    diags = check(tmp_path, "---\nmdgrill: 1\n# X\n")
    assert codes(diags) == [("error", "MALFORMED_FILE", 1)]
    assert "never closed" in diags[0].message


def test_an_empty_file(tmp_path: Path) -> None:
    diags = check(tmp_path, b"")
    assert codes(diags) == [("error", "EMPTY_FILE", 1)]
    assert "the file is empty" in diags[0].message


def test_binary_bytes(tmp_path: Path) -> None:
    diags = check(tmp_path, b"---\nmdgrill: 1\n\x00\x01\x02")
    assert codes(diags) == [("error", "MALFORMED_FILE", 3)]
    assert "NUL byte at line 3" in diags[0].message


def test_non_utf8_bytes_point_at_line_and_column(tmp_path: Path) -> None:
    diags = check(tmp_path, b"---\nmdgrill: 1\ngoal: caf\xe9\n---\n")
    d = diags[0]
    assert (d.code, d.line, d.col) == ("MALFORMED_FILE", 3, 10)
    assert d.message == "not valid UTF-8 (byte 0xe9): save the file as UTF-8"


def test_no_front_matter(tmp_path: Path) -> None:
    diags = check(tmp_path, "# Spec\n\n## Interview Responses\n")
    assert codes(diags) == [("error", "NO_FRONT_MATTER", 1)]
    assert "mdgrill import-ralph" in diags[0].message


def test_front_matter_of_another_tool(tmp_path: Path) -> None:
    diags = check(tmp_path, "---\ntitle: x\n---\n# Spec\n")
    assert codes(diags) == [("error", "NOT_MDGRILL", 1)]


# ---------------------------------------------------------------------------------------
# front matter and sections


def test_record_invariants_point_at_their_key(tmp_path: Path) -> None:
    text = progress(iv=interview(approach="Links"))
    diags = check(tmp_path, text)
    assert codes(diags) == [("error", "INVALID_STATE", line_of(text, "interview:"))]
    assert diags[0].message.startswith("a collecting interview has no approach")


def test_pending_not_asked_and_a_bad_phase(tmp_path: Path) -> None:
    text = progress(iv=interview(asked="[D1]", pending="[D2]")).replace(
        "phase: requirements\nmode", "phase: testing\nmode")
    diags = check(tmp_path, text)
    assert codes(diags) == [("error", "INVALID_PHASE", 5),
                            ("error", "INVALID_STATE", line_of(text, "interview:"))]
    assert "pending IDs D2 were never asked" in diags[1].message


def test_an_edited_round_is_round_edited(tmp_path: Path) -> None:
    text = progress(NODE1, ROUND1).replace("D1 -> Customers", "D1 -> Staff")
    diags = check(tmp_path, text)
    assert codes(diags) == [("error", "ROUND_EDITED", line_of(text, "## Interview Responses"))]
    assert "was edited or removed" in diags[0].message


def test_duplicated_section(tmp_path: Path) -> None:
    text = progress(NODE1, ROUND1) + "\n## Design Tree\n\n### D9: Late\n"
    diags = check(tmp_path, text)
    assert ("error", "DUPLICATE_SECTION", text.count("\n", 0, text.rindex("## Design Tree")) + 1) \
        in codes(diags)
    d = next(d for d in diags if d.code == "DUPLICATE_SECTION")
    assert f"(first at line {line_of(text, '## Design Tree')})" in d.message


def test_missing_goal_section_and_mismatching_goal(tmp_path: Path) -> None:
    diags = check(tmp_path, progress(goal_section=None))
    assert [(d.code, d.severity) for d in diags] == [("MISSING_GOAL", "warning")]
    text = progress(goal_section="Let staff sign in.")
    diags = check(tmp_path, text)
    assert codes(diags) == [("warning", "GOAL_MISMATCH", line_of(text, "## Goal"))]
    assert "(line 4)" in diags[0].message


def test_goal_wrapped_over_lines_still_matches(tmp_path: Path) -> None:
    assert check(tmp_path, progress(goal_section=GOAL.replace(" one-time", "\none-time"))) == []


def test_missing_log_section_is_a_warning(tmp_path: Path) -> None:
    text = progress(digest=False).replace("## Interview Responses\n", "")
    assert codes(check(tmp_path, text)) == [
        ("warning", "MISSING_SECTION", line_of(text, "# Login"))]


# ---------------------------------------------------------------------------------------
# blocks


def test_a_round_must_open_with_asked(tmp_path: Path) -> None:
    log = "\n### Requirements Grill - Round 1\n- Decisions: D1 -> x\n- Asked: D1\n"
    text = progress("", log, digest=False)
    diags = check(tmp_path, text)
    assert codes(diags) == [("error", "ROUND_STRUCTURE", line_of(text, "- Decisions: D1 -> x"))]
    assert "must open with its `- Asked:` line" in diags[0].message


def test_a_smart_ralph_round_without_asked_is_a_warning(tmp_path: Path) -> None:
    log = ("\n### Goal Grill - Round 1\n- Facts resolved: none\n- Decisions: Scope -> small\n"
           "- Reproduction command: make test\n- Frontier after round: empty\n"
           "\n### Goal Grill - Confirmed\n- Shared understanding: confirmed\n"
           "- Chosen approach: small -- fast\n")
    text = progress("", log, digest=False)
    assert codes(check(tmp_path, text)) == [
        ("warning", "ROUND_NO_ASKED", line_of(text, "### Goal Grill - Round 1"))]


def test_a_closed_round_needs_all_five_keys(tmp_path: Path) -> None:
    log = ("\n### Requirements Grill - Round 1\n- Asked: D1\n- Decisions: D1 -> x\n"
           "- Frontier after round: none\n")
    text = progress("", log, digest=False)
    diags = check(tmp_path, text)
    assert codes(diags) == [("error", "ROUND_INCOMPLETE",
                             line_of(text, "### Requirements Grill - Round 1"))]
    assert "lacks `Facts resolved:`, `Out of scope:`, `Domain language:`" in diags[0].message


def test_a_round_followed_by_another_is_closed(tmp_path: Path) -> None:
    log = ("\n### Requirements Grill - Round 1\n- Asked: D1\n- Decisions: D1 -> x\n"
           "\n### Requirements Grill - Round 2\n- Asked: D2\n")
    diags = check(tmp_path, progress("", log, digest=False))
    assert [d.code for d in diags] == ["ROUND_INCOMPLETE"]
    assert "`Frontier after round:`" in diags[0].message


def test_a_round_abandoned_by_a_reset_is_fine(tmp_path: Path) -> None:
    log = ("\n### Requirements Grill - Round 1\n- Asked: D1\n"
           "\n### Requirements Grill - Reset\n- Interview: req-1\n- Reason: context changed\n"
           "\n### Requirements Grill - Round 1\n- Asked: D1\n")
    assert check(tmp_path, progress("", log)) == []


def test_unknown_keys_stray_lines_and_unknown_blocks_are_warnings(tmp_path: Path) -> None:
    log = ("\n### Requirements Grill - Round 1\n- Asked: D1\n- Decison: D1 -> x\n"
           "a note in passing\n"
           "\n### Notes from the call\n- whatever\n"
           "\n### Requirements Interview (from requirements.md)\nfree text\n")
    text = progress("", log, digest=False)
    diags = check(tmp_path, text)
    assert codes(diags) == [
        ("warning", "UNKNOWN_BLOCK_KEY", line_of(text, "- Decison: D1 -> x")),
        ("warning", "STRAY_LINE", line_of(text, "a note in passing")),
        ("warning", "UNKNOWN_BLOCK", line_of(text, "### Notes from the call")),
    ]
    assert "(known: Asked, Facts resolved, Decisions" in diags[0].message


def test_an_unknown_key_in_an_amended_block_is_a_warning_not_a_crash(tmp_path: Path) -> None:
    # `_KIND_NAME` once lacked the Amended, Reopened and Imported kinds: `validate` of such a
    # block holding one of its keys and one unknown key ended in an internal KeyError
    log = ROUND1 + "\n### Requirements Grill - Amended\n- Amended: D1 -> Customers only\n" \
        "- Colour: red\n"
    text = progress(NODE1, log, digest=False)
    diags = check(tmp_path, text)
    unknown = [d for d in diags if d.code == "UNKNOWN_BLOCK_KEY"]
    assert [(d.severity, d.line) for d in unknown] == [("warning", line_of(text, "- Colour: red"))]
    assert "is not a key of a Amended block" in unknown[0].message


def test_a_decision_without_an_arrow_is_a_warning(tmp_path: Path) -> None:
    log = "\n### Requirements Grill - Round 1\n- Asked: D1\n- Decisions: customers\n"
    text = progress("", log, digest=False)
    assert codes(check(tmp_path, text)) == [
        ("warning", "DECISION_FORMAT", line_of(text, "- Decisions: customers"))]


def _rounds(*headings: str) -> str:
    out = ""
    for h in headings:
        if "Round" in h:
            out += f"\n### {h}\n- Asked: D1\n- Facts resolved: none\n- Decisions: none\n" \
                   "- Out of scope: none\n- Domain language: none\n- Frontier after round: none\n"
        else:
            out += f"\n### {h}\n- Interview: req-1\n"
    return out


def test_round_numbers_go_one_two_three_per_phase(tmp_path: Path) -> None:
    log = _rounds("Requirements Grill - Round 1", "Design Grill - Round 1",
                  "Requirements Grill - Round 2", "Design Grill - Round 2")
    assert check(tmp_path, progress("", log)) == []


def test_a_duplicated_round_number_is_an_error(tmp_path: Path) -> None:
    log = _rounds("Requirements Grill - Round 1", "Requirements Grill - Round 1")
    text = progress("", log)
    diags = check(tmp_path, text)
    at = text.count("\n", 0, text.rindex("### Requirements Grill - Round 1")) + 1
    assert codes(diags) == [("error", "ROUND_NUMBER", at)]
    assert diags[0].message.startswith("round 1 of requirements appears twice")


def test_a_skipped_round_number_is_an_error(tmp_path: Path) -> None:
    log = _rounds("Requirements Grill - Round 1", "Requirements Grill - Round 3")
    text = progress("", log)
    diags = check(tmp_path, text)
    assert codes(diags) == [("error", "ROUND_NUMBER", line_of(text, "### Requirements Grill - "
                                                                     "Round 3"))]
    assert "round 3 of requirements skips round 1: the next round is 2" in diags[0].message


def test_a_terminal_or_reset_block_starts_a_new_sequence(tmp_path: Path) -> None:
    for word in ("Confirmed", "Skipped", "Bypassed", "Reset"):
        log = _rounds("Requirements Grill - Round 1", "Requirements Grill - Round 2",
                      f"Requirements Grill - {word}", "Requirements Grill - Round 1")
        diags = [d for d in check(tmp_path, progress("", log)) if d.code != "UNKNOWN_BLOCK_KEY"]
        assert diags == [], word


def test_a_sequence_starting_above_one_is_a_warning(tmp_path: Path) -> None:
    text = progress("", _rounds("Requirements Grill - Round 2"))
    diags = check(tmp_path, text)
    assert codes(diags) == [("warning", "ROUND_NUMBER", line_of(text, "### Requirements Grill - "
                                                                       "Round 2"))]


# ---------------------------------------------------------------------------------------
# nodes


def test_option_count(tmp_path: Path) -> None:
    one = "### D1: Q\n- Options:\n  - Only one\n"
    five = "### D2: R\n- Options:\n" + "".join(f"  - O{i}\n" for i in range(5))
    text = progress(one + "\n" + five)
    diags = check(tmp_path, text)
    lines = text.split("\n")
    first, second = (i + 1 for i, line in enumerate(lines) if line == "- Options:")
    assert codes(diags) == [("error", "NODE_OPTIONS", first), ("error", "NODE_OPTIONS", second)]
    assert diags[0].message == "D1 has 1 option(s): a node offers 2 to 4 options"
    assert diags[1].message == "D2 has 5 option(s): a node offers 2 to 4 options"


def test_recommended_option_must_be_single_and_first(tmp_path: Path) -> None:
    tree = ("### D1: Q\n- Options:\n  - A\n  - B (Recommended)\n"
            "\n### D2: R\n- Options:\n  - A (Recommended)\n  - B (Recommended)\n")
    text = progress(tree)
    diags = check(tmp_path, text)
    assert codes(diags) == [("error", "NODE_RECOMMENDED", line_of(text, "  - B (Recommended)")),
                            ("error", "NODE_RECOMMENDED",
                             text.count("\n", 0, text.rindex("  - B (Recommended)")) + 1)]
    assert diags[0].message.startswith("D1's `(Recommended)` option is not listed first")
    assert diags[1].message.startswith("D2 marks 2 options `(Recommended)`")


def test_unknown_node_key_lists_the_known_keys(tmp_path: Path) -> None:
    text = progress("### D1: Q\n- Sectoin: users\n")
    diags = check(tmp_path, text)
    assert codes(diags) == [("warning", "UNKNOWN_NODE_KEY", line_of(text, "- Sectoin: users"))]
    assert diags[0].message == (
        "`Sectoin:` is not a node key (known: Section, Depends on, Spawned by, Evidence, "
        "Investigating, Options, Recommendation, Rationale, Tradeoffs, Consequences, Binds): "
        "check the spelling")


def test_references_to_missing_ids(tmp_path: Path) -> None:
    tree = "### E12: Q\n- Depends on: E1, E99\n- Spawned by: 9x\n\n### E1: P\n"
    text = progress(tree)
    diags = check(tmp_path, text)
    assert codes(diags) == [("error", "MISSING_REFERENCE", line_of(text, "- Depends on: E1, E99")),
                            ("error", "INVALID_REFERENCE", line_of(text, "- Spawned by: 9x"))]
    assert diags[0].message == ("E12 depends on E99, which does not exist: add a node for E99 "
                                "or fix the reference")


def test_duplicate_ids_and_headings_without_an_id(tmp_path: Path) -> None:
    tree = "### D1: Q\n\n### D1: Again\n\n### Some notes\n"
    text = progress(tree)
    diags = check(tmp_path, text)
    assert codes(diags) == [("error", "DUPLICATE_ID", line_of(text, "### D1: Again")),
                            ("warning", "NODE_HEADING", line_of(text, "### Some notes"))]
    assert diags[0].message.startswith(f"D1 is already a node at line {line_of(text, '### D1: Q')}")


def test_a_dependency_loop(tmp_path: Path) -> None:
    tree = "### D1: Q\n- Depends on: D2\n\n### D2: R\n- Depends on: D1\n\n### D3: S\n"
    text = progress(tree)
    diags = check(tmp_path, text)
    assert codes(diags) == [("error", "DEPENDENCY_CYCLE", line_of(text, "### D1: Q"))]
    assert diags[0].message.startswith("D1, D2 depend on each other in a loop")


# ---------------------------------------------------------------------------------------
# the ledger


OPEN_CHILD = NODE1 + "\n### D2: Follow-up\n- Section: users\n- Spawned by: D1\n"


def test_ledger_problems_are_warnings_while_collecting(tmp_path: Path) -> None:
    text = progress(OPEN_CHILD, ROUND1, required="[users, security]",
                    iv=interview(asked="[D1]", pending="[]"))
    diags = check(tmp_path, text)
    assert codes(diags) == [("warning", "REQUIRED_SECTION_UNRESOLVED", 7),
                            ("warning", "OPEN_SUBTHREAD", line_of(text, "### D2: Follow-up"))]
    assert diags[0].message == (
        "required section `security` has no resolved node: the interview is still collecting; "
        "before approval, ask a decision in `security` (a node with `Section: security`)")
    assert diags[1].message.startswith("D1 is resolved but its sub-question D2 is still open")


def test_ledger_problems_are_errors_once_approval_is_asked(tmp_path: Path) -> None:
    for status, pending, confirmation in (("awaiting_confirmation", "[C1]", "null"),
                                          ("complete", "[]", "approve-and-delegate")):
        iv = interview(status=status, asked="[D1, C1]", pending=pending, approach="Links",
                       confirmation=confirmation)
        text = progress(OPEN_CHILD, ROUND1, required="[users, security]", iv=iv)
        diags = check(tmp_path, text)
        # a `complete` typed without its Confirmed block is an error of its own
        assert ("APPROVAL_NOT_RECORDED" in {d.code for d in diags}) == (status == "complete")
        diags = [d for d in diags if d.code != "APPROVAL_NOT_RECORDED"]
        assert [(d.severity, d.code) for d in diags] == [
            ("error", "REQUIRED_SECTION_UNRESOLVED"), ("error", "OPEN_SUBTHREAD")], status
        assert f"the interview is {status}: ask a decision" in diags[0].message


def test_a_skipped_interview_keeps_them_warnings(tmp_path: Path) -> None:
    iv = interview(status="skipped", asked="[D1, C1]", pending="[]", approach="Skip",
                   confirmation="approve-and-delegate", bypass="no time",
                   assumptions="[defaults]")
    diags = [d for d in check(tmp_path, progress(NODE1, ROUND1, required="[users, security]",
                                                  iv=iv)) if d.code != "APPROVAL_NOT_RECORDED"]
    assert [(d.severity, d.code) for d in diags] == [("warning", "REQUIRED_SECTION_UNRESOLVED")]
    assert "was skipped with assumptions" in diags[0].message


def test_a_decision_later_out_of_scope_is_fine(tmp_path: Path) -> None:
    log = ROUND1 + _rounds("Requirements Grill - Round 2").replace(
        "- Out of scope: none", "- Out of scope: D1")
    assert check(tmp_path, progress(NODE1, log)) == []


# ---------------------------------------------------------------------------------------
# glossaries


def test_duplicate_term_and_avoided_word_that_is_a_term(tmp_path: Path) -> None:
    text = ("# Ordering\n\n## Language\n\n**Order**:\nA request to buy.\n_Avoid_: purchase\n\n"
            "**Purchase**:\nA thing bought.\n\n**Order**:\nAgain.\n")
    path = tmp_path / "CONTEXT.md"
    path.write_text(text)
    diags = validate_glossary_bytes(path.read_bytes(), str(path))
    assert codes(diags) == [("warning", "AVOID_IS_TERM", 7),
                            ("error", "DUPLICATE_TERM", 12)]
    assert '"Order" is already defined at line 5' in diags[1].message


def test_map_paths_leaving_the_repository(tmp_path: Path) -> None:
    text = ("# Map\n\n## Contexts\n\n- [A](a/CONTEXT.md): fine\n- [B](../b/CONTEXT.md): out\n"
            "- [C](/etc/CONTEXT.md): absolute\n")
    path = tmp_path / "CONTEXT-MAP.md"
    path.write_text(text)
    diags = validate_glossary_bytes(path.read_bytes(), str(path), is_map=True)
    assert codes(diags) == [("error", "MAP_PATH_ESCAPES", 6), ("error", "MAP_PATH_ESCAPES", 7)]
    # one folder down, `..` stays inside
    inner = validate_glossary_bytes(path.read_bytes(), str(path), is_map=True, base_depth=1)
    assert codes(inner) == [("error", "MAP_PATH_ESCAPES", 7)]


def test_a_non_utf8_glossary(tmp_path: Path) -> None:
    diags = validate_glossary_bytes(b"# X\n\xff\n", "CONTEXT.md")
    assert codes(diags) == [("error", "MALFORMED_FILE", 2)]


# ---------------------------------------------------------------------------------------
# prompts


def _prompt(tmp_path: Path, text: str, ledger: list[str] | None = None) -> list[Diagnostic]:
    path = tmp_path / "prompt.md"
    path.write_text(text)
    return validate_prompt_bytes(path.read_bytes(), str(path), ledger)


def test_every_sentence_line_has_provenance(tmp_path: Path) -> None:
    text = ("# Build the login\n\n<!-- E1 -->\nUse email links for customers.\n\n"
            "<!-- E2.1 -->\n- Links expire after 15 minutes.\n"
            "<!-- E1, E2 --> Keep passwords.\n\n```\ncode needs none\n```\n"
            "Nobody said this.\n")
    diags = _prompt(tmp_path, text, ledger=["D1", "D2"])
    assert codes(diags) == [("error", "PROVENANCE_MISSING", line_of(text, "Nobody said this."))]
    assert diags[0].message.startswith("`Nobody said this.` has no provenance comment")


def test_provenance_naming_a_missing_entry_or_malformed(tmp_path: Path) -> None:
    text = "<!-- E3 -->\nUse links.\n<!-- E1.x -->\nKeep passwords.\n<!-- TODO -->\nLater.\n"
    diags = _prompt(tmp_path, text, ledger=["D1", "D2"])
    assert codes(diags) == [("error", "PROVENANCE_UNKNOWN_ENTRY", 1),
                            ("error", "PROVENANCE_MALFORMED", 3),
                            ("error", "PROVENANCE_MISSING", 6)]
    assert diags[0].message.startswith("E3 names no ledger entry (the spec has E1–E2)")
    # without a spec only the shape is checked
    assert [d.code for d in _prompt(tmp_path, text)] == ["PROVENANCE_MALFORMED",
                                                          "PROVENANCE_MISSING"]


def test_a_complete_checklist(tmp_path: Path) -> None:
    rows = "".join(f"  {row}: pass\n" for row in CHECKLIST_ROWS)
    text = f"<!-- E1 -->\nDo it.\n\n```yaml\nchecklist_results:\n{rows}```\n"
    assert _prompt(tmp_path, text) == []


def test_a_checklist_missing_rows(tmp_path: Path) -> None:
    rows = "".join(f"- {row}: pass\n" for row in CHECKLIST_ROWS[2:]) + "- positve_framing: pass\n"
    text = f"checklist:\n{rows}\n<!-- E1 -->\nDo it.\n"
    diags = _prompt(tmp_path, text)
    assert codes(diags) == [("error", "CHECKLIST_INCOMPLETE", 1),
                            ("warning", "CHECKLIST_ROW_UNKNOWN", 15)]
    assert diags[0].message == ("the checklist lacks 2 of its 15 rows: "
                                "structured_scoped_instructions, sequential_steps_present: "
                                "add a result for each")


def test_a_json_checklist(tmp_path: Path) -> None:
    rows = ", ".join(f'"{row}": true' for row in CHECKLIST_ROWS[:-1])
    text = f'{{"checklist_results": {{{rows}}}}}\n'
    diags = _prompt(tmp_path, text)
    assert [d.code for d in diags] == ["CHECKLIST_INCOMPLETE"]
    assert diags[0].message.endswith(": artifact_language_confidence: add a result for each")


# ---------------------------------------------------------------------------------------
# never a traceback


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    diags = validate_progress_bytes(data, "x/.progress.md")
    assert all(isinstance(d, Diagnostic) and d.line >= 1 and d.col >= 1 for d in diags)


_PIECES = st.sampled_from([
    "---\n", "mdgrill: 1\n", "interview: null\n", "log: {blocks: 1, sha256: " + HEX + "}\n",
    "## Goal\n", "## Design Tree\n", "## Interview Responses\n", "### D1: Q\n", "### D1: Q\n",
    "- Options:\n", "  - A (Recommended)\n", "  - B\n", "- Depends on: D2, ??\n",
    "- Spawned by: D1\n", "### Requirements Grill - Round 1\n", "### Design Grill - Round 7\n",
    "### Requirements Grill - Confirmed\n", "- Asked: D1\n", "- Decisions: D1 -> x\n",
    "- Frontier after round: none\n", "```\n", "<!--\n", "-->\n", "text\n", "\r\n", "\ufeff",
    "required_sections: [a, b]\n", "  status: complete\n", "goal: [\n",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=30))
def test_arbitrary_structure_never_raises(pieces: list[str]) -> None:
    diags = validate_progress_bytes("".join(pieces).encode("utf-8"), "x/.progress.md")
    assert all(isinstance(d, Diagnostic) for d in diags)


@pytest.mark.parametrize("data", [b"\xef\xbb\xbf---\nmdgrill: 1\n---\n", b"---\r\nmdgrill: 1\r\n"
                                  b"---\r\n## Goal\r\n"])
def test_bom_and_crlf_files_are_read(data: bytes) -> None:
    diags = validate_progress_bytes(data, "x/.progress.md")
    assert "MALFORMED_FILE" not in [d.code for d in diags]


def test_a_sealed_log_is_trusted_for_structure_but_not_for_numbering(tmp_path: Path) -> None:
    log = ("\n### Requirements Grill - Round 1\n- Decisions: D1 -> Customers\n"
           "\n### Requirements Grill - Round 3\n- Asked: D2\n")
    text = progress("", log)
    sealed = codes(check(tmp_path, text))
    assert sealed == [("error", "ROUND_NUMBER",
                       line_of(text, "### Requirements Grill - Round 3"))]
    unsealed = {c for _, c, _ in codes(check(tmp_path, progress("", log, digest=False)))}
    assert {"ROUND_NO_ASKED", "ROUND_NUMBER"} <= unsealed


def _looped(tree: list[tuple[str, list[str], str | None]]) -> list[str]:
    """The IDs in a loop (and those the loop waits on), by removing the nodes nothing waits
    on until none is left: the plain search, run on every tree."""
    first: dict[str, tuple[list[str], str | None]] = {}
    for node_id, deps, parent in tree:
        first.setdefault(node_id, (deps, parent))
    edges = {n: [r for r in [*deps, *([parent] if parent else [])] if r in first]
             for n, (deps, parent) in first.items()}
    waited = {n: 0 for n in edges}
    for refs in edges.values():
        for ref in refs:
            waited[ref] += 1
    free = [n for n, count in waited.items() if count == 0]
    while free:
        for ref in edges[free.pop()]:
            waited[ref] -= 1
            if waited[ref] == 0:
                free.append(ref)
    return list(dict.fromkeys(n for n, _, _ in tree if waited[n] > 0))


POOL = ["D1", "D2", "D3", "D4", "D5"]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from(POOL), st.lists(st.sampled_from([*POOL, "D9"]),
                                                          max_size=3),
                          st.one_of(st.none(), st.sampled_from(POOL))), max_size=6))
def test_a_loop_is_found_in_any_order_of_the_nodes(
        tree: list[tuple[str, list[str], str | None]]) -> None:
    # a tree written top down (every node waiting on nodes above it) has no loop to search
    # for; any other order is searched: both say what the plain search says
    text = progress("".join(
        f"### {node_id}: Q\n- Depends on: {', '.join(deps) or 'none'}\n"
        + (f"- Spawned by: {parent}\n" if parent else "") + "\n"
        for node_id, deps, parent in tree))
    said = [d for d in validate_progress_bytes(text.encode(), "p.md")
            if d.code == "DEPENDENCY_CYCLE"]
    looped = _looped(tree)
    assert [d.message.split(" depend on each other")[0] for d in said] == \
        ([", ".join(looped)] if looped else [])
