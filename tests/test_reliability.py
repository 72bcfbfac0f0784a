"""Crash safety and concurrency (docs/contract.md), through the installed CLI in real processes.

Crash safety: `record-answer`, `term add` and `confirm` are started and SIGKILLed at random
moments; after every kill each file must parse and validate, and hold every answer whose
command returned 0. Concurrency: 8 processes answer their own decisions on one spec at once;
two `term add` calls write one CONTEXT.md at once. The CI sizes here are small; the stress
run (`MDGRILL_STRESS=1 pytest tests/stress`) calls the same functions with the full sizes.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import WatchLines, mdgrill_command, unmeasured, wait_until

from mdgrill.checks.spec import validate_glossary_bytes, validate_progress_bytes
from mdgrill.formats.glossary import parse_glossary
from mdgrill.formats.progress import read_progress
from mdgrill.formats.textfile import decode
from mdgrill.shell.session import check_loaded
from mdgrill.shell.store import TEMP_PREFIX

MDGRILL = mdgrill_command()


def clean_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(HOME=str(home), GIT_CONFIG_GLOBAL=str(home / ".gitconfig"),
               GIT_CONFIG_NOSYSTEM="1")
    return env


def make_repo(base: Path) -> tuple[Path, dict[str, str]]:
    """A git repository with an identity, and an environment that keeps HOME inside base."""
    home = base / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = clean_env(home)
    repo = base / "repo"
    repo.mkdir()
    for args in (["init", "-q", "-b", "main"], ["config", "user.name", "Test"],
                 ["config", "user.email", "test@example.com"],
                 ["config", "commit.gpgsign", "false"]):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)
    return repo, env


def run_json(repo: Path, env: dict[str, str], *argv: str) -> tuple[int, dict[str, object]]:
    """`mdgrill --json ARGV…`: its exit code and its one JSON object (never a traceback)."""
    proc = subprocess.run([*MDGRILL, "--json", *argv], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=60)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def ok_json(repo: Path, env: dict[str, str], *argv: str) -> dict[str, object]:
    code, payload = run_json(repo, env, *argv)
    assert code == 0, (argv, payload)
    return payload


def run(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MDGRILL, *args], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=120)


def ok(repo: Path, env: dict[str, str], *args: str) -> str:
    proc = run(repo, env, *args)
    assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
    return proc.stdout


def open_decisions(repo: Path, env: dict[str, str], spec: str, count: int,
                   interview: str = "s1") -> list[str]:
    """Begin an interview and open `count` decisions in round 1 (in chunks of 200 flags)."""
    ok(repo, env, "begin-interview", spec, "--phase", "start", "--interview-id", interview)
    ids = [f"D{i}" for i in range(count)]
    for start in range(0, count, 200):
        flags = [x for i in ids[start:start + 200] for x in ("--decision-id", i)]
        ok(repo, env, "open-frontier", spec, "--round", "1", *flags)
    return ids


def assert_progress_sound(path: Path) -> None:
    """The file parses, its record and log digest hold, and validate finds no error."""
    data = path.read_bytes()
    prog = read_progress(data, str(path))
    check_loaded(prog)
    errors = [d for d in validate_progress_bytes(data, str(path)) if d.is_error]
    assert not errors, errors


def assert_glossary_sound(path: Path) -> set[str]:
    data = path.read_bytes()
    errors = [d for d in validate_glossary_bytes(data, str(path)) if d.is_error]
    assert not errors, errors
    return {t.name for t in parse_glossary(decode(data, str(path)), str(path)).terms}


def decisions_in(path: Path) -> list[tuple[str, str]]:
    prog = read_progress(path.read_bytes(), str(path))
    out = []
    for block in prog.blocks:
        for entry in block.get("Decisions"):
            key, _, answer = entry.value.partition(" -> ")
            out.append((key, answer))
    return out


def temps_in(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.startswith(TEMP_PREFIX)]


def kill_at_random(argv: list[str], cwd: Path, env: dict[str, str], delay: float) -> int:
    """Start the command, SIGKILL it after `delay` seconds; its exit code (-9 if killed)."""
    proc = subprocess.Popen(argv, cwd=cwd, env=unmeasured(env), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
    return proc.wait()


class CrashStats:
    def __init__(self) -> None:
        self.runs = 0
        self.killed = 0
        self.completed = 0
        self.killed_but_written = 0  # killed after the rename: the change is there
        self.temps_seen = 0  # killed between creating the temp file and renaming it
        self.commits_retried = 0  # confirm killed after its write, before its commit


def typical_duration(repo: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    ok(repo, env, "classify-reply", "--text", "warm up")
    return time.perf_counter() - start


def crash_loop(base: Path, kills: int, seed: int = 0) -> CrashStats:
    """`kills` record-answer / term add runs, each SIGKILLed at a random moment."""
    rng = random.Random(seed)
    repo, env = make_repo(base)
    spec = "specs/crash"
    ok(repo, env, "init", spec, "--goal", "Crash safety")
    ids = open_decisions(repo, env, spec, kills)
    progress = repo / spec / ".progress.md"
    glossary = repo / "CONTEXT.md"
    # Kill anywhere from before the interpreter starts to after the write: the window a
    # verb spends writing is only reached with delays up to its whole run time.
    span = max(0.06, 2.0 * typical_duration(repo, env))
    stats = CrashStats()
    answered: dict[str, str] = {}
    terms: set[str] = set()
    for i, decision in enumerate(ids):
        delay = rng.uniform(0, span)
        if i % 3 == 2:
            term = f"Term{i}"
            argv = [*MDGRILL, "term", "add", term, "--definition", f"Definition number {i}."]
            code = kill_at_random(argv, repo, env, delay)
            present = glossary.exists() and term in assert_glossary_sound(glossary)
            if code == 0:
                terms.add(term)
            target_present = present
        else:
            answer = f"answer number {i}"
            argv = [*MDGRILL, "record-answer", spec, "--decision-id", decision, "--answer",
                    answer]
            code = kill_at_random(argv, repo, env, delay)
            target_present = (decision, answer) in decisions_in(progress)
            if code == 0:
                answered[decision] = answer
        stats.runs += 1
        if code == 0:
            stats.completed += 1
            assert target_present, f"run {i} returned 0 but its change is missing"
        else:
            assert code == -signal.SIGKILL, f"run {i} failed by itself with exit {code}"
            stats.killed += 1
            stats.killed_but_written += int(target_present)
            stats.temps_seen += int(bool(temps_in(repo / spec) or temps_in(repo)))
        assert_progress_sound(progress)
        if glossary.exists():
            assert_glossary_sound(glossary)
    # One more call per folder sweeps what a killed writer left.
    ok(repo, env, "frontier", spec)
    ok(repo, env, "term", "add", "Final", "--definition", "The last term written.")
    assert temps_in(repo / spec) == []
    assert temps_in(repo) == []
    recorded = decisions_in(progress)
    keys = [k for k, _ in recorded]
    assert len(keys) == len(set(keys)), "an answer was recorded twice"
    for decision, answer in answered.items():
        assert (decision, answer) in recorded
    assert terms <= assert_glossary_sound(glossary)
    assert run(repo, env, "validate", spec).returncode == 0
    return stats


def confirm_crash_loop(base: Path, kills: int, seed: int = 0) -> CrashStats:
    """`confirm` (which writes, then commits) SIGKILLed at random moments, `kills` times."""
    rng = random.Random(seed)
    repo, env = make_repo(base)
    spec = "specs/confirm"
    ok(repo, env, "init", spec, "--goal", "Confirm under SIGKILL")
    progress = repo / spec / ".progress.md"
    span = max(0.06, 3.0 * typical_duration(repo, env))
    stats = CrashStats()
    for i in range(kills):
        interview = f"iv{i}"
        ok(repo, env, "begin-interview", spec, "--phase", "start", "--interview-id", interview)
        ok(repo, env, "open-frontier", spec, "--round", "1", "--decision-id", f"Q{i}")
        ok(repo, env, "record-answer", spec, "--decision-id", f"Q{i}", "--answer",
           f"choice {i}")
        ok(repo, env, "await-confirmation", spec, "--decision-id", f"C{i}", "--approach",
           f"approach {i}")
        argv = [*MDGRILL, "confirm", spec, "--decision-id", f"C{i}", "--source",
                "approve-and-delegate"]
        code = kill_at_random(argv, repo, env, rng.uniform(0, span))
        stats.runs += 1
        assert_progress_sound(progress)
        status = read_progress(progress.read_bytes(), "p").data["interview"]
        assert isinstance(status, dict)
        if code == 0:
            stats.completed += 1
            assert status["status"] == "complete"
        else:
            assert code == -signal.SIGKILL
            stats.killed += 1
            stats.killed_but_written += int(status["status"] == "complete")
        if status["status"] != "complete":
            ok(repo, env, *argv[len(MDGRILL):])  # the user confirms again: it must work
        # A kill may leave the approval written but not committed: check-delegation refuses
        # it until `confirm` runs again, which commits it.
        # The next verb first lets a commit the killed confirm's orphaned git is still
        # making finish, so it sees that commit, and no index.lock is left afterwards.
        delegation = run(repo, env, "check-delegation", spec, "--phase", "start",
                         "--interview-id", interview)
        lock = repo / ".git" / "index.lock"
        assert not lock.exists(), "the verb after a killed confirm left .git/index.lock"
        if delegation.returncode != 0:
            assert "APPROVAL_NOT_RECORDED" in delegation.stderr, delegation.stderr
            stats.commits_retried += 1
            ok(repo, env, *argv[len(MDGRILL):])  # confirm again: it retries the commit
            ok(repo, env, "check-delegation", spec, "--phase", "start", "--interview-id",
               interview)
    assert temps_in(repo / spec) == []
    assert run(repo, env, "validate", spec).returncode == 0
    return stats


def test_crash_safety_record_answer_and_term_add(tmp_path: Path) -> None:
    stats = crash_loop(tmp_path, kills=60, seed=1)
    assert stats.runs == 60
    assert stats.killed > 0


def test_crash_safety_confirm(tmp_path: Path) -> None:
    stats = confirm_crash_loop(tmp_path, kills=12, seed=2)
    assert stats.runs == 12
    # seed 2 puts four of the twelve kills before a third of `classify-reply`'s own run
    # time, which no `confirm` finishes in: kills did happen, whatever the machine's load
    assert stats.killed >= 1, vars(stats)


def test_a_confirm_killed_with_its_git_leaves_the_repository_usable(tmp_path: Path) -> None:
    """`confirm` and the `git commit` it runs killed together (a process-group kill) while
    git holds `.git/index.lock`: the next verb removes the lock that killed git left, and
    the same `confirm` then commits the approval. The moment is chosen by a pre-commit hook
    that says it started (git holds the lock while hooks run), not by a timer."""
    repo, env = make_repo(tmp_path)
    spec = "specs/k"
    ok(repo, env, "init", spec, "--goal", "Killed mid-commit")
    ok(repo, env, "begin-interview", spec, "--phase", "start", "--interview-id", "s1")
    ok(repo, env, "open-frontier", spec, "--round", "1", "--decision-id", "Q1")
    ok(repo, env, "record-answer", spec, "--decision-id", "Q1", "--answer", "Email only")
    ok(repo, env, "await-confirmation", spec, "--decision-id", "C1", "--approach", "Email")
    started = tmp_path / "hook-started"
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\n: > '{started}'\nexec sleep 60\n")
    hook.chmod(0o755)
    argv = ["confirm", spec, "--decision-id", "C1", "--source", "approve-and-delegate"]
    proc = subprocess.Popen([*MDGRILL, *argv], cwd=repo, env=unmeasured(env),
                            start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(started.exists, "the commit reaching its pre-commit hook")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    lock = repo / ".git" / "index.lock"
    assert lock.exists()  # what a killed git leaves: git itself would now refuse to commit
    hook.unlink()
    delegation = run(repo, env, "check-delegation", spec, "--phase", "start",
                     "--interview-id", "s1")
    assert delegation.returncode == 3 and "APPROVAL_NOT_RECORDED" in delegation.stderr
    assert not lock.exists(), "the next verb left the killed git's index.lock"
    assert list((repo / ".git").glob("mdgrill-git-*")) == []
    ok(repo, env, *argv)  # the same confirm commits the approval now
    ok(repo, env, "check-delegation", spec, "--phase", "start", "--interview-id", "s1")
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, env=env,
                            capture_output=True, text=True)
    assert status.returncode == 0 and status.stdout == "", status


def concurrent_answers(base: Path, workers: int, calls: int) -> dict[str, int]:
    """`workers` processes each answer their own `calls` decisions on one spec at once."""
    repo, env = make_repo(base)
    spec = "specs/busy"
    ok(repo, env, "init", spec, "--goal", "Many writers")
    ids = open_decisions(repo, env, spec, workers * calls)

    def worker(w: int) -> list[int]:
        codes = []
        for c in range(calls):
            decision = ids[w * calls + c]
            proc = run(repo, env, "record-answer", spec, "--decision-id", decision, "--answer",
                       f"worker {w} answer {c}")
            codes.append(proc.returncode)
        return codes

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(worker, range(workers)))
    elapsed = time.perf_counter() - started
    codes = [code for codes in results for code in codes]
    assert codes == [0] * (workers * calls)
    progress = repo / spec / ".progress.md"
    assert_progress_sound(progress)
    recorded = decisions_in(progress)
    assert sorted(k for k, _ in recorded) == sorted(ids)
    expected = {(ids[w * calls + c], f"worker {w} answer {c}")
                for w in range(workers) for c in range(calls)}
    assert set(recorded) == expected
    iv = read_progress(progress.read_bytes(), "p").data["interview"]
    assert isinstance(iv, dict) and iv["pending"] == [] and iv["round"] == 1
    assert run(repo, env, "validate", spec).returncode == 0
    return {"calls": len(codes), "ms": int(elapsed * 1000)}


def test_concurrent_record_answer(tmp_path: Path) -> None:
    result = concurrent_answers(tmp_path, workers=8, calls=10)
    assert result["calls"] == 80


def concurrent_terms(base: Path, rounds: int) -> None:
    """Two `term add` calls on one CONTEXT.md at once, `rounds` times: both terms land."""
    repo, env = make_repo(base)
    expected: set[str] = set()
    for r in range(rounds):
        pair = [f"Alpha{r}", f"Beta{r}"]
        procs = [subprocess.Popen([*MDGRILL, "term", "add", name, "--definition",
                                   f"The {name} concept."], cwd=repo, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for name in pair]
        for proc in procs:
            _, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err
        expected.update(pair)
        assert assert_glossary_sound(repo / "CONTEXT.md") == expected
    assert temps_in(repo) == []


def test_concurrent_term_add(tmp_path: Path) -> None:
    concurrent_terms(tmp_path, rounds=3)


@pytest.mark.parametrize("count", [1, 2])
def test_each_kill_leaves_old_or_new_file(tmp_path: Path, count: int) -> None:
    """A temp file left by a killed writer is never read as the spec and is swept."""
    repo, env = make_repo(tmp_path)
    spec = "specs/t"
    ok(repo, env, "init", spec, "--goal", "Leftovers")
    open_decisions(repo, env, spec, 1)
    folder = repo / spec
    before = (folder / ".progress.md").read_bytes()
    for n in range(count):  # what a writer killed between create and rename leaves
        (folder / f"{TEMP_PREFIX}{4000 + n}-.progress.md").write_bytes(before[: len(before) // 2])
    assert run(repo, env, "validate", spec).returncode == 0
    ok(repo, env, "record-answer", spec, "--decision-id", "D0", "--answer", "kept")
    assert temps_in(folder) == []
    assert ("D0", "kept") in decisions_in(folder / ".progress.md")


def editor_save(path: Path, line: str, in_place: bool, rng: random.Random) -> None:
    """Save as an editor does: read the whole file, think, write the whole file back.

    Editors check the file on disk before they save (vim's "file changed since reading",
    VS Code's "file is newer"); this one re-reads and applies its edit again when the bytes
    changed, then saves in place (truncate and write, as vim does by default) or through a
    rename (as VS Code does).
    """
    while True:
        data = path.read_bytes()
        if b"\n## Goal\n" not in data:
            time.sleep(0.005)  # caught mdgrill mid-rename? never: caught ourselves mid-write
            continue
        edited = data.replace(b"\n## Goal\n", f"\n{line}\n\n## Goal\n".encode(), 1)
        time.sleep(rng.uniform(0.0, 0.03))
        if in_place:
            with open(path, "r+b") as handle:
                if handle.read() != data:
                    continue
                handle.seek(0)
                handle.truncate(0)
                time.sleep(0.002)  # the moment a reader sees an empty file
                handle.write(edited)
        else:
            temp = path.with_name(".editor-save")
            temp.write_bytes(edited)
            if path.read_bytes() != data:
                temp.unlink()
                continue
            os.replace(temp, path)
        return


def editor_race(base: Path, workers: int, calls: int, edits: int,
                seed: int = 0) -> dict[str, int]:
    """Editor-style saves during concurrent `record-answer` calls, with `watch` running."""
    repo, env = make_repo(base)
    spec = "specs/busy"
    ok(repo, env, "init", spec, "--goal", "Edits and answers at once")
    ids = open_decisions(repo, env, spec, workers * calls)
    progress = repo / spec / ".progress.md"
    watcher = WatchLines(repo, env, "specs")
    rng = random.Random(seed)
    lines = [f"Editor note {n}: kept by hand." for n in range(edits)]

    def worker(w: int) -> list[tuple[int, str]]:
        out = []
        for c in range(calls):
            proc = run(repo, env, "record-answer", spec, "--decision-id", ids[w * calls + c],
                       "--answer", f"worker {w} answer {c}")
            out.append((proc.returncode, proc.stderr))
        return out

    def editor() -> None:
        for n, line in enumerate(lines):
            editor_save(progress, line, in_place=n % 2 == 0, rng=rng)
            time.sleep(rng.uniform(0.0, 0.05))

    from mdgrill.shell import snapshots

    try:
        watcher.wait_for('"started"')  # watch has taken its first look
        with ThreadPoolExecutor(max_workers=workers + 1) as pool:
            edited = pool.submit(editor)
            results = list(pool.map(worker, range(workers)))
            edited.result()
        final = progress.read_bytes()
        # watch has checked the last version once it keeps it as its last good copy
        wait_until(lambda: snapshots.load(str(repo), str(progress)) == final,
                   "watch checking the final version")
    finally:
        out = watcher.stop()
    failures = [err for codes in results for code, err in codes if code != 0]
    assert failures == [], failures  # no torn read was taken for a broken file
    assert_progress_sound(progress)
    assert "MALFORMED_FILE" not in out and "EMPTY_FILE" not in out, out
    text = progress.read_text()
    expected = {(ids[w * calls + c], f"worker {w} answer {c}")
                for w in range(workers) for c in range(calls)}
    reported = "\n".join(line for line in out.splitlines() if "LOG_WENT_BACK" in line)
    missing = expected - set(decisions_in(progress))
    return {"answers": len(expected) - len(missing), "edits": sum(line in text for line in lines),
            "answers_lost": len(missing), "edits_lost": sum(line not in text for line in lines),
            "reported": sum(f"{d} -> {a}" in reported for d, a in missing)}


def test_editor_saves_during_concurrent_answers(tmp_path: Path) -> None:
    """Issue 14.2: 10 editor saves during 8x5 record-answer with watch running.

    Before mdgrill checked the file before its rename, 6 of 10 edit lines were lost. What is
    left is the instant between that check and the rename (and the editor's own check and
    write), which only a preempted process on a busy machine hits: at most one loss is
    allowed here; `tests/stress` counts them over many runs (docs/guarantees.md).
    """
    result = editor_race(tmp_path, workers=8, calls=5, edits=10)
    # 40 answers and 10 hand edits were written: at most one of the 50 is lost
    assert result["answers"] + result["edits"] >= 49, result
    assert result["answers_lost"] + result["edits_lost"] <= 1, result


def test_a_save_between_read_and_write_is_kept(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                               mdgrill: object) -> None:
    """The mechanism itself, without timing: an editor saves while a change is computed;
    the transaction sees the new bytes, runs its step again on them, and keeps both."""
    from mdgrill.formats.progress import Change, Transition
    from mdgrill.shell import store
    from mdgrill.shell.session import transaction

    monkeypatch.chdir(repo)
    assert subprocess.run([*MDGRILL, "init", "specs/a", "--goal", "G"], cwd=repo,
                          capture_output=True).returncode == 0
    spec = store.resolve_spec("specs/a")
    path = Path(spec.progress)
    calls = []

    def step(prog: object) -> Transition:
        calls.append(1)
        if len(calls) == 1:  # the editor's save lands while mdgrill computes
            path.write_text(path.read_text().replace("## Goal\n", "Hand edit.\n\n## Goal\n"))
        change = Change()
        change.updates["phase"] = "requirements"
        return Transition(change, {})

    result = transaction(spec, step)
    assert len(calls) == 2 and result == {"written": True, "redone": 1}
    text = path.read_text()
    assert "Hand edit." in text and "phase: requirements" in text


def test_a_file_that_keeps_changing_is_refused(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                               mdgrill: object) -> None:
    from mdgrill.errors import InputError
    from mdgrill.formats.progress import Change, Transition
    from mdgrill.shell import store
    from mdgrill.shell.session import WRITE_TRIES, transaction

    monkeypatch.chdir(repo)
    subprocess.run([*MDGRILL, "init", "specs/a", "--goal", "G"], cwd=repo, check=True,
                   capture_output=True)
    spec = store.resolve_spec("specs/a")
    path = Path(spec.progress)
    calls = []

    def step(prog: object) -> Transition:
        calls.append(1)
        path.write_text(path.read_text().replace("## Goal\n", f"Edit {len(calls)}.\n\n## Goal\n"))
        change = Change()
        change.updates["phase"] = "requirements"
        return Transition(change, {})

    with pytest.raises(InputError) as caught:
        transaction(spec, step)
    assert caught.value.code == "FILE_CHANGED" and len(calls) == WRITE_TRIES
    text = path.read_text()
    assert f"Edit {WRITE_TRIES}." in text and "phase: requirements" not in text


def test_watch_reports_a_stale_editor_save(tmp_path: Path) -> None:
    """An editor that saves a copy from before mdgrill's write loses a round without breaking
    the seal; watch says so, and `restore` puts the round back. Each step waits for what
    watch did (its `started` line, its last good copy of the new bytes), not for a time."""
    from mdgrill.shell import snapshots

    repo, env = make_repo(tmp_path)
    spec = "specs/lost"
    ok(repo, env, "init", spec, "--goal", "A stale buffer")
    ok(repo, env, "begin-interview", spec, "--phase", "start", "--interview-id", "s1")
    progress = repo / spec / ".progress.md"
    old = progress.read_bytes()
    watcher = WatchLines(repo, env, "specs")
    try:
        watcher.wait_for('"started"')
        ok(repo, env, "open-frontier", spec, "--round", "1", "--decision-id", "D1")
        new = progress.read_bytes()
        # watch keeps a last good copy of each version it checked: once it holds the new
        # bytes, watch has seen the round that the stale save is about to drop
        wait_until(lambda: snapshots.load(str(repo), str(progress)) == new,
                   "watch checking the new round")
        progress.write_bytes(old)
        went_back = json.loads(watcher.wait_for("LOG_WENT_BACK"))
    finally:
        watcher.stop()
    assert went_back["code"] == "LOG_WENT_BACK" and went_back["spec"] == spec
    assert "- Asked: D1" in went_back["lines"], went_back
    assert snapshots.load(str(repo), str(progress)) == new  # the lost round is kept for restore
    restored = run(repo, env, "restore", spec)
    assert restored.returncode == 0, restored.stderr
    assert "### Goal Grill - Round 1\n- Asked: D1" in progress.read_text()
    assert run(repo, env, "validate", spec).returncode == 0
