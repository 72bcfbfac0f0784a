"""`mdgrill hook pretooluse` with real Claude Code PreToolUse event JSON."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import mdgrill_command

from mdgrill.errors import InputError
from mdgrill.integrations import hook

MDGRILL = mdgrill_command()


def mdgrill(*args: str, cwd: Path | None = None,
            stdin: str | bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    cmd = MDGRILL
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run([*cmd, *args], capture_output=True, cwd=cwd, input=data, timeout=60)


def ok(*args: str, cwd: Path) -> dict[str, object]:
    proc = mdgrill("--json", *args, cwd=cwd)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    value = json.loads(proc.stdout)
    assert isinstance(value, dict)
    return value


def interview(root: Path, confirm: bool = True) -> str:
    """A requirements interview in root/specs/login (no git); returns its context digest."""
    spec = "specs/login"
    ok("init", spec, "--goal", "Let customers sign in with an email link.", cwd=root)
    begun = ok("begin-interview", spec, "--phase", "requirements", "--interview-id", "req-1",
               cwd=root)
    ok("open-frontier", spec, "--round", "1", "--decision-id", "D1", cwd=root)
    ok("record-answer", spec, "--decision-id", "D1", "--answer", "External customers", cwd=root)
    if confirm:
        ok("await-confirmation", spec, "--decision-id", "C1", "--approach", "Magic link",
           cwd=root)
        ok("confirm", spec, "--decision-id", "C1", "--source", "approve-and-delegate", cwd=root)
    digest = begun["context_digest"]
    assert isinstance(digest, str)
    return digest


def event(root: Path, prompt: str, tool: str = "Task") -> str:
    return json.dumps({
        "session_id": "abc123", "transcript_path": str(root / "t.jsonl"), "cwd": str(root),
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool,
        "tool_input": {"description": "Write requirements", "prompt": prompt,
                       "subagent_type": "product-manager"}})


def gate(digest: str | None = None, spec: str = "specs/login") -> str:
    return ("Write requirements.md for the approved interview.\n\n"
            + hook.render_gate(spec, "requirements", "req-1", digest) + "\n")


def decision(proc: subprocess.CompletedProcess[bytes]) -> tuple[str, str]:
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse"
    return out["permissionDecision"], out["permissionDecisionReason"]


def test_confirmed_interview_outside_git_is_allowed(tmp_path: Path) -> None:
    digest = interview(tmp_path)
    kind, reason = decision(mdgrill("hook", "pretooluse", stdin=event(tmp_path, gate(digest))))
    assert kind == "allow"
    assert "req-1 is complete" in reason and "digest alone" in reason


def test_agent_tool_name_is_gated_too(tmp_path: Path) -> None:
    interview(tmp_path, confirm=False)
    kind, reason = decision(mdgrill("hook", "pretooluse",
                                    stdin=event(tmp_path, gate(), tool="Agent")))
    assert kind == "deny" and reason.startswith("INTERVIEW_INCOMPLETE: ")


def test_incomplete_interview_is_denied(tmp_path: Path) -> None:
    interview(tmp_path, confirm=False)
    kind, reason = decision(mdgrill("hook", "pretooluse", stdin=event(tmp_path, gate())))
    assert kind == "deny"
    assert reason.startswith("INTERVIEW_INCOMPLETE: interview req-1 is collecting")


def test_stale_context_is_denied(tmp_path: Path) -> None:
    digest = interview(tmp_path)
    (tmp_path / "specs/login/research.md").write_text("# Research\nnew facts\n", "utf-8")
    kind, reason = decision(mdgrill("hook", "pretooluse", stdin=event(tmp_path, gate(digest))))
    assert kind == "deny" and reason.startswith("CONTEXT_STALE: the context changed")


def test_digest_the_coordinator_holds_must_match(tmp_path: Path) -> None:
    interview(tmp_path)
    kind, reason = decision(mdgrill("hook", "pretooluse",
                                    stdin=event(tmp_path, gate("0" * 64))))
    assert kind == "deny" and reason.startswith("CONTEXT_STALE: the digest you hold")


def test_missing_spec_is_denied(tmp_path: Path) -> None:
    kind, reason = decision(mdgrill("hook", "pretooluse",
                                    stdin=event(tmp_path, gate(spec="specs/nope"))))
    assert kind == "deny" and reason.startswith("NOT_FOUND: ")


def test_malformed_gate_block_is_denied(tmp_path: Path) -> None:
    prompt = "do it\n[MDGRILL_PHASE_GATE]\nspec: specs/login\nphase: requirements\n" \
             "[/MDGRILL_PHASE_GATE]\n"
    kind, reason = decision(mdgrill("hook", "pretooluse", stdin=event(tmp_path, prompt)))
    assert kind == "deny" and reason == \
        "MALFORMED_GATE: line 2: the gate block lacks interview"


def test_task_without_marker_passes_silently(tmp_path: Path) -> None:
    proc = mdgrill("hook", "pretooluse", stdin=event(tmp_path, "Summarize the research."))
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""


def test_bash_call_passes_even_with_the_marker_text(tmp_path: Path) -> None:
    payload = json.dumps({"session_id": "s", "hook_event_name": "PreToolUse",
                          "tool_name": "Bash", "cwd": str(tmp_path),
                          "tool_input": {"command": "echo '[MDGRILL_PHASE_GATE]'"}})
    proc = mdgrill("hook", "pretooluse", stdin=payload)
    assert proc.returncode == 0 and proc.stdout == b""


@pytest.mark.parametrize("raw", [b"", b"not json", b"[1, 2]", b"\xff\xfe", b'{"tool_name":'])
def test_malformed_stdin_without_marker_passes(raw: bytes) -> None:
    proc = mdgrill("hook", "pretooluse", stdin=raw)
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""


def test_malformed_stdin_with_marker_is_denied() -> None:
    proc = mdgrill("hook", "pretooluse",
                   stdin=b'{"tool_name": "Task", "tool_input": {"prompt": "[MDGRILL_PHASE_GATE]')
    kind, reason = decision(proc)
    assert kind == "deny" and reason.startswith("MALFORMED_EVENT: the hook input is not JSON")


def test_marker_with_non_text_prompt_is_denied(tmp_path: Path) -> None:
    payload = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Task",
                          "cwd": str(tmp_path),
                          "tool_input": {"prompt": ["[MDGRILL_PHASE_GATE]"]}})
    kind, reason = decision(mdgrill("hook", "pretooluse", stdin=payload))
    assert kind == "deny" and reason.startswith("MALFORMED_EVENT: ")


def test_parse_gates_reads_both_line_styles() -> None:
    text = ("x\n[MDGRILL_PHASE_GATE]\nspec=specs/a\nphase=design\ninterviewId=d-1\n"
            "contextDigest=" + "a" * 64 + "\n[/MDGRILL_PHASE_GATE]\n\n"
            + hook.render_gate("specs/b", "tasks", "t-1"))
    gates = hook.parse_gates(text)
    assert [(g.spec, g.phase, g.interview, g.digest, g.line) for g in gates] == [
        ("specs/a", "design", "d-1", "a" * 64, 2), ("specs/b", "tasks", "t-1", None, 9)]


@pytest.mark.parametrize("text, message", [
    ("[MDGRILL_PHASE_GATE]\nspec: a\nphase: design\ninterview: i\n",
     "line 1: the gate block is never closed by [/MDGRILL_PHASE_GATE]"),
    ("see [MDGRILL_PHASE_GATE] below", "line 1: [MDGRILL_PHASE_GATE] must stand on its own line"),
    ("[MDGRILL_PHASE_GATE]\nspec: a\nphase: design\ninterview: i\ndigest: xyz\n"
     "[/MDGRILL_PHASE_GATE]", "line 1: digest must be 64 lowercase hex characters "
                              "(from `mdgrill digest SPEC`)"),
    ("[MDGRILL_PHASE_GATE]\nspec: a\nspec: b\n[/MDGRILL_PHASE_GATE]",
     "line 3: `spec` is given twice"),
])
def test_parse_gates_refuses_bad_blocks(text: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        hook.parse_gates(text)
    assert info.value.code == "MALFORMED_GATE" and info.value.message == message
