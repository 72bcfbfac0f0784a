"""The repository as a Claude Code plugin (issue 16, part 2): the manifests pass the real
`claude plugin validate --strict`, the PreToolUse hook fails closed, and SessionStart puts the
interviews under way into the session's context."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require_part
from test_reliability import MDGRILL, make_repo, ok

CHECKOUT = Path(__file__).resolve().parents[1]
PRETOOLUSE = CHECKOUT / "hooks" / "pretooluse.sh"
GATED = {"hook_event_name": "PreToolUse", "tool_name": "Agent", "cwd": "",
         "tool_input": {"prompt": "Write it.\n[MDGRILL_PHASE_GATE]\nspec: specs/a\n"
                        "phase: requirements\ninterview: r1\n[/MDGRILL_PHASE_GATE]\n"}}
PLAIN = {"hook_event_name": "PreToolUse", "tool_name": "Agent", "cwd": "",
         "tool_input": {"prompt": "Summarise the README."}}


def agent_cli(name: str, package: str) -> str:
    """A pinned agent CLI as .ci/run installs it with npm (or one on PATH)."""
    local = CHECKOUT / ".ci" / "node" / "node_modules" / ".bin" / name
    found = str(local) if local.exists() else shutil.which(name)
    require_part(found is not None,
                 f"the `{name}` CLI is not installed: .ci/run installs {package} with npm")
    assert found is not None
    return found


def claude() -> str:
    return agent_cli("claude", "@anthropic-ai/claude-code@2.1.332")


def test_the_plugin_validates_strictly() -> None:
    proc = subprocess.run([claude(), "plugin", "validate", "--strict", str(CHECKOUT)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "skills: mdgrill:grill" in proc.stdout
    assert "PreToolUse Agent|Task" in proc.stdout
    assert 'mcpServers: mdgrill stdio mdgrill ["mcp"]' in proc.stdout  # .mcp.json


def hook(event: dict[str, object], path: str, cwd: Path) -> str:
    proc = subprocess.run(["sh", str(PRETOOLUSE)], input=json.dumps(event), text=True,
                          capture_output=True, cwd=cwd, timeout=60,
                          env={**os.environ, "PATH": path})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_pretooluse_fails_closed_without_mdgrill(tmp_path: Path) -> None:
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("cat", "grep", "printf", "sh"):  # what the script needs, without mdgrill
        found = shutil.which(tool)
        if found:
            (bare / tool).symlink_to(found)
    out = hook(GATED, str(bare), tmp_path)
    decision = json.loads(out)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "not installed" in decision["permissionDecisionReason"]
    assert hook(PLAIN, str(bare), tmp_path) == ""  # an ungated call passes untouched


def test_pretooluse_fails_closed_when_mdgrill_fails(tmp_path: Path) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "mdgrill").write_text("#!/bin/sh\nexit 1\n")
    (fake / "mdgrill").chmod(0o755)
    path = f"{fake}{os.pathsep}{os.environ['PATH']}"
    decision = json.loads(hook(GATED, path, tmp_path))["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny" and "failed" in \
        decision["permissionDecisionReason"]


def test_pretooluse_asks_mdgrill_when_it_is_there(tmp_path: Path) -> None:
    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", "specs/a", "--goal", "A goal")
    ok(repo, env, "begin-interview", "specs/a", "--phase", "requirements", "--interview-id", "r1")
    path = f"{Path(MDGRILL[0]).parent}{os.pathsep}{os.environ['PATH']}"
    event = {**GATED, "cwd": str(repo)}
    decision = json.loads(hook(event, path, repo))["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert decision["permissionDecisionReason"].startswith("INTERVIEW_INCOMPLETE")


def test_sessionstart_reports_the_interviews_under_way(tmp_path: Path) -> None:
    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", "specs/a", "--goal", "A goal")
    ok(repo, env, "node", "add", "specs/a", "D1", "--title", "Who?", "--option", "All",
       "--option", "Some", "--recommend", "1")
    ok(repo, env, "begin-interview", "specs/a", "--phase", "requirements", "--interview-id", "r1")
    proc = subprocess.run([*MDGRILL, "hook", "sessionstart"], cwd=repo, env=env, text=True,
                          capture_output=True, input=json.dumps(
                              {"hook_event_name": "SessionStart", "source": "compact",
                               "cwd": str(repo)}))
    assert proc.returncode == 0, proc.stderr
    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "specs/a: phase requirements, interview r1 collecting" in context
    assert "frontier: D1" in context and "next: `mdgrill ask specs/a`" in context


def test_the_hooks_file_names_the_scripts_that_exist() -> None:
    hooks = json.loads((CHECKOUT / "hooks" / "hooks.json").read_text())["hooks"]
    assert hooks["PreToolUse"][0]["matcher"] == "Agent|Task"
    assert "pretooluse.sh" in hooks["PreToolUse"][0]["hooks"][0]["command"]
    assert os.access(PRETOOLUSE, os.X_OK)
    assert sys.platform == "win32" or PRETOOLUSE.read_text().startswith("#!/bin/sh")


def fire(repo: Path, env: dict[str, str], event: str, payload: dict[str, object]) -> str:
    proc = subprocess.run([*MDGRILL, "hook", event], cwd=repo, env=env, text=True,
                          capture_output=True, input=json.dumps(payload), timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_posttooluse_blocks_only_an_edited_round(tmp_path: Path) -> None:
    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", "specs/a", "--goal", "A goal")
    ok(repo, env, "begin-interview", "specs/a", "--phase", "requirements", "--interview-id", "r1")
    ok(repo, env, "open-frontier", "specs/a", "--round", "1", "--decision-id", "D1")
    ok(repo, env, "record-answer", "specs/a", "--decision-id", "D1", "--answer", "Everyone")
    event = {"hook_event_name": "PostToolUse", "tool_name": "Edit", "cwd": str(repo),
             "tool_input": {"file_path": "specs/a/.progress.md"}, "tool_response": {}}
    assert fire(repo, env, "posttooluse", event) == ""  # a valid file: nothing to say
    path = repo / "specs" / "a" / ".progress.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("D1 -> Everyone", "D1 -> Nobody"), encoding="utf-8")
    out = json.loads(fire(repo, env, "posttooluse", event))
    assert out["decision"] == "block" and "mdgrill restore specs/a" in out["reason"]
    other = {**event, "tool_input": {"file_path": "README.md"}}
    assert fire(repo, env, "posttooluse", other) == ""


def test_replies_are_journaled_outside_the_work_tree(tmp_path: Path) -> None:
    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", "specs/a", "--goal", "A goal")
    ok(repo, env, "begin-interview", "specs/a", "--phase", "requirements", "--interview-id", "r1")
    fire(repo, env, "userpromptsubmit", {"hook_event_name": "UserPromptSubmit",
                                         "prompt": "Approve and delegate", "cwd": str(repo),
                                         "session_id": "s1"})
    fire(repo, env, "posttooluse", {"hook_event_name": "PostToolUse",
                                    "tool_name": "AskUserQuestion", "cwd": str(repo),
                                    "tool_input": {}, "tool_response": {
                                        "answers": {"Q1 - D1: Who?": "Everyone"}}})
    journal = repo / ".git" / "mdgrill" / "replies.jsonl"
    entries = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    assert [(e["source"], e["text"]) for e in entries] == [
        ("UserPromptSubmit", "Approve and delegate"),
        ("AskUserQuestion", "Q1 - D1: Who?: Everyone")]
    import hashlib

    assert entries[0]["sha256"] == hashlib.sha256(b"Approve and delegate").hexdigest()
    assert entries[0]["pending"] == [{"spec": "specs/a", "interview": "r1",
                                      "status": "collecting"}]
    assert subprocess.run(["git", "status", "--porcelain"], cwd=repo, env=env,
                          capture_output=True, text=True).stdout.count("replies") == 0


def awaiting(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", "specs/a", "--goal", "A goal")
    ok(repo, env, "node", "add", "specs/a", "D1", "--title", "Who?", "--option", "All",
       "--option", "Some", "--recommend", "1")
    ok(repo, env, "begin-interview", "specs/a", "--phase", "requirements", "--interview-id", "r1")
    ok(repo, env, "ask", "specs/a")
    answered = subprocess.run([*MDGRILL, "answer", "specs/a", "--tool-result", "-"], cwd=repo,
                              env=env, input="All", text=True, capture_output=True)
    assert answered.returncode == 0, answered.stderr
    ok(repo, env, "await-confirmation", "specs/a", "--decision-id", "C1", "--approach", "All")
    return repo, env


def say(repo: Path, env: dict[str, str], words: str) -> None:
    fire(repo, env, "userpromptsubmit", {"hook_event_name": "UserPromptSubmit",
                                         "prompt": words, "cwd": str(repo)})


CONFIRM = ("confirm", "specs/a", "--decision-id", "C1", "--source", "approve-and-delegate")


def refused(repo: Path, env: dict[str, str], *args: str) -> str:
    proc = subprocess.run([*MDGRILL, "--json", *args], cwd=repo, env=env, text=True,
                          capture_output=True, timeout=60)
    assert proc.returncode == 3, proc.stdout
    return str(json.loads(proc.stdout)["error"]["code"])


def test_with_a_journal_only_a_captured_reply_approves(tmp_path: Path) -> None:
    repo, env = awaiting(tmp_path)
    say(repo, env, "What does it cost?")  # journal exists now; no approval in it yet
    say(repo, env, "yes")
    before = (repo / "specs" / "a" / ".progress.md").read_bytes()
    assert refused(repo, env, *CONFIRM, "--reply", "Approve and delegate") == \
        "APPROVAL_NOT_EVIDENCED"  # the agent's word is not what the user said
    assert refused(repo, env, *CONFIRM) == "APPROVAL_NOT_EXPLICIT"  # "yes" is no selection
    assert (repo / "specs" / "a" / ".progress.md").read_bytes() == before
    fire(repo, env, "posttooluse", {"hook_event_name": "PostToolUse",
                                    "tool_name": "AskUserQuestion", "cwd": str(repo),
                                    "tool_input": {}, "tool_response": {"answers": {
                                        "Approve and delegate?":
                                            "Approve and delegate (Recommended)"}}})
    done = json.loads(ok(repo, env, "--json", *CONFIRM))
    sha = str(done["reply_sha256"])
    assert f"- Reply sha256: {sha}" in (repo / "specs" / "a" / ".progress.md").read_text()
    message = subprocess.run(["git", "log", "-1", "--format=%B"], cwd=repo, env=env,
                             capture_output=True, text=True).stdout
    assert f"Mdgrill-Reply-Sha256: {sha}" in message
    ok(repo, env, "check-delegation", "specs/a", "--phase", "requirements", "--interview-id",
       "r1")
    assert subprocess.run([*MDGRILL, "verify"], cwd=repo, env=env).returncode == 0
    # a journal that no longer holds the approving reply: verify says the approval is unvouched
    journal = repo / ".git" / "mdgrill" / "replies.jsonl"
    kept = [line for line in journal.read_text(encoding="utf-8").splitlines()
            if sha not in line]
    journal.write_text("\n".join(kept) + "\n", encoding="utf-8")
    proc = subprocess.run([*MDGRILL, "--json", "verify"], cwd=repo, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 1
    codes = [d["code"] for d in json.loads(proc.stdout)["diagnostics"]]
    assert codes == ["APPROVAL_NOT_EVIDENCED"]


def test_a_project_may_require_evidence(tmp_path: Path) -> None:
    repo, env = awaiting(tmp_path)
    ok(repo, env, *CONFIRM, "--reply", "Approve and delegate")  # no journal, not required yet
    (repo / ".mdgrill.yaml").write_text("approval: evidence\n", encoding="utf-8")
    assert refused(repo, env, "check-delegation", "specs/a", "--phase", "requirements",
                   "--interview-id", "r1") == "APPROVAL_NOT_EVIDENCED"


def test_verify_signed_requires_signed_approval_commits(tmp_path: Path) -> None:
    repo, env = awaiting(tmp_path)
    ok(repo, env, *CONFIRM, "--reply", "Approve and delegate")
    assert subprocess.run([*MDGRILL, "verify"], cwd=repo, env=env).returncode == 0
    proc = subprocess.run([*MDGRILL, "--json", "verify", "--signed"], cwd=repo, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert [d["code"] for d in json.loads(proc.stdout)["diagnostics"]] == ["APPROVAL_NOT_SIGNED"]
    keygen = shutil.which("ssh-keygen")
    if keygen is None:
        pytest.skip("ssh-keygen is not installed: the signed half needs an SSH key")
    key = tmp_path / "key"
    subprocess.run([keygen, "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    allowed = tmp_path / "allowed"
    allowed.write_text(f"test@example.com {(tmp_path / 'key.pub').read_text()}")
    for k, v in (("gpg.format", "ssh"), ("user.signingkey", str(key)),
                 ("gpg.ssh.allowedSignersFile", str(allowed)), ("commit.gpgsign", "true")):
        subprocess.run(["git", "config", k, v], cwd=repo, env=env, check=True)
    ok(repo, env, "reopen", "specs/a", "--phase", "requirements", "--reason", "again")
    ok(repo, env, "begin-interview", "specs/a", "--phase", "requirements", "--interview-id", "r2")
    ok(repo, env, "node", "add", "specs/a", "D2", "--title", "How many?", "--option", "All",
       "--option", "One", "--recommend", "1")  # the answers of r1 still stand; a new question
    answered = subprocess.run([*MDGRILL, "ask", "specs/a"], cwd=repo, env=env,
                              capture_output=True, text=True)
    assert answered.returncode == 0, answered.stderr
    subprocess.run([*MDGRILL, "answer", "specs/a", "--tool-result", "-"], cwd=repo, env=env,
                   input="All", text=True, check=True, capture_output=True)
    ok(repo, env, "await-confirmation", "specs/a", "--decision-id", "C2", "--approach", "All")
    ok(repo, env, "confirm", "specs/a", "--decision-id", "C2", "--source",
       "approve-and-delegate", "--reply", "Approve and delegate")
    proc = subprocess.run([*MDGRILL, "--json", "verify", "--signed"], cwd=repo, env=env,
                          capture_output=True, text=True)
    unsigned = [d for d in json.loads(proc.stdout)["diagnostics"]
                if d["code"] == "APPROVAL_NOT_SIGNED"]
    assert len(unsigned) == 1 and "grill(requirements): approve r1" in unsigned[0]["message"]


def codex() -> str:
    return agent_cli("codex", "@openai/codex@0.171.0")


def test_codex_adds_the_marketplace_and_installs_the_plugin(tmp_path: Path) -> None:
    """`codex plugin marketplace add` + `codex plugin add`, on the plugin's own files (a copy:
    Codex copies the whole folder it installs, and a checkout holds a virtualenv)."""
    plugin = tmp_path / "plugin"
    for part in (".codex-plugin", ".agents", "skills", "hooks"):
        shutil.copytree(CHECKOUT / part, plugin / part)
    shutil.copy(CHECKOUT / ".mcp.json", plugin / ".mcp.json")
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    env = {**os.environ, "HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    added = subprocess.run([codex(), "plugin", "marketplace", "add", str(plugin)], env=env,
                           capture_output=True, text=True, timeout=120)
    assert added.returncode == 0, added.stderr
    assert "Added marketplace `mdgrill`" in added.stdout + added.stderr
    installed = subprocess.run([codex(), "plugin", "add", "mdgrill@mdgrill"], env=env,
                               capture_output=True, text=True, timeout=120)
    assert installed.returncode == 0, installed.stderr
    listed = subprocess.run([codex(), "plugin", "list"], env=env, capture_output=True,
                            text=True, timeout=120)
    assert "mdgrill@mdgrill" in listed.stdout and "installed, enabled" in listed.stdout
    cached = list((home / ".codex" / "plugins" / "cache").rglob("SKILL.md"))
    assert [p.parent.name for p in cached] == ["grill"]
