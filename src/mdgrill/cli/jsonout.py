"""`json.dumps(value, ensure_ascii=False)` for the small results every `--json` call prints.

Importing `json` costs more than formatting a result of a few keys (~1.2 ms of a ~25 ms
call), so small values are written here; anything else (a float, a long list, a type this
module does not know) is handed to `json` itself. A property test holds the two equal.
"""

from __future__ import annotations

from mdgrill.formats.patterns import lazy

LONG = 256  # a list longer than this is cheaper for json's C encoder than for this module

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b",
            "\f": "\\f"}
_NEEDS_ESCAPE = lazy(r'[\x00-\x1f"\\]')


def dumps(value: object) -> str:
    """The JSON text of `value`, exactly as `json.dumps(value, ensure_ascii=False)`."""
    try:
        return _encode(value)
    except _Unsupported:
        import json

        return json.dumps(value, ensure_ascii=False)


class _Unsupported(Exception):
    pass


def _encode(value: object) -> str:
    if isinstance(value, str):
        return _string(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return str(value)
    if type(value) is dict:
        if not all(type(key) is str for key in value):
            raise _Unsupported
        return "{" + ", ".join(f"{_string(k)}: {_encode(v)}" for k, v in value.items()) + "}"
    if type(value) in (list, tuple):
        if len(value) > LONG:  # type: ignore[arg-type]
            raise _Unsupported
        return "[" + ", ".join(_encode(v) for v in value) + "]"  # type: ignore[attr-defined]
    raise _Unsupported


def _string(text: str) -> str:
    if _NEEDS_ESCAPE.search(text) is None:
        return '"' + text + '"'
    return '"' + _NEEDS_ESCAPE.sub(_escape, text) + '"'


def _escape(match: object) -> str:
    char = match.group(0)  # type: ignore[attr-defined]
    return _ESCAPES.get(char) or f"\\u{ord(char):04x}"
