"""The interview state machine end to end through the installed `mdgrill` (docs/contract.md).

Every transition and every refusal with its exit code and error code, a full interview per
phase, the issue's scripted session, crash-resume and concurrent writers.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from conftest import mdgrill_command, unmeasured

from mdgrill.errors import MdgrillError
from mdgrill.formats.progress import read_progress
from mdgrill.shell.session import check_loaded

MDGRILL = mdgrill_command()
PHASE_WORD = {"start": "Goal", "triage": "Triage", "research": "Research",
              "requirements": "Requirements", "design": "Design", "tasks": "Tasks"}


# -- fixtures (a shared conftest may provide `repo`/`mdgrill`; these stand alone) -------------


@pytest.fixture(scope="session")
def child_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    env = dict(os.environ)
    # Compiled bytecode in a private cache: each call then costs what it costs installed.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path_factory.mktemp("pycache"))
    env["HOME"] = str(tmp_path_factory.mktemp("home"))
    for key in ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"):
        env.pop(key, None)
    env.update(GIT_AUTHOR_NAME="Test", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="Test", GIT_COMMITTER_EMAIL="t@example.com",
               GIT_CONFIG_NOSYSTEM="1")
    return env


class Result:
    def __init__(self, proc: subprocess.CompletedProcess[str]) -> None:
        self.code = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr
        try:
            self.json: dict[str, object] = json.loads(proc.stdout) if proc.stdout.strip() else {}
        except ValueError:
            self.json = {}

    @property
    def error(self) -> str | None:
        err = self.json.get("error")
        return err.get("code") if isinstance(err, dict) else None  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"Result({self.code}, {self.out!r}, {self.err!r})"


class Cli:
    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self.cwd = cwd
        self.env = env
        self.prefix: list[str] = []  # global options, e.g. --root

    def __call__(self, *args: str, stdin: str | None = None, json_out: bool = True) -> Result:
        argv = [*MDGRILL, *self.prefix, *(["--json"] if json_out else []), *args]
        proc = subprocess.run(argv, cwd=self.cwd, env=self.env, input=stdin, text=True,
                              capture_output=True, timeout=60)
        assert "Traceback" not in proc.stderr, proc.stderr
        return Result(proc)

    def ok(self, *args: str, stdin: str | None = None) -> dict[str, object]:
        r = self(*args, stdin=stdin)
        assert r.code == 0 and r.json.get("ok") is True, r
        return r.json

    def refused(self, code: str, exit_code: int, *args: str) -> Result:
        r = self(*args)
        assert (r.code, r.error) == (exit_code, code), r
        assert r.json["ok"] is False
        return r


@pytest.fixture
def cli(tmp_path: Path, child_env: dict[str, str]) -> Cli:
    return Cli(tmp_path, child_env)


SPEC = "specs/login"


@pytest.fixture
def spec(cli: Cli) -> Path:
    cli.ok("init", SPEC, "--goal", "Let customers sign in with a one-time link",
           "--required-section", "users")
    return cli.cwd / SPEC / ".progress.md"


# what a node the gate asks carries: "options[2..4], recommendation, rationale, tradeoffs"
CHOICE = ("--option", "First way: the simple one", "--option", "Second way", "--recommend", "1",
          "--rationale", "it covers the goal", "--tradeoffs", "less room later")


def add_node(cli: Cli, node_id: str, *extra: str, section: str = "users") -> None:
    """A node with 2 options, the first recommended, a rationale and a tradeoff, unless the
    test gives its own `--option`s."""
    choice = () if "--option" in extra else CHOICE
    cli.ok("node", "add", SPEC, node_id, "--title", f"Question {node_id}", "--section", section,
           *choice, *extra)


def begun(cli: Cli, phase: str = "start", iid: str = "start-1") -> dict[str, object]:
    return cli.ok("begin-interview", SPEC, "--phase", phase, "--interview-id", iid)


def answered_round(cli: Cli, ids: tuple[str, ...] = ("D1",), rnd: int = 1) -> None:
    cli.ok("open-frontier", SPEC, "--round", str(rnd), *sum((["--decision-id", i] for i in ids),
                                                            []))
    for node_id in ids:
        cli.ok("record-answer", SPEC, "--decision-id", node_id, "--answer",
               f"The answer to {node_id}, with detail")


def interview(path: Path) -> dict[str, object]:
    prog = read_progress(path.read_bytes(), str(path))
    check_loaded(prog)
    iv = prog.data["interview"]
    assert isinstance(iv, dict)
    return iv


def collecting(cli: Cli) -> None:
    add_node(cli, "D1")
    begun(cli)


# -- mode --------------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["-q", "--qui", "--quick=true", "--QUICK", "--interactive=1"])
def test_mode_takes_only_exact_tokens(cli: Cli, spec: Path, flag: str) -> None:
    before = spec.read_bytes()
    cli.refused("USAGE", 2, "mode", SPEC, flag)
    assert spec.read_bytes() == before


def test_mode_quick_and_back(cli: Cli, spec: Path) -> None:
    assert cli.ok("mode", SPEC)["mode"] == "interactive"
    assert cli.ok("mode", SPEC, "--quick")["mode"] == "quick"
    assert "mode: quick" in spec.read_text()
    assert cli.ok("mode", SPEC)["mode"] == "quick"
    cli.refused("USAGE", 2, "mode", SPEC, "--quick", "--interactive")


def test_mode_change_resets_contradicting_interview(cli: Cli, spec: Path) -> None:
    collecting(cli)
    result = cli.ok("mode", SPEC, "--quick")
    assert result["interview_reset"] is True
    text = spec.read_text()
    assert "### Goal Grill - Reset\n- Interview: start-1\n- Reason: mode changed to quick" in text
    prog = read_progress(spec.read_bytes(), "p")
    assert prog.data["interview"] is None
    # quick: begin bypasses, then interactive contradicts the bypass and resets it again
    assert begun(cli, iid="start-2")["status"] == "bypassed_quick"
    assert "### Goal Grill - Bypassed" in spec.read_text()
    assert cli.ok("mode", SPEC, "--interactive")["interview_reset"] is True
    assert spec.read_text().count("Grill - Reset") == 2


def test_mode_same_as_interview_keeps_it(cli: Cli, spec: Path) -> None:
    collecting(cli)
    assert cli.ok("mode", SPEC, "--interactive")["interview_reset"] is False
    assert interview(spec)["status"] == "collecting"


def test_quick_interview_allows_delegation(cli: Cli, spec: Path) -> None:
    cli.ok("mode", SPEC, "--quick")
    assert begun(cli)["status"] == "bypassed_quick"
    allowed = cli.ok("check-delegation", SPEC, "--phase", "start", "--interview-id", "start-1")
    assert (allowed["decision"], allowed["path"], allowed["checked"]) == \
        ("allow", "quick", "digest-only")


# -- record-skill-load ---------------------------------------------------------------------


def skill_manifest(cli: Cli, name: str = "grill", core: bool = True, status: str = "loaded",
                   body: bytes = b"# skill\n", sha: str | None = None,
                   iid: str = "start-1") -> Path:
    # outside a repository the root is the spec folder; skill paths are relative to --root
    cli.prefix = ["--root", str(cli.cwd)]
    skill = cli.cwd / "skills" / f"{name}.md"
    skill.parent.mkdir(exist_ok=True)
    skill.write_bytes(body)
    entry: dict[str, object] = {"name": name, "path": f"skills/{name}.md", "core": core,
                                "status": status}
    if status == "loaded":
        entry["sha256"] = sha or hashlib.sha256(body).hexdigest()
    else:
        entry["errors"] = ["could not parse front matter"]
    manifest = cli.cwd / f"manifest-{name}.json"
    manifest.write_text(json.dumps({"phase": "start", "interview_id": iid,
                                    "discovery_revision": 1, "skills": [entry]}))
    return manifest


def test_skill_load_recorded_and_checked(cli: Cli, spec: Path) -> None:
    manifest = skill_manifest(cli)
    result = cli.ok("record-skill-load", SPEC, "--input", str(manifest))
    assert (result["interview_reset"], result["core_failed"], result["warnings"]) == \
        (False, [], [])
    prog = read_progress(spec.read_bytes(), "p")
    assert prog.data["skills"][0]["sha256"] == hashlib.sha256(b"# skill\n").hexdigest()
    # the manifest from stdin is the same manifest: nothing changes
    again = cli.ok("record-skill-load", SPEC, "--input", "-", stdin=manifest.read_text())
    assert again["interview_reset"] is False
    begun(cli)
    # the skill file changed after it was loaded: begin (resume) and delegation refuse
    (cli.cwd / "skills" / "grill.md").write_bytes(b"# changed\n")
    cli.refused("SKILL_LOAD_STALE", 3, "begin-interview", SPEC, "--phase", "start",
                "--interview-id", "start-1")


def test_skill_manifest_hash_mismatch_and_bad_json(cli: Cli, spec: Path) -> None:
    before = spec.read_bytes()
    manifest = skill_manifest(cli, sha="0" * 64)
    cli.refused("HASH_MISMATCH", 2, "record-skill-load", SPEC, "--input", str(manifest))
    (cli.cwd / "bad.json").write_text("{not json")
    cli.refused("INVALID_JSON", 2, "record-skill-load", SPEC, "--input", "bad.json")
    cli.refused("NOT_FOUND", 2, "record-skill-load", SPEC, "--input", "missing.json")
    manifest.write_text(json.dumps({"phase": "start", "interview_id": "start-1",
                                    "discovery_revision": 1,
                                    "skills": [{"name": "x", "path": "skills/none.md",
                                                "status": "loaded", "sha256": "a" * 64}]}))
    cli.refused("NOT_FOUND", 2, "record-skill-load", SPEC, "--input", str(manifest))
    assert spec.read_bytes() == before


def test_changed_manifest_resets_interview(cli: Cli, spec: Path) -> None:
    cli.ok("record-skill-load", SPEC, "--input", str(skill_manifest(cli)))
    collecting(cli)
    result = cli.ok("record-skill-load", SPEC, "--input",
                    str(skill_manifest(cli, body=b"# skill v2\n")))
    assert result["interview_reset"] is True
    assert "- Reason: the skill manifest changed" in spec.read_text()
    assert read_progress(spec.read_bytes(), "p").data["interview"] is None


def test_failed_core_skill_blocks_begin(cli: Cli, spec: Path) -> None:
    result = cli.ok("record-skill-load", SPEC, "--input",
                    str(skill_manifest(cli, status="failed")))
    assert result["core_failed"] == ["grill"]
    before = spec.read_bytes()
    cli.refused("SKILL_LOAD_FAILED", 3, "begin-interview", SPEC, "--phase", "start",
                "--interview-id", "start-1")
    assert spec.read_bytes() == before


def test_failed_domain_skill_warns(cli: Cli, spec: Path) -> None:
    result = cli.ok("record-skill-load", SPEC, "--input",
                    str(skill_manifest(cli, name="stripe", core=False, status="failed")))
    assert result["core_failed"] == [] and "stripe" in result["warnings"][0]
    began = begun(cli)
    assert began["status"] == "collecting" and "stripe" in began["warnings"][0]


def test_manifest_for_another_interview_is_stale(cli: Cli, spec: Path) -> None:
    cli.ok("record-skill-load", SPEC, "--input", str(skill_manifest(cli, iid="other-1")))
    cli.refused("SKILL_LOAD_STALE", 3, "begin-interview", SPEC, "--phase", "start",
                "--interview-id", "start-1")


# -- begin-interview -----------------------------------------------------------------------


def test_begin_then_resume_writes_nothing(cli: Cli, spec: Path) -> None:
    first = begun(cli)
    assert (first["status"], first["resumed"], first["round"], first["written"]) == \
        ("collecting", False, 1, True)
    before = spec.read_bytes()
    mtime = spec.stat().st_mtime_ns
    again = begun(cli)
    assert (again["resumed"], again["written"]) == (True, False)
    assert again["context_digest"] == first["context_digest"]
    assert spec.read_bytes() == before and spec.stat().st_mtime_ns == mtime
    again = cli.ok("begin-interview", SPEC, "--phase", "start", "--interview-id", "start-1",
                   "--round", "1")
    assert again["resumed"] is True
    cli.refused("ROUND_MISMATCH", 3, "begin-interview", SPEC, "--phase", "start",
                "--interview-id", "start-1", "--round", "2")
    assert spec.read_bytes() == before


def test_begin_refuses_terminal_and_other_open_interview(cli: Cli, spec: Path) -> None:
    collecting(cli)
    cli.refused("INTERVIEW_STALE", 3, "begin-interview", SPEC, "--phase", "start",
                "--interview-id", "start-2")
    answered_round(cli)
    cli.ok("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "Do it")
    cli.ok("confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate",
           "--no-commit")
    before = spec.read_bytes()
    cli.refused("INTERVIEW_TERMINAL", 3, "begin-interview", SPEC, "--phase", "start",
                "--interview-id", "start-1")
    assert spec.read_bytes() == before
    # a new interview after a terminal one begins fresh
    assert begun(cli, "research", "research-1")["status"] == "collecting"


@pytest.mark.parametrize(("phase", "have", "missing"), [
    ("design", [], "requirements.md, which does"),
    ("tasks", ["requirements.md"], "design.md, which does"),
    ("tasks", ["design.md"], "requirements.md, which does"),
    ("tasks", [], "requirements.md, design.md, which do"),
    # a missing optional source (research.md) is never named
    ("design", ["design.md"], "requirements.md, which does"),
])
def test_begin_requires_artifacts(cli: Cli, spec: Path, phase: str, have: list[str],
                                  missing: str) -> None:
    for name in have:
        (spec.parent / name).write_text(f"# {name}\n")
    before = spec.read_bytes()
    r = cli.refused("CONTEXT_ARTIFACT_REQUIRED", 3, "begin-interview", SPEC, "--phase", phase,
                    "--interview-id", f"{phase}-1")
    assert f"the {phase} phase reads {missing} not exist in {SPEC}: finish the previous " \
        "phase first" in r.json["error"]["message"]  # type: ignore[index]
    assert spec.read_bytes() == before


def test_an_optional_source_missing_is_not_a_refusal(cli: Cli, spec: Path) -> None:
    # research.md is read when it exists; the requirements phase needs nothing before it
    assert begun(cli, "requirements", "req-1")["status"] == "collecting"


@pytest.mark.parametrize("goal", ["goal: ''", "goal: '   '"])
def test_begin_without_a_goal_says_to_add_one(cli: Cli, spec: Path, goal: str) -> None:
    text = spec.read_text()
    spec.write_text(text.replace("goal: Let customers sign in with a one-time link", goal, 1))
    before = spec.read_bytes()
    r = cli("begin-interview", SPEC, "--phase", "start", "--interview-id", "start-1")
    assert r.code == 2 and r.error == "INVALID_STATE", r
    assert "the front matter has no `goal:`; add the spec's goal (one line)" in \
        r.json["error"]["message"]  # type: ignore[index]
    assert spec.read_bytes() == before


def test_begin_bad_input(cli: Cli, spec: Path) -> None:
    cli.refused("USAGE", 2, "begin-interview", SPEC, "--phase", "planning", "--interview-id", "x")
    cli.refused("INVALID_ID", 2, "begin-interview", SPEC, "--phase", "start", "--interview-id",
                "1bad id")
    cli.refused("NOT_FOUND", 2, "begin-interview", "specs/nope", "--phase", "start",
                "--interview-id", "s1")
    cli.refused("INTERVIEW_MISSING", 3, "open-frontier", SPEC, "--round", "1", "--decision-id",
                "D1")


def test_context_change_resets_on_begin(cli: Cli, spec: Path) -> None:
    (spec.parent / "research.md").write_text("# Research\n")
    first = cli.ok("begin-interview", SPEC, "--phase", "requirements", "--interview-id", "req-1")
    (spec.parent / "research.md").write_text("# Research v2\n")
    cli.refused("CONTEXT_STALE", 3, "begin-interview", SPEC, "--phase", "requirements",
                "--interview-id", "req-1")  # an ID resumes only with its digest
    again = cli.ok("begin-interview", SPEC, "--phase", "requirements", "--interview-id", "req-2")
    assert again["resumed"] is False and again["context_digest"] != first["context_digest"]
    assert "### Requirements Grill - Reset\n- Interview: req-1\n" in spec.read_text()


# -- open-frontier / record-answer / record-fact / out-of-scope ------------------------------


def test_open_frontier_refusals(cli: Cli, spec: Path) -> None:
    collecting(cli)
    cli.refused("INVALID_ROUND_TRANSITION", 3, "open-frontier", SPEC, "--round", "3",
                "--decision-id", "D1")
    cli.refused("INVALID_ROUND_TRANSITION", 3, "open-frontier", SPEC, "--round", "0",
                "--decision-id", "D1")
    cli.refused("INVALID_ID", 2, "open-frontier", SPEC, "--round", "1", "--decision-id", "9x")
    cli.refused("INVALID_INPUT", 2, "open-frontier", SPEC, "--round", "1", "--decision-id", "D1",
                "--decision-id", "D1")
    assert cli.ok("open-frontier", SPEC, "--round", "1", "--decision-id", "D1")["pending"] == \
        ["D1"]
    # same round again: only the new ID gets an Asked line; a repeat writes nothing
    assert cli.ok("open-frontier", SPEC, "--round", "1", "--decision-id", "D1")["written"] is \
        False
    cli.ok("open-frontier", SPEC, "--round", "1", "--decision-id", "D2")
    assert "- Asked: D1\n- Asked: D2\n" in spec.read_text()
    cli.refused("DECISIONS_PENDING", 3, "open-frontier", SPEC, "--round", "2", "--decision-id",
                "D3")
    cli.ok("record-answer", SPEC, "--decision-id", "D1", "--answer", "External customers")
    cli.ok("out-of-scope", SPEC, "--decision-id", "D2", "--reply", "not in this release")
    cli.refused("DECISION_ALREADY_RECORDED", 3, "open-frontier", SPEC, "--round", "2",
                "--decision-id", "D1")
    opened = cli.ok("open-frontier", SPEC, "--round", "2", "--decision-id", "D3")
    assert opened["pending"] == ["D3"]
    text = spec.read_text()
    assert "- Out of scope: D2 -> not in this release\n- By: D2 -> Test <t@example.com>\n" \
        "- Facts resolved: none\n" \
        "- Domain language: none\n" \
        "- Frontier after round: none\n\n### Goal Grill - Round 2\n- Asked: D3\n" in text
    assert interview(spec)["round"] == 2


CONTROL_REPLIES = ["ok", "Yes!!!", "skip", "Skip.", "please continue thanks", "LOOKS GOOD 👍",
                   "approved", "go ahead, thank you", "👍", "..."]


def test_append_after_trailing_spaces_on_the_last_line(cli: Cli, spec: Path) -> None:
    # the seal ignores them (the log is hashed stripped); the next append keeps them mid-log
    collecting(cli)
    cli.ok("open-frontier", SPEC, "--round", "1", "--decision-id", "D1")
    spec.write_text(spec.read_text().rstrip("\n") + "  \n\n")
    cli.ok("record-answer", SPEC, "--decision-id", "D1", "--answer", "Only customers")
    assert "- Asked: D1  \n- Decisions: D1 -> Only customers\n" in spec.read_text()
    assert cli("validate", SPEC).code == 0


def test_record_answer_refuses_control_replies(cli: Cli, spec: Path) -> None:
    collecting(cli)
    cli.ok("open-frontier", SPEC, "--round", "1", "--decision-id", "D1")
    before = spec.read_bytes()
    for reply in CONTROL_REPLIES:
        cli.refused("CONTROL_ONLY_ANSWER", 3, "record-answer", SPEC, "--decision-id", "D1",
                    "--answer", reply)
    assert spec.read_bytes() == before
    assert cli("classify-reply", "--text", "Yes!!!").json["classification"] == "control_only"


def test_record_answer_refusals_and_sanitizing(cli: Cli, spec: Path) -> None:
    collecting(cli)
    cli.refused("DECISION_NOT_PENDING", 3, "record-answer", SPEC, "--decision-id", "D1",
                "--answer", "External customers")
    cli.ok("open-frontier", SPEC, "--round", "1", "--decision-id", "D1", "--decision-id", "D2",
           "--decision-id", "D3")
    before = spec.read_bytes()
    for empty in ("", "   ", "\n\t"):
        cli.refused("EMPTY_ANSWER", 2, "record-answer", SPEC, "--decision-id", "D1", "--answer",
                    empty)
    cli.refused("INVALID_INPUT", 2, "record-answer", SPEC, "--decision-id", "D1", "--answer",
                "red\x1b[31m text")
    cli.refused("INVALID_ID", 2, "record-answer", SPEC, "--decision-id", "D 1", "--answer", "x y")
    cli.refused("DECISION_NOT_PENDING", 3, "record-answer", SPEC, "--decision-id", "D9",
                "--answer", "External customers")
    assert spec.read_bytes() == before
    cli.ok("record-answer", SPEC, "--decision-id", "D1", "--answer",
           "External customers\n### Not a heading\r\nsecond  line\u2028third")
    # "skip it for now" leaves one decision: never recorded as its answer
    before = spec.read_bytes()
    cli.refused("SKIP_DECISION_REQUESTED", 3, "record-answer", SPEC, "--decision-id", "D2",
                "--answer", "Skip it for now", "--assumption", "staff keep SSO")
    assert spec.read_bytes() == before
    cli.ok("record-answer", SPEC, "--decision-id", "D2", "--answer", "Staff later",
           "--assumption", "staff keep SSO")
    text = spec.read_text()
    assert "- Decisions: D1 -> External customers ### Not a heading second line third\n" in text
    assert "- Decisions: D2 -> Staff later\n- Assumptions: staff keep SSO\n" in text
    iv = interview(spec)
    assert (iv["pending"], iv["assumptions"]) == (["D3"], ["staff keep SSO"])
    cli.refused("DECISION_NOT_PENDING", 3, "record-answer", SPEC, "--decision-id", "D1",
                "--answer", "Changed my mind")
    heads = [line for line in text.splitlines() if line.startswith("#")]
    assert "### Not a heading" not in heads


def test_record_fact_and_out_of_scope(cli: Cli, spec: Path) -> None:
    collecting(cli)
    cli.refused("ILLEGAL_TRANSITION", 3, "record-fact", SPEC, "sessions are JWT")
    cli.ok("open-frontier", SPEC, "--round", "1", "--decision-id", "D1", "--decision-id", "D2")
    assert cli.ok("record-fact", SPEC, "sessions are JWT (src/auth/session.py)")["pending"] == \
        ["D1", "D2"]
    assert cli.ok("record-fact", SPEC, "only the public site", "--decision-id", "D1")[
        "pending"] == ["D2"]
    before = spec.read_bytes()
    cli.refused("CONTROL_ONLY_ANSWER", 3, "out-of-scope", SPEC, "--decision-id", "D2",
                "--reply", "ok")
    cli.refused("DECISION_NOT_ASKED", 3, "out-of-scope", SPEC, "--decision-id", "D7",
                "--reply", "drop it")
    assert spec.read_bytes() == before
    assert cli.ok("out-of-scope", SPEC, "--decision-id", "D2", "--reply",
                  "Not for this release")["pending"] == []
    cli.refused("INVALID_INPUT", 2, "record-fact", SPEC, "  ")
    # a fact never replaces what the user answered
    cli.refused("DECISION_ALREADY_RECORDED", 3, "record-fact", SPEC, "x", "--decision-id", "D1")
    text = spec.read_text()
    # each line is followed by who gave it (git's identity, as no --by was given)
    assert "- Facts resolved: sessions are JWT (src/auth/session.py)\n" \
        "- By: Test <t@example.com>\n" \
        "- Facts resolved: D1 -> only the public site\n- By: D1 -> Test <t@example.com>\n" \
        "- Out of scope: D2 -> Not for this release\n- By: D2 -> Test <t@example.com>\n" in text
    frontier = cli.ok("frontier", SPEC)
    assert frontier["ready"] is True and frontier["frontier"] == []


# -- await-confirmation / confirm / skip / revise --------------------------------------------


def test_await_confirmation_refusals(cli: Cli, spec: Path) -> None:
    add_node(cli, "D1")
    add_node(cli, "D2", "--spawned-by", "D1")
    add_node(cli, "S1", section="security")
    begun(cli)
    cli.ok("open-frontier", SPEC, "--round", "1", "--decision-id", "D1")
    cli.refused("DECISIONS_PENDING", 3, "await-confirmation", SPEC, "--decision-id", "C1",
                "--approach", "Do it")
    cli.ok("record-answer", SPEC, "--decision-id", "D1", "--answer", "External customers")
    # "Ask every currently unblocked user decision in the same round": S1 was on the frontier
    before = spec.read_bytes()
    cli.refused("FRONTIER_NOT_ASKED", 3, "await-confirmation", SPEC, "--decision-id", "C1",
                "--approach", "Do it")
    refused = cli.refused("FRONTIER_NOT_ASKED", 3, "open-frontier", SPEC, "--round", "2",
                          "--decision-id", "D2")
    assert "--round 1 --decision-id S1" in refused.json["error"]["message"]
    assert spec.read_bytes() == before
    cli.ok("open-frontier", SPEC, "--round", "1", "--decision-id", "S1")
    cli.ok("record-answer", SPEC, "--decision-id", "S1", "--answer", "Fifteen minutes")
    # "Advance no phase with an open frontier": D2 is open, and a sub-thread of D1
    refused = cli.refused("FRONTIER_OPEN", 3, "await-confirmation", SPEC, "--decision-id", "C1",
                          "--approach", "Do it")
    codes = [p["code"] for p in refused.json["error"]["problems"]]
    assert codes == ["FRONTIER_OPEN", "OPEN_SUBTHREAD"]
    assert spec.read_bytes() != before and cli.ok("validate", SPEC)["ok"] is True
    cli.ok("open-frontier", SPEC, "--round", "2", "--decision-id", "D2")
    cli.ok("record-answer", SPEC, "--decision-id", "D2", "--answer", "Fifteen minutes")
    cli.refused("DECISION_ALREADY_RECORDED", 3, "await-confirmation", SPEC, "--decision-id",
                "D1", "--approach", "Do it")
    cli.refused("INVALID_INPUT", 2, "await-confirmation", SPEC, "--decision-id", "C1",
                "--approach", " ")
    # a required section without a resolved node
    text = spec.read_text().replace("required_sections: [users]",
                                    "required_sections: [users, billing]")
    spec.write_text(text)
    before = spec.read_bytes()
    cli.refused("REQUIRED_SECTION_UNRESOLVED", 3, "await-confirmation", SPEC, "--decision-id",
                "C1", "--approach", "Do it")
    assert spec.read_bytes() == before


def test_await_quotes_brief_then_confirm(cli: Cli, spec: Path) -> None:
    collecting(cli)
    answered_round(cli)
    brief = cli.cwd / "brief.md"
    brief.write_text("## Brief\n\n- one: thing\n```\n## not a heading\n```\n\n")
    result = cli.ok("await-confirmation", SPEC, "--decision-id", "C1", "--approach",
                    "Magic links, 15 minutes", "--brief-file", str(brief))
    assert result["status"] == "awaiting_confirmation"
    text = spec.read_text()
    scope = str(result["approval_scope"])
    assert "### Goal Grill - Awaiting Confirmation\n- Confirmation ID: C1\n- Approach: Magic " \
        f"links, 15 minutes\n- Approval scope: {scope}\n- Scope parts: the context " in text
    assert "\n\n> ## Brief\n>\n> - one: thing\n> ```\n> ## not a heading\n> ```\n" in text
    prog = read_progress(spec.read_bytes(), "p")
    assert [b.kind for b in prog.blocks] == ["round", "awaiting"]
    cli.refused("ILLEGAL_TRANSITION", 3, "record-answer", SPEC, "--decision-id", "C1",
                "--answer", "Looks right to me")
    # --source has one legal value, and the parser says which (the gate's own
    # INVALID_CONFIRMATION_SOURCE stays for the API and MCP ways in)
    wrong = cli.refused("USAGE", 2, "confirm", SPEC, "--decision-id", "C1", "--source", "yes",
                        "--no-commit")
    assert "invalid choice: 'yes' (choose from 'approve-and-delegate')" in wrong.out
    assert spec.read_text() == text  # nothing written
    cli.refused("CONFIRMATION_ID_MISMATCH", 3, "confirm", SPEC, "--decision-id", "C2",
                "--source", "approve-and-delegate", "--no-commit")
    done = cli.ok("confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate",
                  "--no-commit")
    assert done["status"] == "complete" and done.get("commit") is None
    iv = interview(spec)
    assert (iv["status"], iv["confirmation"], iv["pending"]) == \
        ("complete", "approve-and-delegate", [])
    cli.refused("ILLEGAL_TRANSITION", 3, "confirm", SPEC, "--decision-id", "C1", "--source",
                "approve-and-delegate", "--no-commit")


def test_confirm_while_collecting_is_illegal(cli: Cli, spec: Path) -> None:
    collecting(cli)
    cli.refused("ILLEGAL_TRANSITION", 3, "confirm", SPEC, "--decision-id", "C1", "--source",
                "approve-and-delegate", "--no-commit")
    cli.refused("ILLEGAL_TRANSITION", 3, "revise", SPEC, "--decision-id", "D1")


def test_skip_needs_assumption_then_confirm_skipped(cli: Cli, spec: Path) -> None:
    collecting(cli)
    cli.ok("open-frontier", SPEC, "--round", "1", "--decision-id", "D1", "--decision-id", "D2")
    cli.ok("record-answer", SPEC, "--decision-id", "D1", "--answer", "External customers")
    before = spec.read_bytes()
    # a missing argument is bad input (exit 2), not a refusal of the gate
    cli.refused("ASSUMPTION_REQUIRED", 2, "skip", SPEC, "--reason", "user is busy")
    cli.refused("ASSUMPTION_REQUIRED", 2, "skip", SPEC, "--reason", "user is busy",
                "--assumption", " ")
    assert spec.read_bytes() == before
    result = cli.ok("skip", SPEC, "--reason", "user is busy", "--assumption", "15 minute links",
                    "--decision-id", "SK1")
    assert (result["status"], result["confirmation_id"]) == ("awaiting_confirmation", "SK1")
    text = spec.read_text()
    assert "### Goal Grill - Skipped\n- Confirmation ID: SK1\n- Reason: user is busy\n" \
        "- Retired: D2\n- Defaulted: D2\n- Assumption: 15 minute links\n" in text
    iv = interview(spec)
    assert (iv["asked"], iv["pending"]) == (["D1", "SK1"], ["SK1"])
    cli.refused("INTERVIEW_INCOMPLETE", 3, "check-delegation", SPEC, "--phase", "start",
                "--interview-id", "start-1")
    done = cli.ok("confirm", SPEC, "--decision-id", "SK1", "--source", "approve-and-delegate",
                  "--no-commit")
    assert done["status"] == "skipped"
    iv = interview(spec)
    assert (iv["status"], iv["bypass_reason"], iv["assumptions"]) == \
        ("skipped", "user is busy", ["15 minute links"])
    allowed = cli.ok("check-delegation", SPEC, "--phase", "start", "--interview-id", "start-1")
    assert (allowed["status"], allowed["path"]) == ("skipped", "interview")


def test_revise_reopens_and_advances(cli: Cli, spec: Path) -> None:
    collecting(cli)
    answered_round(cli)
    cli.ok("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "Do it")
    revised = cli.ok("revise", SPEC, "--decision-id", "D1")
    assert (revised["status"], revised["round"], revised["pending"]) == ("collecting", 2, ["D1"])
    iv = interview(spec)
    assert (iv["asked"], iv["pending"], iv["approach"], iv["round"]) == (["D1"], ["D1"], None, 2)
    text = spec.read_text()
    assert "### Goal Grill - Revised\n- Retired: C1\n- Reopened: D1\n- Next round: 2\n\n" \
        "### Goal Grill - Round 2\n- Asked: D1\n" in text
    cli.ok("record-answer", SPEC, "--decision-id", "D1", "--answer", "Internal staff instead")
    frontier = cli.ok("frontier", SPEC)
    assert frontier["ready"] is True
    # C1 was retired, and the brief returns under it: "using the same confirmation ID"
    cli.refused("CONFIRMATION_ID_MISMATCH", 3, "await-confirmation", SPEC, "--decision-id",
                "C2", "--approach", "Staff only")
    cli.ok("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "Staff only")


# -- check-delegation / digest --------------------------------------------------------------


def test_check_delegation_refusals_and_context_stale(cli: Cli, spec: Path) -> None:
    (spec.parent / "research.md").write_text("# Research\nJWT sessions.\n")
    add_node(cli, "D1")
    began = cli.ok("begin-interview", SPEC, "--phase", "requirements", "--interview-id", "req-1")
    cli.refused("INTERVIEW_INCOMPLETE", 3, "check-delegation", SPEC, "--phase", "requirements",
                "--interview-id", "req-1")
    cli.refused("INTERVIEW_STALE", 3, "check-delegation", SPEC, "--phase", "requirements",
                "--interview-id", "req-2")
    cli.refused("INTERVIEW_STALE", 3, "check-delegation", SPEC, "--phase", "research",
                "--interview-id", "req-1")
    answered_round(cli)
    cli.ok("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "Do it")
    cli.ok("confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate")
    allowed = cli.ok("check-delegation", SPEC, "--phase", "requirements", "--interview-id",
                     "req-1", "--context-digest", str(began["context_digest"]))
    assert (allowed["decision"], allowed["checked"]) == ("allow", "digest-only")
    cli.refused("CONTEXT_STALE", 3, "check-delegation", SPEC, "--phase", "requirements",
                "--interview-id", "req-1", "--context-digest", "f" * 64)
    digest = cli.ok("digest", SPEC)
    assert digest["context_digest"] == began["context_digest"] and digest["stale"] is False
    (spec.parent / "research.md").write_text("# Research\nOpaque sessions.\n")
    cli.refused("CONTEXT_STALE", 3, "check-delegation", SPEC, "--phase", "requirements",
                "--interview-id", "req-1")
    assert cli.ok("digest", SPEC)["stale"] is True
    human = cli("check-delegation", SPEC, "--phase", "requirements", "--interview-id", "req-1",
                json_out=False)
    assert human.code == 3 and "CONTEXT_STALE" in human.err and human.out == ""


def test_digest_and_ralph_compat(cli: Cli, spec: Path) -> None:
    (spec.parent / "research.md").write_text("# Research\n")
    # outside a repository, paths are relative to the spec folder unless --root says otherwise
    assert cli.ok("digest", SPEC, "--phase", "requirements")["sources"][0]["path"] == \
        "research.md"
    cli.prefix = ["--root", str(cli.cwd)]
    own = cli.ok("digest", SPEC, "--phase", "requirements")
    ralph = cli.ok("digest", SPEC, "--phase", "requirements", "--compat", "ralph")
    assert own["context_digest"] != ralph["context_digest"]
    assert len(str(ralph["context_digest"])) == 64 and ralph["compat"] == "ralph"
    sources = ralph["sources"]
    assert isinstance(sources, list) and os.path.isabs(sources[0]["path"])
    assert own["sources"] == [{"path": f"{SPEC}/research.md",
                               "sha256": hashlib.sha256(b"# Research\n").hexdigest()}]
    cli.refused("USAGE", 2, "digest", SPEC, "--compat", "other")


# -- a full interview for every phase --------------------------------------------------------


@pytest.mark.parametrize("phase", ["start", "triage", "research", "requirements", "design",
                                   "tasks"])
def test_full_interview_per_phase(cli: Cli, phase: str) -> None:
    folder = "specs/_epics/checkout" if phase == "triage" else SPEC
    cli.ok("init", folder, "--goal", "Sell gift cards", "--required-section", "scope",
           "--phase", phase)
    spec_dir = cli.cwd / folder
    if phase in ("design", "tasks"):
        (spec_dir / "requirements.md").write_text("# Requirements\n")
    if phase == "tasks":
        (spec_dir / "design.md").write_text("# Design\n")
    cli.ok("node", "add", folder, "E1", "--title", "Which cards?", "--section", "scope",
           "--option", "Digital: instant", "--option", "Physical: mailed", "--recommend", "1")
    cli.ok("node", "add", folder, "E2", "--title", "Expiry?", "--section", "scope",
           "--depends-on", "E1", *CHOICE)
    iid = f"{phase}-1"
    began = cli.ok("begin-interview", folder, "--phase", phase, "--interview-id", iid)
    assert began["status"] == "collecting"
    assert cli.ok("frontier", folder)["frontier"] == ["E1"]
    cli.ok("open-frontier", folder, "--round", "1", "--decision-id", "E1")
    cli.ok("record-answer", folder, "--decision-id", "E1", "--answer", "Digital only")
    assert cli.ok("frontier", folder)["frontier"] == ["E2"]
    cli.ok("open-frontier", folder, "--round", "2", "--decision-id", "E2")
    cli.ok("record-answer", folder, "--decision-id", "E2", "--answer", "Never expire")
    cli.ok("await-confirmation", folder, "--decision-id", "C1", "--approach", "Digital cards")
    assert cli.ok("confirm", folder, "--decision-id", "C1", "--source",
                  "approve-and-delegate")["status"] == "complete"
    allowed = cli.ok("check-delegation", folder, "--phase", phase, "--interview-id", iid)
    assert allowed["decision"] == "allow"
    path = spec_dir / ".progress.md"
    prog = read_progress(path.read_bytes(), str(path))
    check_loaded(prog)
    word = PHASE_WORD[phase]
    assert [b.title for b in prog.blocks] == [
        f"{word} Grill - Round 1", f"{word} Grill - Round 2",
        f"{word} Grill - Awaiting Confirmation", f"{word} Grill - Confirmed"]
    assert prog.data["phase"] == phase
    context = prog.data["interview"]["context"]  # type: ignore[index]
    expected = {"design": ["requirements.md"], "tasks": ["design.md", "requirements.md"]}
    assert sorted(c["path"].split("/")[-1] for c in context) == expected.get(phase, [])


# -- the scripted session --------------------------------------------------------------


def test_scripted_session_is_valid_and_goes_stale(cli: Cli, spec: Path) -> None:
    research = spec.parent / "research.md"
    research.write_text("# Research\nSessions are JWT.\n")
    add_node(cli, "D1", "--option", "External customers: public", "--option", "Staff: SSO",
             "--recommend", "1")
    add_node(cli, "D2", "--depends-on", "D1")
    cli.ok("begin-interview", SPEC, "--phase", "requirements", "--interview-id", "req-1")
    answered_round(cli, ("D1",), 1)
    cli.ok("record-fact", SPEC, "sessions are JWT (src/auth/session.py)")
    answered_round(cli, ("D2",), 2)
    cli.ok("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "Magic links")
    cli.ok("revise", SPEC, "--decision-id", "D2")
    cli.ok("record-answer", SPEC, "--decision-id", "D2", "--answer", "One hour after all")
    cli.ok("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "Magic links, 1h")
    cli.ok("confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate")
    cli.ok("check-delegation", SPEC, "--phase", "requirements", "--interview-id", "req-1")
    text = spec.read_text()
    titles = [line for line in text.splitlines() if line.startswith("### Requirements")]
    assert titles == ["### Requirements Grill - Round 1", "### Requirements Grill - Round 2",
                      "### Requirements Grill - Awaiting Confirmation",
                      "### Requirements Grill - Revised", "### Requirements Grill - Round 3",
                      "### Requirements Grill - Awaiting Confirmation",
                      "### Requirements Grill - Confirmed"]
    assert "- Decisions: D2 -> One hour after all\n" in text
    r = cli("validate", SPEC)
    assert r.code == 0, r
    research.write_text("# Research\nSessions are opaque tokens.\n")
    cli.refused("CONTEXT_STALE", 3, "check-delegation", SPEC, "--phase", "requirements",
                "--interview-id", "req-1")


def test_scripted_session_in_git_binds_approval(cli: Cli, spec: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=cli.cwd, env=cli.env, check=True)
    subprocess.run(["git", "add", "-A"], cwd=cli.cwd, env=cli.env, check=True)
    subprocess.run(["git", "commit", "-qm", "init"], cwd=cli.cwd, env=cli.env, check=True)
    collecting(cli)
    answered_round(cli)
    cli.ok("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "Do it")
    done = cli.ok("confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate")
    assert isinstance(done["commit"], str) and len(done["commit"]) == 40
    allowed = cli.ok("check-delegation", SPEC, "--phase", "start", "--interview-id", "start-1")
    assert allowed["checked"] == "history" and allowed["approval_commit"] == done["commit"]


# -- bad files are refused and left byte-identical --------------------------------------------


BREAKAGES = {
    "bad yaml": (lambda t: t.replace("spec: login", "spec: [login"), "MALFORMED_FILE", 2),
    "pending not asked": (lambda t: t.replace("pending: [D1]", "pending: [D1, D7]"),
                          "INVALID_STATE", 2),
    "edited round": (lambda t: t.replace("D2 -> The answer", "D2 -> Another answer"),
                     "ROUND_EDITED", 3),
    "removed round": (lambda t: t.replace("### Goal Grill - Round 1\n", ""), "ROUND_EDITED", 3),
    "status by hand": (lambda t: t.replace("status: collecting", "status: complete"),
                       "INVALID_STATE", 2),
    "duplicate key": (lambda t: t.replace("mdgrill: 1", "mdgrill: 1\nmdgrill: 1"),
                      "MALFORMED_FILE", 2),
    "unclosed front matter": (lambda t: t.replace("\n---\n# Login", "\n# Login"),
                              "MALFORMED_FILE", 2),
    "NUL byte": (lambda t: t.replace("- Asked: D1", "- Asked: D1\x00"), "MALFORMED_FILE", 2),
}


@pytest.mark.parametrize("name", sorted(BREAKAGES))
def test_hand_broken_file_is_refused_untouched(cli: Cli, spec: Path, name: str) -> None:
    breakage, code, exit_code = BREAKAGES[name]
    collecting(cli)
    cli.ok("open-frontier", SPEC, "--round", "1", "--decision-id", "D1", "--decision-id", "D2")
    cli.ok("record-answer", SPEC, "--decision-id", "D2", "--answer", "The answer to D2")
    text = spec.read_text()
    broken = breakage(text)
    assert broken != text
    spec.write_bytes(broken.encode("utf-8"))
    before = spec.read_bytes()
    for args in (["record-answer", SPEC, "--decision-id", "D1", "--answer", "External"],
                 ["open-frontier", SPEC, "--round", "1", "--decision-id", "D3"],
                 ["begin-interview", SPEC, "--phase", "start", "--interview-id", "start-1"]):
        r = cli(*args)
        assert (r.code, r.error) == (exit_code, code), (args, r)
    assert spec.read_bytes() == before
    assert sorted(p.name for p in spec.parent.iterdir()) == [".progress.md"]


# -- crashes and concurrency --------------------------------------------------------------------


def test_resume_after_sigkill(cli: Cli, spec: Path) -> None:
    """Each `record-answer` is SIGKILLed after a delay that homes in on the verb's own run
    time on this machine, whatever its load: shorter after a run that finished first,
    longer after one that was killed. So kills land late in the run, where it writes, and
    some runs finish: both are asserted, not hoped for."""
    collecting(cli)
    ids = [f"D{i}" for i in range(1, 13)]
    cli.ok("open-frontier", SPEC, "--round", "1", *sum((["--decision-id", i] for i in ids), []))
    succeeded: set[str] = set()
    killed = landed = 0
    delay = 0.3
    for node_id in ids:
        argv = [*MDGRILL, "--json", "record-answer", SPEC, "--decision-id", node_id, "--answer",
                f"Answer for {node_id}"]
        proc = subprocess.Popen(argv, cwd=cli.cwd, env=unmeasured(cli.env),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
        proc.communicate()
        if proc.returncode == 0:
            succeeded.add(node_id)
            delay = max(delay / 1.6, 0.002)
        else:
            assert proc.returncode == -signal.SIGKILL, proc.returncode
            killed += 1
            delay = min(delay * 1.6, 10.0)
        # the file parses and passes every load check after each kill
        prog = read_progress(spec.read_bytes(), str(spec))
        check_loaded(prog)
        text = spec.read_text()
        landed += f"- Decisions: {node_id} -> Answer for {node_id}\n" in text
        for done in succeeded:
            assert f"- Decisions: {done} -> Answer for {done}\n" in text
    assert killed >= 1 and landed >= 1, (killed, landed)
    # resume: answer whatever did not land; what landed is refused as not pending
    for node_id in ids:
        r = cli("record-answer", SPEC, "--decision-id", node_id, "--answer",
                f"Answer for {node_id}")
        assert (r.code, r.error) in ((0, None), (3, "DECISION_NOT_PENDING")), r
        if node_id in succeeded:
            assert r.code == 3
    text = spec.read_text()
    for node_id in ids:
        assert text.count(f"- Decisions: {node_id} -> ") == 1
    assert interview(spec)["pending"] == []
    assert not [p.name for p in spec.parent.iterdir() if p.name.startswith(".mdgrill-tmp")]


def test_concurrent_writers_all_land_once(cli: Cli, spec: Path) -> None:
    collecting(cli)
    workers, each = 8, 10
    ids = [f"D{w}_{i}" for w in range(workers) for i in range(each)]
    cli.ok("open-frontier", SPEC, "--round", "1", *sum((["--decision-id", i] for i in ids), []))

    def worker(w: int) -> list[int]:
        codes = []
        for i in range(each):
            r = cli("record-answer", SPEC, "--decision-id", f"D{w}_{i}", "--answer",
                    f"Answer {w}.{i}")
            codes.append(r.code)
        return codes

    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(worker, range(workers)))
    assert all(code == 0 for codes in results for code in codes), results
    text = spec.read_text()
    for w in range(workers):
        for i in range(each):
            assert text.count(f"- Decisions: D{w}_{i} -> Answer {w}.{i}\n") == 1
    iv = interview(spec)
    assert iv["pending"] == [] and len(iv["asked"]) == workers * each  # type: ignore[arg-type]
    assert sorted(p.name for p in spec.parent.iterdir()) == [".progress.md"]


def test_read_progress_error_is_mdgrill_error(spec: Path) -> None:
    with pytest.raises(MdgrillError):
        read_progress(b"---\nspec: [x\n---\n", "p")
