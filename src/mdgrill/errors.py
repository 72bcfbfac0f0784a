"""The one expected-error hierarchy; each carries a stable code and maps to an exit code."""

from __future__ import annotations


class MdgrillError(Exception):
    """An expected failure: a stable upper-case code and a message that says what to do."""

    exit_code = 2

    def __init__(self, code: str, message: str, *, line: int | None = None,
                 path: str | None = None, details: dict[str, object] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line
        self.path = path
        self.details = details or {}

    def to_json(self) -> dict[str, object]:
        error: dict[str, object] = {"code": self.code, "message": self.message}
        if self.path is not None:
            error["path"] = self.path
        if self.line is not None:
            error["line"] = self.line
        error.update(self.details)
        return error


class InputError(MdgrillError):
    """Bad input: usage, an unreadable or malformed file, an invalid state. Nothing was written."""

    exit_code = 2


class GateRefusal(MdgrillError):
    """Refused by the gate: missing, incomplete, stale or mismatched interview; illegal move."""

    exit_code = 3


class InternalError(MdgrillError):
    """A defect of mdgrill itself (an unexpected exception): exit 70, EX_SOFTWARE of sysexits.h,
    so it is never read as "the files have errors" (1) or "bad input" (2)."""

    exit_code = 70

    def __init__(self, message: str, *, log: str | None = None) -> None:
        super().__init__("INTERNAL", message, details={"log": log} if log else None)
