"""Answers change only through revise (issue 31, point 3), through the installed CLI.

The framework: "When the user requests revisions, call one `revise` transition with every
affected `--decision-id` before updating answers." `amend` corrects the wording of an answer
while the round is collecting; another option, or another meaning, is a revise."""

from __future__ import annotations

import test_framework_rules as rules
from test_framework_rules import SPEC, Cli, answer, ask, begin

cli = rules.cli  # the fixture: a spec with a goal, in a temporary folder


def amend(cli: Cli, node_id: str, text: str) -> list[str]:
    return ["amend", SPEC, "--decision-id", node_id, "--answer", text, "--reason", "typo"]


def test_amend_refuses_another_option_or_another_meaning(cli: Cli) -> None:
    """"`amend` is for wording before the brief; a different option or meaning is a
    revise" (issue 31): another option's label, number or letter, or own words where an
    option was chosen, are REVISE_REQUIRED and write nothing."""
    cli.node("D1")
    begin(cli)
    ask(cli, 1, "D1")
    answer(cli, "D1", "Second way")
    for text in ("First way (why)", "1", "the first one", "a", "only on weekends"):
        error = cli.refused("REVISE_REQUIRED", *amend(cli, "D1", text))
        assert "`mdgrill revise" in str(error["message"]), text
    # the same option, reworded (an annotation after it), stays a wording correction
    out = cli(*amend(cli, "D1", "Second way (for now)"))
    assert (out["was"], out["answer"], out["other"]) == \
        ("Second way", "Second way (for now)", False)


def test_the_option_a_number_picked_may_be_reworded_as_its_label(cli: Cli) -> None:
    cli.node("D1")
    begin(cli)
    ask(cli, 1, "D1")
    answer(cli, "D1", "2")
    text = cli.progress.read_text()
    assert '- Decisions: D1 -> Second way (option 2: "2")\n' in text
    out = cli(*amend(cli, "D1", "Second way"))
    assert out["answer"] == "Second way"
    cli.refused("REVISE_REQUIRED", *amend(cli, "D1", "First way (why)"))


def test_amend_while_the_brief_awaits_approval_is_refused(cli: Cli) -> None:
    """"call one `revise` transition with every affected `--decision-id` before updating
    answers": while the brief awaits approval, an amend (wording or not) is refused, the
    status stays, and revise reopens D2 with D4 that depends on it."""
    cli.node("D2")
    cli.node("D4", "--depends-on", "D2")
    begin(cli)
    ask(cli, 1, "D2")
    answer(cli, "D2")
    ask(cli, 2, "D4")
    answer(cli, "D4")
    cli("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "A")
    for text in ("Second way", "First way (why)"):
        error = cli.refused("REVISE_REQUIRED", *amend(cli, "D2", text))
        assert "call one `revise` transition with every affected `--decision-id` before " \
            "updating answers" in str(error["message"])
        assert f"mdgrill revise {SPEC} --decision-id D2" in str(error["message"])
    assert cli("status", SPEC)["interview"]["status"] == \
        "awaiting_confirmation"  # type: ignore[index]
    out = cli("revise", SPEC, "--decision-id", "D2")
    assert out["reopened"] == ["D2", "D4"]
    answer(cli, "D2", "Second way")


def test_amend_of_an_other_answer_keeps_it_other_and_says_so(cli: Cli) -> None:
    """"Treat `Other` as input to a concrete next-layer decision": rewording the user's own
    words keeps the `Other` flag, so the follow-up the gate wants is still wanted."""
    cli.node("D1")
    begin(cli)
    ask(cli, 1, "D1")
    cli("record-answer", SPEC, "--decision-id", "D1", "--answer", "Per regoin", "--other")
    out = cli(*amend(cli, "D1", "Per region"))
    assert out["other"] is True
    assert "D1 stays an `Other` answer" in str(out["note"])
    assert "--spawned-by D1" in str(out["note"])
    text = cli.progress.read_text()
    assert "- Other: D1\n" in text and "- Amended: D1 -> Per region\n" in text
    cli.refused("OTHER_WITHOUT_FOLLOWUP", "await-confirmation", SPEC, "--decision-id", "C1",
                "--approach", "A")
    # an option in place of the user's own words is another meaning: a revise
    cli.refused("REVISE_REQUIRED", *amend(cli, "D1", "Second way"))
    cli.node("D9", "--spawned-by", "D1")
    ask(cli, 2, "D9")
    answer(cli, "D9")
    cli("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "A")
