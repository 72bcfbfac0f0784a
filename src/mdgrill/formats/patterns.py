"""Regular expressions compiled on first use: each verb pays only for the patterns it runs
(compiling all of them cost ~3 ms of a ~30 ms call)."""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any


class LazyPattern:
    """A `re.Pattern` that is compiled the first time one of its methods is used."""

    __slots__ = ("_source", "_flags", "_compiled")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
        return self._compiled

    @property
    def pattern(self) -> str:
        return self._source

    def match(self, text: str, pos: int = 0, endpos: int = 2**62) -> re.Match[str] | None:
        return self.compiled.match(text, pos, endpos)

    def search(self, text: str, pos: int = 0, endpos: int = 2**62) -> re.Match[str] | None:
        return self.compiled.search(text, pos, endpos)

    def finditer(self, text: str, pos: int = 0,
                 endpos: int = 2**62) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(text, pos, endpos)

    def findall(self, text: str, pos: int = 0, endpos: int = 2**62) -> list[Any]:
        return self.compiled.findall(text, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], text: str) -> str:
        return self.compiled.sub(repl, text)


def lazy(source: str, flags: int = 0) -> LazyPattern:
    return LazyPattern(source, flags)
