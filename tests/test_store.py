"""Files on disk: spec resolution, the folder lock, atomic writes."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from mdgrill.errors import InputError
from mdgrill.shell import store


def test_atomic_write_keeps_mode_and_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / ".progress.md"
    target.write_bytes(b"old")
    os.chmod(target, 0o600)
    store.atomic_write(str(target), b"new\r\n")
    assert target.read_bytes() == b"new\r\n"
    assert (target.stat().st_mode & 0o777) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == [".progress.md"]


def test_lock_serializes_and_sweeps_temps(tmp_path: Path) -> None:
    (tmp_path / f"{store.TEMP_PREFIX}123-.progress.md").write_bytes(b"torn")
    order: list[str] = []
    with store.Lock(str(tmp_path)):
        assert not any(p.name.startswith(store.TEMP_PREFIX) for p in tmp_path.iterdir())
        t = threading.Thread(target=lambda: (store.Lock(str(tmp_path)).__enter__(),
                                             order.append("second")))
        t.start()
        t.join(0.2)
        order.append("first")
    t.join(5)
    assert order == ["first", "second"]
    assert list(tmp_path.iterdir()) == []


def test_resolve_spec(tmp_path: Path) -> None:
    folder = tmp_path / "specs" / "a"
    folder.mkdir(parents=True)
    with pytest.raises(InputError) as info:
        store.resolve_spec(str(folder), str(tmp_path))
    assert info.value.code == "NOT_FOUND"
    (folder / ".progress.md").write_text("x")
    spec = store.resolve_spec(str(folder / ".progress.md"), str(tmp_path))
    assert (spec.folder, spec.rel_folder, spec.rel_progress) == \
        (str(folder), "specs/a", "specs/a/.progress.md")
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (tmp_path / "specs" / "link").symlink_to(outside)
    with pytest.raises(InputError) as info:
        store.resolve_spec(str(tmp_path / "specs" / "link"), str(tmp_path))
    assert info.value.code == "PATH_OUTSIDE_REPOSITORY"


def test_read_file_refusals(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        store.read_file(str(tmp_path), "dir")
    assert info.value.code == "NOT_A_FILE"
    big = tmp_path / "big"
    big.write_bytes(b"x" * 11)
    with pytest.raises(InputError) as info:
        store.read_file(str(big), "big", limit=10)
    assert info.value.code == "FILE_TOO_LARGE"
    with pytest.raises(InputError) as info:
        store.read_file(str(tmp_path / "nope"), "nope")
    assert info.value.code == "NOT_FOUND"
    with pytest.raises(InputError) as info:  # os.stat raises ValueError for it
        store.read_file(str(tmp_path / "a\x00b"), "a\x00b")
    assert info.value.code == "UNREADABLE"


def test_find_specs_skips_hidden(tmp_path: Path) -> None:
    for rel in ("specs/a", "specs/_epics/e", ".git/specs/x", "node_modules/y"):
        (tmp_path / rel).mkdir(parents=True)
        (tmp_path / rel / ".progress.md").write_text("x")
    found = [store.relpath_posix(p, str(tmp_path)) for p in store.find_specs(str(tmp_path))]
    assert sorted(found) == ["specs/_epics/e", "specs/a"]


def _torn_spec(repo: Path, mdgrill: object) -> tuple[store.Spec, bytes]:
    """A spec whose `.progress.md` an editor has just truncated, about to write it back."""
    import subprocess

    from conftest import mdgrill_command

    subprocess.run([*mdgrill_command(), "init", "specs/a", "--goal", "Torn reads"], cwd=repo,
                   check=True, capture_output=True)
    spec = store.resolve_spec(str(repo / "specs" / "a"))
    good = Path(spec.progress).read_bytes()
    Path(spec.progress).write_bytes(b"")  # the editor's truncate
    return spec, good


@pytest.mark.parametrize("stall", [0.2, 0.8])
def test_a_read_during_a_stalled_in_place_save_waits_for_it(
        repo: Path, mdgrill: object, stall: float) -> None:
    """An editor preempted between its truncate and its write (a busy machine) leaves the
    file empty for a while: every verb's load waits for the save instead of failing
    MALFORMED_FILE (issue 32: record-answer failed that way under concurrent saves)."""
    from mdgrill.shell.session import load

    spec, good = _torn_spec(repo, mdgrill)
    writer = threading.Timer(stall, lambda: Path(spec.progress).write_bytes(good))
    writer.start()
    try:
        prog = load(spec)
    finally:
        writer.join()
    assert prog.data["goal"] == "Torn reads"


def test_a_file_broken_long_ago_is_reported_at_once(repo: Path, mdgrill: object) -> None:
    from mdgrill.shell.session import load

    spec, _ = _torn_spec(repo, mdgrill)
    old = os.stat(spec.progress).st_mtime - 60
    os.utime(spec.progress, (old, old))  # broken, and nobody is writing it
    with pytest.raises(InputError) as caught:
        load(spec)
    assert caught.value.code in ("MALFORMED_FILE", "EMPTY_FILE")


def test_read_file_reads_a_file_that_grew_since_its_stat(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The read is sized from the stat; bytes written after it are read too, up to the
    limit, as a read of the whole file would."""
    grown = tmp_path / "grown"
    grown.write_bytes(b"0123456789" * 3)
    real_stat = os.stat

    class Smaller:
        def __init__(self, st: os.stat_result) -> None:
            self.st_mode, self.st_size = st.st_mode, 5

    monkeypatch.setattr(os, "stat", lambda path, *a, **k: Smaller(real_stat(path, *a, **k)))
    assert store.read_file(str(grown)) == b"0123456789" * 3
    assert store.read_file(str(grown), limit=12) == b"0123456789012"  # limit + 1: too large
    same = tmp_path / "same"
    same.write_bytes(b"abcde")
    assert store.read_file(str(same)) == b"abcde"
