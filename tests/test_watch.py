"""watch.py: a real watchdog observer on real folders, driven in-process and through the CLI.

Every wait is a deadline on a queue of reports, never a fixed sleep; the only "nothing else
came" checks wait a quiet window after the expected report.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mdgrill.formats.progress import log_digest
from mdgrill.model.digest import context_digest, file_sha256
from mdgrill.services.watch import Watcher, format_report, target_of
from mdgrill.shell.session import load
from mdgrill.shell.store import resolve_spec

MDGRILL = [sys.executable, "-m", "mdgrill"]
DEADLINE = 60.0  # generous: a loaded machine is slow, a wait ends at the report
GOAL = "Let customers sign in"

Report = dict[str, object]


def round_block(i: int, decision: str | None = None) -> str:
    return (f"### Requirements Grill - Round {i}\n- Asked: D{i}\n"
            f"- Decisions: {decision or f'D{i} -> answer number {i}'}\n- Facts resolved: none\n"
            f"- Out of scope: none\n- Domain language: none\n- Frontier after round: none\n")


def make_progress(rounds: int = 2, *, pending: str = "", complete_digest: str | None = None,
                  context: str = "[]", required: str = "[]", tree: str = "",
                  first: str | None = None) -> str:
    """A valid .progress.md (pending IDs not asked make it invalid on purpose)."""
    log = "\n".join(round_block(i, first if i == 1 else None) for i in range(1, rounds + 1))
    asked = [f"D{i}" for i in range(1, rounds + 1)]
    blocks = rounds
    if complete_digest is not None:
        asked.append("C1")
        blocks += 1  # a terminal status has the block that recorded it
        log += ("\n### Requirements Grill - Confirmed\n- Interview: req-1\n- Confirmation ID: C1\n"
                "- Source: approve-and-delegate\n- Status: complete\n"
                f"- Context digest: {complete_digest}\n")
        state = (f"  status: complete\n  context_digest: {complete_digest}\n"
                 f"  context: {context}\n  asked: [{', '.join(asked)}]\n  pending: []\n"
                 "  approach: Do it\n  confirmation: approve-and-delegate\n")
    else:
        state = (f"  status: collecting\n  context_digest: {'ab' * 32}\n  context: []\n"
                 f"  asked: [{', '.join(asked)}]\n  pending: [{pending}]\n  approach: null\n"
                 "  confirmation: null\n")
    return (f"---\nmdgrill: 1\nspec: demo\ngoal: {GOAL}\nphase: requirements\n"
            f"mode: interactive\nrequired_sections: {required}\ninterview:\n  id: req-1\n"
            f"  phase: requirements\n  round: {rounds}\n{state}  bypass_reason: null\n"
            f"  assumptions: []\nskills: []\nlog:\n  blocks: {blocks}\n"
            f"  sha256: {log_digest(log)}\n---\n# Demo\n\n## Goal\n\n{GOAL}\n\n"
            f"## Design Tree\n{tree}\n## Interview Responses\n\n{log}")


BROKEN = make_progress(pending="Z9")  # Z9 is pending but was never asked


# --------------------------------------------------------------------------- save styles


def save_in_place(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def save_rename(path: Path, text: str) -> None:
    temp = path.with_name(path.name + ".tmp4913")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def save_jetbrains(path: Path, text: str) -> None:
    temp = path.with_name(path.name + "___jb_tmp___")
    old = path.with_name(path.name + "___jb_old___")
    temp.write_text(text, encoding="utf-8")
    os.rename(path, old)
    os.rename(temp, path)
    os.unlink(old)


STYLES: dict[str, Callable[[Path, str], None]] = {
    "in-place": save_in_place, "rename": save_rename, "jetbrains": save_jetbrains}


# --------------------------------------------------------------------------- fixtures


def git_init(path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git_init(root)
    spec = root / "specs" / "demo"
    spec.mkdir(parents=True)
    (spec / ".progress.md").write_text(make_progress(), encoding="utf-8")
    return root


class Running:
    """A started Watcher whose reports land in a queue."""

    def __init__(self, root: Path) -> None:
        self.reports: queue.Queue[Report] = queue.Queue()
        self.backlog: list[Report] = []
        self.watcher = Watcher(str(root), str(root), self.reports.put)
        self.watcher.start()
        first = self.next(lambda r: r["kind"] == "started")
        assert first["kind"] == "started"

    def next(self, match: Callable[[Report], bool], timeout: float = DEADLINE) -> Report:
        """The first report matching `match`, within the deadline (others are kept)."""
        for i, report in enumerate(self.backlog):
            if match(report):
                return self.backlog.pop(i)
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no matching report before the deadline: {self.backlog}")
            try:
                report = self.reports.get(timeout=left)
            except queue.Empty:
                continue
            if match(report):
                return report
            self.backlog.append(report)

    def drain(self) -> list[Report]:
        """Every report queued by now, without waiting for more."""
        got, self.backlog = self.backlog, []
        while True:
            try:
                got.append(self.reports.get_nowait())
            except queue.Empty:
                return got

    def quiet(self, window: float = 0.4) -> list[Report]:
        """Every report that arrives within `window` seconds."""
        got, self.backlog = self.backlog, []
        end = time.monotonic() + window
        while (left := end - time.monotonic()) > 0:
            try:
                got.append(self.reports.get(timeout=left))
            except queue.Empty:
                break
        return got


@pytest.fixture
def running(repo: Path) -> Iterator[Running]:
    run = Running(repo)
    yield run
    run.watcher.stop()


def progress_of(repo: Path) -> Path:
    return repo / "specs" / "demo" / ".progress.md"


def code_is(kind: str, code: str) -> Callable[[Report], bool]:
    return lambda r: r["kind"] == kind and r.get("code") == code


# --------------------------------------------------------------------------- tests


def test_targets_cover_progress_artifacts_glossaries_and_jetbrains_names() -> None:
    assert target_of("/r/specs/a/.progress.md", "/r") == ("spec", "/r/specs/a")
    assert target_of("/r/specs/a/research.md", "/r") == ("spec", "/r/specs/a")
    assert target_of("/r/specs/a/.progress.md___jb_tmp___", "/r") == ("spec", "/r/specs/a")
    assert target_of("/r/CONTEXT.md___jb_old___", "/r") == ("glossary", "/r/CONTEXT.md")
    assert target_of("/r/CONTEXT-MAP.md", "/r") == ("map", "/r/CONTEXT-MAP.md")
    assert target_of("/r/specs/a/notes.md", "/r") is None
    for skipped in (".git/x", "venv/lib", ".venv", "node_modules/p", "specs/.cache"):
        assert target_of(f"/r/{skipped}/.progress.md", "/r") is None, skipped
        assert target_of(f"/r/{skipped}/CONTEXT.md", "/r") is None, skipped
    # the folders above the watched one are the user's choice, hidden or not
    assert target_of("/h/.work/r/specs/a/.progress.md", "/h/.work/r") == \
        ("spec", "/h/.work/r/specs/a")


@pytest.mark.parametrize("style", sorted(STYLES))
def test_each_save_style_reports_the_problem_and_its_fix(running: Running, repo: Path,
                                                          style: str) -> None:
    save = STYLES[style]
    save(progress_of(repo), BROKEN)
    problem = running.next(lambda r: r["kind"] == "problem")
    assert problem["code"] == "INVALID_STATE" and "Z9" in str(problem["message"])
    assert str(problem["path"]).endswith("specs/demo/.progress.md")
    save(progress_of(repo), make_progress())
    fixed = running.next(lambda r: r["kind"] == "fixed")
    assert fixed["code"] == "INVALID_STATE"
    assert format_report(fixed).endswith(f"fixed INVALID_STATE: {fixed['message']}")


def test_a_burst_of_ten_saves_gives_one_report_with_the_final_state(running: Running,
                                                                     repo: Path) -> None:
    path = progress_of(repo)
    for burst in range(3):
        final = f"F{burst}"
        for i in range(10):
            last = i == 9
            save_rename(path, make_progress(pending=final if last else f"X{i}"))
        report = running.next(lambda r, f=final: r["kind"] == "problem"  # type: ignore[misc]
                              and f"{f} were never asked" in str(r["message"]))
        # the saves before it were folded into it: on an idle machine all nine (one report),
        # on a loaded one a pause mid-burst may let one more through, never each save
        earlier = [r for r in running.drain() if r["kind"] == "problem"]
        assert len(earlier) <= 2, earlier
        assert not [r for r in running.quiet() if r["kind"] == "problem"], report
        save_in_place(path, make_progress())
        running.next(lambda r: r["kind"] == "fixed")


def test_a_round_edited_in_place_is_reported_with_its_old_text(running: Running,
                                                                repo: Path) -> None:
    path = progress_of(repo)
    text = path.read_text()
    save_in_place(path, text.replace("D1 -> answer number 1", "D1 -> something else"))
    edited = running.next(lambda r: r["kind"] == "edited")
    assert edited["block"] == "Requirements Grill - Round 1"
    assert "- Decisions: D1 -> answer number 1" in str(edited["old_text"])
    assert "something else" in str(edited["new_text"])
    assert not edited["deleted"]
    running.next(code_is("problem", "ROUND_EDITED"))
    assert "    | - Decisions: D1 -> answer number 1" in format_report(edited)


def test_deleting_a_round_reports_it_and_restore_brings_it_back(running: Running,
                                                                 repo: Path) -> None:
    path = progress_of(repo)
    good = path.read_text()
    save_rename(path, good[:good.index("### Requirements Grill - Round 2")])
    edited = running.next(lambda r: r["kind"] == "edited")
    assert edited["deleted"] and edited["block"] == "Requirements Grill - Round 2"
    done = subprocess.run([*MDGRILL, "restore", str(path.parent)], cwd=repo, text=True,
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "last-good" in done.stdout
    assert path.read_text() == good
    running.next(code_is("fixed", "ROUND_EDITED"))
    load(resolve_spec(str(path.parent)))  # check_loaded accepts the restored file


def test_an_approval_goes_stale_when_research_changes(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    spec = root / "specs" / "demo"
    spec.mkdir(parents=True)
    git_init(root)
    research = b"# Research\n\nsessions are JWT\n"
    (spec / "research.md").write_bytes(research)
    rel = "specs/demo/research.md"
    digest = context_digest("requirements", GOAL, [(rel, research)])
    context = f"[{{path: {rel}, sha256: {file_sha256(research)}}}]"
    (spec / ".progress.md").write_text(make_progress(complete_digest=digest, context=context))
    run = Running(root)
    try:
        # start() checks every target before it returns: what it found is queued already
        assert run.drain() == []  # current approval: nothing to say
        assert run.watcher.error_count() == (0, 0)
        save_in_place(spec / "research.md", "# Research\n\nsessions are opaque\n")
        stale = run.next(lambda r: r["kind"] == "stale")
        assert stale["old_digest"] == digest
        assert stale["new_digest"] not in (None, digest)
        assert stale["sources"] == [rel]
        assert "INTERVIEW_STALE" in format_report(stale)
        (spec / "research.md").write_bytes(research)
        run.next(code_is("fixed", "INTERVIEW_STALE"))
    finally:
        run.watcher.stop()


def test_a_spec_created_while_watching_is_picked_up(running: Running, repo: Path) -> None:
    folder = repo / "specs" / "new" / "deep"
    folder.mkdir(parents=True)
    save_in_place(folder / ".progress.md", BROKEN)
    problem = running.next(lambda r: r["kind"] == "problem")
    assert problem["spec"] == "specs/new/deep"


def test_files_in_skipped_folders_are_not_watched(running: Running, repo: Path) -> None:
    # the walk's skip list (shell/walk.py) holds for events too: a save inside a virtualenv
    # or node_modules reports nothing; one in a spec folder does
    for folder in ("venv/lib/pkg", "node_modules/p", ".tox/py"):
        (repo / folder).mkdir(parents=True)
        save_in_place(repo / folder / ".progress.md", BROKEN)
    folder = repo / "specs" / "after"
    folder.mkdir()
    save_in_place(folder / ".progress.md", BROKEN)
    problem = running.next(lambda r: r["kind"] == "problem")
    assert problem["spec"] == "specs/after"
    later = running.quiet(0.6)
    assert not [r for r in later if r["kind"] in ("problem", "error", "ready")], later


def test_once_skips_environments_of_any_name(repo: Path) -> None:
    (repo / "tools" / "myenv").mkdir(parents=True)
    (repo / "tools" / "myenv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    for folder in ("venv/lib", "tools/myenv/lib", "node_modules/p"):
        (repo / folder).mkdir(parents=True, exist_ok=True)
        (repo / folder / ".progress.md").write_text(BROKEN)
    env = {**os.environ, "XDG_CACHE_HOME": str(repo / ".cache-test")}
    done = subprocess.run([*MDGRILL, "--json", "watch", "--once", str(repo)], cwd=repo,
                          text=True, capture_output=True, timeout=60, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["errors"] == 0


def test_a_deleted_file_is_reported_and_the_watch_goes_on(running: Running, repo: Path) -> None:
    path = progress_of(repo)
    path.unlink()
    gone = running.next(lambda r: r["kind"] == "error")
    assert gone["code"] == "NOT_FOUND"
    path.write_text(BROKEN)
    running.next(lambda r: r["kind"] == "problem")


def test_a_spec_that_becomes_ready_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    spec = root / "specs" / "demo"
    spec.mkdir(parents=True)
    git_init(root)
    tree = "\n### D1: Primary user\n- Section: users\n- Depends on: none\n\n"
    # round 1 answers an ID that is not in the tree, so `users` has no resolved node yet
    (spec / ".progress.md").write_text(make_progress(1, required="[users]", tree=tree,
                                                     first="D9x -> later"))
    run = Running(root)
    try:
        save_rename(spec / ".progress.md", make_progress(1, required="[users]", tree=tree))
        ready = run.next(lambda r: r["kind"] == "ready")
        assert ready["spec"] == "specs/demo"
    finally:
        run.watcher.stop()


def test_a_glossary_term_edited_shows_the_old_definition(repo: Path) -> None:
    glossary = repo / "CONTEXT.md"
    glossary.write_text("# Ordering\n\n## Language\n\n**Order**:\nA customer's request.\n")
    running = Running(repo)  # its first check, done before `started` is reported, reads the term
    try:
        save_rename(glossary, "# Ordering\n\n## Language\n\n**Order**:\nSomething else.\n")
        edited = running.next(lambda r: r["kind"] == "edited")
    finally:
        running.watcher.stop()
    assert edited["term"] == "Order" and "A customer's request." in str(edited["old_text"])


def test_once_checks_everything_and_exits_1_on_errors(repo: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(repo / ".cache-test")}
    ok = subprocess.run([*MDGRILL, "watch", "--once", str(repo)], cwd=repo, text=True,
                        capture_output=True, timeout=60, env=env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    progress_of(repo).write_text(BROKEN)
    bad = subprocess.run([*MDGRILL, "--json", "watch", "--once", str(repo)], cwd=repo,
                         text=True, capture_output=True, timeout=60, env=env)
    assert bad.returncode == 1
    lines = [json.loads(line) for line in bad.stdout.splitlines()]
    assert lines[0]["kind"] == "problem" and lines[0]["code"] == "INVALID_STATE"
    assert lines[-1]["kind"] == "stopped" and lines[-1]["errors"] == 1


def test_cli_watch_json_reports_then_sigterm_exits_0(repo: Path) -> None:
    proc = subprocess.Popen([*MDGRILL, "--json", "watch", str(repo)], cwd=repo, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines: queue.Queue[Report] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(json.loads(line))

    threading.Thread(target=pump, daemon=True).start()

    def wait(kind: str) -> Report:
        end = time.monotonic() + 15
        while True:
            report = lines.get(timeout=max(end - time.monotonic(), 0.01))
            if report["kind"] == kind:
                return report

    try:
        assert wait("started")["specs"] == 1
        save_rename(progress_of(repo), BROKEN)
        assert wait("problem")["code"] == "INVALID_STATE"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
        assert wait("stopped")["ok"] is True
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_file_that_is_no_longer_a_spec_is_never_ready() -> None:
    """`printf 'garbage\\n' > .progress.md` is broken, not ready (issue: watch called it ready)."""
    from mdgrill.formats.progress import read_progress
    from mdgrill.services.watch.checking import ready_for_approval

    assert ready_for_approval(read_progress(b"garbage\n", "p")) is False
    tree = "\n### D1: Primary user\n- Section: users\n- Depends on: none\n\n"
    ok = make_progress(1, required="[users]", tree=tree).encode()
    assert ready_for_approval(read_progress(ok, "p")) is True


def test_an_editor_stalled_mid_save_is_not_reported_empty(running: Running, repo: Path) -> None:
    """An in-place save whose writer is preempted between its truncate and its write (a
    loaded machine): watch waits for the write instead of reporting EMPTY_FILE. The stall
    is the scenario (an editor's), not a wait for watch."""
    path = progress_of(repo)
    with open(path, "w", encoding="utf-8") as handle:
        handle.flush()  # truncated: the file is empty now
        time.sleep(0.8)  # the editor is preempted
        handle.write(BROKEN)
    problem = running.next(lambda r: r["kind"] == "problem")
    assert problem["code"] == "INVALID_STATE", problem
    reports = [problem, *running.drain()]
    assert not [r for r in reports if r.get("code") == "EMPTY_FILE"], reports


def test_watchdogs_stop_race_line_is_dropped_and_its_lost_events_warning_kept(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # watchdog's inotify emitter, stopped between its loop's check and its read, logs an
    # error Python prints on standard error though nothing was lost (a watch stopped just
    # after its start); a queue overflow, which loses events, must still be said
    import logging

    watcher = Watcher(str(tmp_path), str(tmp_path), lambda report: None)
    watcher.start()
    try:
        log = logging.getLogger("watchdog.observers.inotify")
        with caplog.at_level(logging.WARNING, logger="watchdog"):
            log.error("InotifyEmitter.queue_events() called when the thread is inactive")
            log.warning("Inotify queue overflowed; filesystem events were lost")
    finally:
        watcher.stop()
    assert [r.getMessage() for r in caplog.records] == [
        "Inotify queue overflowed; filesystem events were lost"]


# ------------------------------------------------------------ a reader that does not read

def many_broken_specs(root: Path, count: int) -> None:
    """`count` specs, each reported as broken (a pending decision that was never asked)."""
    for i in range(count):
        folder = root / "specs" / f"s{i}"
        folder.mkdir(parents=True)
        (folder / ".progress.md").write_text(BROKEN, encoding="utf-8")


def watch_unread(root: Path) -> subprocess.Popen[bytes]:
    """`mdgrill --json watch root` whose standard output is a one-page pipe nobody reads."""
    import fcntl

    proc = subprocess.Popen([*MDGRILL, "--json", "watch", str(root)], cwd=root,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    fcntl.fcntl(proc.stdout.fileno(), fcntl.F_SETPIPE_SZ, 4096)
    return proc


def unread_bytes(proc: subprocess.Popen[bytes]) -> int:
    import array
    import fcntl
    import termios

    assert proc.stdout is not None
    count = array.array("i", [0])
    fcntl.ioctl(proc.stdout.fileno(), termios.FIONREAD, count)
    return count[0]


def wait_full(proc: subprocess.Popen[bytes]) -> None:
    """Until the pipe holds more than half a page and a report's write waits on it."""
    end = time.monotonic() + 60
    while unread_bytes(proc) < 2048:
        assert proc.poll() is None and time.monotonic() < end, "the pipe never filled"
        time.sleep(0.05)
    time.sleep(0.5)


def stopped_unread(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    """The stop signal ends a watch whose reports wait on the reader: at once, exit
    OUTPUT_FAILED, the reason on standard error (it once waited for the reader forever,
    its signal handler only setting a flag while the first checks wrote)."""
    started = time.monotonic()
    proc.send_signal(sig)
    try:
        code = proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.stderr is not None
    err = proc.stderr.read().decode()
    assert (code, err.count("\n")) == (74, 1), err
    assert "OUTPUT_FAILED" in err and "not being read when the watch was told to stop" in err
    assert err.rstrip().endswith("or send them to a file (`> watch.log`)")  # what to do next
    # a second for the reader to take what waits, then no wait for the stuck worker
    assert time.monotonic() - started < 4.5


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="F_SETPIPE_SZ is Linux's")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_watch_whose_first_checks_are_not_read_stops_on_a_signal(
        tmp_path: Path, sig: signal.Signals) -> None:
    git_init(tmp_path)
    many_broken_specs(tmp_path, 60)
    proc = watch_unread(tmp_path)
    wait_full(proc)
    stopped_unread(proc, sig)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="F_SETPIPE_SZ is Linux's")
def test_a_watch_whose_reports_are_not_read_stops_on_a_signal(tmp_path: Path) -> None:
    git_init(tmp_path)
    proc = watch_unread(tmp_path)
    assert proc.stdout is not None
    assert json.loads(proc.stdout.readline())["kind"] == "started"
    many_broken_specs(tmp_path, 60)  # reported by the worker as they appear
    wait_full(proc)
    stopped_unread(proc, signal.SIGTERM)


def test_a_stop_during_the_first_checks_ends_them(tmp_path: Path) -> None:
    """Ctrl-C while a large tree is read for the first time stops the watch there (exit 0),
    not after every spec was checked: the first checks run on the worker."""
    git_init(tmp_path)
    many_broken_specs(tmp_path, 1500)
    proc = subprocess.Popen([*MDGRILL, "--json", "watch", str(tmp_path)], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    try:
        assert json.loads(proc.stdout.readline())["kind"] == "problem"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert (proc.returncode, err) == (0, "")
    reports = [json.loads(line) for line in out.splitlines()]
    last = reports.pop()
    assert last["kind"] == "stopped" and last["reports"] == len(reports) + 1
    assert 0 < len(reports) + 1 < 1500
    assert "started" not in {r["kind"] for r in reports}


def test_a_tree_the_first_checks_cannot_walk_is_reported_and_the_watch_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the first checks run on the worker: what they raise is a report, as any check's is,
    # never a thread ended with a traceback on standard error
    from mdgrill.services.watch import engine

    def unreadable(top: str) -> list[tuple[str, str]]:
        raise PermissionError(13, "Permission denied", top)

    monkeypatch.setattr(engine, "find_targets", unreadable)
    running = Running(tmp_path)
    try:
        error = running.next(lambda r: r["kind"] == "error")
        assert error["code"] == "INTERNAL" and "PermissionError" in str(error["message"])
    finally:
        running.watcher.stop()


def test_report_lines_go_to_a_stream_with_no_descriptor_and_settle_reads_it_as_taken(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # in process (a caller's io.StringIO for stdout): the lines are the stream's, and a
    # stream that is no pipe never holds a stop
    import io

    from mdgrill.cli.verbs.watching import LineWriter

    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    writer = LineWriter(as_json=True)
    writer({"kind": "problem", "path": "ü"})
    assert out.getvalue() == '{"kind": "problem", "path": "ü"}\n'
    assert writer.settle(0.05) is True and writer.failed is None


def test_a_report_still_being_written_when_the_watch_stops_fails_it_and_prints_no_more(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from mdgrill.cli.verbs.watching import LineWriter

    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    writer = LineWriter(as_json=True)
    with writer.lock:  # a worker's write that the reader never takes
        assert writer.settle(0.05) is False
    assert writer.failed is not None and "not being read" in str(writer.failed)
    writer({"kind": "problem"})
    assert out.getvalue() == ""  # nothing more is printed once it failed


@pytest.mark.skipif(os.name == "nt", reason="select() on a pipe is POSIX's")
def test_a_pipe_with_no_room_for_the_last_line_fails_the_watch_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # no write waits, but the reader left the pipe full: the watch's last line would wait
    # for ever, so settle says so; an output failure said before is kept as it was
    from mdgrill.cli.verbs import OutputFailed
    from mdgrill.cli.verbs.watching import LineWriter

    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    try:
        while True:
            os.write(write_end, b"x" * 4096)
    except BlockingIOError:
        pass
    out = open(write_end, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    monkeypatch.setattr(sys, "stdout", out)
    try:
        writer = LineWriter(as_json=True)
        assert writer.settle(0.05) is False
        assert writer.failed is not None and "not being read" in str(writer.failed)
        earlier = OutputFailed(OSError(28, "No space left on device"))
        writer.failed = earlier
        assert writer.settle(0.05) is True and writer.failed is earlier
    finally:
        out.close()
        os.close(read_end)
        os.close(write_end)


def test_report_lines_are_encoded_as_the_stream_would_and_refused_output_stops_the_watch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # written to the descriptor, a line keeps the stream's encoding and errors (an ASCII
    # terminal's `\\xfc`, as `_speakable_stdout` sets it); a full disk stops the watch
    from mdgrill.cli.verbs.watching import LineWriter

    with open(tmp_path / "out", "w", encoding="ascii", errors="backslashreplace") as out:
        monkeypatch.setattr(sys, "stdout", out)
        LineWriter(as_json=True)({"kind": "problem", "path": "\u00fc"})
    assert (tmp_path / "out").read_bytes() == b'{"kind": "problem", "path": "\\xfc"}\n'
    if not os.path.exists("/dev/full"):
        return
    with open("/dev/full", "w", encoding="utf-8") as full:
        monkeypatch.setattr(sys, "stdout", full)
        writer = LineWriter(as_json=True)
        writer({"kind": "problem"})
        assert writer.failed is not None and writer.stopped.is_set()
        assert writer.failed.error.errno == 28  # ENOSPC
