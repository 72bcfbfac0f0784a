"""Decisions bound to code (issue 36): `bind`, `drift`, `reaffirm`, `why` in real repositories.

"Exit 0 on reformatting and on unbound neighbours"; "exit 1 when a bound target changed in
substance, naming the decision, its answer, the target, and the commits that changed it".
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import Run

SPEC = "specs/pricing"
PRICING = '''def discount(price):
    """Ten percent off every order."""
    return price * 0.9


def tax(price):
    return price * 0.2
'''
POLICY = "# Policy\n\n## Refunds\n\nWithin 30 days.\n\n## Shipping\n\nFree over 50.\n"


def git(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return proc.stdout


def commit(repo: Path, message: str, files: dict[str, str]) -> str:
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def ok(mdgrill: Run, repo: Path, *args: str) -> dict[str, object]:
    code, out, err = mdgrill("--json", *args, cwd=repo)
    assert code == 0, out + err
    value = json.loads(out)
    assert isinstance(value, dict)
    return value


def drift(mdgrill: Run, repo: Path, *args: str) -> tuple[int, dict[str, object]]:
    code, out, err = mdgrill("--json", "drift", *args, cwd=repo)
    assert code in (0, 1), out + err
    return code, json.loads(out)


@pytest.fixture
def bound(repo: Path, mdgrill: Run) -> Path:
    """An approved interview whose D1 ('Ten percent off') is bound to a symbol and a section."""
    commit(repo, "pricing", {"src/pricing.py": PRICING, "docs/policy.md": POLICY})
    ok(mdgrill, repo, "init", SPEC, "--goal", "Discounts for loyal customers.")
    ok(mdgrill, repo, "node", "add", SPEC, "D1", "--title", "How large is the discount?",
       "--option", "Ten percent off", "--option", "Twenty percent off")
    ok(mdgrill, repo, "begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1")
    ok(mdgrill, repo, "open-frontier", SPEC, "--round", "1", "--decision-id", "D1")
    ok(mdgrill, repo, "record-answer", SPEC, "--decision-id", "D1", "--answer",
       "Ten percent off")
    ok(mdgrill, repo, "await-confirmation", SPEC, "--decision-id", "C1", "--approach", "10%")
    ok(mdgrill, repo, "confirm", SPEC, "--decision-id", "C1", "--source",
       "approve-and-delegate")
    result = ok(mdgrill, repo, "bind", SPEC, "--decision-id", "D1", "src/pricing.py::discount",
                "docs/policy.md#Refunds")
    assert result["commit"]
    return repo


def test_bind_records_a_sealed_block_and_commits_it_with_trailers(bound: Path,
                                                                  mdgrill: Run) -> None:
    text = (bound / SPEC / ".progress.md").read_text()
    assert "### Requirements Grill - Bound\n- Decision: D1 -> Ten percent off\n" in text
    assert "- Target: src/pricing.py::discount -> python-ast-1:" in text
    assert "- Target: docs/policy.md#Refunds -> markdown-text-1:" in text
    message = git(bound, "log", "-1", "--format=%B")
    assert "Mdgrill-Transition: bind" in message and "Mdgrill-Decision: D1" in message
    code, out, err = mdgrill("validate", SPEC, cwd=bound)
    assert code == 0 and "0 errors, 0 warnings" in err, out + err
    # the interview's approval still covers the spec: a binding is appended after it
    ok(mdgrill, bound, "check-delegation", SPEC, "--phase", "requirements",
       "--interview-id", "r1")
    assert git(bound, "status", "--porcelain") == ""


def test_reformatting_and_neighbours_stay_quiet(bound: Path, mdgrill: Run) -> None:
    commit(bound, "black and a new tax", {
        "src/pricing.py": "def discount( price ):\n    # cheaper for everyone\n"
                          "    return price*0.9\n\n\ndef tax(price):\n    return price * 0.25\n",
        "docs/policy.md": "# Policy\n\n## Refunds\n\nWithin   30\ndays.\n\n## Shipping\n\n"
                          "Paid.\n"})
    code, result = drift(mdgrill, bound)
    assert code == 0
    assert [f["status"] for f in result["findings"]] == ["ok", "ok"]  # type: ignore[index]


def test_a_changed_symbol_is_red_and_names_decision_answer_target_and_commit(
        bound: Path, mdgrill: Run) -> None:
    neighbour = commit(bound, "tax up", {"src/pricing.py": PRICING.replace("0.2", "0.25")})
    sha = commit(bound, "Twenty percent off", {"src/pricing.py": PRICING.replace("0.9", "0.8")
                                                .replace("0.2", "0.25")})
    code, out, _ = mdgrill("drift", cwd=bound)
    assert code == 1
    assert f"`src/pricing.py::discount` changed in {sha[:7]} (Twenty percent off): does D1 " \
           "'Ten percent off' still hold?" in out
    assert neighbour[:12] not in out  # the neighbour's commit did not change the symbol
    code, result = drift(mdgrill, bound)
    red = [f for f in result["findings"] if f["status"] != "ok"]  # type: ignore[union-attr]
    assert code == 1 and len(red) == 1
    assert red[0]["target"] == "src/pricing.py::discount"
    assert [c["sha"] for c in red[0]["commits"]] == [sha]
    code, out, _ = mdgrill("drift", "--format", "github", cwd=bound)
    assert code == 1 and out.startswith("::error file=src/pricing.py,line=1,title=D1 drifted")
    code, out, _ = mdgrill("drift", "--format", "sarif", cwd=bound)
    sarif = json.loads(out)
    assert sarif["runs"][0]["results"][0]["ruleId"] == "mdgrill/drift-changed"
    assert sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"][
        "artifactLocation"]["uri"] == "src/pricing.py"


def test_a_renamed_file_is_reported_moved_and_found(bound: Path, mdgrill: Run) -> None:
    git(bound, "mv", "src/pricing.py", "src/prices.py")
    sha = commit(bound, "rename the module", {})
    code, result = drift(mdgrill, bound)
    moved = [f for f in result["findings"] if f["status"] == "moved"]  # type: ignore[union-attr]
    assert code == 1 and len(moved) == 1
    assert moved[0]["now"] == "src/prices.py::discount" and moved[0]["altered"] is False
    assert moved[0]["commits"][0]["sha"] == sha
    # Still holds binds it where it is now; drift is green again
    result = ok(mdgrill, bound, "reaffirm", SPEC, "--decision-id", "D1", "--reply",
                "Still holds")
    assert result["moved"] == [{"from": "src/pricing.py::discount",
                                "to": "src/prices.py::discount"}]
    assert drift(mdgrill, bound)[0] == 0
    assert "src/prices.py::discount" in ok(mdgrill, bound, "why", "src/prices.py")[
        "decisions"][0]["target"]  # type: ignore[index]


def test_a_symbol_moved_to_another_module_is_found(bound: Path, mdgrill: Run) -> None:
    commit(bound, "split the module", {
        "src/pricing.py": "def tax(price):\n    return price * 0.2\n",
        "src/discounts.py": "def discount(price):\n    return price * 0.9\n"})
    code, result = drift(mdgrill, bound)
    moved = [f for f in result["findings"] if f["status"] == "moved"]  # type: ignore[union-attr]
    assert code == 1 and moved[0]["now"] == "src/discounts.py::discount"


def test_a_removed_section_is_missing(bound: Path, mdgrill: Run) -> None:
    commit(bound, "no refunds", {"docs/policy.md": "# Policy\n\n## Shipping\n\nFree.\n"})
    code, result = drift(mdgrill, bound)
    missing = [f for f in result["findings"]  # type: ignore[union-attr]
               if f["status"] == "missing"]
    assert code == 1 and missing[0]["target"] == "docs/policy.md#Refunds"


def test_reaffirm_still_holds_turns_drift_green(bound: Path, mdgrill: Run) -> None:
    commit(bound, "Twenty percent off", {"src/pricing.py": PRICING.replace("0.9", "0.8")})
    code, out, _ = mdgrill("--json", "reaffirm", SPEC, "--decision-id", "D1", "--reply", "ok",
                           cwd=bound)
    assert code == 3 and json.loads(out)["error"]["code"] == "CONTROL_ONLY_ANSWER"
    assert drift(mdgrill, bound)[0] == 1  # a control-only reply reaffirms nothing
    result = ok(mdgrill, bound, "reaffirm", SPEC, "--decision-id", "D1", "--reply",
                "Still holds")
    assert result["selection"] == "Still holds" and result["commit"]
    assert "Mdgrill-Selection: Still holds" in git(bound, "log", "-1", "--format=%B")
    assert drift(mdgrill, bound)[0] == 0
    code, out, _ = mdgrill("validate", SPEC, cwd=bound)
    assert code == 0, out
    code, out, _ = mdgrill("--json", "reaffirm", SPEC, "--decision-id", "D1", "--reply",
                           "Still holds", cwd=bound)
    assert code == 3 and json.loads(out)["error"]["code"] == "NOTHING_TO_REAFFIRM"


def test_the_change_was_wrong_keeps_drift_red_until_put_back(bound: Path, mdgrill: Run) -> None:
    commit(bound, "Twenty percent off", {"src/pricing.py": PRICING.replace("0.9", "0.8")})
    ok(mdgrill, bound, "reaffirm", SPEC, "--decision-id", "D1", "--reply",
       "The change was wrong")
    code, out, _ = mdgrill("drift", cwd=bound)
    assert code == 1 and "The owner said the change was wrong" in out
    commit(bound, "put it back", {"src/pricing.py": PRICING})
    assert drift(mdgrill, bound)[0] == 0


def test_revise_reopens_the_decision(bound: Path, mdgrill: Run) -> None:
    commit(bound, "Twenty percent off", {"src/pricing.py": PRICING.replace("0.9", "0.8")})
    result = ok(mdgrill, bound, "reaffirm", SPEC, "--decision-id", "D1", "--reply",
                "Revise the decision")
    assert result["reopened"] == ["D1"] and result["reopened_phase"] == "requirements"
    assert "Mdgrill-Transition: reopen" in git(bound, "log", "-1", "--format=%B")
    frontier = ok(mdgrill, bound, "frontier", SPEC)
    assert "D1" in json.dumps(frontier)
    ledger = ok(mdgrill, bound, "ledger", SPEC)
    assert "Ten percent off" not in json.dumps(ledger)
    assert drift(mdgrill, bound)[0] == 0  # released: a new answer gets a new binding
    for verb in ("validate", "verify"):
        code, out, err = mdgrill(verb, cwd=bound)
        assert code == 0, out + err


def test_owners_rule_reaffirm(bound: Path, mdgrill: Run) -> None:
    commit(bound, "owners", {".mdgrill.yaml": "owners:\n  phases:\n"
                                              "    requirements: [alice@example.com]\n"})
    commit(bound, "Twenty percent off", {"src/pricing.py": PRICING.replace("0.9", "0.8")})
    code, out, _ = mdgrill("--json", "reaffirm", SPEC, "--decision-id", "D1", "--reply",
                           "Still holds", cwd=bound)
    assert code == 3 and json.loads(out)["error"]["code"] == "NOT_AN_OWNER"
    # `--by` names the owner but the account is not hers: still not an owner (issue 30 pt 9)
    code, out, _ = mdgrill("--json", "reaffirm", SPEC, "--decision-id", "D1", "--reply", "1",
                           "--by", "Alice <alice@example.com>", cwd=bound)
    assert code == 3 and json.loads(out)["error"]["code"] == "NOT_AN_OWNER"
    git(bound, "config", "user.name", "Alice")
    git(bound, "config", "user.email", "alice@example.com")
    result = ok(mdgrill, bound, "reaffirm", SPEC, "--decision-id", "D1", "--reply", "1")
    assert result["selection"] == "Still holds"
    assert git(bound, "log", "-1", "--format=%an <%ae>").strip() == "Alice <alice@example.com>"


@pytest.mark.parametrize("approved", [True, False])
def test_revise_by_reaffirm_takes_back_an_owned_dependent_only_for_its_owners(
        repo: Path, mdgrill: Run, approved: bool) -> None:
    # `Revise the decision` reopens the decision's answered dependents as `revise` does (its
    # phase reopened, or a revise while the brief awaits approval): each is held to its
    # section's owners as `revise` holds it; it reopened an owned one for anybody
    commit(repo, "pricing", {"src/pricing.py": PRICING})
    ok(mdgrill, repo, "init", SPEC, "--goal", "Discounts for loyal customers.")
    ok(mdgrill, repo, "node", "add", SPEC, "D1", "--title", "How large is the discount?",
       "--option", "Ten percent off", "--option", "Twenty percent off")
    ok(mdgrill, repo, "node", "add", SPEC, "D2", "--title", "Who may see it?", "--section",
       "Security", "--depends-on", "D1", "--option", "Members", "--option", "Everyone")
    ok(mdgrill, repo, "begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1")
    for number, (node, answer) in enumerate([("D1", "Ten percent off"), ("D2", "Members")], 1):
        ok(mdgrill, repo, "open-frontier", SPEC, "--round", str(number), "--decision-id", node)
        ok(mdgrill, repo, "record-answer", SPEC, "--decision-id", node, "--answer", answer)
    ok(mdgrill, repo, "await-confirmation", SPEC, "--decision-id", "C1", "--approach", "10%")
    if approved:
        ok(mdgrill, repo, "confirm", SPEC, "--decision-id", "C1", "--source",
           "approve-and-delegate")
    ok(mdgrill, repo, "bind", SPEC, "--decision-id", "D1", "src/pricing.py::discount")
    commit(repo, "owners and a drift", {
        ".mdgrill.yaml": "owners:\n  sections:\n    Security: [carol@example.com]\n",
        "src/pricing.py": PRICING.replace("0.9", "0.8")})
    progress = repo / SPEC / ".progress.md"
    before = progress.read_bytes()
    code, out, _ = mdgrill("--json", "reaffirm", SPEC, "--decision-id", "D1", "--reply",
                           "Revise the decision", cwd=repo)
    assert code == 3 and json.loads(out)["error"]["code"] == "NOT_AN_OWNER", out
    assert "Security" in json.loads(out)["error"]["message"]
    assert progress.read_bytes() == before
    git(repo, "config", "user.email", "carol@example.com")
    result = ok(mdgrill, repo, "reaffirm", SPEC, "--decision-id", "D1", "--reply",
                "Revise the decision")
    assert result["reopened"] == ["D1", "D2"]


def test_drift_across_a_merge_names_the_branch_commit(bound: Path, mdgrill: Run) -> None:
    git(bound, "switch", "-q", "-c", "feature")
    sha = commit(bound, "Twenty percent off", {"src/pricing.py": PRICING.replace("0.9", "0.8")})
    git(bound, "switch", "-q", "main")
    commit(bound, "shipping", {"docs/policy.md": POLICY.replace("Free over 50.", "Paid.")})
    git(bound, "merge", "-q", "--no-ff", "-m", "merge feature", "feature")
    code, result = drift(mdgrill, bound)
    red = [f for f in result["findings"] if f["status"] != "ok"]  # type: ignore[union-attr]
    assert code == 1 and len(red) == 1
    assert [c["sha"] for c in red[0]["commits"]] == [sha]


def test_bind_refuses_what_it_cannot_fingerprint_and_writes_nothing(bound: Path,
                                                                    mdgrill: Run) -> None:
    before = (bound / SPEC / ".progress.md").read_bytes()
    for args, wanted in ((["src/pricing.py::nothing"], "NOT_FOUND"),
                         (["docs/policy.md#Nowhere"], "NOT_FOUND"),
                         (["src/absent.py"], "NOT_FOUND"),
                         (["../outside.py"], "INVALID_INPUT")):
        code, out, _ = mdgrill("--json", "bind", SPEC, "--decision-id", "D1", *args, cwd=bound)
        assert code == 2 and json.loads(out)["error"]["code"] == wanted, (args, out)
    code, out, _ = mdgrill("--json", "bind", SPEC, "--decision-id", "D9", "src/pricing.py",
                           cwd=bound)
    assert code == 3 and json.loads(out)["error"]["code"] == "NOT_ANSWERED"
    assert (bound / SPEC / ".progress.md").read_bytes() == before


def test_a_hand_written_binds_key_is_pending_until_bind(bound: Path, mdgrill: Run) -> None:
    path = bound / SPEC / ".progress.md"
    text = path.read_text()
    path.write_text(text.replace("- Options:", "- Binds: src/pricing.py::tax\n- Options:", 1))
    commit(bound, "bind tax by hand", {})
    code, out, err = mdgrill("validate", SPEC, cwd=bound)
    assert code == 0 and "0 errors, 0 warnings" in err, out + err
    code, result = drift(mdgrill, bound)
    assert code == 0 and result["pending"] == 1
    result = ok(mdgrill, bound, "bind", SPEC)  # no decision named: every written target
    assert result["bound"] == [{"decision": "D1", "answer": "Ten percent off",
                                "phase": "requirements", "targets": [
                                    {"target": "src/pricing.py::tax",
                                     "fingerprint": result["bound"][0]["targets"][0][  # type: ignore[index]
                                         "fingerprint"]}]}]
    code, result = drift(mdgrill, bound)
    assert result["pending"] == 0 and result["bindings"] == 3
    code, out, _ = mdgrill("--json", "bind", SPEC, cwd=bound)
    assert code == 2 and "waits to be fingerprinted" in json.loads(out)["error"]["message"]


def test_why_names_decision_answer_and_approver(bound: Path, mdgrill: Run) -> None:
    code, out, _ = mdgrill("why", "src/pricing.py::discount", cwd=bound)
    assert code == 0
    assert "specs/pricing D1: Ten percent off" in out
    assert "approved by: Test User <test@example.com>" in out
    assert ok(mdgrill, bound, "why", "src/pricing.py::tax")["decisions"] == []


def test_a_glob_binding_sees_a_new_file(bound: Path, mdgrill: Run) -> None:
    commit(bound, "rules", {"src/rules/a.py": "A = 1\n"})
    ok(mdgrill, bound, "bind", SPEC, "--decision-id", "D1", "src/rules/**")
    commit(bound, "reformat a", {"src/rules/a.py": "A  =  1  # same\n"})
    assert drift(mdgrill, bound)[0] == 0
    commit(bound, "another rule", {"src/rules/b.py": "B = 2\n"})
    assert drift(mdgrill, bound)[0] == 1


def test_ask_offers_the_drifted_decision_to_its_owner(bound: Path, mdgrill: Run) -> None:
    assert ok(mdgrill, bound, "ask", SPEC)["kind"] == "none"  # nothing drifted: nothing to ask
    sha = commit(bound, "Twenty percent off", {"src/pricing.py": PRICING.replace("0.9", "0.8")})
    result = ok(mdgrill, bound, "ask", SPEC)
    assert result["kind"] == "drift"
    question = result["questions"][0]  # type: ignore[index]
    assert question["question"] == (f"`src/pricing.py::discount` changed in {sha[:7]} (Twenty "
                                    "percent off): does D1 'Ten percent off' still hold?")
    assert [o["label"] for o in question["options"]] == [
        "Still holds", "Revise the decision", "The change was wrong"]
    assert result["decisions"] == {question["question"]: "D1"}


def test_a_shallow_clone_without_the_binding_commit_still_fingerprints(
        bound: Path, mdgrill: Run, tmp_path: Path) -> None:
    commit(bound, "reformat", {"src/pricing.py": PRICING.replace("price * 0.9", "price*0.9")})
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{bound}", str(clone)],
                   check=True, capture_output=True)
    code, result = drift(mdgrill, clone)
    assert code == 0 and {f["history"] for f in result["findings"]} == {False}  # type: ignore[union-attr]
    commit(bound, "Twenty percent off", {"src/pricing.py": PRICING.replace("0.9", "0.8")})
    clone = tmp_path / "clone2"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{bound}", str(clone)],
                   check=True, capture_output=True)
    code, out, _ = mdgrill("drift", cwd=clone)
    assert code == 1 and "`src/pricing.py::discount` changed" in out
    assert "is not in this clone" in out and "fetch-depth: 0" in out


def test_an_ambiguous_section_and_an_uncommitted_change_are_refused(bound: Path,
                                                                    mdgrill: Run) -> None:
    commit(bound, "two notes", {"docs/notes.md": "# A\n\n## Note\n\nx\n\n# B\n\n## Note\n\ny\n"})
    code, out, _ = mdgrill("--json", "bind", SPEC, "--decision-id", "D1", "docs/notes.md#Note",
                           cwd=bound)
    assert code == 2 and "has 2 sections named `Note`" in json.loads(out)["error"]["message"]
    commit(bound, "Twenty percent off", {"src/pricing.py": PRICING.replace("0.9", "0.8")})
    (bound / "src/pricing.py").write_text(PRICING.replace("0.9", "0.7"))
    before = (bound / SPEC / ".progress.md").read_bytes()
    code, out, _ = mdgrill("--json", "reaffirm", SPEC, "--decision-id", "D1", "--reply",
                           "Still holds", cwd=bound)
    assert code == 2 and "not committed" in json.loads(out)["error"]["message"]
    assert (bound / SPEC / ".progress.md").read_bytes() == before


def test_fingerprints_ignore_form_and_see_substance() -> None:
    from mdgrill.core import fingerprints as fp

    plain = b"@cache\ndef f(x):\n    return x + 1\n\nclass C:\n    def m(self):\n        return 1\n"
    styled = (b'@cache\ndef f( x ):  # why\n    """Doc."""\n\n    return (x+1)\n\n\n'
              b"class C:\n    '''Doc.'''\n    def m(self):\n        return 1\n")
    for symbol in ("f", "C.m", "C"):
        assert fp.python_fingerprint(plain, symbol) == fp.python_fingerprint(styled, symbol)
    assert fp.python_fingerprint(plain, "f") != fp.python_fingerprint(
        plain.replace(b"@cache\n", b""), "f")  # a decorator is substance
    assert fp.python_fingerprint(plain, "missing") is None
    assert fp.python_fingerprint(b"def (:\n", "f") is None
    doc = b"# T\n\n## Free Shipping\n\nOver  50.\n\n### Detail\nA\n\n## Next\nB\n"
    assert fp.markdown_fingerprint(doc, "free shipping") == fp.markdown_fingerprint(
        doc.replace(b"Over  50.", b"Over\n50."), "free-shipping")
    assert fp.markdown_fingerprint(doc, "Free Shipping") != fp.markdown_fingerprint(
        doc.replace(b"Detail\nA", b"Detail\nZ"), "Free Shipping")  # its subsection is in it
    assert fp.markdown_fingerprint(doc, "Free Shipping") == fp.markdown_fingerprint(
        doc.replace(b"## Next\nB", b"## Next\nC"), "Free Shipping")  # the next one is not
    assert fp.file_fingerprint(b"a\r\nb\r\n") == fp.file_fingerprint(b"a\nb\n")
    assert fp.file_fingerprint(b"a\n").startswith("file-1:")
    assert fp.glob_pattern("src/**/*.py").match("src/a/b/c.py")
    assert fp.glob_pattern("src/**/*.py").match("src/c.py")
    assert not fp.glob_pattern("src/*.py").match("src/a/c.py")
    with pytest.raises(Exception, match="upgrade mdgrill"):
        fp.fingerprint(fp.parse_target("a.go"), b"x", "go-syntax-9")


def test_bindings_made_on_two_branches_merge_and_drift_sees_both(bound: Path,
                                                                 mdgrill: Run) -> None:
    ok(mdgrill, bound, "install-merge-driver")
    commit(bound, "merge driver", {})
    git(bound, "switch", "-q", "-c", "feature")
    ok(mdgrill, bound, "bind", SPEC, "--decision-id", "D1", "src/pricing.py::tax")
    git(bound, "switch", "-q", "main")
    ok(mdgrill, bound, "bind", SPEC, "--decision-id", "D1", "docs/policy.md#Shipping")
    sha = commit(bound, "refunds in 60 days",
                 {"docs/policy.md": POLICY.replace("## Refunds\n\nWithin 30 days.",
                                                   "## Refunds\n\nWithin 60 days.")})
    git(bound, "merge", "-q", "--no-ff", "-m", "merge feature", "feature")
    code, out, err = mdgrill("validate", SPEC, cwd=bound)
    assert code == 0, out + err
    code, result = drift(mdgrill, bound)
    statuses = {f["target"]: f["status"] for f in result["findings"]}  # type: ignore[union-attr]
    assert statuses == {"src/pricing.py::discount": "ok", "docs/policy.md#Refunds": "changed",
                        "src/pricing.py::tax": "ok", "docs/policy.md#Shipping": "ok"}
    text = (bound / SPEC / ".progress.md").read_text()
    assert text.count("### Requirements Grill - Bound") == 3  # both branches' blocks kept
    red = [f for f in result["findings"] if f["status"] == "changed"]  # type: ignore[union-attr]
    assert code == 1 and [c["sha"] for c in red[0]["commits"]] == [sha]


# -- no verb writes a file validate rejects, bindings among them ------------------------------

_IDS = ["D1", "D2", "X9"]
_REPLIES = ["Still holds", "Revise the decision", "The change was wrong", "ok", "3", "maybe"]


def _steps() -> object:
    from hypothesis import strategies as st

    return st.lists(st.one_of(
        st.builds(lambda i: ["open-frontier", "{S}", "--round", "1", "--decision-id", i],
                  st.sampled_from(_IDS)),
        st.builds(lambda i: ["record-answer", "{S}", "--decision-id", i, "--answer", "Ten percent"],
                  st.sampled_from(_IDS)),
        st.just(["await-confirmation", "{S}", "--decision-id", "C1", "--approach", "A"]),
        st.just(["confirm", "{S}", "--decision-id", "C1", "--source", "approve-and-delegate",
                 "--no-commit"]),
        st.builds(lambda i, t: ["bind", "{S}", "--decision-id", i, t, "--no-commit"],
                  st.sampled_from(_IDS), st.sampled_from(["src/a.py::f", "src/a.py", "docs/p.md#R",
                                                          "src/a.py::nope"])),
        st.builds(lambda i, r: ["reaffirm", "{S}", "--decision-id", i, "--reply", r,
                                "--no-commit"],
                  st.sampled_from(_IDS), st.sampled_from(_REPLIES)),
        st.sampled_from([["edit"], ["commit"], ["revise", "{S}", "--decision-id", "D1"]]),
    ), min_size=3, max_size=12)


def test_no_binding_verb_writes_an_invalid_file(home: Path) -> None:
    import contextlib
    import io
    import shutil
    import tempfile

    from hypothesis import HealthCheck, example, given, settings

    from mdgrill.checks.spec import validate_progress_bytes
    from mdgrill.cli import main as cli

    def call(argv: list[str]) -> int:
        with contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            return cli.main(argv)

    recorded: dict[str, int] = {"bind": 0, "reaffirm": 0}

    @settings(max_examples=20, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow])
    @given(steps=_steps())
    # a walk that reaches a bind, whatever the generated ones reach (hypothesis derives their
    # seed from this function's text: an edit here changes which walks run)
    @example(steps=[["await-confirmation", "{S}", "--decision-id", "C1", "--approach", "A"],
                    ["confirm", "{S}", "--decision-id", "C1", "--source",
                     "approve-and-delegate", "--no-commit"],
                    ["bind", "{S}", "--decision-id", "D1", "src/a.py::f", "--no-commit"],
                    ["edit"], ["commit"],
                    ["reaffirm", "{S}", "--decision-id", "D1", "--reply", "Still holds",
                     "--no-commit"]])
    def run(steps: list[list[str]]) -> None:
        # a repository of each example's own, removed after it (hypothesis runs 20 of them:
        # left behind, they filled the machine's /tmp run after run)
        root = Path(tempfile.mkdtemp(prefix="mdgrill-bind-"))
        try:
            walk(root, steps)
        finally:
            shutil.rmtree(root, ignore_errors=True)

    def walk(root: Path, steps: list[list[str]]) -> None:
        for args in (["init", "-q", "-b", "main"], ["config", "user.name", "T"],
                     ["config", "user.email", "t@example.com"]):
            git(root, *args)
        commit(root, "code", {"src/a.py": "def f():\n    return 1\n",
                              "docs/p.md": "# P\n\n## R\n\nx\n"})
        spec = root / "specs" / "s"
        assert call(["--root", str(root), "init", str(spec), "--goal", "A goal"]) == 0
        for setup in (["begin-interview", str(spec), "--phase", "requirements",
                       "--interview-id", "r1"],
                      ["open-frontier", str(spec), "--round", "1", "--decision-id", "D1"],
                      ["record-answer", str(spec), "--decision-id", "D1", "--answer",
                       "Ten percent"]):
            assert call(["--root", str(root), *setup]) == 0
        progress = spec / ".progress.md"
        for number, step in enumerate(steps):
            if step == ["edit"]:
                (root / "src/a.py").write_text(f"def f():\n    return {number + 2}\n")
                continue
            if step == ["commit"]:
                git(root, "add", "-A")
                git(root, "commit", "-q", "--allow-empty", "-m", f"step {number}")
                continue
            before = progress.read_bytes()
            code = call(["--root", str(root), *[str(spec) if a == "{S}" else a for a in step]])
            after = progress.read_bytes()
            if code != 0:
                assert after == before, f"{step} exited {code} and wrote the file"
                continue
            errors = [d for d in validate_progress_bytes(after, "p") if d.is_error]
            assert errors == [], (step, [f"{d.code}: {d.message}" for d in errors])
            if step[0] in recorded and after != before:
                recorded[step[0]] += 1

    run()
    assert recorded["bind"] > 0  # a walk reached a settled decision and bound it


def test_bind_waits_while_an_interview_collects(bound: Path, mdgrill: Run) -> None:
    other = "specs/other"
    ok(mdgrill, bound, "init", other, "--goal", "Another goal.")
    ok(mdgrill, bound, "begin-interview", other, "--phase", "requirements", "--interview-id", "o1")
    ok(mdgrill, bound, "open-frontier", other, "--round", "1", "--decision-id", "E1")
    ok(mdgrill, bound, "record-answer", other, "--decision-id", "E1", "--answer", "Weekly")
    before = (bound / other / ".progress.md").read_bytes()
    code, out, _ = mdgrill("--json", "bind", other, "--decision-id", "E1", "src/pricing.py",
                           cwd=bound)
    error = json.loads(out)["error"]
    assert code == 3 and error["code"] == "ILLEGAL_TRANSITION" and "collecting" in error["message"]
    assert (bound / other / ".progress.md").read_bytes() == before
    # drift of one named spec: the other (no bindings) is not read
    code, result = drift(mdgrill, bound, SPEC)
    assert code == 0 and result["bindings"] == 2


GOLDEN = b'''import functools

RATE: float = 0.1


@functools.cache
def discount(price: float, *, member: bool = False) -> float:
    """Ten percent."""
    if member and price > 10:
        return price * (1 - RATE)
    return [p for p in (price,)][0]


class Cart:
    items: list[int] = []

    async def total(self, tax=None, **kw):
        async with self.lock:
            return sum(x for x in self.items) + (tax or 0)
'''


def test_the_python_fingerprint_is_the_same_on_every_python() -> None:
    """Pinned values, measured alike on CPython 3.10, 3.11, 3.12 and 3.13 (`ast.dump` gave
    3.12 and 3.13 different text for the same module): a CI on another Python than the
    binder's must not see a change."""
    from mdgrill.core import fingerprints as fp

    assert fp.python_fingerprint(GOLDEN) == \
        "python-ast-1:2d187f94683cba43c7acf2f8de0d40464ea4cec9cb5192061a198b426c41b9ec"
    assert fp.python_fingerprint(GOLDEN, "discount") == \
        "python-ast-1:53f96c7ee66f836eae632ed19d9cf09758c7bbe188d5ddda66ffa675a7665f21"
    assert fp.python_fingerprint(GOLDEN, "Cart.total") == \
        "python-ast-1:a97763869c5238c948cb3721f12dcc0d1f6124a193f4f2f823612d13d80bf053"


def test_the_library_and_the_mcp_server_bind_and_reaffirm_as_the_cli_does(
        bound: Path, mdgrill: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    # `Spec.bind`/`Spec.reaffirm` and their tools call the function the verbs call: the same
    # result, the same refusals (issue 29: one method per verb)
    import mdgrill as api

    monkeypatch.chdir(bound)
    spec = api.Spec.open(SPEC)
    with pytest.raises(api.InputError) as usage:
        spec.bind(None, ["src/pricing.py::tax"])
    assert usage.value.code == "USAGE"
    done = spec.bind("D1", ["src/pricing.py::tax"])
    assert type(done) is api.Bound and done.decision == "D1" and done.commit
    assert [t["target"] for t in done.targets] == ["src/pricing.py::tax"]
    commit(bound, "Twenty percent off", {"src/pricing.py": PRICING.replace("0.9", "0.8")})
    with pytest.raises(api.GateRefusal) as control:
        spec.reaffirm("D1", reply="ok")
    assert control.value.code == "CONTROL_ONLY_ANSWER"
    said = spec.reaffirm("D1", reply="Still holds")
    assert type(said) is api.Reaffirmed and said.selection == "Still holds" and said.commit
    assert drift(mdgrill, bound)[0] == 0


def test_the_mcp_tools_bind_and_reaffirm(bound: Path, mdgrill: Run) -> None:
    pytest.importorskip("mcp", reason="the MCP SDK is the `mcp` extra (.[dev])")
    import os

    from test_conformance import _mcp_call

    env = dict(os.environ)
    done = _mcp_call(bound, env, "bind", {"spec": SPEC, "decision_id": "D1",
                                          "target": ["src/pricing.py::tax"]})
    assert done["ok"] is True and done["commit"], done
    commit(bound, "Twenty percent off", {"src/pricing.py": PRICING.replace("0.9", "0.8")})
    said = _mcp_call(bound, env, "reaffirm", {"spec": SPEC, "decision_id": "D1",
                                              "reply": "Still holds"})
    assert said["ok"] is True and said["selection"] == "Still holds", said
    assert drift(mdgrill, bound)[0] == 0
