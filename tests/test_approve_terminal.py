"""`mdgrill approve`: the brief on the controlling terminal, the selection read back from it
(issue 30, point 10: "A user at a plain terminal cannot approve once a journal exists").

Driven through a real pseudo-terminal made the child's controlling terminal (a new session,
then TIOCSCTTY), with stdin and stdout pipes, so what is read can only come from `/dev/tty`.
The framework: "Ask `Approve and delegate`, `Revise decisions`, or `Cancel`. Only the
explicit approval selection completes the gate."
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import Run, awaiting_spec, git_out, mdgrill_command

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pseudo-terminals")

SPEC = "specs/a"
PROGRESS = f"{SPEC}/.progress.md"
CHECK = ("check-delegation", SPEC, "--phase", "requirements", "--interview-id", "r1")


def _awaiting(repo: Path, mdgrill: Run) -> None:
    awaiting_spec(repo, mdgrill, SPEC, approach="One code per order")


def _spawn_on_pty(argv: list[str], cwd: Path) -> tuple[subprocess.Popen[bytes], int]:
    """`argv` in a new session whose controlling terminal is a fresh pty; stdin, stdout and
    stderr are pipes. Returns the process and the pty's master side."""
    import fcntl
    import termios

    master, slave = os.openpty()

    def make_controlling() -> None:  # runs in the child, after setsid
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, pass_fds=(slave,),
                            preexec_fn=make_controlling)
    os.close(slave)
    return proc, master


def _read_until(master: int, needle: bytes, screen: bytearray, times: int = 1,
                timeout: float = 60.0) -> None:
    """Read the terminal into `screen` until `needle` shows there `times` times."""
    end = time.monotonic() + timeout
    while screen.count(needle) < times:
        left = end - time.monotonic()
        assert left > 0, f"{needle!r} never appeared on the terminal: {bytes(screen)!r}"
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the child closed the terminal
                chunk = b""
            assert chunk, f"the terminal closed before {needle!r}: {bytes(screen)!r}"
            screen += chunk


def _drain(master: int, screen: bytearray) -> None:
    while True:
        ready, _, _ = select.select([master], [], [], 0.5)
        if not ready:
            return
        try:
            chunk = os.read(master, 4096)
        except OSError:
            return
        if not chunk:
            return
        screen += chunk


def approve_at_terminal(repo: Path, typed: list[str],
                        *extra: str) -> tuple[int, dict[str, object], str]:
    """Run `mdgrill --json approve SPEC` on a pty and type each line of `typed` after each
    prompt: (exit code, its JSON, what the terminal showed)."""
    proc, master = _spawn_on_pty([*mdgrill_command(), "--json", "approve", SPEC, *extra], repo)
    screen = bytearray()
    try:
        for asked, line in enumerate(typed, 1):
            _read_until(master, b"Your selection", screen, asked)
            os.write(master, line.encode() + b"\n")
        out, err = proc.communicate(timeout=60)
        _drain(master, screen)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert err == b"", err
    return proc.returncode, json.loads(out), screen.decode("utf-8", "replace")


def test_dev_tty_in_the_harness_is_the_pty(tmp_path: Path) -> None:
    """The harness itself: what a child writes to `/dev/tty` arrives on our pty's master, so
    the test below reads the terminal, not a pipe."""
    probe = "import os; fd = os.open('/dev/tty', os.O_RDWR); os.write(fd, b'probe-on-tty')"
    proc, master = _spawn_on_pty([sys.executable, "-c", probe], tmp_path)
    screen = bytearray()
    try:
        _read_until(master, b"probe-on-tty", screen)
        out, _ = proc.communicate(timeout=60)
    finally:
        os.close(master)
    assert proc.returncode == 0
    assert out == b""


def test_approve_reads_the_selection_from_the_terminal_and_commits(
        repo: Path, mdgrill: Run) -> None:
    _awaiting(repo, mdgrill)
    # a journal exists (a reply the hooks captured): `confirm` would need a captured
    # selection, the terminal is its own
    event = {"hook_event_name": "UserPromptSubmit", "prompt": "show me", "cwd": str(repo)}
    assert mdgrill("hook", "userpromptsubmit", cwd=repo, input=json.dumps(event))[0] == 0
    assert (repo / ".git" / "mdgrill" / "replies.jsonl").is_file()

    code, result, screen = approve_at_terminal(repo, ["1"])

    assert code == 0, (result, screen)
    assert (result["approved"], result["channel"], result["status"]) == \
        (True, "terminal", "complete")
    # the brief was on the terminal: the approach and the decision it rests on
    assert "One code per order" in screen and "D1" in screen and "Every customer" in screen
    assert "Approve and delegate" in screen and "Cancel" in screen
    text = (repo / PROGRESS).read_text(encoding="utf-8")
    assert "- Channel: terminal\n" in text
    assert git_out(repo, "log", "-1", "--format=%H") == result["commit"]
    assert "Mdgrill-Channel: terminal" in git_out(repo, "log", "-1", "--format=%B")
    check = mdgrill("--json", *CHECK, cwd=repo)
    assert check[0] == 0, check
    assert json.loads(check[1])["channel"] == "terminal"
    # the review page says how the approval came
    page = repo.parent / "report.html"
    assert mdgrill("report", SPEC, "--html", str(page), cwd=repo)[0] == 0
    assert "at their own terminal (mdgrill approve)" in page.read_text(encoding="utf-8")


def test_an_unclear_selection_is_asked_again(repo: Path, mdgrill: Run) -> None:
    """"a control-only reply ... does not approve": `yes` is asked again."""
    _awaiting(repo, mdgrill)
    code, result, screen = approve_at_terminal(repo, ["yes", "Approve and delegate"])
    assert code == 0
    assert result["approved"] is True
    assert "`yes` is none of the three options" in screen


def test_cancel_at_the_terminal_is_recorded_as_cancel(repo: Path, mdgrill: Run) -> None:
    _awaiting(repo, mdgrill)
    head = git_out(repo, "rev-parse", "HEAD")
    code, result, _ = approve_at_terminal(repo, ["3"])
    assert code == 0
    assert (result["approved"], result["choice"]) == (False, "cancel")
    text = (repo / PROGRESS).read_text(encoding="utf-8")
    assert "Grill - Cancelled" in text and '- Reply: "Cancel"' in text
    assert "status: awaiting_confirmation" in text
    assert git_out(repo, "rev-parse", "HEAD") == head
    code, out, _ = mdgrill("--json", *CHECK, cwd=repo)
    assert code == 3, out


def test_revise_at_the_terminal_approves_nothing(repo: Path, mdgrill: Run) -> None:
    _awaiting(repo, mdgrill)
    before = (repo / PROGRESS).read_bytes()
    code, result, _ = approve_at_terminal(repo, ["2"])
    assert code == 0
    assert (result["approved"], result["choice"]) == (False, "revise")
    assert "mdgrill revise" in str(result["next"])
    assert (repo / PROGRESS).read_bytes() == before


def test_without_a_controlling_terminal_approve_refuses_and_writes_nothing(
        repo: Path, mdgrill: Run) -> None:
    """An agent's shell tool has no controlling terminal: stdin is a pipe that even holds
    the selection, and is never read."""
    _awaiting(repo, mdgrill)
    before = (repo / PROGRESS).read_bytes()
    head = git_out(repo, "rev-parse", "HEAD")
    proc = subprocess.run([*mdgrill_command(), "--json", "approve", SPEC], cwd=repo,
                          input=b"1\n", capture_output=True, start_new_session=True,
                          timeout=60)
    assert proc.returncode == 3, proc
    error = json.loads(proc.stdout)["error"]
    assert error["code"] == "NO_TERMINAL"
    assert "your own terminal" in error["message"]
    assert (repo / PROGRESS).read_bytes() == before
    assert git_out(repo, "rev-parse", "HEAD") == head
    assert git_out(repo, "status", "--porcelain") == ""


def test_a_channel_the_project_does_not_accept_is_refused_before_asking(
        repo: Path, mdgrill: Run) -> None:
    _awaiting(repo, mdgrill)
    (repo / ".mdgrill.yaml").write_text("approval: [signed]\n", encoding="utf-8")
    before = (repo / PROGRESS).read_bytes()
    proc = subprocess.run([*mdgrill_command(), "--json", "approve", SPEC], cwd=repo,
                          capture_output=True, start_new_session=True, timeout=60)
    assert proc.returncode == 3
    error = json.loads(proc.stdout)["error"]
    assert error["code"] == "APPROVAL_CHANNEL_NOT_ACCEPTED"
    assert "signed: run `mdgrill confirm specs/a" in error["message"]
    assert (repo / PROGRESS).read_bytes() == before


def test_confirm_by_the_agent_is_refused_where_only_the_terminal_is_accepted(
        repo: Path, mdgrill: Run) -> None:
    _awaiting(repo, mdgrill)
    (repo / ".mdgrill.yaml").write_text("approval: [terminal, signed]\n", encoding="utf-8")
    before = (repo / PROGRESS).read_bytes()
    code, out, _ = mdgrill("--json", "confirm", SPEC, "--decision-id", "C1", "--source",
                           "approve-and-delegate", "--reply", "Approve and delegate", cwd=repo)
    assert code == 3
    error = json.loads(out)["error"]
    assert error["code"] == "APPROVAL_CHANNEL_NOT_ACCEPTED"
    assert "terminal: run `mdgrill approve specs/a` yourself" in error["message"]
    assert (repo / PROGRESS).read_bytes() == before
    code, result, _ = approve_at_terminal(repo, ["1"])
    assert (code, result["channel"]) == (0, "terminal")
    assert mdgrill(*CHECK, cwd=repo)[0] == 0


def test_approval_evidence_accepts_the_terminal(repo: Path, mdgrill: Run) -> None:
    """`approval: evidence` (not the agent's word alone) keeps its meaning and takes the
    terminal: the agent's word is refused, the user's own selection at the terminal holds."""
    _awaiting(repo, mdgrill)
    (repo / ".mdgrill.yaml").write_text("approval: evidence\n", encoding="utf-8")
    code, out, _ = mdgrill("--json", "confirm", SPEC, "--decision-id", "C1", "--source",
                           "approve-and-delegate", "--reply", "Approve and delegate", cwd=repo)
    assert (code, json.loads(out)["error"]["code"]) == (3, "APPROVAL_NOT_EVIDENCED")
    code, result, _ = approve_at_terminal(repo, ["1"])
    assert (code, result["channel"]) == (0, "terminal")
    code, out, _ = mdgrill("--json", *CHECK, cwd=repo)
    assert (code, json.loads(out)["channel"]) == (0, "terminal"), out
