"""The interview framework's rules, each quoted and each tried through the installed CLI.

The texts are in ../shared/framework/ (the critical-frontier algorithm, the interview-framework
skill 0.3.0, the elicitation phases). Every test here would fail if its rule were broken: the
refusal is asserted by its code, and "nothing written" by the file's bytes.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import mdgrill_command

SPEC = "specs/s"


class Cli:
    def __init__(self, cwd: Path, home: Path) -> None:
        self.cwd = cwd
        self.env = {"PATH": str(Path(mdgrill_command()[0]).parent) + ":/usr/bin:/bin",
                    "HOME": str(home), "LC_ALL": "C.UTF-8"}
        if "PYTHONPATH" in os.environ:  # bench/mutate.py puts its mutant first this way
            self.env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        self.progress = cwd / SPEC / ".progress.md"

    def __call__(self, *args: str, code: int = 0) -> dict[str, object]:
        proc = subprocess.run([*mdgrill_command(), "--json", *args], cwd=self.cwd,
                              env=self.env, capture_output=True, text=True, timeout=60)
        assert proc.returncode == code, (args, proc.stdout, proc.stderr)
        out: dict[str, object] = json.loads(proc.stdout)
        return out

    def refused(self, code: str, *args: str, exit_code: int = 3) -> dict[str, object]:
        """A refusal with `code` that leaves every byte of the spec as it was."""
        before = self.progress.read_bytes() if self.progress.exists() else None
        out = self(*args, code=exit_code)
        error = out["error"]
        assert isinstance(error, dict) and error["code"] == code, out
        after = self.progress.read_bytes() if self.progress.exists() else None
        assert after == before, f"{args} wrote the file"
        return error

    def node(self, node_id: str, *extra: str, section: str = "scope") -> None:
        """A node the gate asks: "options[2..4], recommendation, rationale, tradeoffs"."""
        self("node", "add", SPEC, node_id, "--title", f"Question {node_id}?", "--section",
             section, "--option", "First way (why)", "--option", "Second way", "--recommend",
             "1", "--rationale", "the simpler way", "--tradeoffs", "less room later", *extra)


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    c = Cli(work, home)
    c("init", SPEC, "--goal", "Let customers apply one promo code at checkout.")
    return c


def begin(cli: Cli) -> None:
    cli("begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1")


def ask(cli: Cli, round_number: int, *ids: str) -> None:
    args = [a for i in ids for a in ("--decision-id", i)]
    cli("open-frontier", SPEC, "--round", str(round_number), *args)


def answer(cli: Cli, node_id: str, text: str = "First way") -> None:
    cli("record-answer", SPEC, "--decision-id", node_id, "--answer", text)


def test_control_only_keeps_the_whole_frontier_open(cli: Cli) -> None:
    """"If control-only: keep every frontier node open; ask the same frontier again." And
    "`continue`, `go ahead`, and `apply the changes` behave the same way"."""
    cli.node("D1")
    cli.node("D2")
    begin(cli)
    ask(cli, 1, "D1", "D2")
    for reply in ("proceed", "continue", "go ahead", "apply the changes"):
        for node_id in ("D1", "D2"):
            cli.refused("CONTROL_ONLY_ANSWER", "record-answer", SPEC, "--decision-id", node_id,
                        "--answer", reply)
    assert cli("frontier", SPEC)["frontier"] == ["D1", "D2"]


def test_a_partial_answer_keeps_what_was_given(cli: Cli) -> None:
    """"Record both answered decision IDs immediately. Leave compatibility open." "Do not
    discard the two saved answers or restart the round." (the framework)."""
    for node_id in ("users", "compat", "retention"):
        cli.node(node_id)
    begin(cli)
    ask(cli, 1, "users", "compat", "retention")
    answer(cli, "users")
    answer(cli, "retention")
    cli.refused("DECISIONS_PENDING", "open-frontier", SPEC, "--round", "2", "--decision-id",
                "compat")
    text = cli.progress.read_text()
    assert "- Decisions: users -> First way\n- Decisions: retention -> First way\n" in text
    assert cli("status", SPEC)["interview"]["pending"] == ["compat"]  # type: ignore[index]


def test_ask_after_a_partial_answer_asks_what_it_unblocked(cli: Cli) -> None:
    """The framework's partial answer: "Record both answered decision IDs immediately. Leave
    compatibility open. Recompute dependencies. Ask compatibility plus any decisions it
    unblocked." "Do not discard the two saved answers or restart the round." (issue 31.9)"""
    for node_id in ("users", "compat", "retention"):
        cli.node(node_id)
    cli.node("purge", "--depends-on", "retention")  # unblocked by the retention answer
    cli.node("roles", "--spawned-by", "users")  # a sub-question of the users answer
    cli.node("shim", "--depends-on", "compat")  # still blocked: compat stays open
    begin(cli)
    first = cli("ask", SPEC)
    assert list(first["decisions"].values()) == ["users", "compat", "retention"]  # type: ignore[union-attr]
    assert first["written"] is True and first["unblocked"] == []
    reply = {"answers": {"Q1 - users: Question users?": "First way (why) (Recommended)",
                         "Q3 - retention: Question retention?": "Second way"}}
    (cli.cwd / "reply.json").write_text(json.dumps(reply))
    done = cli("answer", SPEC, "--tool-result", "reply.json")
    assert done["recorded"] == {"users": "First way (why)", "retention": "Second way"}
    assert done["other"] == []
    again = cli("ask", SPEC)
    # compat, plus what the answers unblocked (the sub-question first), in the same round
    assert again["round"] == 1 and again["written"] is True
    assert list(again["decisions"].values()) == ["compat", "roles", "purge"]  # type: ignore[union-attr]
    assert again["unblocked"] == ["roles", "purge"]
    text = cli.progress.read_text()
    assert "- Asked: users, compat, retention\n" in text and "- Asked: roles, purge\n" in text
    assert text.count("Grill - Round 1\n") == 1 and "Grill - Round 2" not in text
    before = cli.progress.read_bytes()
    repeat = cli("ask", SPEC)  # asking again adds nothing
    assert repeat["decisions"] == again["decisions"] and repeat["written"] is False
    assert cli.progress.read_bytes() == before
    labels = {"compat": "Second way", "roles": "Second way", "purge": "Second way"}
    (cli.cwd / "reply.json").write_text(json.dumps({"answers": {
        q: labels[i] for q, i in again["decisions"].items()}}))  # type: ignore[union-attr]
    cli("answer", SPEC, "--tool-result", "reply.json")
    # what compat unblocked opens the next round, as a new layer
    nxt = cli("ask", SPEC)
    assert nxt["round"] == 2 and list(nxt["decisions"].values()) == ["shim"]  # type: ignore[union-attr]
    assert nxt["written"] is True and "### Requirements Grill - Round 2\n- Asked: shim\n" in \
        cli.progress.read_text()
    answer(cli, "shim")
    cli("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "A")


# The framework's node: "Represent each open node as: { id, dependencies, evidence,
# options[2..4], recommendation, rationale, tradeoffs, consequences }" (the algorithm), and
# each question must "Give 2-4 viable options." (the skill)
NODE_SHAPE = "options[2..4],\n  recommendation,\n  rationale,\n  tradeoffs,\n  consequences"
ONE_OPTION = "### H1: Which card brands?\n- Depends on: none\n- Options:\n  - Visa only\n\n"


def test_a_node_is_asked_only_with_two_to_four_options(cli: Cli) -> None:
    """Each open node is "{ id, dependencies, evidence, options[2..4], recommendation,
    rationale, tradeoffs, consequences }"; "Give 2-4 viable options." (issue 31.7). A node
    being drafted may wait without options, but neither `ask` nor `open-frontier` asks it."""
    framework = Path(__file__).resolve().parents[2] / "shared" / "framework"
    if framework.is_dir():  # the quoted sentence is the framework's own (beside the checkout)
        assert NODE_SHAPE in (framework / "001_c71bd5f0d528381b.txt").read_text()
    for count in (1, 5):
        options = [a for i in range(count) for a in ("--option", f"Way {i}")]
        cli.refused("INVALID_OPTIONS", "node", "add", SPEC, "X1", "--title", "Which?",
                    *options, exit_code=2)
    cli("node", "add", SPEC, "draft", "--title", "Not ready yet?")  # drafted: no options
    cli.node("D1")
    cli.progress.write_text(cli.progress.read_text().replace(  # one option, written by hand
        "## Interview Responses", ONE_OPTION + "## Interview Responses"))
    begin(cli)
    error = cli.refused("NODE_OPTIONS_REQUIRED", "ask", SPEC)
    assert error["nodes"] == ["draft", "H1"]
    assert "draft, H1 cannot be asked" in str(error["message"])
    for lacking in ("draft", "H1"):
        # the lower-level verb holds to it too, with the one good node beside it
        error = cli.refused("NODE_OPTIONS_REQUIRED", "open-frontier", SPEC, "--round", "1",
                            "--decision-id", "D1", "--decision-id", lacking)
        assert error["nodes"] == [lacking]
        message = str(error["message"])
        # it says what to add, and where
        for fix in ("`- Options:` with 2 to 4 nested `  - Label: what it means` bullets",
                    "`(Recommended)`", "`- Rationale: ", "`- Tradeoffs: ",
                    "options[2..4], recommendation, rationale, tradeoffs, consequences"):
            assert fix in message, (fix, message)
    out = cli("open-frontier", SPEC, "--round", "1", "--decision-id", "D1")
    assert out["pending"] == ["D1"] and out["warnings"] == []


def test_an_answer_to_a_node_that_lost_its_options_is_still_recorded(cli: Cli) -> None:
    """"Persist every answered decision immediately with `record-answer`." The question was
    put with its options (open-frontier holds to that); a node whose options were taken out
    by hand after it was asked does not lose the user's answer: `validate` names it."""
    cli.node("D1")
    begin(cli)
    ask(cli, 1, "D1")
    text = cli.progress.read_text()
    stripped = text.replace("- Options:\n  - First way (why) (Recommended)\n  - Second way\n",
                            "")
    assert stripped != text
    cli.progress.write_text(stripped)
    found = cli("validate", SPEC)["diagnostics"]
    flagged = [d for d in found if d["code"] == "NODE_OPTIONS_REQUIRED"]  # type: ignore[union-attr,index]
    assert [(d["severity"], d["message"].split(":")[0]) for d in flagged] == [  # type: ignore[index]
        ("warning", "D1 is pending but its node has no options")]
    answer(cli, "D1", "First way")
    assert "- Decisions: D1 -> First way\n" in cli.progress.read_text()
    assert not [d for d in cli("validate", SPEC)["diagnostics"]  # type: ignore[union-attr]
                if d["code"] == "NODE_OPTIONS_REQUIRED"]  # type: ignore[index]


def test_a_node_asked_without_its_rationale_or_tradeoff_is_named(cli: Cli) -> None:
    """"State the recommendation rationale and the material tradeoff in the question or
    option description." An option's own description may carry them, so the gate asks such a
    node, and says what it lacks: open-frontier's and ask's warnings, validate's
    NODE_RATIONALE_MISSING and NODE_TRADEOFF_MISSING while it is pending (issue 31.7)."""
    cli("node", "add", SPEC, "bare", "--title", "Who may apply a code?", "--option",
        "Everyone", "--option", "Members", "--recommend", "1")
    cli("node", "add", SPEC, "half", "--title", "Expiry?", "--option", "Never", "--option",
        "After a year", "--recommend", "1", "--rationale", "no one asked for expiry")
    cli.node("full")
    begin(cli)
    out = cli("open-frontier", SPEC, "--round", "1", "--decision-id", "bare", "--decision-id",
              "half", "--decision-id", "full")
    assert out["warnings"] == [
        "bare is asked with no rationale: add `- Rationale: why the recommended option` under "
        "its heading (\"State the recommendation rationale and the material tradeoff in the "
        "question or option description\")",
        "bare is asked with no tradeoff: add `- Tradeoffs: what choosing it costs` under its "
        "heading (\"State the recommendation rationale and the material tradeoff in the "
        "question or option description\")",
        "half is asked with no tradeoff: add `- Tradeoffs: what choosing it costs` under its "
        "heading (\"State the recommendation rationale and the material tradeoff in the "
        "question or option description\")"]
    assert cli("ask", SPEC)["warnings"] == out["warnings"]
    found = cli("validate", SPEC)["diagnostics"]
    named = sorted((d["code"], d["severity"], d["message"].split(" ")[0])  # type: ignore[index]
                   for d in found if d["code"].startswith("NODE_"))  # type: ignore[index,union-attr]
    assert named == [("NODE_RATIONALE_MISSING", "warning", "bare"),
                     ("NODE_TRADEOFF_MISSING", "warning", "bare"),
                     ("NODE_TRADEOFF_MISSING", "warning", "half")]
    for node_id in ("bare", "half", "full"):
        answer(cli, node_id, "Members" if node_id == "bare" else "Second way"
               if node_id == "full" else "Never")
    # answered: nothing is asked without them any more
    assert not [d for d in cli("validate", SPEC)["diagnostics"]  # type: ignore[union-attr]
                if d["code"] in ("NODE_RATIONALE_MISSING", "NODE_TRADEOFF_MISSING")]  # type: ignore[index]


def test_the_question_carries_the_rationale_and_the_tradeoff(cli: Cli) -> None:
    """"State the recommendation rationale and the material tradeoff in the question or
    option description." With a recommendation they describe it (never another option);
    with symmetric options (no recommendation) the question carries them (issue 31.7)."""
    cli("node", "add", SPEC, "users", "--title", "Who may apply a code?", "--option",
        "Everyone: guests too", "--option", "Members: signed in", "--recommend", "1",
        "--rationale", "guests are half the orders", "--tradeoffs", "codes get shared")
    cli("node", "add", SPEC, "zone", "--title", "Which clock ends a code?", "--option",
        "UTC: one clock", "--option", "The shop's zone: what staff see", "--rationale",
        "both are used today", "--tradeoffs", "UTC confuses staff, local confuses travel")
    # bare options (no text of their own) and the node's "material consequences"
    cli("node", "add", SPEC, "stack", "--title", "Stack with other offers?", "--option", "No",
        "--option", "Yes", "--option", "Only with shipping offers", "--recommend", "1",
        "--rationale", "one discount is easy to explain", "--tradeoffs", "fewer sales days",
        "--consequences", "the basket shows one discount line")
    begin(cli)
    asked = cli("ask", SPEC)
    users, zone, stack = asked["questions"]  # type: ignore[misc]
    assert users["question"] == "Q1 - users: Who may apply a code?"
    assert users["options"] == [
        {"label": "Everyone (Recommended)",
         "description": "guests too; guests are half the orders; tradeoff: codes get shared"},
        {"label": "Members", "description": "signed in"}]
    assert zone["question"] == ("Q2 - zone: Which clock ends a code? (both are used today; "
                                "tradeoff: UTC confuses staff, local confuses travel)")
    assert zone["options"] == [{"label": "UTC", "description": "one clock"},
                               {"label": "The shop's zone", "description": "what staff see"}]
    # the rationale and tradeoff describe the recommendation only; the consequences, which
    # follow from the decision either way, are in the question
    assert stack["question"] == ("Q3 - stack: Stack with other offers? (consequences: the "
                                 "basket shows one discount line)")
    assert stack["options"] == [
        {"label": "No (Recommended)",
         "description": "one discount is easy to explain; tradeoff: fewer sales days"},
        {"label": "Yes", "description": ""},
        {"label": "Only with shipping offers", "description": ""}]
    assert all(len(q["header"]) <= 12 and q["multiSelect"] is False
               for q in (users, zone, stack))
    assert asked["warnings"] == []
    proc = subprocess.run([*mdgrill_command(), "ask", SPEC, "--format", "markdown"],
                          cwd=cli.cwd, env=cli.env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert ("**Q3 - stack: Stack with other offers? (consequences: the basket shows one "
            "discount line)**\n  a) No (Recommended) — one discount is easy to explain; "
            "tradeoff: fewer sales days\n  b) Yes\n  c) Only with shipping offers\n") in \
        proc.stdout
    assert "  a) Everyone (Recommended) — guests too; guests are half the orders; tradeoff: " \
        "codes get shared\n  b) Members — signed in\n" in proc.stdout
    # the answer still lands by the question's text (and by the ID it names)
    (cli.cwd / "reply.json").write_text(json.dumps({"answers": {
        zone["question"]: "UTC", users["question"]: "Everyone (Recommended)",
        stack["question"]: "Yes"}}))
    assert cli("answer", SPEC, "--tool-result", "reply.json")["recorded"] == {
        "zone": "UTC", "users": "Everyone", "stack": "Yes"}


def test_a_sentence_with_skip_and_decisions_is_substantive(cli: Cli) -> None:
    """"`Skip browser tests; keep the rollback task.` Result: treat the reply as substantive."""
    cli.node("tests")
    begin(cli)
    ask(cli, 1, "tests")
    assert cli("classify-reply", "--text",
               "Skip browser tests; keep the rollback task.")["classification"] == "substantive"
    answer(cli, "tests", "Skip browser tests; keep the rollback task.")
    assert "- Decisions: tests -> Skip browser tests; keep the rollback task.\n" in \
        cli.progress.read_text()


def test_bare_skip_needs_an_active_question_and_defaults_the_rest(cli: Cli) -> None:
    """"Treat bare `skip`, after an active question, as authorization to default the
    remaining phase interview." "this moves to `awaiting_confirmation`, not a delegable
    terminal state." (the framework)."""
    cli.node("depth")
    cli.node("rollback")
    begin(cli)
    cli.refused("NOTHING_ASKED", "skip", SPEC, "--reason", "user said skip", "--assumption",
                "default test depth")
    ask(cli, 1, "depth", "rollback")
    out = cli("skip", SPEC, "--reason", "user said skip", "--assumption",
              "recommended test depth", "--assumption", "recommended rollback policy")
    assert out["status"] == "awaiting_confirmation"
    assert out["defaulted"] == ["depth", "rollback"]
    cli.refused("INTERVIEW_INCOMPLETE", "check-delegation", SPEC, "--phase", "requirements",
                "--interview-id", "r1")
    cli("confirm", SPEC, "--decision-id", "skip-confirmation", "--source",
        "approve-and-delegate", "--reply", "Approve and delegate")
    assert cli("check-delegation", SPEC, "--phase", "requirements", "--interview-id",
               "r1")["status"] == "skipped"


def test_no_approval_while_a_node_is_open_even_after_confirm(cli: Cli) -> None:
    """"Advance no phase with an open frontier." check-delegation holds to it too."""
    cli.node("D1")
    begin(cli)
    ask(cli, 1, "D1")
    answer(cli, "D1")
    cli("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "A")
    cli("confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate")
    cli.node("D2")  # a decision the brief never covered
    error = cli.refused("FRONTIER_OPEN", "check-delegation", SPEC, "--phase", "requirements",
                        "--interview-id", "r1")
    assert "D2 is open" in str(error["message"])


def test_every_phase3_check_at_once(cli: Cli) -> None:
    """"Runs before every transition": no reference to a missing ID, no duplicate IDs, and a
    plain report ("E12 references E99 which does not exist; add an entry")."""
    cli.node("D1")
    begin(cli)
    ask(cli, 1, "D1")
    answer(cli, "D1")
    text = cli.progress.read_text().replace(
        "## Interview Responses",
        "### D1: Again?\n- Depends on: none\n\n### D3: Later?\n- Depends on: D99\n"
        "- Out of scope: x\n\n## Interview Responses")
    cli.progress.write_text(text)
    error = cli.refused("FRONTIER_OPEN", "await-confirmation", SPEC, "--decision-id", "C1",
                        "--approach", "A")
    codes = {p["code"] for p in error["problems"]}  # type: ignore[union-attr]
    assert {"DUPLICATE_ID", "MISSING_REFERENCE", "FRONTIER_OPEN"} <= codes
    assert "D3 depends on D99, which does not exist: add a node for D99" in str(error["message"])


def test_the_digest_is_recomputed_at_every_gate(cli: Cli) -> None:
    """"The helper re-reads those sources and recomputes the digest at every gate."""
    cli.node("D1")
    cli.node("D2")
    begin(cli)
    ask(cli, 1, "D1", "D2")
    answer(cli, "D1")
    cli.progress.write_text(cli.progress.read_text().replace(  # front matter and body
        "Let customers apply one promo code at checkout.",
        "Let customers apply one promo code per order."))
    error = cli.refused("CONTEXT_STALE", "record-answer", SPEC, "--decision-id", "D2",
                        "--answer", "Second way")
    assert "goal changed" in str(error["message"])
    assert "begin-interview" in str(error["message"])
    for args in (["await-confirmation", SPEC, "--decision-id", "C1", "--approach", "A"],
                 ["open-frontier", SPEC, "--round", "1", "--decision-id", "D2"]):
        cli.refused("CONTEXT_STALE", *args)
    # an ID keeps its digest: the new context is a new interview, which asks D1 again
    cli.refused("CONTEXT_STALE", "begin-interview", SPEC, "--phase", "requirements",
                "--interview-id", "r1")
    cli("begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r2")
    assert cli("frontier", SPEC)["frontier"] == ["D1", "D2"]


def test_quick_mode_only_by_the_exact_authorization(cli: Cli) -> None:
    """"Only exact `--quick` authorization may bypass the interview. ... stale booleans, and
    legacy malformed quick state do not bypass the gate." (the framework)."""
    cli.progress.write_text(cli.progress.read_text().replace("mode: interactive",
                                                             "mode: quick"))
    cli.refused("QUICK_NOT_AUTHORIZED", "begin-interview", SPEC, "--phase", "requirements",
                "--interview-id", "r1")
    diags = cli("validate", SPEC, code=1)["diagnostics"]
    assert "QUICK_NOT_AUTHORIZED" in {d["code"] for d in diags}  # type: ignore[union-attr]
    cli.refused("USAGE", "mode", SPEC, "-q", exit_code=2)
    cli("mode", SPEC, "--interactive")
    cli("mode", SPEC, "--quick")
    assert "- Mode: quick\n- Authorization: the exact `mdgrill mode --quick` flag\n" in \
        cli.progress.read_text()
    assert cli("begin-interview", SPEC, "--phase", "requirements", "--interview-id",
               "r1")["status"] == "bypassed_quick"
    assert cli("check-delegation", SPEC, "--phase", "requirements", "--interview-id",
               "r1")["path"] == "quick"


def test_the_frontier_verbs_follow_the_tree(cli: Cli) -> None:
    """"frontier = every open node whose dependencies are resolved"; an ID outside the tree
    stays allowed ("asked decisions need no node") with a warning."""
    cli.node("D1")
    cli.node("D2", "--depends-on", "D1")
    cli.node("D3", "--investigating", "which mailer is in use")
    begin(cli)
    cli.refused("DECISION_BLOCKED", "open-frontier", SPEC, "--round", "1", "--decision-id", "D2")
    cli.refused("DECISION_INVESTIGATING", "open-frontier", SPEC, "--round", "1",
                "--decision-id", "D3")
    out = cli("open-frontier", SPEC, "--round", "1", "--decision-id", "D1", "--decision-id",
              "X1")
    assert any("X1 is not a node" in w for w in out["warnings"])  # type: ignore[union-attr]
    answer(cli, "D1")
    answer(cli, "X1", "kept elsewhere")
    cli.refused("DECISION_ALREADY_RECORDED", "open-frontier", SPEC, "--round", "2",
                "--decision-id", "D1")


def test_spawned_questions_come_first_and_other_needs_its_follow_up(cli: Cli) -> None:
    """"If the answer spawns sub-questions (dynamic queue), prepend them to the question
    queue." "Treat `Other` as input to a concrete next-layer decision." (the framework)."""
    cli.node("D1")
    cli.node("D2")
    begin(cli)
    ask(cli, 1, "D1")
    cli("record-answer", SPEC, "--decision-id", "D1", "--answer", "Per region", "--other")
    error = cli.refused("FRONTIER_NOT_ASKED", "await-confirmation", SPEC, "--decision-id", "C1",
                        "--approach", "A")
    codes = [p["code"] for p in error["problems"]]  # type: ignore[union-attr]
    assert "OTHER_WITHOUT_FOLLOWUP" in codes
    ask(cli, 1, "D2")
    answer(cli, "D2")
    cli.refused("OTHER_WITHOUT_FOLLOWUP", "await-confirmation", SPEC, "--decision-id", "C1",
                "--approach", "A")
    cli.node("D9", "--spawned-by", "D1")
    cli.node("D8")
    assert cli("frontier", SPEC)["frontier"] == ["D9", "D8"]
    ask(cli, 2, "D9", "D8")
    answer(cli, "D9")
    answer(cli, "D8")
    cli("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "A")


def test_revise_reopens_the_answers_that_depend_on_it(cli: Cli) -> None:
    """"call revise once with every affected decision ID; reopen affected nodes; invalidate
    dependent answers when necessary." (the framework)."""
    cli.node("D1")
    cli.node("D2", "--depends-on", "D1")
    cli.node("D3", "--spawned-by", "D2")
    begin(cli)
    ask(cli, 1, "D1")
    answer(cli, "D1")
    ask(cli, 2, "D2")
    answer(cli, "D2")
    ask(cli, 3, "D3")
    answer(cli, "D3")
    cli("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "A")
    out = cli("revise", SPEC, "--decision-id", "D1")
    assert (out["pending"], out["dependents"]) == (["D1"], ["D2", "D3"])
    assert out["previous_answers"] == {"D1": "First way", "D2": "First way", "D3": "First way"}
    assert "- Reopened: D1, D2, D3\n" in cli.progress.read_text()
    answer(cli, "D1", "Second way")
    ask(cli, 5, "D2")
    answer(cli, "D2")
    ask(cli, 6, "D3")
    answer(cli, "D3")
    # "return to final approval using the same confirmation ID"
    cli("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "B")


def test_out_of_scope_is_the_users_call(cli: Cli) -> None:
    """"Every branch is resolved or the user has explicitly placed it out of scope."."""
    cli.node("D1")
    cli.node("D4")
    begin(cli)
    ask(cli, 1, "D1")
    cli.refused("DECISION_NOT_ASKED", "out-of-scope", SPEC, "--decision-id", "D4", "--reply",
                "not now")
    cli.refused("CONTROL_ONLY_ANSWER", "out-of-scope", SPEC, "--decision-id", "D1", "--reply",
                "ok")
    cli("out-of-scope", SPEC, "--decision-id", "D1", "--reply", "Not in this release")
    assert "- Out of scope: D1 -> Not in this release\n" in cli.progress.read_text()


def test_ready_to_build_and_the_stop_choice(cli: Cli) -> None:
    """The elicitation skill: a `done` ends nothing by itself; "Ready to build the prompt?"
    with Ship / Keep asking / Refine a section."""
    cli.node("D1")
    cli.node("D2")
    begin(cli)
    ask(cli, 1, "D1", "D2")
    cli.refused("STOP_REQUESTED", "record-answer", SPEC, "--decision-id", "D1", "--answer",
                "that's enough")
    answer(cli, "D1")
    out = cli("record-stop", SPEC, "--choice", "ship")
    assert out["open"] == ["D2"] and "D2" in str(out["next"])
    assert "- Stop: ship\n" in cli.progress.read_text()


def test_a_record_out_of_step_with_its_log_is_an_error(cli: Cli) -> None:
    """No verb writes a file validate rejects: a record at round 1 while its log is at round 2
    is caught before the next open-frontier would write round 2 twice."""
    cli.node("D1")
    cli.node("D2", "--depends-on", "D1")
    begin(cli)
    ask(cli, 1, "D1")
    answer(cli, "D1")
    ask(cli, 2, "D2")
    cli.progress.write_text(cli.progress.read_text().replace("  round: 2\n", "  round: 1\n"))
    diags = cli("validate", SPEC, code=1)["diagnostics"]
    assert "ROUND_MISMATCH" in {d["code"] for d in diags}  # type: ignore[union-attr]


@pytest.mark.parametrize("verb", [
    ["record-answer", SPEC, "--decision-id", "D1", "--answer", b"caf\xe9"],
    ["term", "add", b"caf\xe9", "--definition", "x"],
    ["node", "add", SPEC, "D9", "--title", b"caf\xe9"],
    ["record-fact", SPEC, b"caf\xe9"],
])
def test_invalid_utf8_in_an_argument_is_refused_not_a_traceback(
        cli: Cli, verb: list[str | bytes]) -> None:
    before = cli.progress.read_bytes()
    argv = [a if isinstance(a, bytes) else a.encode() for a in verb]
    proc = subprocess.run([*[c.encode() for c in mdgrill_command()], b"--json", *argv],
                          cwd=cli.cwd, env=cli.env, capture_output=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert json.loads(proc.stdout)["error"]["code"] == "INVALID_INPUT"
    assert b"Traceback" not in proc.stderr
    assert cli.progress.read_bytes() == before
