"""Issue 23, run on Linux: the Windows paths that can run anywhere. The read-only verbs with
`fcntl` gone; the Windows lock (msvcrt's API, emulated over POSIX byte-range locks so that
two processes really exclude each other) chosen when `fcntl` is missing; a `core.autocrlf`
checkout whose recorded blocks must not read as edited; the plugin's hook commands in a
strict POSIX shell (what Claude Code runs them with on Linux and macOS, and Git Bash on
Windows, takes the same syntax)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from test_reliability import MDGRILL, make_repo

CHECKOUT = Path(__file__).resolve().parent.parent
READ_ONLY = [["status", "specs/a"], ["validate"], ["frontier", "specs/a"], ["ledger", "specs/a"],
             ["tree", "specs/a"], ["digest", "specs/a"], ["log", "specs/a"], ["verify"],
             ["lint"], ["review", "HEAD~1..HEAD"], ["--help"]]

# Loaded by every Python the CLI starts (PYTHONPATH): takes `fcntl` away, and with
# MDGRILL_TEST_MSVCRT_LOG gives an `msvcrt` whose `locking` keeps Windows' byte-range
# semantics on top of POSIX record locks, logging each call. (subprocess takes an importable
# msvcrt to mean Windows, so under it only verbs that start no git process are run.)
SITECUSTOMIZE = '''
import os, sys, types
import fcntl as _posix
sys.modules["fcntl"] = None
_log = os.environ.get("MDGRILL_TEST_MSVCRT_LOG")
if _log:
    msvcrt = types.ModuleType("msvcrt")
    msvcrt.LK_UNLCK, msvcrt.LK_LOCK, msvcrt.LK_NBLCK = 0, 1, 2
    _ops = {0: _posix.LOCK_UN, 1: _posix.LOCK_EX, 2: _posix.LOCK_EX | _posix.LOCK_NB}

    def locking(fd, mode, nbytes):
        with open(_log, "a") as handle:
            handle.write(f"{mode} {os.lseek(fd, 0, os.SEEK_CUR)} {nbytes}\\n")
        _posix.lockf(fd, _ops[mode], nbytes, 0, os.SEEK_CUR)
    msvcrt.locking = locking
    sys.modules["msvcrt"] = msvcrt
'''


def _no_fcntl(tmp_path: Path, env: dict[str, str], msvcrt_log: Path | None) -> dict[str, str]:
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    out = {**env, "PYTHONPATH": os.pathsep.join([str(site), env.get("PYTHONPATH", "")]),
           "TEMP": str(tmp_path / "temp")}
    if msvcrt_log is not None:
        out["MDGRILL_TEST_MSVCRT_LOG"] = str(msvcrt_log)
    return out


def _spec(repo: Path, env: dict[str, str]) -> None:
    for argv in (["init", "specs/a", "--goal", "Sign in by email link"],
                 ["node", "add", "specs/a", "D1", "--title", "Who?", "--option", "Customers",
                  "--option", "Staff", "--recommend", "1"]):
        subprocess.run([*MDGRILL, *argv], cwd=repo, env=env, check=True, capture_output=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    subprocess.run(["git", "commit", "-qm", "spec"], cwd=repo, env=env, check=True)


def test_every_read_only_verb_runs_without_fcntl(tmp_path: Path) -> None:
    repo, env = make_repo(tmp_path)
    _spec(repo, env)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "two"], cwd=repo, env=env,
                   check=True)
    blocked = _no_fcntl(tmp_path, env, None)
    probe = subprocess.run([sys.executable, "-c", "import fcntl"], env=blocked,
                           capture_output=True, text=True)
    assert "import of fcntl halted" in probe.stderr  # the seam really takes fcntl away
    for argv in READ_ONLY:
        proc = subprocess.run([*MDGRILL, *argv], cwd=repo, env=blocked, capture_output=True,
                              text=True)
        assert proc.returncode == 0, (argv, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr
    # a write with no lock at all is refused, in words, with nothing written
    before = (repo / "specs/a/.progress.md").read_bytes()
    proc = subprocess.run([*MDGRILL, "--json", "node", "add", "specs/a", "D2", "--title", "Q",
                           "--option", "a", "--option", "b"], cwd=repo, env=blocked,
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert json.loads(proc.stdout)["error"]["code"] == "LOCK_UNAVAILABLE"
    assert (repo / "specs/a/.progress.md").read_bytes() == before


def test_no_module_imports_a_system_only_module_when_it_loads(tmp_path: Path) -> None:
    code = ("import sys, pkgutil, importlib, mdgrill\n"
            "sys.modules['fcntl'] = sys.modules['msvcrt'] = sys.modules['termios'] = None\n"
            "names = [m.name for m in pkgutil.walk_packages(mdgrill.__path__, 'mdgrill.')\n"
            "         if not m.name.endswith('__main__')]\n"
            "for name in names: importlib.import_module(name)\n"
            "print(len(names))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout) > 60


def test_without_fcntl_the_windows_lock_is_chosen_and_really_excludes(tmp_path: Path) -> None:
    repo, env = make_repo(tmp_path)
    _spec(repo, env)
    log = tmp_path / "msvcrt.log"
    windows = _no_fcntl(tmp_path, env, log)

    def add(i: int) -> int:
        return subprocess.run([*MDGRILL, "node", "add", "specs/a", f"N{i}", "--title",
                               f"Question {i}?", "--option", "a", "--option", "b"], cwd=repo,
                              env=windows, capture_output=True).returncode
    with ThreadPoolExecutor(6) as pool:
        codes = list(pool.map(add, range(12)))
    assert codes == [0] * 12
    text = (repo / "specs/a/.progress.md").read_text(encoding="utf-8")
    assert all(f"### N{i}: Question {i}?" in text for i in range(12))  # no write was lost
    calls = log.read_text().split()
    assert calls.count("1") >= 12 and calls.count("0") >= 12  # LK_LOCK and LK_UNLCK each
    # the lock file lies in the temporary folder, one per spec folder; none in the repository
    locks = list((tmp_path / "temp" / "mdgrill-locks").iterdir())
    assert len(locks) == 1 and locks[0].suffix == ".lock"
    assert not [p for p in (repo / "specs/a").iterdir() if p.name != ".progress.md"]
    ok = subprocess.run([*MDGRILL, "validate"], cwd=repo, env=env, capture_output=True)
    assert ok.returncode == 0


def test_the_windows_lock_file_ignores_the_case_of_the_path(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           ) -> None:
    from mdgrill.shell.locks import Windows

    monkeypatch.setenv("TEMP", str(tmp_path))
    (tmp_path / "Specs").mkdir()
    assert Windows.lock_file(str(tmp_path / "Specs")) == \
        Windows.lock_file(str(tmp_path / "Specs").upper().replace(str(tmp_path).upper(),
                                                                   str(tmp_path)))


def test_a_crlf_checkout_does_not_read_as_an_edit(tmp_path: Path) -> None:
    # core.autocrlf=true checks every text file out with CRLF ends. The log's seal is a
    # digest of the log with LF ends, so the recorded blocks still match it; a write keeps
    # the file's CRLF; git stores LF again, and verify finds nothing edited.
    repo, env = make_repo(tmp_path)
    _spec(repo, env)
    for argv in (["begin-interview", "specs/a", "--phase", "requirements", "--interview-id",
                  "r1"], ["open-frontier", "specs/a", "--round", "1", "--decision-id", "D1"],
                 ["record-answer", "specs/a", "--decision-id", "D1", "--answer", "Customers"]):
        subprocess.run([*MDGRILL, *argv], cwd=repo, env=env, check=True, capture_output=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    subprocess.run(["git", "commit", "-qm", "round 1"], cwd=repo, env=env, check=True)
    clone = tmp_path / "crlf"
    subprocess.run(["git", "-c", "core.autocrlf=true", "clone", "-q", str(repo), str(clone)],
                   env=env, check=True)
    for key, value in (("core.autocrlf", "true"), ("user.name", "Ana"),
                       ("user.email", "ana@example.com")):
        subprocess.run(["git", "config", key, value], cwd=clone, env=env, check=True)
    raw = (clone / "specs/a/.progress.md").read_bytes()
    assert b"\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b"")  # all CRLF
    for argv in (["validate"], ["verify"]):
        proc = subprocess.run([*MDGRILL, *argv], cwd=clone, env=env, capture_output=True,
                              text=True)
        assert proc.returncode == 0, (argv, proc.stdout)
    subprocess.run([*MDGRILL, "node", "add", "specs/a", "D2", "--title", "How long?",
                    "--option", "15 min", "--option", "1 day"], cwd=clone, env=env, check=True,
                   capture_output=True)
    after = (clone / "specs/a/.progress.md").read_bytes()
    assert b"\n" not in after.replace(b"\r\n", b"")  # still CRLF throughout
    subprocess.run(["git", "commit", "-qam", "D2"], cwd=clone, env=env, check=True)
    stored = subprocess.run(["git", "show", "HEAD:specs/a/.progress.md"], cwd=clone, env=env,
                            capture_output=True, check=True).stdout
    assert b"\r" not in stored  # git keeps LF
    for argv in (["validate"], ["verify"]):
        proc = subprocess.run([*MDGRILL, *argv], cwd=clone, env=env, capture_output=True,
                              text=True)
        assert proc.returncode == 0, (argv, proc.stdout)


def _hook_commands() -> list[str]:
    hooks = json.loads((CHECKOUT / "hooks" / "hooks.json").read_text(encoding="utf-8"))
    return [h["command"] for groups in hooks["hooks"].values() for group in groups
            for h in group["hooks"]]


@pytest.mark.skipif(shutil.which("dash") is None, reason="no dash (a strict POSIX sh) here")
def test_the_hook_commands_are_posix_sh(tmp_path: Path) -> None:
    root = str(CHECKOUT)
    for command in _hook_commands():
        expanded = command.replace("${CLAUDE_PLUGIN_ROOT}", root)
        syntax = subprocess.run(["dash", "-n", "-c", expanded], capture_output=True, text=True)
        assert syntax.returncode == 0, (command, syntax.stderr)
        assert "[[" not in command and "<<<" not in command and "$((" not in command
        assert "/hooks/" not in command or command.startswith("sh "), command  # not exec bit
    # without mdgrill on PATH: informational hooks pass, the gate denies a gated call
    bare = {"PATH": "/usr/bin:/bin", "CLAUDE_PLUGIN_ROOT": root}
    event = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_input": {
        "prompt": "[MDGRILL_PHASE_GATE]\nspec: specs/a\nphase: requirements\ninterview: r1\n"
                  "[/MDGRILL_PHASE_GATE]"}})
    for command in _hook_commands():
        proc = subprocess.run(["dash", "-c", command], input=event, env=bare,
                              capture_output=True, text=True)
        assert proc.returncode == 0, (command, proc.stderr)
        if "pretooluse" in command:
            answer = json.loads(proc.stdout)["hookSpecificOutput"]
            assert answer["permissionDecision"] == "deny"


def test_a_windows_path_is_inside_its_repository_whatever_its_case() -> None:
    # The check that refuses a spec outside the repository, run with Windows' path rules
    # (ntpath): case-folded, backslashes or slashes, `..` resolved, never across drives.
    import ntpath

    from mdgrill.shell.store import is_inside

    root = r"C:\Users\Ana\Repo"
    assert is_inside(r"c:\users\ana\repo\specs\a", root, ntpath)
    assert is_inside("C:/Users/Ana/Repo/specs/a/.progress.md", root, ntpath)
    assert is_inside(root, root, ntpath)
    assert not is_inside(r"C:\Users\Ana\Repo\..\Other\specs", root, ntpath)
    assert not is_inside(r"C:\Users\Ana\Repo2\specs", root, ntpath)
    assert not is_inside(r"D:\Users\Ana\Repo\specs", root, ntpath)
