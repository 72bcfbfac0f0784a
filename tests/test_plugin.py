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
    # .mcp.json: the launcher inside the plugin, wherever the host installed it
    assert 'mcpServers: mdgrill stdio sh ["${CLAUDE_PLUGIN_ROOT}/bin/mdgrill-mcp"]' \
        in proc.stdout


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
    for event in (GATED, PLAIN):  # mdgrill also gates calls without the block (issue 38)
        decision = json.loads(hook(event, path, tmp_path))["hookSpecificOutput"]
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
    # the answer to the approval question `ask` gives (it names this approval: issue 30)
    question = json.loads(ok(repo, env, "--json", "ask", "specs/a"))["questions"][0]["question"]
    fire(repo, env, "posttooluse", {"hook_event_name": "PostToolUse",
                                    "tool_name": "AskUserQuestion", "cwd": str(repo),
                                    "tool_input": {}, "tool_response": {"answers": {
                                        question: "Approve and delegate (Recommended)"}}})
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
    for part in (".codex-plugin", ".agents", "skills", "hooks", "bin"):
        shutil.copytree(CHECKOUT / part, plugin / part)
    for name in (".mcp.json", ".codex-mcp.json"):
        shutil.copy(CHECKOUT / name, plugin / name)
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
    # Codex leaves ${CLAUDE_PLUGIN_ROOT} unexpanded in a plugin's MCP command (openai/codex
    # issues 19582, 35762) and gives a plugin server no project folder when it runs it from
    # the plugin's: its own .codex-mcp.json runs the mdgrill on PATH, in the project
    servers = subprocess.run([codex(), "mcp", "list"], env=env, capture_output=True,
                             text=True, timeout=120)
    row = next(line.split() for line in servers.stdout.splitlines()
               if line.startswith("mdgrill "))
    assert row[:3] == ["mdgrill", "mdgrill", "mcp"], servers.stdout


# -- the plugin's MCP server, started as the host starts it (issue 35, part 2) ---------------

def plugin_command(root: Path) -> list[str]:
    """The MCP server's command line from .mcp.json, with the plugin root the host fills in."""
    server = json.loads((CHECKOUT / ".mcp.json").read_text())["mcpServers"]["mdgrill"]
    return [part.replace("${CLAUDE_PLUGIN_ROOT}", str(root))
            for part in (server["command"], *server["args"])]


def bare_path(tmp_path: Path, *tools: str) -> str:
    """A PATH holding only what the launcher needs (no mdgrill, no uvx) plus `tools`."""
    bare = tmp_path / "bare-bin"
    bare.mkdir(exist_ok=True)
    for tool in ("sh", "sed", "dirname", "cat", *tools):
        found = shutil.which(tool)
        if found and not (bare / tool).exists():
            (bare / tool).symlink_to(found)
    return str(bare)


@pytest.mark.skipif(sys.platform == "win32", reason="the launcher is a POSIX sh script")
def test_an_mcp_client_reaches_the_server_the_way_the_plugin_starts_it(tmp_path: Path) -> None:
    """The host runs .mcp.json's command with the plugin's folder for ${CLAUDE_PLUGIN_ROOT}:
    with mdgrill (and its `mcp` extra) on PATH, the MCP SDK's client gets the interview loop."""
    import asyncio

    pytest.importorskip("mcp", reason="the MCP SDK is the `mcp` extra (in '.[dev]')")
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", "specs/a", "--goal", "A goal")
    command = plugin_command(CHECKOUT)
    env["PATH"] = f"{Path(MDGRILL[0]).parent}{os.pathsep}{bare_path(tmp_path)}"

    async def session() -> tuple[list[str], str]:
        params = StdioServerParameters(command=command[0], args=command[1:], env=env,
                                       cwd=str(repo))
        async with stdio_client(params) as (read, write), \
                ClientSession(read, write) as client:
            await client.initialize()
            tools = sorted(t.name for t in (await client.list_tools()).tools)
            reply = await client.call_tool("status", {"spec": "specs/a"})
            return tools, next(c.text for c in reply.content if getattr(c, "type", "") == "text")

    tools, status = asyncio.run(session())
    assert {"ask", "answer", "confirm", "check_delegation"} <= set(tools)
    assert json.loads(status)["ok"] is True


@pytest.mark.skipif(sys.platform == "win32", reason="the launcher is a POSIX sh script")
def test_the_launcher_says_what_to_install_when_it_cannot_start(tmp_path: Path) -> None:
    """No mdgrill and no uvx on PATH: the server does not start, and the text the host shows
    names the install from the plugin's own folder instead of "command not found"."""
    proc = subprocess.run(plugin_command(CHECKOUT), capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL,
                          env={"PATH": bare_path(tmp_path), "HOME": str(tmp_path)})
    assert proc.returncode == 1 and proc.stdout == ""
    assert f"pipx install '{CHECKOUT}[mcp,lsp]'" in proc.stderr
    assert f"python3 -m pip install '{CHECKOUT}[mcp,lsp]'" in proc.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="the launcher is a POSIX sh script")
def test_the_launcher_skips_an_mdgrill_without_the_mcp_extra(tmp_path: Path) -> None:
    """The README's plain install (`pip install .`) puts an mdgrill without the MCP SDK on
    PATH: the launcher asks that mdgrill's Python, and says what to install, not "mcp"."""
    fake = tmp_path / "plain"
    fake.mkdir()
    (fake / "python3").write_text("#!/bin/sh\nexit 1\n")  # a Python that lacks the SDK
    (fake / "mdgrill").write_text(f"#!{fake / 'python3'}\nthis would start the server\n")
    for tool in ("python3", "mdgrill"):
        (fake / tool).chmod(0o755)
    proc = subprocess.run(plugin_command(CHECKOUT), capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL,
                          env={"PATH": f"{fake}{os.pathsep}{bare_path(tmp_path)}",
                               "HOME": str(tmp_path)})
    assert proc.returncode == 1, proc.stderr
    assert "no `mdgrill` with the `mcp` extra is on PATH" in proc.stderr


@pytest.mark.parametrize(("verb", "module", "needs"), [
    ("lsp", "pygls", "pygls (the `lsp` extra)"),
    ("mcp", "mcp", "the MCP SDK (the `mcp` extra)"),
])
def test_a_missing_extra_names_this_python_and_the_install_from_the_clone(
        tmp_path: Path, verb: str, module: str, needs: str) -> None:
    """No index serves mdgrill: MISSING_EXTRA names the interpreter running mdgrill and the
    install from a clone, never `pip install 'mdgrill[lsp]'` (issue 35, points 2 and 5)."""
    repo, env = make_repo(tmp_path)
    blocked = f"import sys; sys.modules['{module}'] = None; from mdgrill.cli.main import " \
              "main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.run([sys.executable, "-c", blocked, "--json", verb], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    error = json.loads(proc.stdout)["error"]
    assert error["code"] == "MISSING_EXTRA"
    assert error["message"].startswith(f"`mdgrill {verb}` needs {needs}")
    assert f"{sys.executable} -m pip install '.[mcp,lsp]'" in error["message"]
    assert "mdgrill[" not in error["message"]
