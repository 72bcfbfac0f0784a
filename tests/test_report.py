"""Report verbs through the installed CLI: status, tree, ledger, lint."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import mdgrill_command

from mdgrill.core import reports

Run = Callable[..., tuple[int, str, str]]  # the `mdgrill` fixture of conftest.py

MDGRILL = mdgrill_command()


def env_for(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"HOME": str(home), "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com",
                "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com"})
    env.pop("NO_COLOR", None)
    return env


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = MDGRILL
    return subprocess.run([*cmd, *args], capture_output=True, text=True, cwd=root,
                          env=env_for(root), timeout=60)


def ok(root: Path, *args: str) -> dict[str, object]:
    proc = run(root, "--json", *args)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    value = json.loads(proc.stdout)
    assert isinstance(value, dict)
    return value


SPEC = "specs/login"


@pytest.fixture()
def spec(tmp_path: Path) -> Path:
    """A git repository with an interview in round 2: D1 answered, D2 (spawned by D1) pending."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, env=env_for(tmp_path))
    ok(tmp_path, "init", SPEC, "--goal", "Let customers sign in with an email link.",
       "--required-section", "users")
    ok(tmp_path, "node", "add", SPEC, "D1", "--title", "Primary user", "--section", "users",
       "--option", "External customers: the login page is public", "--option",
       "Internal staff: staff have SSO", "--recommend", "1")
    ok(tmp_path, "node", "add", SPEC, "D2", "--title", 'Link "lifetime" <minutes>', "--section",
       "security", "--depends-on", "D1", "--spawned-by", "D1", "--option", "15 minutes",
       "--option", "1 hour")
    ok(tmp_path, "begin-interview", SPEC, "--phase", "requirements", "--interview-id", "req-1")
    ok(tmp_path, "open-frontier", SPEC, "--round", "1", "--decision-id", "D1")
    ok(tmp_path, "record-answer", SPEC, "--decision-id", "D1", "--answer", "External customers")
    ok(tmp_path, "open-frontier", SPEC, "--round", "2", "--decision-id", "D2")
    return tmp_path


def test_status_shows_pending_questions_frontier_and_context(spec: Path) -> None:
    out = ok(spec, "status", SPEC)
    iv = out["interview"]
    assert isinstance(iv, dict) and (iv["status"], iv["round"]) == ("collecting", 2)
    assert out["pending"] == [{"id": "D2", "question": 'Link "lifetime" <minutes>',
                               "options": ["15 minutes", "1 hour"], "recommended": None,
                               "recommendation": None}]
    assert out["frontier"]["frontier"] == ["D2"]  # type: ignore[index]
    assert out["context"]["state"] == "current"  # type: ignore[index]
    assert out["approval"] == {"sha": None, "reason": "no approval commit yet"}
    text = run(spec, "status", SPEC).stdout
    assert "interview req-1 (requirements): collecting, round 2" in text
    assert "  D2: Link \"lifetime\" <minutes>\n    - 15 minutes\n    - 1 hour" in text
    assert "\033[" not in text  # stdout is a pipe: no colours


def test_status_reports_a_stale_context_and_the_approval_commit(spec: Path) -> None:
    ok(spec, "record-answer", SPEC, "--decision-id", "D2", "--answer", "15 minutes")
    ok(spec, "await-confirmation", SPEC, "--decision-id", "C1", "--approach", "Magic link")
    confirmed = ok(spec, "confirm", SPEC, "--decision-id", "C1", "--source",
                   "approve-and-delegate")
    out = ok(spec, "status", SPEC)
    approval = out["approval"]
    assert isinstance(approval, dict)
    assert approval["sha"] == confirmed["commit"] and approval["transition"] == "approve"
    (spec / SPEC / "research.md").write_text("# Research\nnew\n", encoding="utf-8")
    stale = ok(spec, "status", SPEC)["context"]
    assert isinstance(stale, dict) and stale["state"] == "stale"
    assert "context: stale" in run(spec, "status", SPEC).stdout


def test_status_marks_the_recommended_option(tmp_path: Path) -> None:
    ok(tmp_path, "init", SPEC, "--goal", "g")
    ok(tmp_path, "node", "add", SPEC, "D1", "--title", "Primary user", "--option",
       "Staff: have SSO", "--option", "Customers: public page", "--recommend", "2")
    ok(tmp_path, "begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r")
    ok(tmp_path, "open-frontier", SPEC, "--round", "1", "--decision-id", "D1")
    pending = ok(tmp_path, "status", SPEC)["pending"]
    assert isinstance(pending, list)
    assert pending[0]["recommended"] == "Customers (Recommended): public page"
    text = run(tmp_path, "status", SPEC).stdout
    assert "    * Customers (Recommended): public page\n    - Staff: have SSO" in text
    assert "last approval: not a git repository" in text


def test_tree_text_nests_spawned_nodes_under_their_parent(spec: Path) -> None:
    text = run(spec, "tree", SPEC).stdout
    assert text.splitlines() == [
        "D1: Primary user [RESOLVED] §users = External customers",
        '  D2: Link "lifetime" <minutes> [OPEN] §security (depends on D1)']


def test_tree_mermaid_is_a_fenced_block_with_escaped_labels(spec: Path) -> None:
    out = ok(spec, "tree", SPEC, "--format", "mermaid")
    text = out["text"]
    assert isinstance(text, str)
    lines = text.splitlines()
    assert lines[0] == "```mermaid" and lines[1] == "flowchart TD" and lines[-1] == "```"
    assert '  n1["D1: Primary user"]:::resolved' in lines
    assert '  n2["D2: Link #quot;lifetime#quot; #lt;minutes#gt;"]:::open' in lines
    assert "  n1 --> n2" in lines and "  n1 -.->|spawned| n2" in lines
    assert any(line.startswith("  classDef resolved ") for line in lines)
    statuses = {n["id"]: n["status"] for n in out["nodes"]}  # type: ignore[union-attr]
    assert statuses == {"D1": "RESOLVED", "D2": "OPEN"}


def test_tree_mermaid_draws_a_missing_reference(tmp_path: Path) -> None:
    ok(tmp_path, "init", SPEC, "--goal", "g")
    progress = tmp_path / SPEC / ".progress.md"
    text = progress.read_text(encoding="utf-8").replace(
        "## Design Tree\n", "## Design Tree\n\n### A.1: Scope [v2]\n- Depends on: B9\n\n")
    progress.write_text(text, encoding="utf-8")
    mermaid = run(tmp_path, "tree", SPEC, "--format", "mermaid").stdout
    assert '  n1["A.1: Scope #91;v2#93;"]:::open' in mermaid
    assert '  n2["B9 (missing)"]:::missing' in mermaid and "  n2 --> n1" in mermaid


def test_ledger_lists_entries_in_settled_order_with_the_outline(spec: Path) -> None:
    ok(spec, "record-answer", SPEC, "--decision-id", "D2", "--answer", "15 minutes")
    text = run(spec, "ledger", SPEC).stdout
    assert text.splitlines() == [
        "E1 [users] Primary user = External customers",
        'E2 [security] Link "lifetime" <minutes> = 15 minutes',
        "",
        "### users",
        "- E1 Primary user = External customers",
        "",
        "### security",
        '- E2 Link "lifetime" <minutes> = 15 minutes (refines E1)']
    new = ok(spec, "ledger", SPEC, "--new")
    assert [e["entry"] for e in new["entries"]] == ["E2"]  # type: ignore[union-attr,index]
    assert new["entries"][0]["refines"] == "E1"  # type: ignore[index]
    assert run(spec, "ledger", SPEC, "--new").stdout == \
        'E2 [security] Link "lifetime" <minutes> = 15 minutes\n'


def test_ledger_new_when_the_last_round_settled_nothing(spec: Path) -> None:
    assert run(spec, "ledger", SPEC, "--new").stdout == "the last round settled no decision\n"


GLOSSARY = "# Ordering\n\nHow customers order.\n\n## Language\n\n**Order**:\n" \
           "A customer's request to buy.\n_Avoid_: purchase, basket\n"


def test_lint_reports_avoided_words_outside_code(spec: Path) -> None:
    (spec / "CONTEXT.md").write_text(GLOSSARY, encoding="utf-8")
    (spec / SPEC / "requirements.md").write_text(
        "# Requirements\n\nThe Purchase is placed. `purchase` is code.\n```\npurchase\n```\n"
        "A basket-case, purchases, and a basket.\n", encoding="utf-8")
    proc = run(spec, "lint")
    assert proc.returncode == 0
    assert proc.stdout.splitlines() == [
        'specs/login/requirements.md:3:5: warning AVOID_WORD: "Purchase" is an avoided word '
        'for **Order**: say "Order"',
        'specs/login/requirements.md:7:33: warning AVOID_WORD: "basket" is an avoided word '
        'for **Order**: say "Order"']


def test_lint_reads_only_the_tree_of_progress(spec: Path) -> None:
    """Issue 14.9: an avoided word in a recorded round is sealed history and can never be
    edited, so lint reports it nowhere; the design tree, which people still edit, is read."""
    (spec / "CONTEXT.md").write_text(GLOSSARY, encoding="utf-8")
    ok(spec, "record-answer", SPEC, "--decision-id", "D2", "--answer", "a purchase link")
    assert ok(spec, "lint", SPEC)["diagnostics"] == []
    progress = spec / SPEC / ".progress.md"
    text = progress.read_text(encoding="utf-8")
    progress.write_text(text.replace("## Interview Responses",
                                     "Note: the purchase flow.\n\n## Interview Responses"),
                        encoding="utf-8")
    diags = ok(spec, "lint", SPEC)["diagnostics"]
    assert isinstance(diags, list) and len(diags) == 1
    line = progress.read_text(encoding="utf-8").splitlines()[diags[0]["line"] - 1]
    assert line == "Note: the purchase flow."
    assert diags[0]["col"] == line.index("purchase") + 1


def test_lint_term_in_two_contexts_warns_and_a_duplicate_term_fails(spec: Path) -> None:
    (spec / "CONTEXT.md").write_text(GLOSSARY, encoding="utf-8")
    (spec / "billing").mkdir()
    (spec / "billing" / "CONTEXT.md").write_text(
        "# Billing\n\n## Language\n\n**Order**:\nAn invoice line.\n", encoding="utf-8")
    proc = run(spec, "lint")
    assert proc.returncode == 0
    assert 'warning TERM_IN_TWO_CONTEXTS: "Order" is also defined in CONTEXT.md:7' in proc.stdout
    (spec / "billing" / "CONTEXT.md").write_text(
        "# Billing\n\n## Language\n\n**Invoice**:\nA bill.\n\n**Invoice**:\nAgain.\n",
        encoding="utf-8")
    failed = run(spec, "lint")
    assert failed.returncode == 1
    assert "billing/CONTEXT.md:8:3: error DUPLICATE_TERM" in failed.stdout


def test_lint_rule_is_whole_word_and_case_insensitive() -> None:
    rule = reports.AvoidRule("shopping cart", "Basket")
    diags = reports.lint_lines("f.md", ["A Shopping  Cart, shopping carts, `shopping cart`\n"],
                               [rule])
    assert [(d.line, d.col, d.code) for d in diags] == [(1, 3, "AVOID_WORD")]


def test_lint_reads_the_glossary_for_the_domain_modeling_rules(tmp_path: Path,
                                                               mdgrill: Run) -> None:
    """"Keep definitions to one or two sentences." "Define what the concept is, not how code
    implements it." A context file opens `# <Context Name>` and one or two sentences."""
    (tmp_path / "CONTEXT.md").write_text(
        "# Ordering\n\n## Language\n\n**Order**:\nA request. It is placed. It is paid.\n\n"
        "**Cart**:\nKept in `src/cart.py` as a dict.\n\n**Invoice**:\nA request for payment.\n")
    code, out, _ = mdgrill("--json", "lint", str(tmp_path), "--root", str(tmp_path))
    found = {(d["code"], d["line"]) for d in json.loads(out)["diagnostics"]}
    assert found == {("CONTEXT_DESCRIPTION_MISSING", 1), ("DEFINITION_TOO_LONG", 5),
                     ("DEFINITION_IMPLEMENTATION", 8)}
    assert code == 0  # warnings: a person decides


def test_term_add_names_and_describes_a_new_context(tmp_path: Path, mdgrill: Run) -> None:
    (tmp_path / "CONTEXT-MAP.md").write_text(
        "# Map\n\n## Contexts\n\n- [Billing](ctx/money/CONTEXT.md): invoices\n")
    code, _, err = mdgrill("--root", str(tmp_path), "term", "add", "Invoice", "--definition",
                           "A request for payment.", "--context-description",
                           "Invoices and payments.", cwd=tmp_path)
    assert code == 0, err
    assert (tmp_path / "ctx/money/CONTEXT.md").read_text().startswith(
        "# Billing\n\nInvoices and payments.\n\n## Language\n")
