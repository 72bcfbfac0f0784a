"""Diagnostics are data: `path:line:col: severity CODE: message`, formatted here only."""

from __future__ import annotations

ERROR = "error"
WARNING = "warning"


class Diagnostic:
    """One problem at one place in one file (1-based line and column)."""

    __slots__ = ("path", "line", "col", "severity", "code", "message")

    def __init__(self, path: str, line: int, col: int, severity: str, code: str,
                 message: str) -> None:
        self.path = path
        self.line = line
        self.col = col
        self.severity = severity
        self.code = code
        self.message = message

    def _key(self) -> tuple[str, int, int, str, str, str]:
        return (self.path, self.line, self.col, self.severity, self.code, self.message)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Diagnostic) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Diagnostic({format_diagnostic(self)!r})"

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def to_json(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "col": self.col,
                "severity": self.severity, "code": self.code, "message": self.message}


def error(path: str, line: int, code: str, message: str, col: int = 1) -> Diagnostic:
    return Diagnostic(path, max(line, 1), max(col, 1), ERROR, code, message)


def warning(path: str, line: int, code: str, message: str, col: int = 1) -> Diagnostic:
    return Diagnostic(path, max(line, 1), max(col, 1), WARNING, code, message)


def format_diagnostic(d: Diagnostic) -> str:
    return f"{d.path}:{d.line}:{d.col}: {d.severity} {d.code}: {d.message}"


def sort_diagnostics(items: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(items, key=lambda d: (d.path, d.line, d.col, d.code))


def has_errors(items: list[Diagnostic]) -> bool:
    return any(d.is_error for d in items)
