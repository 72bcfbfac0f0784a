"""Approval channels (issue 30): the `Confirmed` block and the commit name the channel that
carried the selection, and `.mdgrill.yaml` `approval:` chooses which a project accepts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import Run, awaiting_spec, git_out

from mdgrill.formats.progress import log_digest, read_progress

CHECKOUT = Path(__file__).resolve().parents[1]
SPEC = "specs/a"
PROGRESS = f"{SPEC}/.progress.md"
CONFIRM = ("confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate")
CHECK = ("check-delegation", SPEC, "--phase", "requirements", "--interview-id", "r1")


def _awaiting(repo: Path, mdgrill: Run) -> None:
    awaiting_spec(repo, mdgrill, SPEC)


def _say(mdgrill: Run, repo: Path, words: str) -> None:
    event = {"hook_event_name": "UserPromptSubmit", "prompt": words, "cwd": str(repo)}
    assert mdgrill("hook", "userpromptsubmit", cwd=repo, input=json.dumps(event))[0] == 0


def test_a_reply_the_hook_captured_is_the_hook_channel(repo: Path, mdgrill: Run) -> None:
    _awaiting(repo, mdgrill)
    _say(mdgrill, repo, "Approve and delegate")
    code, out, _ = mdgrill("--json", *CONFIRM, cwd=repo)
    assert code == 0, out
    assert json.loads(out)["channel"] == "hook"
    assert "- Channel: hook\n- Reply sha256: " in (repo / PROGRESS).read_text(encoding="utf-8")
    assert "Mdgrill-Channel: hook" in git_out(repo, "log", "-1", "--format=%B")
    code, out, _ = mdgrill("--json", *CHECK, cwd=repo)
    assert (code, json.loads(out)["channel"]) == (0, "hook")


def test_the_agents_word_is_the_agent_channel_and_evidence_refuses_it(
        repo: Path, mdgrill: Run) -> None:
    _awaiting(repo, mdgrill)
    code, out, _ = mdgrill("--json", *CONFIRM, "--reply", "Approve and delegate", cwd=repo)
    assert (code, json.loads(out)["channel"]) == (0, "agent")
    assert mdgrill(*CHECK, cwd=repo)[0] == 0
    # the project now wants more than the agent's word: the recorded approval is refused
    (repo / ".mdgrill.yaml").write_text("approval: [hook, terminal]\n", encoding="utf-8")
    code, out, _ = mdgrill("--json", *CHECK, cwd=repo)
    assert code == 3
    error = json.loads(out)["error"]
    assert error["code"] == "APPROVAL_NOT_EVIDENCED"
    assert "`agent` channel" in error["message"] and "mdgrill approve specs/a" in error["message"]


def test_a_hook_reply_where_only_elicitation_is_accepted_is_refused(
        repo: Path, mdgrill: Run) -> None:
    _awaiting(repo, mdgrill)
    (repo / ".mdgrill.yaml").write_text("approval: [elicitation]\n", encoding="utf-8")
    _say(mdgrill, repo, "Approve and delegate")
    before = (repo / PROGRESS).read_bytes()
    code, out, _ = mdgrill("--json", *CONFIRM, cwd=repo)
    assert code == 3
    error = json.loads(out)["error"]
    assert error["code"] == "APPROVAL_CHANNEL_NOT_ACCEPTED"
    assert (error["channel"], error["accepted"]) == ("hook", ["elicitation"])
    assert "ask_approval" in error["message"]
    assert (repo / PROGRESS).read_bytes() == before


@pytest.mark.parametrize("config", ["approval: [terminal, paper]\n", "approval: []\n",
                                    "approval: 3\n", "approval: sometimes\n"])
def test_an_unknown_channel_in_the_config_is_refused(repo: Path, mdgrill: Run,
                                                     config: str) -> None:
    _awaiting(repo, mdgrill)
    (repo / ".mdgrill.yaml").write_text(config, encoding="utf-8")
    before = (repo / PROGRESS).read_bytes()
    code, out, _ = mdgrill("--json", *CONFIRM, "--reply", "Approve and delegate", cwd=repo)
    assert code == 2
    error = json.loads(out)["error"]
    assert error["code"] == "INVALID_CONFIG"
    assert "hook, elicitation, terminal, signed, agent" in error["message"]
    assert (repo / PROGRESS).read_bytes() == before


def test_an_older_confirmed_block_without_a_channel_stays_valid(tmp_path: Path,
                                                                mdgrill: Run) -> None:
    """Files written before channels were named have no `- Channel:` line."""
    example = CHECKOUT / "examples" / "specs" / "order-fulfilment"
    if not example.is_dir():
        pytest.skip("examples/specs/order-fulfilment is not in this checkout")
    text = (example / ".progress.md").read_text(encoding="utf-8")
    assert "Grill - Confirmed" in text and "- Channel: agent\n" in text
    # the example as an older mdgrill wrote it: no Channel line, the log sealed without it
    older = text.replace("- Channel: agent\n", "")
    seal = read_progress(older.encode("utf-8"), "p")
    log = seal.data["log"]
    assert isinstance(log, dict)
    older = older.replace(str(log["sha256"]), log_digest(seal.log_text()), 1)
    copy = tmp_path / "order-fulfilment"
    shutil.copytree(example, copy)
    (copy / ".progress.md").write_text(older, encoding="utf-8")
    code, out, err = mdgrill("--json", "validate", str(copy / ".progress.md"), cwd=tmp_path)
    assert code == 0, (out, err)


@pytest.mark.parametrize(("config", "command", "channels"), [
    ("", "--reply <the user's selection>", None),
    ("approval: [hook, terminal]\n", "--reply <the user's selection>", None),
    ("approval: [terminal, signed]\n", "mdgrill approve specs/a", ["terminal", "signed"]),
    ("approval: [signed]\n", "--source approve-and-delegate --sign", ["signed"]),
    ("approval: [elicitation]\n", "the MCP tool ask_approval", ["elicitation"]),
])
def test_ask_names_a_next_step_the_project_accepts(repo: Path, mdgrill: Run, config: str,
                                                   command: str,
                                                   channels: list[str] | None) -> None:
    # an approval question's next step is one the project's `approval:` would not refuse:
    # where the agent's relay is not accepted, `confirm --reply` is never suggested
    _awaiting(repo, mdgrill)
    (repo / ".mdgrill.yaml").write_text(config, encoding="utf-8")
    code, out, _ = mdgrill("--json", "ask", SPEC, cwd=repo)
    assert code == 0, out
    payload = json.loads(out)
    assert payload["kind"] == "approval"
    assert command in payload["next_command"]
    assert payload.get("channels") == channels
    if channels is not None:
        assert "--reply" not in payload["next_command"]
        assert payload["next"].startswith("the user approves over an accepted channel: ")
