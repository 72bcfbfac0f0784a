"""An atomic write's order on disk: the new bytes fsynced before the rename, the folder fsynced
after it and before the write returns, and the replaced file closed only after that, on a thread
of its own (`store.retire`), never left open."""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path

import pytest

from mdgrill.shell import store


class Recorder:
    """What atomic_write asks of the system, in order: (call, what it names, thread)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
        self.events: list[tuple[str, str, int]] = []
        self.names: dict[int, str] = {}
        self.folder = folder
        real_open, real_close = os.open, os.close
        real_fsync, real_replace = os.fsync, os.replace

        def opened(path: str, flags: int, mode: int = 0o777, **kw: object) -> int:
            fd = real_open(path, flags, mode, **kw)  # type: ignore[arg-type]
            self.names[fd] = self.kind(path, fd)
            self.log("open", self.names[fd])
            return fd

        def closed(fd: int) -> None:
            self.log("close", self.names.pop(fd, "other"))
            real_close(fd)

        def fsynced(fd: int) -> None:
            self.log("fsync", self.names.get(fd, "other"))
            real_fsync(fd)

        def replaced(src: str, dst: str) -> None:
            self.log("replace", os.path.basename(dst))
            real_replace(src, dst)

        monkeypatch.setattr(os, "open", opened)
        monkeypatch.setattr(os, "close", closed)
        monkeypatch.setattr(os, "fsync", fsynced)
        monkeypatch.setattr(os, "replace", replaced)

    def kind(self, path: str, fd: int) -> str:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            return "folder"
        name = os.path.basename(path)
        return "temp" if name.startswith(store.TEMP_PREFIX) else name

    def log(self, call: str, what: str) -> None:
        self.events.append((call, what, threading.get_ident()))

    def calls(self) -> list[tuple[str, str]]:
        return [(call, what) for call, what, _ in self.events]

    def closed_old(self, timeout: float = 5.0) -> tuple[str, str, int]:
        """The close of the replaced file, waited for (another thread makes it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [e for e in self.events if e[:2] == ("close", ".progress.md")]
            if found:
                return found[0]
            time.sleep(0.01)
        raise AssertionError(f"the replaced file was never closed: {self.calls()}")


def test_the_replaced_file_is_closed_after_the_write_is_durable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / ".progress.md"
    target.write_bytes(b"old")
    rec = Recorder(monkeypatch, tmp_path)
    store.atomic_write(str(target), b"new", expect=b"old")
    returned = len(rec.events)  # what happened before atomic_write returned
    assert target.read_bytes() == b"new"
    before_return = rec.calls()[:returned]
    assert before_return[:4] == [("open", "temp"), ("fsync", "temp"), ("close", "temp"),
                                 ("open", ".progress.md")]
    replace = before_return.index(("replace", ".progress.md"))
    folder = before_return.index(("fsync", "folder"))
    assert before_return.index(("fsync", "temp")) < replace < folder
    closing = rec.closed_old()
    # closed after the folder's fsync, by a thread that is not the writer's
    assert rec.events.index(closing) > folder
    assert closing[2] != threading.get_ident()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".progress.md"]


def test_a_first_write_holds_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / ".progress.md"
    rec = Recorder(monkeypatch, tmp_path)
    store.atomic_write(str(target), b"first")
    assert target.read_bytes() == b"first"
    assert ("open", ".progress.md") not in rec.calls()
    assert (stat.S_IMODE(target.stat().st_mode)) == 0o644


def test_a_refused_write_closes_what_it_opened(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / ".progress.md"
    target.write_bytes(b"saved by an editor")
    rec = Recorder(monkeypatch, tmp_path)
    with pytest.raises(store.FileChanged):
        store.atomic_write(str(target), b"new", expect=b"old")
    assert target.read_bytes() == b"saved by an editor"
    assert rec.names == {}, f"left open: {rec.names}"
    assert ("replace", ".progress.md") not in rec.calls()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".progress.md"]


def test_a_failed_rename_closes_what_it_opened(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / ".progress.md"
    target.write_bytes(b"old")
    rec = Recorder(monkeypatch, tmp_path)

    def refuse(src: str, dst: str) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(store.InputError) as info:
        store.atomic_write(str(target), b"new")
    assert info.value.code == "WRITE_FAILED"
    assert rec.names == {}, f"left open: {rec.names}"
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".progress.md"]


def test_on_windows_the_replaced_file_is_closed_before_the_rename(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows refuses to rename over a file that is open: there it is closed first."""
    target = tmp_path / ".progress.md"
    target.write_bytes(b"old")
    rec = Recorder(monkeypatch, tmp_path)
    monkeypatch.setattr(os, "name", "nt")
    store.atomic_write(str(target), b"new", expect=b"old")
    monkeypatch.undo()
    calls = rec.calls()
    assert calls.index(("close", ".progress.md")) < calls.index(("replace", ".progress.md"))
    assert target.read_bytes() == b"new"


def test_a_fifo_in_the_way_does_not_hang_the_write(tmp_path: Path) -> None:
    """The replaced path is opened without waiting: a FIFO there is renamed over, not read."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    target = tmp_path / "out.html"
    os.mkfifo(target)
    store.atomic_write(str(target), b"page")
    assert target.read_bytes() == b"page"


def test_many_writes_leave_no_replaced_file_open_and_one_closing_thread(
        tmp_path: Path) -> None:
    """Every replaced file is closed, by one thread however many writes there are."""
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("needs Linux's /proc")
    target = tmp_path / ".progress.md"
    target.write_bytes(b"0")
    store.atomic_write(str(target), b"1")  # the closing thread is started by a first write
    threads = len(os.listdir("/proc/self/task"))
    for n in range(2, 60):
        store.atomic_write(str(target), str(n).encode(), expect=str(n - 1).encode())
    assert len(os.listdir("/proc/self/task")) == threads

    def held() -> list[str]:
        found = []
        for fd in os.listdir("/proc/self/fd"):
            try:
                link = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                continue
            if link.startswith(str(tmp_path)):
                found.append(link)
        return found

    deadline = time.monotonic() + 5
    while held() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert held() == []
    assert target.read_bytes() == b"59"


def test_a_forked_child_closes_the_files_its_writes_replaced(tmp_path: Path) -> None:
    """A fork copies the parent's closer but not its thread: the child gets its own, so a
    library user's forked worker does not keep every replaced file open until it runs out of
    descriptors."""
    if not os.path.isdir("/proc/self/fd") or not hasattr(os, "fork"):
        pytest.skip("needs fork and Linux's /proc")
    target = tmp_path / ".progress.md"
    target.write_bytes(b"0")
    store.atomic_write(str(target), b"1")  # the parent's closing thread is running
    pid = os.fork()
    if pid == 0:  # the child: report through the exit code, never return into pytest
        code = 3
        try:
            for n in range(2, 12):
                store.atomic_write(str(target), str(n).encode())
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                held = [fd for fd in os.listdir("/proc/self/fd")
                        if os.path.realpath(f"/proc/self/fd/{fd}").startswith(str(tmp_path))]
                if not held:
                    code = 0
                    break
                time.sleep(0.01)
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert target.read_bytes() == b"11"
