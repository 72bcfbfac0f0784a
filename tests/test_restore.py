"""restore.py (pure) and snapshots.py (last good copies): put back lost log blocks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mdgrill.core.restore import lost_blocks, restore
from mdgrill.formats.progress import Progress, log_digest
from mdgrill.formats.textfile import TextFile
from mdgrill.shell import snapshots
from mdgrill.shell.session import check_loaded

MDGRILL = [sys.executable, "-m", "mdgrill"]


def round_block(i: int) -> str:
    return (f"### Requirements Grill - Round {i}\n- Asked: D{i}\n"
            f"- Decisions: D{i} -> answer number {i}\n- Facts resolved: none\n"
            f"- Out of scope: none\n- Domain language: none\n- Frontier after round: none\n")


def make_progress(rounds: int, *, extra_log: str = "", after: str = "") -> str:
    """A valid .progress.md with `rounds` rounds (the log digest computed as mdgrill does)."""
    log = "\n".join(round_block(i) for i in range(1, rounds + 1)) + extra_log
    asked = ", ".join(f"D{i}" for i in range(1, rounds + 1))
    return f"""---
mdgrill: 1
spec: demo
goal: Let customers sign in
phase: requirements
mode: interactive
required_sections: []
interview:
  id: req-1
  phase: requirements
  round: {max(rounds, 1)}
  status: collecting
  context_digest: {"ab" * 32}
  context: []
  asked: [{asked}]
  pending: []
  approach: null
  confirmation: null
  bypass_reason: null
  assumptions: []
skills: []
log:
  blocks: {rounds}
  sha256: {log_digest(log)}
---
# Demo

## Goal

Let customers sign in

## Design Tree

## Interview Responses

{log}{after}"""


def parse(text: str) -> Progress:
    return Progress(TextFile(text), "specs/demo/.progress.md")


def accepted(text: str) -> Progress:
    prog = parse(text)
    check_loaded(prog)  # raises when the record or the log digest is wrong
    return prog


def test_truncation_puts_every_block_back() -> None:
    good = make_progress(5)
    current = good[:good.index("### Requirements Grill - Round 3") + 20]
    done = restore(good, current, "p.md")
    assert done.changed
    assert done.restored == [f"Requirements Grill - Round {i}" for i in (3, 4, 5)]
    prog = accepted(done.text)
    assert [b.round for b in prog.blocks] == [1, 2, 3, 4, 5]
    assert done.text == good


def test_edited_round_is_put_back_and_the_rest_of_the_file_is_kept() -> None:
    good = make_progress(3)
    current = good.replace("answer number 2", "a different answer").replace(
        "Let customers sign in\n\n## Design", "Let customers sign in fast\n\n## Design")
    current += "\n## Notes\n\nmy own notes\n"
    done = restore(good, current, "p.md")
    assert done.restored == ["Requirements Grill - Round 2"]
    prog = accepted(done.text)
    assert "answer number 2" in done.text and "a different answer" not in done.text
    assert "Let customers sign in fast" in done.text  # the user's edit elsewhere stays
    assert done.text.endswith("## Notes\n\nmy own notes\n")
    assert prog.sections["interview responses"] is not None


def test_blocks_appended_after_the_good_copy_are_kept_without_touching_front_matter() -> None:
    good = make_progress(2)
    later = make_progress(4)  # mdgrill appended rounds 3-4 and updated the digest
    current = later.replace("answer number 1", "oops")
    done = restore(good, current, "p.md")
    assert done.restored == ["Requirements Grill - Round 1"]
    assert done.kept == ["Requirements Grill - Round 3", "Requirements Grill - Round 4"]
    assert not done.digest_updated
    assert done.text == later
    accepted(done.text)


def test_lines_appended_to_the_open_round_are_not_a_loss() -> None:
    good = make_progress(1, extra_log="\n### Requirements Grill - Round 2\n- Asked: D2\n")
    current = make_progress(2)  # round 2 got its answer and closing lines since
    assert lost_blocks(parse(good), parse(current)) == []
    broken = current.replace("answer number 1", "edited")
    done = restore(good, broken, "p.md")
    assert done.restored == ["Requirements Grill - Round 1"]
    assert done.text == current  # round 2 keeps the lines added after the good copy
    accepted(done.text)


def test_nothing_lost_means_nothing_changes() -> None:
    text = make_progress(3)
    done = restore(text, text, "p.md")
    assert not done.changed and done.diff == "" and done.text == text


def test_deleted_log_section_comes_back() -> None:
    good = make_progress(2)
    current = good[:good.index("## Interview Responses")].rstrip("\n") + "\n"
    done = restore(good, current, "p.md")
    prog = accepted(done.text)
    assert len(prog.blocks) == 2


def test_crlf_file_stays_crlf() -> None:
    good = make_progress(3).replace("\n", "\r\n")
    current = good.replace("answer number 3", "changed")
    done = restore(good, current, "p.md")
    assert "\r\n" in done.text and "\n" not in done.text.replace("\r\n", "")
    accepted(done.text)


def test_diff_is_a_unified_diff_of_current_to_restored() -> None:
    good = make_progress(2)
    current = good.replace("answer number 2", "zzz")
    done = restore(good, current, "p.md")
    assert done.diff.startswith("--- a/p.md\n+++ b/p.md\n")
    assert "-- Decisions: D2 -> zzz\n" in done.diff
    assert "+- Decisions: D2 -> answer number 2\n" in done.diff


def test_lost_blocks_report_old_text_and_deletions() -> None:
    good = make_progress(3)
    current = good.replace(round_block(3), "").replace("answer number 1", "edited")
    losses = {loss.title: loss for loss in lost_blocks(parse(good), parse(current))}
    assert set(losses) == {"Requirements Grill - Round 1", "Requirements Grill - Round 3"}
    assert "D1 -> answer number 1" in losses["Requirements Grill - Round 1"].old_text
    assert losses["Requirements Grill - Round 1"].new_text is not None
    assert losses["Requirements Grill - Round 3"].deleted


@settings(max_examples=40, deadline=None)
@given(cut=st.integers(min_value=0, max_value=10_000), tail=st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00\r#-"),
    max_size=40))
def test_any_truncation_of_the_log_restores_a_valid_file(cut: int, tail: str) -> None:
    good = make_progress(4)
    start = good.index("## Interview Responses")
    current = good[:start + cut % (len(good) - start)] + tail
    done = restore(good, current, "p.md")
    prog = accepted(done.text)
    titles = [b.title for b in prog.blocks]
    assert titles[:4] == [f"Requirements Grill - Round {i}" for i in range(1, 5)]


# --------------------------------------------------------------------------- snapshots


def test_snapshot_lives_in_git_dir_and_round_trips(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    progress = str(tmp_path / "specs" / "a" / ".progress.md")
    path = snapshots.save(str(tmp_path), progress, b"hello")
    assert path.startswith(str(tmp_path / ".git" / "mdgrill" / "last-good"))
    assert snapshots.load(str(tmp_path), progress) == b"hello"
    assert snapshots.load(str(tmp_path), progress + "x") is None


def test_snapshot_outside_a_repository_goes_to_the_xdg_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "work"
    root.mkdir()
    path = snapshots.save(str(root), str(root / "s" / ".progress.md"), b"x")
    assert path.startswith(str(tmp_path / "cache" / "mdgrill" / "last-good"))


def test_head_version_reads_the_committed_file(tmp_path: Path) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    spec = tmp_path / "specs" / "a"
    spec.mkdir(parents=True)
    (spec / ".progress.md").write_text("committed\n")
    subprocess.run(["git", "-C", str(tmp_path), "add", "."], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "commit", "-qm", "x"], check=True, env=env)
    (spec / ".progress.md").write_text("changed\n")
    assert snapshots.head_version(str(tmp_path), str(spec / ".progress.md")) == b"committed\n"


# --------------------------------------------------------------------------- the CLI


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cwd / ".cache-test")}
    return subprocess.run([*MDGRILL, *args], cwd=cwd, capture_output=True, text=True, env=env,
                          timeout=60)


def test_restore_cli_from_git_head_after_truncation(tmp_path: Path) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    spec = tmp_path / "specs" / "demo"
    spec.mkdir(parents=True)
    good = make_progress(3)
    (spec / ".progress.md").write_text(good)
    subprocess.run(["git", "-C", str(tmp_path), "add", "."], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "commit", "-qm", "x"], check=True, env=env)
    (spec / ".progress.md").write_text(good[:good.index("### Requirements Grill - Round 2")])
    dry = _cli("restore", "--dry-run", "specs/demo", cwd=tmp_path)
    assert dry.returncode == 0, dry.stderr
    assert "+### Requirements Grill - Round 2" in dry.stdout
    assert (spec / ".progress.md").read_text() != good  # --dry-run wrote nothing
    done = _cli("--json", "restore", "specs/demo", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert '"source": "git HEAD"' in done.stdout
    assert (spec / ".progress.md").read_text() == good


def test_restore_cli_without_any_copy_is_a_clear_error(tmp_path: Path) -> None:
    spec = tmp_path / "specs" / "demo"
    spec.mkdir(parents=True)
    (spec / ".progress.md").write_text(make_progress(1))
    done = _cli("restore", "specs/demo", cwd=tmp_path)
    assert done.returncode == 2
    assert "no last good copy" in done.stderr
