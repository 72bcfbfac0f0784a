"""The artifact gate's own question (issue 38 part 4): `ask` and the MCP `ask` tool print it
with labelled options while the phase's artifact awaits approval, and `resolve-approval`
approves only on its selection, through the installed CLI in a real repository.

The framework: "Keep the phase in artifact approval until the user explicitly approves";
"Do not infer defaults or approval from a control-only reply"; "`apply the changes` during
artifact review … never approves the artifact or advances the phase"."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest
from test_reliability import MDGRILL, make_repo, ok_json

from mdgrill.core import artifact_gate

SPEC = "specs/login"
OPTIONS = ["Approve requirements.md and continue to design (Recommended)", "Request changes",
           "Cancel"]


def _at_the_gate(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A spec whose approved requirements interview delegated, and whose requirements.md
    now awaits the user's approval."""
    repo, env = make_repo(tmp_path)
    ok_json(repo, env, "init", SPEC, "--goal", "Passwordless login")
    ok_json(repo, env, "node", "add", SPEC, "D1", "--title", "Who signs in?", "--option",
            "Customers", "--option", "Staff", "--recommend", "1")
    ok_json(repo, env, "begin-interview", SPEC, "--phase", "requirements", "--interview-id",
            "r1")
    ok_json(repo, env, "open-frontier", SPEC, "--round", "1", "--decision-id", "D1")
    ok_json(repo, env, "record-answer", SPEC, "--decision-id", "D1", "--answer", "Customers")
    ok_json(repo, env, "await-confirmation", SPEC, "--decision-id", "C1", "--approach", "Links")
    ok_json(repo, env, "confirm", SPEC, "--decision-id", "C1", "--source",
            "approve-and-delegate", "--reply", "Approve and delegate")
    (repo / SPEC / "requirements.md").write_text("# Requirements\n\n- email links\n")
    ok_json(repo, env, "await-artifact-approval", SPEC, "--artifact", "requirements.md")
    return repo, env


@pytest.fixture(scope="module")
def shared_gate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """One gate for the tests that only read it (`resolve-approval` writes nothing)."""
    return _at_the_gate(tmp_path_factory.mktemp("gate"))


def _text(repo: Path, env: dict[str, str], *argv: str) -> str:
    proc = subprocess.run([*MDGRILL, *argv], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return proc.stdout


def test_ask_prints_the_artifact_question_with_its_own_options(tmp_path: Path) -> None:
    repo, env = _at_the_gate(tmp_path)
    progress = repo / SPEC / ".progress.md"
    before = progress.read_bytes()
    sha = ok_json(repo, env, "status", SPEC)["artifact"]["sha256"]  # type: ignore[index]
    payload = json.loads(_text(repo, env, "ask", SPEC))  # what goes to AskUserQuestion
    (question,) = payload["questions"]
    assert [o["label"] for o in question["options"]] == OPTIONS
    assert all(o["description"] and o["description"] != o["label"]
               for o in question["options"])
    assert question["multiSelect"] is False and len(question["header"]) <= 12
    # the question names the file, its spec and its bytes: a captured answer matches this gate
    assert f"{SPEC}/requirements.md" in question["question"]
    assert f"spec {SPEC}" in question["question"] and sha[:12] in question["question"]
    asked = ok_json(repo, env, "ask", SPEC)
    assert asked["kind"] == "artifact" and asked["options"] == OPTIONS
    assert asked["gate"] == f"artifact:{SPEC}/requirements.md@{sha[:12]}"
    assert "resolve-approval" in str(asked["next_command"])
    markdown = _text(repo, env, "ask", SPEC, "--format", "markdown")
    assert f"1. {OPTIONS[0]} — " in markdown and "3. Cancel — " in markdown
    assert progress.read_bytes() == before  # asking writes nothing


@pytest.mark.parametrize(("reply", "action"), [
    ("continue to design", "approve-artifact"), ("1", "approve-artifact"),
    (OPTIONS[0], "approve-artifact"), ("Request changes", "request-revision"),
    ("Cancel", "cancel"),
    # control-only replies never approve the file: the question is asked again
    ("continue", "ask-again"), ("proceed", "ask-again"), ("go ahead", "ask-again"),
    ("ok", "ask-again"), ("lgtm", "ask-again"),
    ("continue to requirements", "clarification"),
    ("No, do not approve this file", "clarification"),
])
def test_only_the_selection_approves_the_artifact(shared_gate: tuple[Path, dict[str, str]],
                                                  reply: str, action: str) -> None:
    repo, env = shared_gate
    before = (repo / SPEC / ".progress.md").read_bytes()
    out = ok_json(repo, env, "resolve-approval", SPEC, "--text", reply)
    assert out["action"] == action, out
    if action in ("ask-again", "clarification"):
        assert out["options"] == OPTIONS  # to ask again with
    assert (repo / SPEC / ".progress.md").read_bytes() == before  # resolving writes nothing


def test_answer_given_the_artifact_selection_names_the_verb_and_records_nothing(
        shared_gate: tuple[Path, dict[str, str]]) -> None:
    repo, env = shared_gate
    progress = repo / SPEC / ".progress.md"
    before = progress.read_bytes()
    question = json.loads(_text(repo, env, "ask", SPEC))["questions"][0]["question"]
    for reply, says in (({"answers": {question: OPTIONS[0]}}, "run `mdgrill approve-artifact"),
                        ("continue", "resolves to ask-again")):
        proc = subprocess.run([*MDGRILL, "--json", "answer", SPEC, "--tool-result", "-"],
                              cwd=repo, env=env, capture_output=True, text=True, timeout=60,
                              input=reply if isinstance(reply, str) else json.dumps(reply))
        assert proc.returncode == 3, proc.stdout
        error = json.loads(proc.stdout)["error"]
        assert error["code"] == "ILLEGAL_TRANSITION" and says in error["message"], error
    assert progress.read_bytes() == before


def test_a_control_reply_keeps_the_phase_and_the_selection_moves_it(tmp_path: Path) -> None:
    repo, env = _at_the_gate(tmp_path)
    for reply in ("continue", "ok", "go ahead"):
        assert ok_json(repo, env, "resolve-approval", SPEC, "--text", reply)["action"] == \
            "ask-again"
    status = ok_json(repo, env, "status", SPEC)
    assert status["phase"] == "requirements"
    assert status["artifact"]["status"] == "awaiting_approval"  # type: ignore[index]
    assert ok_json(repo, env, "resolve-approval", SPEC, "--text",
                   "continue to design")["action"] == "approve-artifact"
    done = ok_json(repo, env, "approve-artifact", SPEC, "--source", "approve-artifact")
    assert done["phase"] == "design" and done["commit"]
    # approved: no gate is live, `ask` has nothing to ask of the artifact
    assert ok_json(repo, env, "ask", SPEC)["kind"] != "artifact"


def test_after_a_revision_request_ask_says_to_submit_the_revised_file(tmp_path: Path) -> None:
    """"`apply the changes` during artifact review means revise the artifact using the
    supplied feedback … and remain in artifact approval"."""
    repo, env = _at_the_gate(tmp_path)
    ok_json(repo, env, "request-revision", SPEC, "--feedback", "add a link lifetime")
    asked = ok_json(repo, env, "ask", SPEC)
    assert asked["kind"] == "none" and asked["next"] == "await-artifact-approval"
    assert "--artifact specs/login/requirements.md" in str(asked["next_command"])
    assert "a revision of the artifact was requested" in _text(repo, env, "ask", SPEC)
    (repo / SPEC / "requirements.md").write_text("# Requirements\n\n- links live 15 min\n")
    ok_json(repo, env, "await-artifact-approval", SPEC, "--artifact", "requirements.md")
    assert ok_json(repo, env, "ask", SPEC)["kind"] == "artifact"  # asked again


@pytest.mark.parametrize(("phase", "path", "label", "tail"), [
    ("research", "specs/s/research.md", "Approve research.md and continue to requirements",
     "continue to requirements"),
    ("design", "specs/s/design.md", "Approve design.md and continue to tasks",
     "continue to tasks"),
    ("tasks", "specs/s/tasks.md", "Approve tasks.md", None),
    ("triage", "specs/_epics/e/epic.md", "Approve epic.md", None),
])
def test_each_phase_names_its_file_and_where_it_leads(phase: str, path: str, label: str,
                                                      tail: str | None) -> None:
    art = {"phase": phase, "path": path, "sha256": "a" * 64}
    assert artifact_gate.approval_options(art) == [f"{label} (Recommended)",
                                                   "Request changes", "Cancel"]
    assert artifact_gate.artifact_choice(art, label) == artifact_gate.CHOOSE_APPROVE
    assert artifact_gate.artifact_choice(art, f"  {label.upper()}  (recommended) ") == \
        artifact_gate.CHOOSE_APPROVE
    if tail is not None:
        assert artifact_gate.artifact_choice(art, tail) == artifact_gate.CHOOSE_APPROVE
    # the gate's own phase is not where approving it leads
    assert artifact_gate.artifact_choice(art, f"continue to {phase}") is None
    for reply in ("continue", "proceed", "go ahead", "ok", "lgtm", "yes", "approve", "0", "4"):
        assert artifact_gate.artifact_choice(art, reply) is None


async def _mcp_ask(repo: Path, env: dict[str, str]) -> dict[str, object]:
    """The MCP server's `ask` tool, called through the SDK's own client over stdio."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=MDGRILL[0], args=[*MDGRILL[1:], "mcp"], env=env,
                                   cwd=str(repo))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        reply = await session.call_tool("ask", {"spec": SPEC})
        text = next(c.text for c in reply.content if getattr(c, "type", "") == "text")
    out: dict[str, object] = json.loads(text)
    return out


def test_the_mcp_ask_tool_gives_the_same_artifact_question(tmp_path: Path) -> None:
    from conftest import import_part

    import_part("mcp", "the MCP SDK is the `mcp` extra (pip install -e '.[dev]')")
    repo, env = _at_the_gate(tmp_path)
    cli = json.loads(_text(repo, env, "ask", SPEC))
    asked = asyncio.run(_mcp_ask(repo, env))
    assert asked["ok"] is True and asked["kind"] == "artifact"
    assert asked["questions"] == cli["questions"]
    assert asked["options"] == OPTIONS
