"""Two branches that each ran rounds, merged by real git (issue 17): with the merge driver,
without it (then `mdgrill merge`), by rebase and cherry-pick; a decision answered two ways
stops the merge with markers around the two answers only; `verify` reads the history as a
graph, so the merge commit passes and a merge that lost a block does not."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from test_reliability import MDGRILL, make_repo

SPEC = "specs/a"
FILE = f"{SPEC}/.progress.md"


def run(repo: Path, env: dict[str, str], *argv: str) -> tuple[int, dict[str, object], str]:
    proc = subprocess.run([*MDGRILL, "--json", *argv], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=60)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout or "{}"), proc.stderr


def ok(repo: Path, env: dict[str, str], *argv: str) -> dict[str, object]:
    code, payload, err = run(repo, env, *argv)
    assert code == 0, (argv, payload, err)
    return payload


def git(repo: Path, env: dict[str, str], *argv: str, check: bool = True,
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *argv], cwd=repo, env=env, capture_output=True, text=True,
                          check=check)


def branches(tmp_path: Path, *, same_round: bool, driver: bool = True,
             theirs_d2: str | None = None) -> tuple[Path, dict[str, str]]:
    """main: D1 answered; D2 and D3 wait on it (and, with `same_round`, round 2 asks both).
    Branch ana adds D4 and answers D2; branch bob adds D5 and answers D3 (and D2 with
    `theirs_d2`). HEAD is ana."""
    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", SPEC, "--goal", "Promo codes at checkout")
    ok(repo, env, "node", "add", SPEC, "D1", "--title", "Who?", "--option", "All", "--option",
       "Members", "--recommend", "1")
    for i in (2, 3):
        ok(repo, env, "node", "add", SPEC, f"D{i}", "--title", f"Question {i}?",
           "--depends-on", "D1", "--option", "A", "--option", "B", "--recommend", "1")
    ok(repo, env, "begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1")
    ok(repo, env, "open-frontier", SPEC, "--round", "1", "--decision-id", "D1")
    ok(repo, env, "record-answer", SPEC, "--decision-id", "D1", "--answer", "All")
    if same_round:
        ok(repo, env, "open-frontier", SPEC, "--round", "2", "--decision-id", "D2",
           "--decision-id", "D3")
    if driver:
        ok(repo, env, "install-merge-driver")
    git(repo, env, "add", "-A")
    git(repo, env, "commit", "-qm", "base")
    git(repo, env, "branch", "-M", "main")
    for name, node, answers in (("ana", "D4", [("D2", "B")]),
                                ("bob", "D5", [("D3", "A")] + ([("D2", theirs_d2)]
                                                              if theirs_d2 else []))):
        git(repo, env, "checkout", "-qb", name, "main")
        ok(repo, env, "node", "add", SPEC, node, "--title", f"{name}'s question?", "--option",
           "A", "--option", "B")
        if not same_round:
            ok(repo, env, "open-frontier", SPEC, "--round", "2", "--decision-id", "D2",
               "--decision-id", "D3", "--decision-id", node)
        for decision, answer in answers:
            ok(repo, env, "record-answer", SPEC, "--decision-id", decision, "--answer", answer)
        git(repo, env, "commit", "-qam", f"{name}'s round")
    git(repo, env, "checkout", "-q", "ana")
    return repo, env


def _clean(repo: Path, env: dict[str, str]) -> str:
    text = (repo / FILE).read_text(encoding="utf-8")
    assert "<<<<<<<" not in text and ">>>>>>>" not in text
    assert ok(repo, env, "validate")["errors"] == 0
    return text


def test_two_branches_answering_one_round_merge_cleanly(tmp_path: Path) -> None:
    repo, env = branches(tmp_path, same_round=True)
    merge = git(repo, env, "merge", "bob", "-m", "merge bob")
    assert merge.returncode == 0, merge.stdout + merge.stderr
    text = _clean(repo, env)
    for expected in ("### D4: ana's question?", "### D5: bob's question?",
                     "- Decisions: D2 -> B", "- Decisions: D3 -> A"):
        assert text.count(expected) == 1, expected  # both sides' work, each once
    status = ok(repo, env, "status", SPEC)
    interview = status["interview"]
    assert isinstance(interview, dict) and interview["pending"] == []
    assert ok(repo, env, "verify")["ok"] is True  # the merge commit is the union of both


def test_two_branches_with_new_rounds_merge_with_theirs_renumbered(tmp_path: Path) -> None:
    repo, env = branches(tmp_path, same_round=False)
    merge = git(repo, env, "merge", "bob", "-m", "merge bob")
    assert merge.returncode == 0, merge.stdout + merge.stderr
    text = _clean(repo, env)
    log = text[text.index("## Interview Responses"):]
    assert log.count("### Requirements Grill - Round 2") == 1
    assert log.index("- Decisions: D2 -> B") < log.index("### Requirements Grill - Round 3") \
        < log.index("- Decisions: D3 -> A")  # ours, then theirs as round 3
    assert ok(repo, env, "status", SPEC)["interview"]["round"] == 3  # type: ignore[index]
    assert ok(repo, env, "verify")["ok"] is True


def test_a_decision_answered_two_ways_is_a_conflict_around_the_answers_only(
        tmp_path: Path) -> None:
    repo, env = branches(tmp_path, same_round=False, theirs_d2="A")
    merge = git(repo, env, "merge", "bob", "-m", "merge bob", check=False)
    assert merge.returncode != 0
    assert "D2: ours `B`, theirs `A`" in merge.stdout + merge.stderr
    text = (repo / FILE).read_text(encoding="utf-8")
    assert "<<<<<<< ours\n- Decisions: D2 -> B\n=======\n- Decisions: D2 -> A\n" \
        ">>>>>>> theirs\n" in text
    assert text.count("<<<<<<<") == 1  # nothing else is in conflict
    code, payload, _ = run(repo, env, "validate")
    assert code == 1
    message = payload["diagnostics"][0]["message"]  # type: ignore[index]
    assert "D2 was answered differently on the two sides" in message
    # the person keeps their answer; `mdgrill merge` checks that is all they did and reseals
    kept = text.replace("<<<<<<< ours\n- Decisions: D2 -> B\n=======\n", "") \
        .replace(">>>>>>> theirs\n", "")
    (repo / FILE).write_text(kept, encoding="utf-8")
    done = ok(repo, env, "merge")
    assert done["files"][0]["resolved"] == ["D2"]  # type: ignore[index]
    assert ok(repo, env, "validate")["errors"] == 0
    assert "UU" not in git(repo, env, "status", "--short").stdout
    git(repo, env, "commit", "-qm", "merge bob")
    assert ok(repo, env, "verify")["ok"] is True
    answers = {e["id"]: e["answer"] for e in ok(repo, env, "ledger", SPEC)["entries"]}  # type: ignore[union-attr]
    assert answers["D2"] == "A"


def test_a_resolution_that_changes_anything_else_is_not_sealed(tmp_path: Path) -> None:
    repo, env = branches(tmp_path, same_round=False, theirs_d2="A")
    git(repo, env, "merge", "bob", "-m", "merge bob", check=False)
    text = (repo / FILE).read_text(encoding="utf-8")
    forged = text.replace("<<<<<<< ours\n- Decisions: D2 -> B\n=======\n- Decisions: D2 -> A\n"
                          ">>>>>>> theirs\n", "- Decisions: D2 -> something else\n")
    (repo / FILE).write_text(forged, encoding="utf-8")
    code, payload, _ = run(repo, env, "merge")
    assert code == 1  # the markers are put back: neither side said "something else"
    assert "<<<<<<< ours" in (repo / FILE).read_text(encoding="utf-8")


def test_without_the_driver_mdgrill_merge_redoes_it_from_the_index(tmp_path: Path) -> None:
    repo, env = branches(tmp_path, same_round=True, driver=False)
    merge = git(repo, env, "merge", "bob", "-m", "merge bob", check=False)
    assert merge.returncode != 0  # git's own line merge conflicts on the record and the seal
    assert "<<<<<<<" in (repo / FILE).read_text(encoding="utf-8")
    done = ok(repo, env, "merge")
    assert done["files"][0]["merged"] is True  # type: ignore[index]
    _clean(repo, env)
    assert git(repo, env, "status", "--short").stdout.startswith("M ")  # staged, resolved
    git(repo, env, "commit", "-qm", "merge bob")
    assert ok(repo, env, "verify")["ok"] is True


def test_rebase_and_cherry_pick_go_through_the_driver(tmp_path: Path) -> None:
    repo, env = branches(tmp_path, same_round=False)
    rebase = git(repo, env, "rebase", "bob", check=False)
    assert rebase.returncode == 0, rebase.stdout + rebase.stderr
    text = _clean(repo, env)
    assert "- Decisions: D2 -> B" in text and "- Decisions: D3 -> A" in text
    assert ok(repo, env, "verify")["ok"] is True
    git(repo, env, "checkout", "-qb", "picked", "main")
    git(repo, env, "cherry-pick", "bob")
    pick = git(repo, env, "cherry-pick", "ana@{1}", check=False)  # ana before the rebase
    assert pick.returncode == 0, pick.stdout + pick.stderr
    _clean(repo, env)


def test_what_mdgrill_cannot_merge_is_left_to_git_with_both_sides(tmp_path: Path) -> None:
    repo, env = branches(tmp_path, same_round=True)
    for branch, goal in (("bob", "Promo codes for members"), ("ana", "Promo codes for all")):
        git(repo, env, "checkout", "-q", branch)
        path = repo / FILE
        path.write_text(path.read_text(encoding="utf-8").replace(
            "goal: Promo codes at checkout", f"goal: {goal}"), encoding="utf-8")
        git(repo, env, "commit", "-qam", f"{branch} rewords the goal")
    merge = git(repo, env, "merge", "bob", "-m", "merge bob", check=False)
    assert merge.returncode != 0
    assert "not merged by mdgrill (`goal:` was changed on both sides" in \
        merge.stderr + merge.stdout
    text = (repo / FILE).read_text(encoding="utf-8")
    assert "<<<<<<< ours" in text and ">>>>>>> theirs" in text  # git's own conflict
    for kept in ("goal: Promo codes for all", "goal: Promo codes for members",
                 "### D4: ana's question?", "### D5: bob's question?"):
        assert kept in text  # nothing of either side is lost


def test_verify_refuses_a_merge_commit_that_lost_a_block(tmp_path: Path) -> None:
    repo, env = branches(tmp_path, same_round=False)
    git(repo, env, "merge", "-s", "ours", "--no-commit", "bob")
    # a hand "resolution" keeping ours only: bob's round is gone
    git(repo, env, "commit", "-qm", "merge bob, dropping its round")
    code, payload, _ = run(repo, env, "verify")
    assert code == 1
    problems = [d for d in payload["diagnostics"] if d["code"] == "ROUND_EDITED"]  # type: ignore[union-attr]
    assert problems and "merge commit" in problems[0]["message"]
    assert "of its parent" in problems[0]["message"]


def test_an_edit_put_back_by_a_later_commit_closes_the_episode(tmp_path: Path) -> None:
    # Issue 17, "a way back to green": the edit stays in history, reported as restored.
    repo, env = branches(tmp_path, same_round=True)
    path = repo / FILE
    path.write_text(path.read_text(encoding="utf-8").replace("- Decisions: D1 -> All",
                                                             "- Decisions: D1 -> Members"),
                    encoding="utf-8")
    git(repo, env, "commit", "-qam", "an edit of a recorded answer")
    code, payload, _ = run(repo, env, "verify")
    assert code == 1
    message = payload["diagnostics"][0]["message"]  # type: ignore[index]
    assert "git revert" in message  # the way back, named
    # restore will not launder it: its good copy (HEAD) holds the edit itself
    before = path.read_bytes()
    code, payload, _ = run(repo, env, "restore", SPEC)
    assert code == 2 and payload["error"]["code"] == "ROUND_EDITED"  # type: ignore[index]
    assert path.read_bytes() == before
    git(repo, env, "revert", "--no-edit", "HEAD")
    code, payload, _ = run(repo, env, "verify")
    assert code == 0
    (restored,) = payload["diagnostics"]  # type: ignore[misc]
    assert restored["code"] == "ROUND_RESTORED" and restored["severity"] == "warning"
    shas = git(repo, env, "log", "--format=%h", "-2", "--abbrev=10").stdout.split()
    assert all(sha in restored["message"] for sha in shas)  # both commits named


def test_one_id_taken_on_both_branches_is_renamed_on_theirs(tmp_path: Path) -> None:
    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", SPEC, "--goal", "Promo codes")
    ok(repo, env, "install-merge-driver")
    git(repo, env, "add", "-A")
    git(repo, env, "commit", "-qm", "base")
    git(repo, env, "branch", "-M", "main")
    for name, title in (("ana", "Who can use a code?"), ("bob", "Do codes expire?")):
        git(repo, env, "checkout", "-qb", name, "main")
        ok(repo, env, "node", "add", SPEC, "D1", "--title", title, "--option", "A", "--option",
           "B")
        ok(repo, env, "node", "add", SPEC, "D2", "--title", f"{name}'s follow-up?",
           "--depends-on", "D1", "--option", "A", "--option", "B")
        git(repo, env, "commit", "-qam", name)
    git(repo, env, "checkout", "-q", "ana")
    merge = git(repo, env, "merge", "bob", "-m", "merge bob")
    assert merge.returncode == 0, merge.stdout + merge.stderr
    text = _clean(repo, env)
    assert "### D1: Who can use a code?" in text and "### D2: ana's follow-up?" in text
    renamed = re.findall(r"### (D[0-9a-f]{4,}): Do codes expire\?", text)
    follow = re.findall(r"### (D[0-9a-f]{4,}): bob's follow-up\?\n- Depends on: (\S+)", text)
    assert renamed and follow and follow[0][1] == renamed[0]  # the reference moved with it


def test_node_add_without_an_id_takes_one_no_other_branch_will(tmp_path: Path) -> None:
    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", SPEC, "--goal", "Promo codes")
    first = ok(repo, env, "node", "add", SPEC, "--title", "Who?", "--option", "A", "--option",
               "B")
    second = ok(repo, env, "node", "add", SPEC, "--title", "Who?", "--option", "A", "--option",
                "B")
    assert re.fullmatch(r"D[0-9a-f]{4}", str(first["node"]))
    assert first["node"] != second["node"]  # the same question twice: two IDs


GLOSSARY = "contexts/ordering/CONTEXT.md"


def _glossary_branches(tmp_path: Path, bob_redefines: bool) -> tuple[Path, dict[str, str]]:
    repo, env = make_repo(tmp_path)
    path = repo / GLOSSARY
    path.parent.mkdir(parents=True)
    path.write_text("# Ordering\n\n## Language\n\n**Promo Code**:\nA short code a customer "
                    "enters at checkout.\n_Avoid_: coupon\n", encoding="utf-8")
    ok(repo, env, "install-merge-driver")
    git(repo, env, "add", "-A")
    git(repo, env, "commit", "-qm", "base")
    git(repo, env, "branch", "-M", "main")
    for name, term, avoid in (("ana", "Cart", "basket"), ("bob", "Order", "purchase")):
        git(repo, env, "checkout", "-qb", name, "main")
        text = path.read_text(encoding="utf-8").replace("_Avoid_: coupon",
                                                        f"_Avoid_: coupon, {avoid}")
        if name == "bob" and bob_redefines:
            text = text.replace("enters at checkout.", "types at checkout for a discount.")
        path.write_text(text + f"\n**{term}**:\nWhat {name} adds.\n", encoding="utf-8")
        git(repo, env, "commit", "-qam", name)
    git(repo, env, "checkout", "-q", "ana")
    return repo, env


def test_two_branches_adding_terms_merge_them_all(tmp_path: Path) -> None:
    repo, env = _glossary_branches(tmp_path, bob_redefines=False)
    merge = git(repo, env, "merge", "bob", "-m", "merge bob")
    assert merge.returncode == 0, merge.stdout + merge.stderr
    text = (repo / GLOSSARY).read_text(encoding="utf-8")
    assert "<<<<<<<" not in text
    for expected in ("**Promo Code**:", "**Cart**:", "**Order**:",
                     "_Avoid_: coupon, basket, purchase"):  # the _Avoid_ lists unite
        assert text.count(expected) == 1, expected
    assert ok(repo, env, "validate")["errors"] == 0
    assert ok(repo, env, "verify")["ok"] is True


def test_a_term_defined_two_ways_is_a_conflict_around_the_entries(tmp_path: Path) -> None:
    repo, env = _glossary_branches(tmp_path, bob_redefines=True)
    merge = git(repo, env, "merge", "bob", "-m", "merge bob", check=False)
    assert merge.returncode != 0
    assert "terms defined differently" in merge.stderr + merge.stdout
    text = (repo / GLOSSARY).read_text(encoding="utf-8")
    assert text.count("<<<<<<< ours") == 1
    conflict = text[text.index("<<<<<<< ours"):text.index(">>>>>>> theirs")]
    assert "enters at checkout." in conflict and "types at checkout" in conflict
    assert "**Cart**:" not in conflict and "**Cart**:" in text and "**Order**:" in text


def test_phases_are_held_to_their_own_parents() -> None:
    # Branch b reopened research; branch c, from a, is still at requirements. In log order c
    # follows b, and read as one line c would move the phase forward without an approval.
    from mdgrill.core.history import PhaseWatch

    def version(phase: str) -> bytes:
        return f"---\nmdgrill: 1\nphase: {phase}\nartifact: x\n---\n".encode()
    versions = [("a" * 40, version("requirements")), ("b" * 40, version("research")),
                ("c" * 40, version("requirements"))]
    parents = {"a" * 40: [], "b" * 40: ["a" * 40], "c" * 40: ["a" * 40]}
    linear = PhaseWatch(versions, "p.md", set(), {"b" * 40})
    list(linear)
    assert [d.code for d in linear.diagnostics] == ["PHASE_NOT_APPROVED"]  # the old misreading
    graph = PhaseWatch(versions, "p.md", set(), {"b" * 40}, parents)
    list(graph)
    assert graph.diagnostics == []
