"""The controlling terminal: where `mdgrill approve` shows the brief and reads the selection.

It is opened by name (`/dev/tty`; the console `CONIN$`/`CONOUT$` on Windows), never taken
from stdin or stdout: an agent's shell tool runs commands with pipes and no controlling
terminal, so what is read here was typed by a person at one (docs/guarantees.md says what
that proves). The Windows branch is written to the console API's documented names and has
not been run.
"""

from __future__ import annotations

import os

MAX_LINE = 4096  # a selection is a word or a digit; a longer line is cut here


class Terminal:
    """One exchange with the controlling terminal: write text, read a line."""

    __slots__ = ("_read_fd", "_write_fd")

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self._read_fd = read_fd
        self._write_fd = write_fd

    def write(self, text: str) -> None:
        from mdgrill.shell.store import write_all

        write_all(self._write_fd, text.replace("\n", "\r\n" if os.name == "nt" else "\n")
                  .encode("utf-8", "replace"))

    def readline(self) -> str | None:
        """The next line typed (without its end), or None at end of input."""
        got = b""
        while b"\n" not in got and len(got) < MAX_LINE:
            chunk = os.read(self._read_fd, MAX_LINE)
            if not chunk:
                return got.decode("utf-8", "replace").strip("\r") if got else None
            got += chunk
        return got.split(b"\n", 1)[0].decode("utf-8", "replace").strip("\r")

    def close(self) -> None:
        os.close(self._read_fd)
        if self._write_fd != self._read_fd:
            os.close(self._write_fd)


def open_terminal() -> Terminal | None:
    """The controlling terminal, or None when this process has none."""
    if os.name == "nt":  # untested: the console's own input and output
        try:
            read_fd = os.open("CONIN$", os.O_RDONLY)
        except OSError:
            return None
        try:
            write_fd = os.open("CONOUT$", os.O_WRONLY)
        except OSError:
            os.close(read_fd)
            return None
        return Terminal(read_fd, write_fd)
    try:
        fd = os.open("/dev/tty", os.O_RDWR | getattr(os, "O_NOCTTY", 0))
    except OSError:  # ENXIO: no controlling terminal (a pipe, a daemon, an agent's tool)
        return None
    return Terminal(fd, fd)
