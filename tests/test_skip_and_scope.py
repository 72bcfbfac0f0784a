"""Skip and scope (issue 31, point 8), through the installed CLI: a skip records each default
it takes and the brief shows it; the user places a branch out of scope in their own words
before it is asked; `revise --keep` keeps a dependent's answer the change does not touch."""

from __future__ import annotations

import test_framework_rules as rules
from test_framework_rules import SPEC, Cli, answer, ask, begin

cli = rules.cli  # the fixture: a spec with a goal, in a temporary folder
APPROVE = ("confirm", SPEC, "--decision-id", "skip-confirmation", "--source",
           "approve-and-delegate", "--reply", "Approve and delegate")


def skip(cli: Cli) -> dict[str, object]:
    return cli("skip", SPEC, "--reason", "user said skip", "--assumption",
               "the recommended test depth and rollback policy")


def test_skip_records_each_default_and_the_brief_shows_it(cli: Cli) -> None:
    """"record the phase interview as skipped with the recommended test depth and rollback
    policy listed as defaults and assumptions. Present those choices in the final decision
    brief and require explicit approval before delegation." (the framework)."""
    cli.node("depth")
    cli("node", "add", SPEC, "rollback", "--title", "Rollback?", "--option", "Manual",
        "--option", "Automatic: on a failed health check", "--recommend", "2")
    cli.node("tax", "--depends-on", "rollback")
    begin(cli)
    ask(cli, 1, "depth", "rollback")
    out = skip(cli)
    assert out["defaulted"] == ["depth", "rollback", "tax"]
    assert out["defaults"] == {"depth": "First way (why)", "rollback": "Automatic",
                               "tax": "First way (why)"}
    text = cli.progress.read_text()
    assert "- Defaulted: depth, rollback, tax\n- Default: depth -> First way (why)\n" \
        "- Default: rollback -> Automatic\n- Default: tax -> First way (why)\n" \
        "- Assumption: " in text
    brief = cli("ask", SPEC)
    question = str(brief["questions"][0]["question"])  # type: ignore[index]
    assert "rollback Question rollback? → Automatic (default)" not in question  # its title
    assert "rollback Rollback? → Automatic (default)" in question
    assert "tax Question tax? → First way (why) (default)" in question
    assert cli("validate", SPEC)["ok"] is True
    # the defaults are inside what the user approves: the recorded one is sealed in the
    # log, and the option it names is part of the approved scope
    cli.progress.write_text(text.replace("- Default: rollback -> Automatic",
                                         "- Default: rollback -> Manual"))
    cli.refused("ROUND_EDITED", *APPROVE)
    assert "  - Automatic (Recommended): on a failed health check\n" in text
    cli.progress.write_text(text.replace("  - Automatic (Recommended)", "  - Manual (Recommended)"))
    error = cli.refused("APPROVAL_SCOPE_CHANGED", *APPROVE)
    assert "rollback changed" in str(error["message"])
    cli.progress.write_text(text)
    assert cli(*APPROVE)["status"] == "skipped"


def test_a_skipped_block_without_defaults_still_reads(cli: Cli) -> None:
    """A Skipped block written before defaults were recorded (`Defaulted:` alone) stays
    valid: the brief says the assumptions stand for those decisions."""
    cli.node("depth")
    begin(cli)
    ask(cli, 1, "depth")
    cli("node", "add", SPEC, "plain", "--title", "No recommendation?", "--option", "A",
        "--option", "B")
    out = skip(cli)
    assert out["defaults"] == {"depth": "First way (why)"}  # `plain` has no recommendation
    question = str(cli("ask", SPEC)["questions"][0]["question"])  # type: ignore[index]
    assert "plain No recommendation? → (defaulted by skip: see the Skipped block's " \
        "assumptions)" in question
    assert cli(*APPROVE)["status"] == "skipped"
    assert cli("validate", SPEC)["ok"] is True


def test_a_revise_after_skip_goes_on_counting_rounds(cli: Cli) -> None:
    """A skip awaits approval; `Revise decisions` there reopens a decision in the same
    interview, whose next round counts on from the last ("round numbers never repeat"):
    validate says nothing of it (it warned ROUND_NUMBER "rounds start at round 2")."""
    cli.node("depth")
    begin(cli)
    ask(cli, 1, "depth")
    skip(cli)
    assert cli("revise", SPEC, "--decision-id", "depth")["round"] == 2
    found = cli("validate", SPEC)
    assert found["ok"] is True
    assert "ROUND_NUMBER" not in str(found)


def test_the_user_places_a_blocked_branch_out_of_scope_in_their_words(cli: Cli) -> None:
    """"Every branch is resolved or the user has explicitly placed it out of scope.": a
    branch blocked under an asked question ("drop the tax branch") is the user's to set
    aside before it is asked; one never shown under anything asked is not."""
    cli.node("D1")
    cli.node("tax", "--depends-on", "D1")
    cli.node("D5")
    begin(cli)
    ask(cli, 1, "D1")
    cli.refused("DECISION_NOT_ASKED", "out-of-scope", SPEC, "--decision-id", "D5", "--reply",
                "drop it")
    cli.refused("CONTROL_ONLY_ANSWER", "out-of-scope", SPEC, "--decision-id", "tax",
                "--reply", "ok")
    cli("out-of-scope", SPEC, "--decision-id", "tax", "--reply", "drop the tax branch")
    assert "- Out of scope: tax -> drop the tax branch\n" in cli.progress.read_text()
    ask(cli, 1, "D5")
    answer(cli, "D1", "Second way")
    answer(cli, "D5", "Second way")
    assert cli("frontier", SPEC)["frontier"] == []
    cli("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "A")
    question = str(cli("ask", SPEC)["questions"][0]["question"])  # type: ignore[index]
    assert "tax Question tax? → out of scope" in question
    assert cli("validate", SPEC)["ok"] is True


def test_revise_keeps_a_dependent_the_user_keeps(cli: Cli) -> None:
    """"reopen affected nodes; invalidate dependent answers when necessary": `--keep D4`
    leaves an answer the change does not touch answered, and the Revised block says so."""
    cli.node("D2")
    cli.node("D4", "--depends-on", "D2")
    cli.node("D5", "--depends-on", "D4")
    cli.node("D6", "--depends-on", "D2")
    begin(cli)
    ask(cli, 1, "D2")
    answer(cli, "D2", "Second way")
    ask(cli, 2, "D4", "D6")
    answer(cli, "D4", "Second way")
    answer(cli, "D6", "Second way")
    ask(cli, 3, "D5")
    answer(cli, "D5", "Second way")
    cli("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "A")
    before = cli.progress.read_bytes()
    error = cli.refused("INVALID_INPUT", "revise", SPEC, "--decision-id", "D2", "--keep", "D9",
                        exit_code=2)
    assert "only an answered decision that depends on what is revised" in str(error["message"])
    assert cli.progress.read_bytes() == before
    out = cli("revise", SPEC, "--decision-id", "D2", "--keep", "D4")
    # D5 rests on D2 only through D4, which stands: it stands too
    assert (out["reopened"], out["dependents"], out["kept"]) == (["D2", "D6"], ["D6"], ["D4"])
    text = cli.progress.read_text()
    assert "- Reopened: D2, D6\n- Dependents: D6 (answered on what is reopened: asked again " \
        "once it is answered)\n- Kept: D4 (depends on what is reopened; the user kept its " \
        "answer, which the change does not touch)\n" in text
    answer(cli, "D2", "First way")
    assert cli("frontier", SPEC)["frontier"] == ["D6"]
    ask(cli, 5, "D6")
    answer(cli, "D6", "First way")
    # the brief returns "using the same confirmation ID"
    cli("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "B")
    question = str(cli("ask", SPEC)["questions"][0]["question"])  # type: ignore[index]
    assert "D4 Question D4? → Second way" in question
    assert cli("validate", SPEC)["ok"] is True


def test_revise_takes_back_an_owned_dependent_only_for_its_owners(cli: Cli) -> None:
    """Reopening takes an answer back: a dependent in a section the account does not own is
    refused (`NOT_AN_OWNER`, nothing written) as its answer would be, unless it is kept."""
    cli.node("D2")
    cli.node("D6", "--depends-on", "D2", section="Security")
    begin(cli)
    ask(cli, 1, "D2")
    answer(cli, "D2", "Second way")
    ask(cli, 2, "D6")
    answer(cli, "D6", "Second way")
    cli("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "A")
    # outside git the spec's folder is its repository: the owners map sits there
    (cli.progress.parent / ".mdgrill.yaml").write_text(
        "owners:\n  sections:\n    Security: [carol@example.com]\n", encoding="utf-8")
    error = cli.refused("NOT_AN_OWNER", "revise", SPEC, "--decision-id", "D2")
    assert "Security" in str(error["message"])
    out = cli("revise", SPEC, "--decision-id", "D2", "--keep", "D6")
    assert (out["reopened"], out["kept"]) == (["D2"], ["D6"])


def test_a_copy_of_an_owned_node_in_another_section_does_not_lift_its_owners(
        cli: Cli) -> None:
    """An ID of two nodes (`DUPLICATE_ID`, made by hand): the owners rule read the first
    one's section, so a copy in an unowned section put above the owned node let anybody
    take its answer back; each one's section holds now."""
    cli.node("D6", section="Security")
    begin(cli)
    ask(cli, 1, "D6")
    answer(cli, "D6", "Second way")
    cli("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "A")
    (cli.progress.parent / ".mdgrill.yaml").write_text(
        "owners:\n  sections:\n    Security: [carol@example.com]\n", encoding="utf-8")
    text = cli.progress.read_text()
    start = text.index("### D6:")
    node = text[start:text.index("\n\n", start) + 2]
    assert "- Section: Security\n" in node
    cli.progress.write_text(text.replace(node, node.replace("Security", "scope") + node, 1))
    cli.refused("NOT_AN_OWNER", "revise", SPEC, "--decision-id", "D6")
