"""`cli/main.py`'s own promises, through the installed CLI: `--root` never takes a spec out of
its repository's rules (issue 29 part 4), an unexpected exception is exit 70 with one JSON
object and a log (part 5), the long-lived servers keep the cycle collector (issue 37)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Run, git_out

SPEC = "specs/a"



def _awaiting(repo: Path, mdgrill: Run) -> None:
    for argv in (("init", SPEC, "--goal", "Let customers apply a promo code."),
                 ("begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1"),
                 ("open-frontier", SPEC, "--round", "1", "--decision-id", "D1"),
                 ("record-answer", SPEC, "--decision-id", "D1", "--answer", "Every customer"),
                 ("await-confirmation", SPEC, "--decision-id", "C1", "--approach", "One code")):
        code, out, err = mdgrill(*argv, cwd=repo)
        assert code == 0, (argv, out, err)
    git_out(repo, "add", "-A")
    git_out(repo, "commit", "-q", "-m", "start")


CONFIRM = ("confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate",
           "--reply", "Approve and delegate")
CHECK = ("check-delegation", SPEC, "--phase", "requirements", "--interview-id", "r1")


def test_root_on_a_subfolder_keeps_the_repository_rules(repo: Path, mdgrill: Run) -> None:
    """`mdgrill --root specs confirm` used to approve as if no repository were there ("not a
    git repository", no commit) and `--root specs check-delegation` checked the digest alone."""
    _awaiting(repo, mdgrill)
    before = git_out(repo, "rev-parse", "HEAD")

    code, out, err = mdgrill("--json", "--root", "specs", *CONFIRM, cwd=repo)

    assert code == 0, (out, err)
    result = json.loads(out)
    assert result["status"] == "complete"
    assert result["commit"] == git_out(repo, "rev-parse", "HEAD") != before
    assert git_out(repo, "log", "-1", "--format=%s") == "grill(requirements): approve r1 (round 1)"
    code, out, _ = mdgrill("--json", "--root", "specs", *CHECK, cwd=repo)
    assert code == 0, out
    assert json.loads(out)["checked"] != "digest-only"


def test_root_on_a_subfolder_still_asks_for_the_captured_reply(repo: Path,
                                                                mdgrill: Run) -> None:
    """With a reply journal in the repository, the approval needs the user's captured words
    whatever `--root` says: `--reply` from the agent alone is refused and nothing is written."""
    _awaiting(repo, mdgrill)
    event = {"hook_event_name": "UserPromptSubmit", "prompt": "what does it cost?",
             "cwd": str(repo)}
    code, _, err = mdgrill("hook", "userpromptsubmit", cwd=repo, input=json.dumps(event))
    assert code == 0, err
    before = (repo / SPEC / ".progress.md").read_bytes()

    code, out, _ = mdgrill("--json", "--root", "specs", *CONFIRM, cwd=repo)

    assert code == 3, out
    assert json.loads(out)["error"]["code"] == "APPROVAL_NOT_EVIDENCED"
    assert (repo / SPEC / ".progress.md").read_bytes() == before


def test_a_spec_outside_root_is_refused(repo: Path, tmp_path: Path, mdgrill: Run) -> None:
    (repo / "specs").mkdir()
    code, out, _ = mdgrill("--json", "--root", str(repo / "specs"), "init",
                           str(tmp_path / "elsewhere"), "--goal", "A goal", cwd=repo)
    assert code == 2
    assert json.loads(out)["error"]["code"] == "PATH_OUTSIDE_REPOSITORY"
    assert not (tmp_path / "elsewhere").exists()


_CRASH = """
import sys
import mdgrill.cli.verbs.views as verb
from mdgrill.cli.verbs import Verb
def boom(args):
    raise RuntimeError("a defect on purpose")
verb.VERBS = tuple(Verb(v.name, v.help, v.arguments, boom) for v in verb.VERBS)
from mdgrill.cli.main import entry
sys.argv = ["mdgrill", *sys.argv[1:]]
entry()
"""


@pytest.mark.parametrize("json_flag", [True, False])
def test_an_unexpected_exception_is_exit_70_with_a_log(tmp_path: Path, home: Path,
                                                      json_flag: bool) -> None:
    cache = tmp_path / "cache"
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    argv = ["--json"] if json_flag else []
    proc = subprocess.run([sys.executable, "-c", _CRASH, *argv, "status", "x"], env=env,
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)

    assert proc.returncode == 70
    log = cache / "mdgrill" / "mdgrill-crash.log"
    assert "RuntimeError: a defect on purpose" in log.read_text(encoding="utf-8")
    if json_flag:
        error = json.loads(proc.stdout)
        assert error["ok"] is False
        assert error["error"]["code"] == "INTERNAL"
        assert error["error"]["log"] == str(log)
        assert proc.stderr == ""
    else:
        assert proc.stdout == ""
        assert proc.stderr.startswith("mdgrill: error INTERNAL: an unexpected RuntimeError")
        assert str(log) in proc.stderr and "Traceback" not in proc.stderr


def test_the_servers_keep_the_cycle_collector(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server lives its whole life inside main(): with the collector paused there it never
    collects (the MCP server grew 68 -> 370 MB over 1,000 calls). A short verb pauses it."""
    import gc

    from mdgrill.cli import main
    from mdgrill.cli.verbs import Outcome, Verb, no_arguments

    seen: dict[str, bool] = {}

    def run(args: object) -> Outcome:
        seen[str(args.verb)] = gc.isenabled()  # type: ignore[attr-defined]
        return Outcome({})

    class Probe:
        VERBS = tuple(Verb(name, "", no_arguments, run) for name in ("mcp", "lsp", "watch",
                                                                     "status"))

    monkeypatch.setattr(main, "_module", lambda name: Probe)
    for verb in ("mcp", "lsp", "watch", "status"):
        assert main.main([verb]) == 0
    assert seen == {"mcp": True, "lsp": True, "watch": True, "status": False}
    assert gc.isenabled()


_COLLECTOR_AT_EXIT = """
import atexit, gc, sys
atexit.register(lambda: print("collector", gc.isenabled(), "frozen", gc.get_freeze_count() > 0,
                              file=sys.stderr))
from mdgrill.cli.main import entry
sys.argv = ["mdgrill", *sys.argv[1:]]
entry()
"""


def test_a_short_verb_ends_with_the_collector_paused_a_server_with_it_on(
        tmp_path: Path) -> None:
    """The console script keeps the collector paused to a short verb's exit (main() alone
    turns it back on, and its next pass walks all the verb made just before exit) and
    freezes what lives then (the interpreter's passes at exit skip it); a server's process
    keeps it on and freezes nothing. What the verb prints is unchanged."""
    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", _COLLECTOR_AT_EXIT, *argv],
                              capture_output=True, text=True, timeout=60, cwd=tmp_path)

    short = run("--json", "classify-reply", "--text", "ok")
    assert short.returncode == 0, short.stderr
    assert json.loads(short.stdout)["classification"] == "control_only"
    assert short.stderr.splitlines()[-1] == "collector False frozen True"
    server = run("mcp", "--help")  # argparse's SystemExit(0) leaves main() by its finally
    assert server.returncode == 0, server.stderr
    assert "usage: mdgrill mcp" in server.stdout
    assert server.stderr.splitlines()[-1] == "collector True frozen False"


def test_lsp_exit_after_shutdown_is_clean(home: Path) -> None:
    pytest.importorskip("pygls")
    from conftest import mdgrill_command

    def message(obj: dict[str, object]) -> bytes:
        body = json.dumps(obj).encode()
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    data = b"".join(message(m) for m in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "rootUri": None, "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"}))
    proc = subprocess.run([*mdgrill_command(), "lsp"], input=data, capture_output=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"Traceback" not in proc.stderr
