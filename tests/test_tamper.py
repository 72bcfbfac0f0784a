"""Tamper detection: every way to forge interview state by hand, and the command that catches it.

One approved, committed interview is built once; each forgery is applied to a copy of that
repository and must be caught by `validate` (exit 1), `check-delegation` (exit 3) or
`verify` (exit 1) with the stated code. The same table is in docs/guarantees.md.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from test_reliability import MDGRILL, make_repo, ok

from mdgrill.formats.progress import log_digest, read_progress

SPEC = "specs/login"
OPEN = "specs/open"  # a second spec, still collecting
PROGRESS = f"{SPEC}/.progress.md"
DELEGATE = ["check-delegation", SPEC, "--phase", "requirements", "--interview-id", "req-1"]


@pytest.fixture(scope="module")
def approved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A repository with an approved, committed requirements interview and a glossary."""
    base = tmp_path_factory.mktemp("tamper")
    repo, env = make_repo(base)
    ok(repo, env, "init", SPEC, "--goal", "Let customers sign in with an email link.")
    (repo / SPEC / "research.md").write_text("# Research\n\nSessions are JWT.\n")
    ok(repo, env, "begin-interview", SPEC, "--phase", "requirements", "--interview-id", "req-1")
    ok(repo, env, "open-frontier", SPEC, "--round", "1", "--decision-id", "D1",
       "--decision-id", "D2")
    ok(repo, env, "record-answer", SPEC, "--decision-id", "D1", "--answer", "External customers")
    ok(repo, env, "term", "add", "Magic Link", "--definition", "A single-use sign-in URL.",
       "--spec", SPEC)
    ok(repo, env, "term", "add", "Session", "--definition", "A signed-in browser.")
    ok(repo, env, "record-answer", SPEC, "--decision-id", "D2", "--answer", "15 minutes")
    ok(repo, env, "open-frontier", SPEC, "--round", "2", "--decision-id", "D3")
    ok(repo, env, "record-answer", SPEC, "--decision-id", "D3", "--answer", "Email only")
    ok(repo, env, "await-confirmation", SPEC, "--decision-id", "C1", "--approach",
       "Email links for customers")
    ok(repo, env, "confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate")
    ok(repo, env, "init", OPEN, "--goal", "Still collecting.")
    ok(repo, env, "begin-interview", OPEN, "--phase", "start", "--interview-id", "s1")
    ok(repo, env, "open-frontier", OPEN, "--round", "1", "--decision-id", "Q1")
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "work in progress"], cwd=repo, env=env,
                   check=True)
    # the untouched state passes all three
    assert _run(repo, env, "validate").returncode == 0
    assert _run(repo, env, *DELEGATE).returncode == 0
    assert _run(repo, env, "verify").returncode == 0
    return repo, env


def _run(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MDGRILL, "--json", *args], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=60)


# -- forgeries: each edits the copy `repo` in place ------------------------------------------


def _edit(repo: Path, rel: str, old: str, new: str, count: int = 1) -> None:
    path = repo / rel
    text = path.read_text()
    assert text.count(old) >= 1, (old, text)
    path.write_text(text.replace(old, new, count))


def _reseal(repo: Path, rel: str = PROGRESS) -> None:
    """Recompute `log.sha256` as mdgrill would: a forger who knows the format."""
    path = repo / rel
    text = path.read_text()
    prog = read_progress(text.encode(), rel)
    digest = log_digest(prog.log_text())
    path.write_text(re.sub(r"sha256: [0-9a-f]{64}\n---", f"sha256: {digest}\n---", text, count=1))


def _commit(repo: Path, env: dict[str, str], message: str = "edit") -> None:
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", message], cwd=repo, env=env,
                   check=True)


def _trailers(digest: str, transition: str = "approve", interview: str = "req-1") -> str:
    return ("grill(requirements): approve req-1 (round 2)\n\n"
            f"Mdgrill-Spec: {SPEC}\nMdgrill-Phase: requirements\n"
            f"Mdgrill-Interview: {interview}\nMdgrill-Transition: {transition}\n"
            f"Mdgrill-Context-Digest: {digest}\n")


def _recorded_digest(repo: Path) -> str:
    iv = read_progress((repo / PROGRESS).read_bytes(), PROGRESS).data["interview"]
    assert isinstance(iv, dict)
    return str(iv["context_digest"])


def flip_status_only(repo: Path, env: dict[str, str]) -> None:
    _edit(repo, f"{OPEN}/.progress.md", "status: collecting", "status: complete")


def flip_status_consistently(repo: Path, env: dict[str, str]) -> None:
    """Every record field a `complete` interview has, typed by hand (no confirm)."""
    rel = f"{OPEN}/.progress.md"
    _edit(repo, rel, "status: collecting", "status: complete")
    _edit(repo, rel, "asked: [Q1]", "asked: [Q1, C9]")
    _edit(repo, rel, "pending: [Q1]", "pending: []")
    _edit(repo, rel, "approach: null", "approach: Ship it")
    _edit(repo, rel, "confirmation: null", "confirmation: approve-and-delegate")


def flip_status_and_forge_trailer_commit(repo: Path, env: dict[str, str]) -> None:
    """The hand-completed record committed with a hand-written approval trailer block."""
    flip_status_consistently(repo, env)
    rel = f"{OPEN}/.progress.md"
    iv = read_progress((repo / rel).read_bytes(), rel).data["interview"]
    assert isinstance(iv, dict)
    msg = _trailers(str(iv["context_digest"]), interview="s1").replace(
        "requirements", "start").replace(SPEC, OPEN)
    _commit(repo, env, msg)


def edit_answer(repo: Path, env: dict[str, str]) -> None:
    _edit(repo, PROGRESS, "D1 -> External customers", "D1 -> Internal staff")


def edit_answer_and_reseal(repo: Path, env: dict[str, str]) -> None:
    edit_answer(repo, env)
    _reseal(repo)


def edit_answer_reseal_commit(repo: Path, env: dict[str, str]) -> None:
    edit_answer_and_reseal(repo, env)
    _commit(repo, env)


def delete_block(repo: Path, env: dict[str, str]) -> None:
    text = (repo / PROGRESS).read_text()
    start = text.index("### Requirements Grill - Round 2")
    end = text.index("### Requirements Grill - Awaiting Confirmation")
    (repo / PROGRESS).write_text(text[:start] + text[end:])


def delete_block_and_reseal(repo: Path, env: dict[str, str]) -> None:
    delete_block(repo, env)
    _reseal(repo)


def reorder_blocks(repo: Path, env: dict[str, str]) -> None:
    text = (repo / PROGRESS).read_text()
    a = text.index("### Requirements Grill - Round 1")
    b = text.index("### Requirements Grill - Round 2")
    c = text.index("### Requirements Grill - Awaiting Confirmation")
    (repo / PROGRESS).write_text(text[:a] + text[b:c] + text[a:b] + text[c:])


def reorder_blocks_reseal_commit(repo: Path, env: dict[str, str]) -> None:
    reorder_blocks(repo, env)
    _reseal(repo)
    _commit(repo, env)


def delete_decision_line(repo: Path, env: dict[str, str]) -> None:
    _edit(repo, PROGRESS, "- Decisions: D2 -> 15 minutes\n", "")


def strip_log_digest_and_edit(repo: Path, env: dict[str, str]) -> None:
    """Remove the `log:` seal from the front matter, then change an answer."""
    text = (repo / PROGRESS).read_text()
    text = re.sub(r"log:\n  blocks: \d+\n  sha256: [0-9a-f]{64}\n", "", text)
    (repo / PROGRESS).write_text(text.replace("D1 -> External customers", "D1 -> Staff"))


def change_artifact(repo: Path, env: dict[str, str]) -> None:
    (repo / SPEC / "research.md").write_text("# Research\n\nSessions are cookies.\n")


def change_artifact_and_digest(repo: Path, env: dict[str, str]) -> None:
    """The artifact changed, and the recorded digest replaced by the new one by hand."""
    change_artifact(repo, env)
    out = subprocess.run([*MDGRILL, "--json", "digest", SPEC], cwd=repo, env=env,
                         capture_output=True, text=True, check=True).stdout
    new = json.loads(out)["context_digest"]
    old = _recorded_digest(repo)
    text = (repo / PROGRESS).read_text().replace(old, new)
    (repo / PROGRESS).write_text(text)
    _reseal(repo)


def change_artifact_digest_and_forge_trailer(repo: Path, env: dict[str, str]) -> None:
    change_artifact_and_digest(repo, env)
    _commit(repo, env, _trailers(_recorded_digest(repo)))


def delete_artifact(repo: Path, env: dict[str, str]) -> None:
    (repo / SPEC / "research.md").unlink()


def add_artifact(repo: Path, env: dict[str, str]) -> None:
    """A paragraph appended to the approved artifact."""
    (repo / SPEC / "research.md").write_text("# Research\n\nSessions are JWT.\n\nNew fact.\n")


def change_goal(repo: Path, env: dict[str, str]) -> None:
    _edit(repo, PROGRESS, "goal: Let customers sign in with an email link.",
          "goal: Let staff sign in.")


def forge_trailer_wrong_digest(repo: Path, env: dict[str, str]) -> None:
    """status flipped by hand on the open spec, committed with trailers naming another digest."""
    flip_status_consistently(repo, env)
    _commit(repo, env, _trailers("0" * 64).replace("requirements", "start")
            .replace(SPEC, OPEN).replace("req-1", "s1"))


def forge_trailer_in_body(repo: Path, env: dict[str, str]) -> None:
    """Trailer lines written above a later paragraph are not trailers."""
    flip_status_consistently(repo, env)
    msg = _trailers(_recorded_digest(repo)).replace("requirements", "start").replace(
        SPEC, OPEN).replace("req-1", "s1") + "\nSigned-off: nobody\n\nmore text\n"
    _commit(repo, env, msg)


def forge_quick_bypass(repo: Path, env: dict[str, str]) -> None:
    rel = f"{OPEN}/.progress.md"
    _edit(repo, rel, "mode: interactive", "mode: quick")
    _edit(repo, rel, "status: collecting", "status: bypassed_quick")
    _edit(repo, rel, "pending: [Q1]", "pending: []")
    _edit(repo, rel, "bypass_reason: null", 'bypass_reason: "Explicit --quick authorization"')


def remove_term(repo: Path, env: dict[str, str]) -> None:
    text = (repo / "CONTEXT.md").read_text()
    text = re.sub(r"\*\*Session\*\*:\n[^\n]*\n", "", text)
    assert "Session" not in text
    (repo / "CONTEXT.md").write_text(text)
    _commit(repo, env)


def remove_term_recorded_by_round_forged(repo: Path, env: dict[str, str]) -> None:
    """Removing the term AND adding a `Domain language: X -> (removed)` line to an old round."""
    _edit(repo, PROGRESS, "- Domain language: Magic Link", "- Domain language: Session -> "
          "(removed)\n- Domain language: Magic Link")
    _reseal(repo)
    remove_term(repo, env)


def rename_confirmation_source(repo: Path, env: dict[str, str]) -> None:
    _edit(repo, PROGRESS, "confirmation: approve-and-delegate", "confirmation: looks-good")


def truncate_log(repo: Path, env: dict[str, str]) -> None:
    text = (repo / PROGRESS).read_text()
    (repo / PROGRESS).write_text(text[: text.index("## Interview Responses")])


def edit_interview_record_after_approval(repo: Path, env: dict[str, str]) -> None:
    """An assumption added to the approved record by hand."""
    _edit(repo, PROGRESS, "assumptions: []", "assumptions: [Staff keep SSO]")


def forge_trailers_then_append_confirmed(repo: Path, env: dict[str, str]) -> None:
    """The hand-completed record committed with hand-written trailers; then a `Confirmed`
    block typed into the log, the seal recomputed, and that committed too: HEAD now looks
    approved, but the approval commit itself logged no confirmation. The question is answered
    first, as a careful forger would, so that only the approval's history gives it away (an
    asked decision with no outcome is ASKED_WITHOUT_OUTCOME before that)."""
    rel = f"{OPEN}/.progress.md"
    ok(repo, env, "record-answer", OPEN, "--decision-id", "Q1", "--answer", "Email only")
    for old, new in (("status: collecting", "status: complete"), ("asked: [Q1]", "asked: [Q1, C9]"),
                     ("approach: null", "approach: Ship it"),
                     ("confirmation: null", "confirmation: approve-and-delegate")):
        _edit(repo, rel, old, new)
    iv = read_progress((repo / rel).read_bytes(), rel).data["interview"]
    assert isinstance(iv, dict)
    _commit(repo, env, _trailers(str(iv["context_digest"]), interview="s1").replace(
        "requirements", "start").replace(SPEC, OPEN))
    iv = read_progress((repo / rel).read_bytes(), rel).data["interview"]
    assert isinstance(iv, dict)
    text = (repo / rel).read_text().rstrip("\n")
    block = ("\n\n### Goal Grill - Confirmed\n- Interview: s1\n- Confirmation ID: C9\n"
             "- Source: approve-and-delegate\n- Status: complete\n"
             f"- Context digest: {iv['context_digest']}\n")
    (repo / rel).write_text(text + block)
    _reseal(repo, rel)
    _commit(repo, env, "log the confirmation")


def _awaiting_open_spec(repo: Path, env: dict[str, str]) -> None:
    """The open spec answered and brought to the approval question."""
    ok(repo, env, "record-answer", OPEN, "--decision-id", "Q1", "--answer", "Email only")
    ok(repo, env, "await-confirmation", OPEN, "--decision-id", "C1", "--approach", "Ship it")


def node_added_before_confirm(repo: Path, env: dict[str, str]) -> None:
    """A decision added (`node add`) after the approval question was asked, before confirm."""
    _awaiting_open_spec(repo, env)
    ok(repo, env, "node", "add", OPEN, "D9", "--title", "Who may sign in?", "--option",
       "Staff: internal only", "--option", "Everyone: customers too")


def node_typed_before_confirm(repo: Path, env: dict[str, str]) -> None:
    """The same decision typed into the Design Tree by hand between the two."""
    _awaiting_open_spec(repo, env)
    _edit(repo, f"{OPEN}/.progress.md", "## Design Tree\n",
          "## Design Tree\n\n### D9: Who may sign in?\n- Depends on: none\n- Options:\n"
          "  - Staff: internal only\n  - Everyone: customers too\n")


Forgery = Callable[[Path, dict[str, str]], None]

# (forgery, command that catches it, exit code, error/diagnostic code)
TABLE: list[tuple[Forgery, str, int, str]] = [
    (flip_status_only, "validate", 1, "INVALID_STATE"),
    (flip_status_consistently, "check-delegation", 3, "APPROVAL_NOT_RECORDED"),
    (flip_status_and_forge_trailer_commit, "check-delegation", 3, "APPROVAL_NOT_RECORDED"),
    (forge_trailer_wrong_digest, "check-delegation", 3, "APPROVAL_NOT_RECORDED"),
    (forge_trailer_in_body, "check-delegation", 3, "APPROVAL_NOT_RECORDED"),
    (forge_quick_bypass, "check-delegation", 3, "QUICK_NOT_AUTHORIZED"),
    (edit_answer, "validate", 1, "ROUND_EDITED"),
    (edit_answer, "check-delegation", 3, "ROUND_EDITED"),
    (edit_answer_and_reseal, "check-delegation", 3, "ROUND_EDITED"),
    (edit_answer_reseal_commit, "verify", 1, "ROUND_EDITED"),
    (delete_block, "validate", 1, "ROUND_EDITED"),
    (delete_block_and_reseal, "check-delegation", 3, "ROUND_EDITED"),
    (reorder_blocks, "validate", 1, "ROUND_EDITED"),
    (reorder_blocks_reseal_commit, "verify", 1, "ROUND_INSERTED"),
    (delete_decision_line, "validate", 1, "ROUND_EDITED"),
    (strip_log_digest_and_edit, "check-delegation", 3, "ROUND_EDITED"),
    (truncate_log, "validate", 1, "ROUND_EDITED"),
    (change_artifact, "check-delegation", 3, "CONTEXT_STALE"),
    (add_artifact, "check-delegation", 3, "CONTEXT_STALE"),
    (delete_artifact, "check-delegation", 3, "CONTEXT_STALE"),
    (change_goal, "check-delegation", 3, "CONTEXT_STALE"),
    (change_artifact_and_digest, "check-delegation", 3, "APPROVAL_NOT_RECORDED"),
    (change_artifact_digest_and_forge_trailer, "verify", 1, "ROUND_EDITED"),
    (rename_confirmation_source, "validate", 1, "INVALID_CONFIRMATION_SOURCE"),
    (edit_interview_record_after_approval, "check-delegation", 3, "APPROVAL_NOT_RECORDED"),
    (forge_trailers_then_append_confirmed, "check-delegation", 3, "APPROVAL_NOT_RECORDED"),
    (forge_trailers_then_append_confirmed, "verify", 1, "APPROVAL_NOT_RECORDED"),
    (flip_status_and_forge_trailer_commit, "verify", 1, "APPROVAL_NOT_RECORDED"),
    (node_added_before_confirm, "confirm", 3, "FRONTIER_OPEN"),
    (node_typed_before_confirm, "confirm", 3, "FRONTIER_OPEN"),
    (remove_term, "verify", 1, "TERM_REMOVED"),
    (remove_term_recorded_by_round_forged, "verify", 1, "ROUND_EDITED"),
]

ARGS = {
    "validate": ["validate"],
    "verify": ["verify"],
    "confirm": ["confirm", OPEN, "--decision-id", "C1", "--source", "approve-and-delegate"],
}


def _codes(out: str, command: str) -> set[str]:
    payload = json.loads(out)
    if command in ("check-delegation", "confirm"):
        return {payload["error"]["code"]} if not payload["ok"] else set()
    if "error" in payload:
        return {payload["error"]["code"]}
    return {d["code"] for d in payload["diagnostics"] if d["severity"] == "error"}


@pytest.mark.parametrize(("forgery", "command", "exit_code", "code"), TABLE,
                         ids=[f"{f.__name__}-{c}" for f, c, _, _ in TABLE])
def test_forgery_is_caught(approved: tuple[Path, dict[str, str]], tmp_path: Path,
                           forgery: Forgery, command: str, exit_code: int, code: str) -> None:
    source, env = approved
    repo = tmp_path / "copy"
    shutil.copytree(source, repo, symlinks=True)
    forgery(repo, env)
    if command == "check-delegation":
        args = (["check-delegation", OPEN, "--phase", "start", "--interview-id", "s1"]
                if forgery in _OPEN_SPEC_FORGERIES else DELEGATE)
    else:
        args = ARGS[command]
    head = _head(repo, env)
    before = (repo / OPEN / ".progress.md").read_bytes()
    proc = _run(repo, env, *args)
    assert proc.returncode == exit_code, (proc.stdout, proc.stderr)
    assert code in _codes(proc.stdout, command), proc.stdout
    if command == "confirm":  # refused: nothing written, no approval commit
        assert (repo / OPEN / ".progress.md").read_bytes() == before
        assert _head(repo, env) == head


def _head(repo: Path, env: dict[str, str]) -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, env=env, check=True,
                          capture_output=True, text=True).stdout.strip()


_OPEN_SPEC_FORGERIES = {flip_status_consistently, flip_status_and_forge_trailer_commit,
                        forge_trailer_wrong_digest, forge_trailer_in_body, forge_quick_bypass,
                        forge_trailers_then_append_confirmed}


def test_validate_never_writes(approved: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    source, env = approved
    repo = tmp_path / "copy"
    shutil.copytree(source, repo, symlinks=True)
    edit_answer(repo, env)
    files = [p for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts]
    before = {p: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
              for p in files}
    for args in (["validate"], ["verify"], DELEGATE):
        _run(repo, env, *args)
    after = {p: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
             for p in files}
    assert after == before
