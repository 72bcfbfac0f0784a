"""sha256 that costs no start-up: the interpreter's built-in one for small inputs, OpenSSL's
(hashlib: 2-4 ms to import, 7x faster per byte) once an input is large enough to repay it."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hashlib import _Hash

_LARGE = 256 * 1024

try:  # the built-in module is `_sha2` from Python 3.12, `_sha256` before
    from _sha2 import sha256 as _builtin_sha256  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover - depends on the Python version
    try:
        from _sha256 import sha256 as _builtin_sha256  # type: ignore[import-not-found,no-redef,unused-ignore]
    except ImportError:
        from hashlib import sha256 as _builtin_sha256  # type: ignore[assignment,unused-ignore]


def sha256(data: bytes | memoryview = b"") -> _Hash:
    """A sha256 object fed `data` (same digests whichever implementation serves it)."""
    if len(data) >= _LARGE:
        try:  # hashlib's own backend, without hashlib's set-up of every other algorithm
            from _hashlib import openssl_sha256  # type: ignore[import-not-found,unused-ignore]
        except ImportError:  # pragma: no cover - a Python built without OpenSSL
            from hashlib import sha256 as openssl_sha256

        return openssl_sha256(data)  # type: ignore[no-any-return,unused-ignore]
    return _builtin_sha256(data)  # type: ignore[no-any-return,unused-ignore]
