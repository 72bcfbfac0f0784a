"""The framework's rules on what an interview is and keeps (issue 31, points 4 to 6), each
tried through the installed CLI: an asked decision cannot vanish, a changed context is a new
interview, and an interview keeps its confirmation ID and discovery revision.

The texts are in ../shared/framework/; each test quotes the sentence it holds the tool to.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from test_framework_rules import SPEC, Cli, answer, ask, begin

PHASE = ["--phase", "requirements"]


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    """A spec in a git repository (verify reads its history) with three decisions."""
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    c = Cli(work, home)
    c.env.update({"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com",
                  "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com",
                  "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": str(home / "gitconfig")})
    git(c, "init", "-q", "-b", "main")
    c("init", SPEC, "--goal", "Let customers apply one promo code at checkout.")
    for node_id in ("D1", "D2", "D3"):
        c.node(node_id)
    return c


def git(cli: Cli, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cli.cwd, env=cli.env, check=True,
                          capture_output=True, text=True).stdout


def commit_all(cli: Cli, message: str) -> None:
    git(cli, "add", "-A")
    git(cli, "commit", "-q", "--no-verify", "-m", message)


def edit(cli: Cli, old: str, new: str, count: int = 1) -> None:
    text = cli.progress.read_text()
    assert old in text, old
    cli.progress.write_text(text.replace(old, new, count))


def drop_node(cli: Cli, node_id: str) -> None:
    """Remove a node's section from the design tree, as a hand edit would."""
    text = cli.progress.read_text()
    cli.progress.write_text(re.sub(rf"(?ms)^### {node_id}: .*?(?=^##)", "", text, count=1))


def drop_pending(cli: Cli, node_id: str) -> None:
    text = cli.progress.read_text()
    pending = re.search(r"(?m)^  pending: \[(.*)\]$", text)
    assert pending is not None
    kept = [i for i in pending.group(1).split(", ") if i != node_id]
    cli.progress.write_text(text.replace(pending.group(0), f"  pending: [{', '.join(kept)}]"))


def codes(out: dict[str, object]) -> dict[str, str]:
    diags = out["diagnostics"]
    assert isinstance(diags, list)
    return {d["code"]: d["message"] for d in diags if d["severity"] == "error"}


# -- 31.5: an asked decision cannot vanish ------------------------------------------------


def test_an_asked_decision_dropped_by_hand_is_an_error_everywhere(cli: Cli) -> None:
    """"Every branch is resolved or the user has explicitly placed it out of scope" and
    "Advance no phase with an open frontier": an ID a round asked is answered, out of scope
    or skipped, or it stays pending; its node never leaves the tree."""
    begin(cli)
    ask(cli, 1, "D1", "D2", "D3")
    answer(cli, "D1")
    drop_node(cli, "D2")
    drop_pending(cli, "D2")
    answer(cli, "D3")
    found = codes(cli("validate", SPEC, code=1))
    assert set(found) == {"ASKED_WITHOUT_OUTCOME", "ASKED_NODE_MISSING"}
    assert found["ASKED_WITHOUT_OUTCOME"].startswith("D2 was asked in round 1 and has no outcome")
    assert "D2 was asked in round 1, but its node is gone" in found["ASKED_NODE_MISSING"]
    error = cli.refused("ASKED_WITHOUT_OUTCOME", "await-confirmation", SPEC, "--decision-id",
                        "C1", "--approach", "A")
    assert "ASKED_NODE_MISSING: D2 was asked in round 1" in str(error["message"])
    commit_all(cli, "D2 dropped by hand")
    out = cli("verify", SPEC, code=1)
    assert {"ASKED_WITHOUT_OUTCOME", "ASKED_NODE_MISSING"} <= set(codes(out))


def test_pending_dropped_while_awaiting_refuses_confirm(cli: Cli) -> None:
    """"Accept only an explicit approval selection" of a brief whose every asked decision has
    an outcome: a record hand-moved to awaiting_confirmation past X1 is refused by confirm."""
    for node_id in ("D2", "D3"):
        drop_node(cli, node_id)
    begin(cli)
    ask(cli, 1, "D1", "X1")  # X1: a decision kept outside the tree
    answer(cli, "D1")
    edit(cli, "  asked: [D1, X1]\n  pending: [X1]\n  approach: null\n",
         "  asked: [D1, X1, C1]\n  pending: [C1]\n  approach: A\n")
    edit(cli, "  status: collecting\n", "  status: awaiting_confirmation\n")
    edit(cli, "  round_frontier: [D1]\n", "")
    error = cli.refused("ASKED_WITHOUT_OUTCOME", "confirm", SPEC, "--decision-id", "C1",
                        "--source", "approve-and-delegate")
    assert "X1 was asked in round 1 and has no outcome" in str(error["message"])
    assert "ASKED_NODE_MISSING" not in str(error["message"])


def test_an_answered_node_dropped_after_approval_refuses_delegation(cli: Cli) -> None:
    """"On approval, call `confirm --source approve-and-delegate`, run `check-delegation`":
    the check holds the tree to every question the interview asked."""
    begin(cli)
    ask(cli, 1, "D1", "D2", "D3")
    for node_id in ("D1", "D2", "D3"):
        answer(cli, node_id)
    cli("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "A")
    whole = cli.progress.read_text()
    drop_node(cli, "D2")
    cli.refused("ASKED_NODE_MISSING", "confirm", SPEC, "--decision-id", "C1", "--source",
                "approve-and-delegate")
    cli.progress.write_text(whole)
    cli("confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate")
    drop_node(cli, "D2")
    error = cli.refused("ASKED_NODE_MISSING", "check-delegation", SPEC, *PHASE,
                        "--interview-id", "r1")
    assert "D2 was asked in round 1, but its node is gone" in str(error["message"])


def test_a_decision_kept_outside_the_tree_is_said_so_in_its_round(cli: Cli) -> None:
    """An ID asked without a node ("asked as a decision kept elsewhere") is named on the
    round's `Kept elsewhere` line, so the check tells it from a node that vanished."""
    begin(cli)
    ask(cli, 1, "D1", "X1")
    assert "- Asked: D1, X1\n- Kept elsewhere: X1\n" in cli.progress.read_text()
    ask(cli, 1, "X2")
    assert "- Asked: X2\n- Kept elsewhere: X2\n" in cli.progress.read_text()
    answer(cli, "D1")
    answer(cli, "X1", "kept elsewhere")
    cli("out-of-scope", SPEC, "--decision-id", "X2", "--reply", "Not in this release")
    assert codes(cli("validate", SPEC)) == {}


# -- 31.4: a changed goal is a new interview ----------------------------------------------

NEW_GOAL = "Let customers apply two promo codes at checkout."


def change_goal(cli: Cli, goal: str = NEW_GOAL) -> None:
    """A new goal, in the front matter and the `## Goal` section alike."""
    edit(cli, "Let customers apply one promo code at checkout.", goal, count=2)


def test_a_changed_goal_is_a_new_interview_that_asks_again(cli: Cli) -> None:
    """"Reuse the existing interview ID, immutable digest, discovery revision, and round when
    resuming": an ID resumes only with its digest; a new context is a new interview, which
    asks again what the old one settled (its answers shown), and no round number repeats."""
    begin(cli)
    ask(cli, 1, "D1", "D2", "D3")
    answer(cli, "D1")
    answer(cli, "D2", "Second way")
    change_goal(cli)
    error = cli.refused("CONTEXT_STALE", "record-answer", SPEC, "--decision-id", "D3",
                        "--answer", "First way")
    assert "--interview-id r2`" in str(error["message"])
    assert "answered decisions stay answered" not in str(error["message"])
    error = cli.refused("CONTEXT_STALE", "begin-interview", SPEC, *PHASE, "--interview-id", "r1")
    assert "began on another context (the goal changed)" in str(error["message"])
    assert "--interview-id r2`" in str(error["message"])
    out = cli("begin-interview", SPEC, *PHASE, "--interview-id", "r2")
    assert (out["resumed"], out["round"]) == (False, 2)
    assert out["reopened"] == ["D1", "D2"]
    assert out["previous_answers"] == {"D1": "First way", "D2": "Second way"}
    text = cli.progress.read_text()
    assert "### Requirements Grill - Reset\n- Interview: r1\n" in text
    assert "- Reopened: D1, D2\n" in text
    assert cli("frontier", SPEC)["frontier"] == ["D1", "D2", "D3"]
    cli.refused("FRONTIER_OPEN", "await-confirmation", SPEC, "--decision-id", "C1",
                "--approach", "A")
    cli.refused("INVALID_ROUND_TRANSITION", "open-frontier", SPEC, "--round", "1",
                "--decision-id", "D1")
    ask(cli, 2, "D1", "D2", "D3")
    text = cli.progress.read_text()
    assert text.count("Grill - Round 1\n") == 1 and text.count("Grill - Round 2\n") == 1
    assert codes(cli("validate", SPEC)) == {}
    for node_id in ("D1", "D2", "D3"):
        answer(cli, node_id)
    cli("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "A")


def test_the_cli_shows_the_reopened_answers(cli: Cli) -> None:
    """"Reopened, with its old value shown": the text output lists what the user said."""
    begin(cli)
    ask(cli, 1, "D1")
    answer(cli, "D1", "Second way")
    change_goal(cli)
    proc = subprocess.run(["mdgrill", "begin-interview", SPEC, *PHASE, "--interview-id", "r2"],
                          cwd=cli.cwd, env=cli.env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "reopened for the new context" in proc.stdout
    assert "\n  D1: was Second way" in proc.stdout


def test_the_goal_body_alone_edited_is_context_stale_at_every_gate(cli: Cli) -> None:
    """"Compute the digest from the length-framed phase, exact goal snapshot [...] The helper
    re-reads those sources and recomputes the digest at every gate": a `## Goal` that says
    another goal than `goal:` is no exact snapshot, so every gate refuses."""
    begin(cli)
    ask(cli, 1, "D1", "D2", "D3")
    for node_id in ("D1", "D2"):
        answer(cli, node_id)
    whole = cli.progress.read_text()
    edit(cli, "\n\nLet customers apply one promo code at checkout.\n",
         f"\n\n{NEW_GOAL}\n")  # the body only
    assert "GOAL_MISMATCH" in {d["code"] for d in cli("validate", SPEC)["diagnostics"]}  # type: ignore[union-attr]
    for args in (["record-answer", SPEC, "--decision-id", "D3", "--answer", "First way"],
                 ["open-frontier", SPEC, "--round", "2", "--decision-id", "D3"],
                 ["await-confirmation", SPEC, "--decision-id", "C1", "--approach", "A"],
                 ["begin-interview", SPEC, *PHASE, "--interview-id", "r1"],
                 ["begin-interview", SPEC, *PHASE, "--interview-id", "r2"]):
        error = cli.refused("CONTEXT_STALE", *args)
        assert "`## Goal` text of specs/s differs from `goal:`" in str(error["message"])
    # a reflowed paragraph says the same goal: not stale
    cli.progress.write_text(whole.replace(
        "\n\nLet customers apply one promo code at checkout.\n",
        "\n\nLet customers apply one promo code\nat checkout.\n"))
    answer(cli, "D3")
    cli("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "A")
    edit(cli, "code\nat checkout.\n", "codes\nat checkout.\n")
    cli.refused("CONTEXT_STALE", "confirm", SPEC, "--decision-id", "C1", "--source",
                "approve-and-delegate")
    edit(cli, "codes\nat checkout.\n", "code\nat checkout.\n")
    cli("confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate")
    edit(cli, "code\nat checkout.\n", "codes\nat checkout.\n")
    cli.refused("CONTEXT_STALE", "check-delegation", SPEC, *PHASE, "--interview-id", "r1")


# -- 31.6: the identity of the interview --------------------------------------------------


def test_after_revise_the_brief_keeps_its_confirmation_id(cli: Cli) -> None:
    """"Recompute any dependent frontier, return to final approval using the same
    confirmation ID, and keep the same interview record until the brief is approved
    again."""
    begin(cli)
    ask(cli, 1, "D1", "D2", "D3")
    for node_id in ("D1", "D2", "D3"):
        answer(cli, node_id)
    cli("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "A")
    cli("revise", SPEC, "--decision-id", "D2")
    answer(cli, "D2", "Second way")
    error = cli.refused("CONFIRMATION_ID_MISMATCH", "await-confirmation", SPEC,
                        "--decision-id", "C2", "--approach", "A, revised")
    assert "under confirmation ID C1" in str(error["message"])
    assert "--decision-id C1" in str(error["message"])
    out = cli("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "A, revised")
    assert out["confirmation_id"] == "C1"
    cli("confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate")


def test_resuming_needs_the_matching_discovery_revision(cli: Cli) -> None:
    """"Begin or resume the interview with the matching phase, interview ID, discovery
    revision, and context digest.\""""
    cli("begin-interview", SPEC, *PHASE, "--interview-id", "r1", "--discovery-revision", "4")
    error = cli.refused("DISCOVERY_STALE", "begin-interview", SPEC, *PHASE, "--interview-id",
                        "r1", "--discovery-revision", "5")
    assert "was begun at discovery revision 4, not 5" in str(error["message"])
    out = cli("begin-interview", SPEC, *PHASE, "--interview-id", "r1", "--discovery-revision",
              "4")
    assert out["resumed"] is True
    assert cli("begin-interview", SPEC, *PHASE, "--interview-id", "r1")["resumed"] is True


def test_resuming_an_interview_begun_without_a_revision_under_one_is_refused(
        cli: Cli) -> None:
    """"with the matching [...] discovery revision": none recorded matches no given one."""
    begin(cli)
    error = cli.refused("DISCOVERY_STALE", "begin-interview", SPEC, *PHASE, "--interview-id",
                        "r1", "--discovery-revision", "2")
    assert "was begun without a discovery revision, not 2" in str(error["message"])


def test_delegation_needs_the_revision_the_interview_began_with(cli: Cli) -> None:
    """`check-delegation --discovery-revision N` allows only an interview begun at N."""
    begin(cli)
    ask(cli, 1, "D1", "D2", "D3")
    for node_id in ("D1", "D2", "D3"):
        answer(cli, node_id)
    cli("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "A")
    cli("confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate")
    error = cli.refused("DISCOVERY_STALE", "check-delegation", SPEC, *PHASE, "--interview-id",
                        "r1", "--discovery-revision", "99")
    assert "was begun without a discovery revision, not 99" in str(error["message"])
    assert cli("check-delegation", SPEC, *PHASE, "--interview-id", "r1")["decision"] == "allow"
