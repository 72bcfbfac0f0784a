"""A long-lived process reuses a spec's parse only for the very bytes it came from (issue 37,
goal 2: "the server keeps the parsed spec between calls … never a stale read").

Driven through the library API in one process, as `mdgrill mcp` drives it: a hand edit that
keeps the file's size and modification time is still seen by the next read, and a write
lands on top of it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from test_reliability import MDGRILL, make_repo

import mdgrill

SPEC = "specs/c"


def _spec(tmp_path: Path) -> tuple[Path, mdgrill.Spec]:
    repo, env = make_repo(tmp_path)
    for argv in (["init", SPEC, "--goal", "Cache"],
                 ["begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1"],
                 ["open-frontier", SPEC, "--round", "1", "--decision-id", "D1",
                  "--decision-id", "D2", "--decision-id", "D3"]):
        subprocess.run([*MDGRILL, *argv], cwd=repo, env=env, check=True, capture_output=True)
    return repo / SPEC / ".progress.md", mdgrill.Spec.open(repo / SPEC)


def _same_size_same_time(path: Path, old: str, new: str) -> None:
    """Replace `old` by `new` (as long) and put the modification time back: only the bytes
    tell the edit apart."""
    assert len(old) == len(new)
    before = os.stat(path)
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_size == before.st_size


def test_a_read_after_a_hand_edit_sees_the_edit(tmp_path: Path) -> None:
    path, spec = _spec(tmp_path)
    assert spec.status()["goal"] == "Cache"  # parsed, and kept for these bytes
    assert spec.status()["goal"] == "Cache"  # the same bytes: the kept parse
    _same_size_same_time(path, "goal: Cache", "goal: Cachy")
    assert spec.status()["goal"] == "Cachy"


def test_a_write_lands_on_a_hand_edit_made_since_the_last_read(tmp_path: Path) -> None:
    path, spec = _spec(tmp_path)
    spec.record_answer("D1", "Everyone")
    assert spec.status()["pending"]  # D2 and D3 are still open: read from the kept parse
    _same_size_same_time(path, "# C\n", "# K\n")  # the title, outside the interview's context
    spec.record_answer("D2", "Members")
    text = path.read_text(encoding="utf-8")
    assert "\n# K\n" in text  # the hand edit is kept
    assert "- Decisions: D1 -> Everyone" in text and "- Decisions: D2 -> Members" in text
    assert spec.validate() == []


def test_what_a_write_leaves_reads_as_a_fresh_parse_reads_it(tmp_path: Path) -> None:
    path, spec = _spec(tmp_path)
    spec.record_answer("D1", "Everyone")
    kept = spec.ledger().to_json()  # from the parse the write made of what it wrote
    fresh = mdgrill.Spec.open(path.parent)
    from mdgrill.shell.session import PARSED

    PARSED.clear()  # nothing kept: the file is parsed again
    assert fresh.ledger().to_json() == kept
    kept_status = spec.status().to_json()
    PARSED.clear()
    assert fresh.status().to_json() == kept_status


def _commit(repo: Path, env: dict[str, str], subject: str, *trailers: str) -> str:
    """A commit made by another process, as `confirm` or a user would make it."""
    message = "\n\n".join([subject, "\n".join(trailers)]) if trailers else subject
    for argv in (["add", "-A"], ["commit", "-q", "--allow-empty", "-m", message]):
        subprocess.run(["git", *argv], cwd=repo, env=env, check=True, capture_output=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, env=env, check=True,
                          capture_output=True, text=True).stdout.strip()


def _approval(repo: Path, env: dict[str, str], subject: str) -> str:
    return _commit(repo, env, subject, "Mdgrill-Transition: approve", f"Mdgrill-Spec: {SPEC}")


def test_status_sees_each_commit_another_process_makes(tmp_path: Path) -> None:
    """The last approval is remembered only while HEAD, its branch and the packed refs stay
    as they were: a commit, a branch switch, `git pack-refs` and a reset are each seen."""
    path, spec = _spec(tmp_path)
    repo, env = path.parents[2], {**os.environ, "GIT_AUTHOR_NAME": "T",
                                  "GIT_AUTHOR_EMAIL": "t@example.com",
                                  "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com"}
    assert spec.status()["approval"]["sha"] is None  # unborn: no commit yet
    first = _approval(repo, env, "approve one")
    assert spec.status()["approval"]["sha"] == first
    assert spec.status()["approval"]["sha"] == first  # nothing changed: the same answer
    subprocess.run(["git", "pack-refs", "--all"], cwd=repo, env=env, check=True)
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()  # packed now
    second = _approval(repo, env, "approve two")
    assert spec.status()["approval"]["sha"] == second
    subprocess.run(["git", "checkout", "-q", "-b", "side", first], cwd=repo, env=env,
                   check=True)
    assert spec.status()["approval"]["sha"] == first  # HEAD names another branch
    _commit(repo, env, "unrelated work")
    assert spec.status()["approval"]["sha"] == first
    subprocess.run(["git", "checkout", "-q", "main"], cwd=repo, env=env, check=True)
    assert spec.status()["approval"]["sha"] == second
    subprocess.run(["git", "reset", "-q", "--soft", first], cwd=repo, env=env, check=True)
    assert spec.status()["approval"]["sha"] == first
    subprocess.run(["git", "checkout", "-q", "--detach", second], cwd=repo, env=env,
                   check=True)
    assert spec.status()["approval"]["sha"] == second  # a detached HEAD holds the commit


def _parts(prog: object) -> list[tuple[str, int, list[tuple[str, str, int]]]]:
    """Every block's and node's heading line and bullets, as a parse reads them."""
    from mdgrill.formats.progress import Progress

    assert isinstance(prog, Progress)
    return [(type(part).__name__, part.line, [(e.key, e.value, e.line) for e in part.entries])
            for part in [*prog.blocks, *prog.nodes]]


def test_the_parse_a_write_leaves_takes_only_what_did_not_change(tmp_path: Path) -> None:
    """The parse a write leaves for the next call takes the bullets of the blocks and nodes
    the write left as they were from the parse it was computed from: after each write, in
    new rounds and old ones, with a node added and the front matter a line longer (every
    block moved), each block and node reads as a fresh parse of the same bytes reads it."""
    from mdgrill.formats.progress import read_progress
    from mdgrill.model.tree import read_ledger
    from mdgrill.shell.session import PARSED, display

    path, spec = _spec(tmp_path)

    def same_as_fresh(taken: bool = False) -> None:
        data = path.read_bytes()
        kept = PARSED.get((spec.progress, display(spec.progress)), data, True)
        assert kept is not None  # the write's own parse, not a new one
        # the first round's block, which the last writes left as it was, came with its
        # bullets from the parse that read them: taken, not read again
        assert kept.blocks[0]._entries is not None or not taken
        fresh = read_progress(data, display(spec.progress))
        assert _parts(kept) == _parts(fresh)
        assert read_ledger(kept.blocks).answers == read_ledger(fresh.blocks).answers

    spec.ledger()  # the ledger read: every block's bullets are in the kept parse
    spec.record_answer("D1", "Everyone")
    same_as_fresh()
    spec.record_answer("D2", "Guests")
    spec.out_of_scope("D3", reply="not now")
    same_as_fresh()
    spec.open_frontier(round=2, decision_ids=["D4"])
    same_as_fresh()
    spec.add_node("D5", title="Storage", options=["Disk", "Memory"], recommend=1)
    same_as_fresh()
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("goal: Cache\n", "goal: Cache\nnote: a line more\n", 1),
                    encoding="utf-8")  # every block and node one line further down
    spec.ledger()
    spec.record_answer("D4", "Members")
    same_as_fresh()
    spec.open_frontier(round=3, decision_ids=["D5"])  # it reads the ledger: every block
    spec.record_answer("D5", "Disk")
    same_as_fresh(taken=True)
    assert spec.ledger()["entries"] and spec.validate() == []
