"""Shared fixtures: a real git repository in a temp folder, and the installed `mdgrill` CLI."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

Run = Callable[..., tuple[int, str, str]]

# Every Hypothesis test is seeded from the committed example database: a failure any run
# finds is saved in tests/hypothesis-db, replayed first by every later run (CI's fresh clone
# included) and printed as a `@reproduce_failure` blob. A test's own @settings add to this.
settings.register_profile(
    "mdgrill", database=DirectoryBasedExampleDatabase(
        str(Path(__file__).resolve().parent / "hypothesis-db")), print_blob=True)
settings.load_profile("mdgrill")


def unmeasured(env: dict[str, str]) -> dict[str, str]:
    """`env` for a process a test will SIGKILL: coverage (`patch = subprocess`) is left out
    of it, since a process killed while saving its data leaves a file `coverage combine`
    cannot read (the "2 files errored" of every CI run)."""
    return {k: v for k, v in env.items() if k != "COVERAGE_PROCESS_CONFIG"}


def in_ci() -> bool:
    """Whether this run is CI's (`CI=true`, as `.ci/run` and hosted CI set it)."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def require_part(present: bool, why: str) -> None:
    """A real part a test needs (Chromium, an agent CLI, an extra): on a user's machine its
    absence skips the test with `why`; in CI it fails the test, so CI is never green with
    a real part that did not run."""
    if present:
        return
    if in_ci():
        pytest.fail(f"CI=true and a real part is missing: {why}", pytrace=False)
    pytest.skip(why)


def import_part(module: str, why: str) -> object:
    """`pytest.importorskip` for a module: skips on a user's machine, fails in CI."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        if in_ci():
            raise ImportError(f"CI=true and a real part is missing: {why}") from None
        pytest.skip(why, allow_module_level=True)


def mdgrill_command() -> list[str]:
    """The mdgrill installed beside this interpreter (the venv under test), else on PATH."""
    venv = Path(sys.executable).with_name("mdgrill")
    if venv.exists():
        return [str(venv)]
    found = shutil.which("mdgrill")
    return [found] if found else [sys.executable, "-m", "mdgrill"]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME and git's global config inside tmp_path, so no test touches the real ones."""
    folder = tmp_path / "home"
    folder.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(folder / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_AUTHOR_NAME",
                 "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(name, raising=False)
    return folder


def git_init(path: Path) -> Path:
    """`path` made a git repository: branch main, a local identity, no signing."""
    for args in (["init", "-q", "-b", "main"], ["config", "user.name", "Test User"],
                 ["config", "user.email", "test@example.com"],
                 ["config", "commit.gpgsign", "false"]):
        subprocess.run(["git", *args], cwd=path, check=True, capture_output=True)
    return path


@pytest.fixture
def repo(tmp_path: Path, home: Path) -> Path:
    """A fresh git repository (branch main, a local identity) in tmp_path/repo."""
    path = tmp_path / "repo"
    path.mkdir()
    return git_init(path)


@pytest.fixture
def mdgrill(home: Path) -> Run:
    """Run the installed CLI: `mdgrill(*args, cwd=None, input=None)` -> (code, stdout, stderr)."""
    command = mdgrill_command()

    def run(*args: str, cwd: Path | str | None = None, input: str | None = None,
            env: dict[str, str] | None = None) -> tuple[int, str, str]:
        proc = subprocess.run([*command, *args], cwd=cwd, input=input, capture_output=True,
                              text=True, env={**os.environ, **(env or {})}, timeout=60)
        return proc.returncode, proc.stdout, proc.stderr

    return run


class WatchLines:
    """`mdgrill watch --json` in a process, its report lines read into a queue as they come."""

    def __init__(self, repo: Path, env: dict[str, str], *args: str) -> None:
        import queue
        import threading

        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self.proc = subprocess.Popen([*mdgrill_command(), "watch", *args, "--json"], cwd=repo,
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True)
        stdout = self.proc.stdout
        assert stdout is not None
        self.reader = threading.Thread(target=lambda: [self.lines.put(line) for line in stdout],
                                       daemon=True)
        self.reader.start()

    def wait_for(self, needle: str, timeout: float = 60.0) -> str:
        """The first line holding `needle`, waited for up to `timeout` seconds."""
        import queue

        end = time.monotonic() + timeout
        while (left := end - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            self.seen.append(line)
            if needle in line:
                return line
        raise AssertionError(f"no {needle!r} from watch in {timeout} s: {self.seen}")

    def stop(self) -> str:
        """Stop watch; every line it wrote."""
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self.reader.join(timeout=30)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return "".join(self.seen)


def git_out(cwd: Path, *args: str) -> str:
    """`git ARGS` in `cwd`, which must succeed: its stdout, stripped."""
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout.strip()


def json_ok(mdgrill: Run, cwd: Path, *argv: str) -> dict[str, object]:
    """`mdgrill --json ARGV` in `cwd`, which must exit 0: its JSON object."""
    import json

    code, out, err = mdgrill("--json", *argv, cwd=cwd)
    assert code == 0, (argv, out, err)
    result = json.loads(out)
    assert isinstance(result, dict)
    return result


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    """Poll `condition` until it holds (a generous deadline, never a fixed sleep)."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"{what} did not happen within {timeout} s")
        time.sleep(0.01)


def awaiting_spec(repo: Path, mdgrill: Run, spec: str = "specs/a",
                  approach: str = "One code") -> None:
    """`spec` brought to awaiting confirmation C1 of the requirements interview r1 (one
    decision, D1, answered), and committed (gpg signing off for this commit)."""
    for argv in (("init", spec, "--goal", "Let customers apply a promo code."),
                 ("begin-interview", spec, "--phase", "requirements", "--interview-id", "r1"),
                 ("open-frontier", spec, "--round", "1", "--decision-id", "D1"),
                 ("record-answer", spec, "--decision-id", "D1", "--answer", "Every customer"),
                 ("await-confirmation", spec, "--decision-id", "C1", "--approach", approach)):
        code, out, err = mdgrill(*argv, cwd=repo)
        assert code == 0, (argv, out, err)
    git_out(repo, "add", "-A")
    git_out(repo, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "awaiting")
