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
