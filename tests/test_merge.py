"""Two branches that each ran rounds, merged by real git (issue 17): with the merge driver,
without it (then `mdgrill merge`), by rebase and cherry-pick; a decision answered two ways
stops the merge with markers around the two answers only; `verify` reads the history as a
graph, so the merge commit passes and a merge that lost a block does not."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
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
    interview = ok(repo, env, "status", SPEC)["interview"]
    assert interview["round"] == 3  # type: ignore[index]
    # each side's unanswered question stays pending (ours, D4, too: issue 31.5)
    assert interview["pending"] == ["D4", "D5"]  # type: ignore[index]
    assert ok(repo, env, "verify")["ok"] is True


BY = "- By: D2 -> Test <test@example.com>"
CONFLICT = (f"<<<<<<< ours\n- Decisions: D2 -> B\n{BY}\n=======\n- Decisions: D2 -> A\n{BY}\n"
            ">>>>>>> theirs\n")


@pytest.mark.parametrize(("same_round", "keep"), [(False, "B"), (False, "A"), (True, "B"),
                                                  (True, "A")])
def test_a_decision_answered_two_ways_is_a_conflict_around_the_answers_only(
        tmp_path: Path, same_round: bool, keep: str) -> None:
    # Issue 33 point 3: the markers hold the two answers and nothing else (our answer is not
    # also above them); keeping either one, `mdgrill merge` reseals, the merge commit
    # verifies, and the ledger has that one answer.
    repo, env = branches(tmp_path, same_round=same_round, theirs_d2="A")
    merge = git(repo, env, "merge", "bob", "-m", "merge bob", check=False)
    assert merge.returncode != 0
    assert "D2: ours `B`, theirs `A`" in merge.stdout + merge.stderr
    text = (repo / FILE).read_text(encoding="utf-8")
    assert CONFLICT in text
    assert text.count("<<<<<<<") == 1  # nothing else is in conflict
    assert text.count("- Decisions: D2 ->") == 2  # each answer once, inside the markers
    code, payload, _ = run(repo, env, "validate")
    assert code == 1
    message = payload["diagnostics"][0]["message"]  # type: ignore[index]
    assert "conflict markers" in message or "answered differently" in message
    kept = text.replace(CONFLICT, f"- Decisions: D2 -> {keep}\n{BY}\n")
    (repo / FILE).write_text(kept, encoding="utf-8")
    done = ok(repo, env, "merge")
    assert done["files"][0]["resolved"] == ["D2"]  # type: ignore[index]
    assert ok(repo, env, "validate")["errors"] == 0
    assert "UU" not in git(repo, env, "status", "--short").stdout
    git(repo, env, "commit", "-qm", "merge bob")
    assert ok(repo, env, "verify")["ok"] is True
    final = (repo / FILE).read_text(encoding="utf-8")
    assert final.count("- Decisions: D2 ->") == 1
    answers = [e for e in ok(repo, env, "ledger", SPEC)["entries"]  # type: ignore[union-attr]
               if e["id"] == "D2"]
    assert [e["answer"] for e in answers] == [keep]


def test_a_resolution_that_changes_anything_else_is_not_sealed(tmp_path: Path) -> None:
    repo, env = branches(tmp_path, same_round=False, theirs_d2="A")
    git(repo, env, "merge", "bob", "-m", "merge bob", check=False)
    text = (repo / FILE).read_text(encoding="utf-8")
    forged = text.replace(CONFLICT, f"- Decisions: D2 -> something else\n{BY}\n")
    assert forged != text
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


def test_a_line_changed_two_ways_is_marked_alone_and_resolved_by_hand(tmp_path: Path) -> None:
    # Issue 33 point 1: "the merge stops as a conflict with markers on exactly those lines".
    repo, env = branches(tmp_path, same_round=True)
    for branch, goal in (("bob", "Promo codes for members"), ("ana", "Promo codes for all")):
        git(repo, env, "checkout", "-q", branch)
        path = repo / FILE
        path.write_text(path.read_text(encoding="utf-8").replace(
            "goal: Promo codes at checkout", f"goal: {goal}"), encoding="utf-8")
        git(repo, env, "commit", "-qam", f"{branch} rewords the goal")
    merge = git(repo, env, "merge", "bob", "-m", "merge bob", check=False)
    assert merge.returncode != 0
    assert "the front matter changed two ways" in merge.stderr + merge.stdout
    text = (repo / FILE).read_text(encoding="utf-8")
    clash = ("<<<<<<< ours\ngoal: Promo codes for all\n=======\ngoal: Promo codes for members\n"
             ">>>>>>> theirs\n")
    assert clash in text and text.count("<<<<<<<") == 1  # exactly those lines
    for kept in ("### D4: ana's question?", "### D5: bob's question?", "- Decisions: D2 -> B",
                 "- Decisions: D3 -> A"):
        assert text.count(kept) == 1, kept  # the rest merged as without the clash
    (repo / FILE).write_text(text.replace(clash, "goal: Promo codes for everyone\n"),
                             encoding="utf-8")
    done = ok(repo, env, "merge")
    assert done["files"][0]["resolved"] == ["the front matter"]  # type: ignore[index]
    assert ok(repo, env, "validate")["errors"] == 0
    git(repo, env, "commit", "-qm", "merge bob")
    assert ok(repo, env, "verify")["ok"] is True


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


# -- issue 33: nothing either side wrote is lost ---------------------------------------------

PROSE = {  # branch -> (old, new) edits outside the log, each a line only that branch wrote
    "ana": [("Promo codes at checkout\n\n## Design Tree",
             "Promo codes at checkout\n\nAna's paragraph on the goal.\n\n## Design Tree"),
            ("mode: interactive\n", "# ana: the mode stays interactive\nmode: interactive\n"),
            ("  - Members\n", "  - Members\n\nAna's note on D1.\n")],
    "bob": [("Promo codes at checkout\n\n## Design Tree",
             "Promo codes at checkout\n\nBob's paragraph on the goal.\n\n## Design Tree"),
            ("spec: a\n", "spec: a\n# bob: one spec per team\n"),
            ("### D2: Question 2?\n", "### D2: Question 2?\nBob's note on D2.\n"),
            (None, "\n## Notes\n\nBob's own section.\n")],
}
WRITTEN = ["Ana's paragraph on the goal.", "# ana: the mode stays interactive", "Ana's note on D1.",
           "Bob's paragraph on the goal.", "# bob: one spec per team", "Bob's note on D2.",
           "## Notes", "Bob's own section."]


def _write_prose(repo: Path, env: dict[str, str]) -> None:
    for branch, edits in PROSE.items():
        git(repo, env, "checkout", "-q", branch)
        path = repo / FILE
        text = path.read_text(encoding="utf-8")
        for old, new in edits:
            assert old is None or old in text, old
            text = text + new if old is None else text.replace(old, new, 1)
        path.write_text(text, encoding="utf-8")
        git(repo, env, "commit", "-qam", f"{branch} writes prose")
    git(repo, env, "checkout", "-q", "ana")


@pytest.mark.parametrize("driver", [True, False])
def test_prose_either_side_wrote_outside_the_log_is_kept(tmp_path: Path, driver: bool) -> None:
    # Issue 33 point 1: a paragraph added to the goal, a section of its own, a comment in the
    # front matter, node notes: all of both sides' in the result, with or without the driver.
    repo, env = branches(tmp_path, same_round=True, driver=driver)
    _write_prose(repo, env)
    merge = git(repo, env, "merge", "bob", "-m", "merge bob", check=False)
    if driver:
        assert merge.returncode == 0, merge.stdout + merge.stderr
    else:
        assert merge.returncode != 0
        done = ok(repo, env, "merge")
        assert [f["path"] for f in done["files"]] == [FILE]  # type: ignore[union-attr]
        git(repo, env, "commit", "-qm", "merge bob")
    text = _clean(repo, env)
    for line in [*WRITTEN, "- Decisions: D2 -> B", "- Decisions: D3 -> A"]:
        assert text.count(line + "\n") == 1, line
    assert text.index("Ana's paragraph") < text.index("Bob's paragraph") < \
        text.index("## Design Tree")  # both stay in the goal
    assert git(repo, env, "status", "--short").stdout == ""
    assert ok(repo, env, "verify")["ok"] is True


def _glossaries(repo: Path, env: dict[str, str]) -> None:
    """Each branch adds a term to CONTEXT.md and a context to CONTEXT-MAP.md."""
    for branch, term in (("ana", "Cart"), ("bob", "Order")):
        git(repo, env, "checkout", "-q", branch)
        glossary = repo / "CONTEXT.md"
        glossary.write_text(glossary.read_text(encoding="utf-8")
                            + f"\n**{term}**:\nWhat {branch} adds.\n", encoding="utf-8")
        folder = repo / "contexts" / branch
        folder.mkdir(parents=True)
        (folder / "CONTEXT.md").write_text(f"# {branch}\n", encoding="utf-8")
        cmap = repo / "CONTEXT-MAP.md"
        cmap.write_text(cmap.read_text(encoding="utf-8")
                        + f"- [{branch}](contexts/{branch}/CONTEXT.md): {branch}'s part\n",
                        encoding="utf-8")
        git(repo, env, "add", "-A")
        git(repo, env, "commit", "-qm", f"{branch}'s term and context")
    git(repo, env, "checkout", "-q", "ana")


def _glossary_base(repo: Path, env: dict[str, str]) -> None:
    (repo / "CONTEXT.md").write_text("# Shop\n\n## Language\n\n**Promo Code**:\nA code.\n",
                                     encoding="utf-8")
    (repo / "CONTEXT-MAP.md").write_text("# Context map\n\n## Contexts\n\n", encoding="utf-8")


def _three_files_in_conflict(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """ana merging bob without the driver: .progress.md, CONTEXT.md, CONTEXT-MAP.md conflict."""
    repo, env = branches(tmp_path, same_round=True, driver=False)
    git(repo, env, "checkout", "-q", "main")
    _glossary_base(repo, env)
    git(repo, env, "add", "-A")
    git(repo, env, "commit", "-qm", "glossaries")
    for branch in ("ana", "bob"):
        git(repo, env, "checkout", "-q", branch)
        git(repo, env, "merge", "-q", "main", "-m", "glossaries")
    _glossaries(repo, env)
    merge = git(repo, env, "merge", "bob", "-m", "merge bob", check=False)
    assert merge.returncode != 0
    unmerged = git(repo, env, "diff", "--name-only", "--diff-filter=U").stdout.split()
    assert sorted(unmerged) == ["CONTEXT-MAP.md", "CONTEXT.md", FILE]
    return repo, env


def test_mdgrill_merge_merges_every_file_the_driver_would(tmp_path: Path) -> None:
    # Issue 33 point 2: without the driver, `mdgrill merge` merges .progress.md, CONTEXT.md
    # and CONTEXT-MAP.md, and says what it did with each.
    repo, env = _three_files_in_conflict(tmp_path)
    proc = subprocess.run([*MDGRILL, "merge"], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in ("CONTEXT-MAP.md: merged", "CONTEXT.md: merged", f"{FILE}: merged"):
        assert name in proc.stdout, proc.stdout
    assert "UU" not in git(repo, env, "status", "--short").stdout
    glossary = (repo / "CONTEXT.md").read_text(encoding="utf-8")
    cmap = (repo / "CONTEXT-MAP.md").read_text(encoding="utf-8")
    assert "<<<<<<<" not in glossary + cmap
    assert "**Cart**:" in glossary and "**Order**:" in glossary
    assert "- [ana](" in cmap and "- [bob](" in cmap
    git(repo, env, "commit", "-qm", "merge bob")
    assert ok(repo, env, "validate")["errors"] == 0
    assert ok(repo, env, "verify")["ok"] is True


def test_mdgrill_merge_json_names_each_file(tmp_path: Path) -> None:
    repo, env = _three_files_in_conflict(tmp_path)
    files = ok(repo, env, "merge")["files"]
    assert sorted(f["path"] for f in files) == ["CONTEXT-MAP.md", "CONTEXT.md", FILE]  # type: ignore[union-attr]
    assert all(f["merged"] is True and f["source"] == "the index" for f in files)  # type: ignore[union-attr]


def test_a_resolution_after_the_stages_are_gone_is_sealed_and_keeps_the_bom(
        tmp_path: Path) -> None:
    # Issue 33 point 3: the person resolved in an editor and ran `git add` (the index has no
    # stages now); `mdgrill merge` takes the three versions from the commits being merged.
    repo, env = branches(tmp_path, same_round=True, theirs_d2="A")
    for branch in ("main", "ana", "bob"):  # every version carries a BOM
        git(repo, env, "checkout", "-q", branch)
        path = repo / FILE
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().lstrip(b"\xef\xbb\xbf"))
        git(repo, env, "commit", "-qam", "a BOM", check=False)
    git(repo, env, "checkout", "-q", "ana")
    git(repo, env, "merge", "bob", "-m", "merge bob", check=False)
    raw = (repo / FILE).read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # the driver kept it
    text = raw.decode("utf-8-sig")
    assert CONFLICT in text
    git(repo, env, "checkout", "--conflict=merge", FILE)  # markers recreated, as a person may
    text = (repo / FILE).read_bytes().decode("utf-8-sig")
    assert CONFLICT in text
    (repo / FILE).write_bytes(b"\xef\xbb\xbf" + text.replace(
        CONFLICT, f"- Decisions: D2 -> A\n{BY}\n").encode("utf-8"))
    git(repo, env, "add", FILE)  # the stages are gone
    assert git(repo, env, "ls-files", "-u").stdout == ""
    done = ok(repo, env, "merge", FILE)
    entry = done["files"][0]  # type: ignore[index]
    assert entry["resolved"] == ["D2"] and entry["source"] == "the commits being merged"
    assert (repo / FILE).read_bytes().startswith(b"\xef\xbb\xbf")
    assert ok(repo, env, "validate")["errors"] == 0
    git(repo, env, "commit", "-qm", "merge bob")
    assert ok(repo, env, "verify")["ok"] is True


def test_markers_left_in_the_file_are_not_sealed(tmp_path: Path) -> None:
    repo, env = branches(tmp_path, same_round=True, theirs_d2="A")
    git(repo, env, "merge", "bob", "-m", "merge bob", check=False)
    git(repo, env, "add", FILE)  # added with the markers still in
    code, payload, _ = run(repo, env, "merge", FILE)
    assert code == 1
    assert payload["files"][0]["conflicts"][0]["decision"] == "D2"  # type: ignore[index]
    assert "<<<<<<< ours" in (repo / FILE).read_text(encoding="utf-8")


def test_three_branches_merged_one_after_another_stay_valid(tmp_path: Path) -> None:
    # Issue 33: three or more branches, each with rounds, nodes and terms, merged in turn.
    repo, env = branches(tmp_path, same_round=False)
    git(repo, env, "checkout", "-q", "main")
    _glossary_base(repo, env)
    git(repo, env, "add", "-A")
    git(repo, env, "commit", "-qm", "glossary")
    git(repo, env, "checkout", "-qb", "cy", "main")
    ok(repo, env, "node", "add", SPEC, "D6", "--title", "cy's question?", "--option", "A",
       "--option", "B")
    ok(repo, env, "open-frontier", SPEC, "--round", "2", "--decision-id", "D6")
    ok(repo, env, "record-answer", SPEC, "--decision-id", "D6", "--answer", "B")
    git(repo, env, "commit", "-qam", "cy's round")
    for branch in ("ana", "bob", "cy"):
        git(repo, env, "checkout", "-q", branch)
        if branch != "cy":
            git(repo, env, "merge", "-q", "main", "-m", "glossary")
        glossary = repo / "CONTEXT.md"
        glossary.write_text(glossary.read_text(encoding="utf-8")
                            + f"\n**Term {branch}**:\nWhat {branch} adds.\n", encoding="utf-8")
        git(repo, env, "commit", "-qam", f"{branch}'s term")
    git(repo, env, "checkout", "-q", "main")
    for branch in ("ana", "bob", "cy"):
        merge = git(repo, env, "merge", branch, "-m", f"merge {branch}", check=False)
        assert merge.returncode == 0, merge.stdout + merge.stderr
        assert ok(repo, env, "validate")["errors"] == 0
        assert ok(repo, env, "verify")["ok"] is True
    text = _clean(repo, env)
    log = text[text.index("## Interview Responses"):]
    assert [int(n) for n in re.findall(r"Round ([0-9]+)", log)] == [1, 2, 3, 4]
    for line in ("- Decisions: D2 -> B", "- Decisions: D3 -> A", "- Decisions: D6 -> B",
                 "### D4: ana's question?", "### D5: bob's question?",
                 "### D6: cy's question?"):
        assert text.count(line) == 1, line
    glossary = (repo / "CONTEXT.md").read_text(encoding="utf-8")
    assert all(f"**Term {b}**:" in glossary for b in ("ana", "bob", "cy"))


def test_cherry_pick_and_rebase_without_the_driver_then_mdgrill_merge(tmp_path: Path) -> None:
    repo, env = branches(tmp_path, same_round=True, driver=False)
    _write_prose(repo, env)
    git(repo, env, "checkout", "-qb", "picked", "ana")
    pick = git(repo, env, "cherry-pick", "main..bob", check=False)  # bob's round, his prose
    for _ in range(3):  # each picked commit that conflicts: `mdgrill merge`, continue
        if pick.returncode == 0:
            break
        ok(repo, env, "merge")
        pick = git(repo, env, "-c", "core.editor=true", "cherry-pick", "--continue",
                   check=False)
    assert pick.returncode == 0, pick.stdout + pick.stderr
    text = _clean(repo, env)
    assert "Bob's own section." in text and "Ana's note on D1." in text
    git(repo, env, "checkout", "-q", "ana")
    rebase = git(repo, env, "rebase", "bob", check=False)
    for _ in range(4):  # each replayed commit that conflicts: `mdgrill merge`, continue
        if rebase.returncode == 0:
            break
        ok(repo, env, "merge")
        rebase = git(repo, env, "-c", "core.editor=true", "rebase", "--continue", check=False)
    assert rebase.returncode == 0, rebase.stdout + rebase.stderr
    text = _clean(repo, env)
    for line in [*WRITTEN, "- Decisions: D2 -> B", "- Decisions: D3 -> A"]:
        assert text.count(line + "\n") == 1, line
    assert ok(repo, env, "verify")["ok"] is True


def test_the_driver_finds_mdgrill_on_path_and_falls_back_to_git(tmp_path: Path) -> None:
    # Issue 33: the driver command does not depend on one virtualenv's absolute path.
    repo, env = branches(tmp_path, same_round=True)
    driver = git(repo, env, "config", "merge.mdgrill.driver").stdout.strip()
    assert driver.startswith("if command -v mdgrill >/dev/null 2>&1; then mdgrill merge-file")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    used = tmp_path / "used"
    wrapper = bin_dir / "mdgrill"
    wrapper.write_text(f"#!/bin/sh\necho on-path >> '{used}'\nexec {' '.join(MDGRILL)} \"$@\"\n",
                       encoding="utf-8")
    wrapper.chmod(0o755)
    on_path = {**env, "PATH": f"{bin_dir}:{env['PATH']}"}
    merge = git(repo, on_path, "merge", "bob", "-m", "merge bob", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert used.read_text(encoding="utf-8").split() == ["on-path"]
    _clean(repo, env)
    # a teammate's clone: this venv's Python is not there and mdgrill is not on PATH; git's
    # own line merge runs, and both sides stay in the file (in its markers)
    git(repo, env, "reset", "-q", "--hard", "HEAD~1")
    python = driver.split("elif [ -x ", 1)[1].split(" ]", 1)[0]
    git(repo, env, "config", "merge.mdgrill.driver", driver.replace(python, "/nonexistent/python"))
    merge = git(repo, env, "merge", "bob", "-m", "merge bob", check=False)
    assert merge.returncode != 0
    text = (repo / FILE).read_text(encoding="utf-8")
    assert "<<<<<<< ours" in text and "### D4: ana's question?" in text and \
        "### D5: bob's question?" in text
    done = ok(repo, env, "merge")  # and `mdgrill merge` finishes it
    assert done["files"][0]["merged"] is True  # type: ignore[index]
    _clean(repo, env)


def test_install_merge_driver_takes_a_command(tmp_path: Path) -> None:
    repo, env = make_repo(tmp_path)
    payload = ok(repo, env, "install-merge-driver", "--command", "uvx mdgrill")
    assert payload["driver"] == "uvx mdgrill merge-file %O %A %B %P"
    assert git(repo, env, "config", "merge.mdgrill.driver").stdout.strip() == payload["driver"]
    attributes = (repo / ".gitattributes").read_text(encoding="utf-8").splitlines()
    assert "CONTEXT-MAP.md merge=mdgrill" in attributes


def test_a_glossary_whose_description_changed_merges_line_by_line(tmp_path: Path) -> None:
    # Issue 33 point 1 for CONTEXT.md: bob (theirs) also describes the context; his text and
    # both sides' terms are in the result (it used to be left to git whole).
    repo, env = _glossary_branches(tmp_path, bob_redefines=False)
    path = repo / GLOSSARY
    git(repo, env, "checkout", "-q", "bob")
    path.write_text(path.read_text(encoding="utf-8").replace(
        "# Ordering\n", "# Ordering\n\nHow customers order, as bob sees it.\n"), encoding="utf-8")
    git(repo, env, "commit", "-qam", "bob describes the context")
    git(repo, env, "checkout", "-q", "ana")
    merge = git(repo, env, "merge", "bob", "-m", "merge bob")
    assert merge.returncode == 0, merge.stdout + merge.stderr
    text = path.read_text(encoding="utf-8")
    for line in ("How customers order, as bob sees it.", "**Cart**:", "**Order**:",
                 "**Promo Code**:"):
        assert text.count(line) == 1, line
    assert "<<<<<<<" not in text
    assert ok(repo, env, "verify")["ok"] is True


def test_merge_file_of_a_missing_version_is_bad_input(tmp_path: Path) -> None:
    repo, env = make_repo(tmp_path)
    (repo / "ours.md").write_text("ours\n", encoding="utf-8")
    code, payload, err = run(repo, env, "merge-file", "gone.md", "ours.md", "gone.md", FILE)
    assert code == 2 and payload["error"]["code"] == "NOT_A_FILE"  # type: ignore[index]
    assert (repo / "ours.md").read_text(encoding="utf-8") == "ours\n"  # nothing written


TYPED = "- Decisions: D2 -> typed by hand"
ROUND_EDITED = ("ROUND_EDITED: {} log does not match its own seal (a recorded block was edited "
                "by hand)")


def test_a_side_whose_log_breaks_its_own_seal_is_left_to_git(tmp_path: Path) -> None:
    """A line typed by hand into the log on one branch (that file alone fails `validate` with
    ROUND_EDITED): the driver does not merge and reseal it, on either side. It leaves git's
    own line merge of the three versions in the file, says why and what to do, and exits 1,
    so git holds the file in conflict; `mdgrill merge` leaves it as it is, for the same
    reason. Called as git calls it, `merge-file` writes OURS only as git's line merge would."""
    repo, env = branches(tmp_path, same_round=True)
    git(repo, env, "checkout", "-q", "bob")
    path = repo / FILE
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("- Asked: D2, D3\n", f"- Asked: D2, D3\n{TYPED}\n", 1),
                    encoding="utf-8")
    code, payload, _ = run(repo, env, "validate", SPEC)
    assert code == 1 and "ROUND_EDITED" in json.dumps(payload)
    git(repo, env, "commit", "-qam", "bob types an answer into the open round")
    for branch, other, who in (("ana", "bob", "their"), ("bob", "ana", "our")):
        git(repo, env, "checkout", "-q", branch)
        merge = git(repo, env, "merge", other, "-m", f"merge {other}", check=False)
        assert merge.returncode != 0
        said = merge.stdout + merge.stderr
        assert f"not merged by mdgrill ({ROUND_EDITED.format(who)}" in said, said
        assert "`mdgrill restore`" in said and "`mdgrill amend`" in said
        assert git(repo, env, "status", "--short", "--", FILE).stdout.startswith("UU ")
        stages = []
        for n in (1, 2, 3):
            stage = repo / f".merge_file_{n}"  # where git puts a driver's versions
            stage.write_bytes(subprocess.run(["git", "cat-file", "blob", f":{n}:{FILE}"],
                                             cwd=repo, env=env, capture_output=True,
                                             check=True).stdout)
            stages.append(str(stage))
        line_merge = git(repo, env, "merge-file", "-p", "-L", "ours", "-L", "base", "-L",
                         "theirs", stages[1], stages[0], stages[2], check=False).stdout
        left = path.read_text(encoding="utf-8")
        assert left == line_merge  # git's own merge, both sides whole: nothing resealed
        assert "<<<<<<< ours" in left and left.count(TYPED) == 1
        code, payload, _ = run(repo, env, "merge")
        assert code == 1
        [entry] = payload["files"]  # type: ignore[misc]
        assert (entry["path"], entry["merged"]) == (FILE, False)
        assert entry["reason"].startswith(ROUND_EDITED.format(who))
        assert path.read_text(encoding="utf-8") == left  # left as it is
        # the driver itself, as git runs it: OURS gets git's line merge, exit 1, the reason
        ours = repo / ".merge_file_ours"
        ours.write_bytes(Path(stages[1]).read_bytes())
        code, payload, err = run(repo, env, "merge-file", stages[0], str(ours), stages[2],
                                 FILE)
        assert code == 1 and payload["merged"] is False
        assert str(payload["reason"]).startswith(ROUND_EDITED.format(who))
        assert f"{FILE}: not merged by mdgrill (ROUND_EDITED" in err
        assert ours.read_text(encoding="utf-8") == line_merge
        git(repo, env, "merge", "--abort")
