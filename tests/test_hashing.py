"""mdgrill's sha256 gives hashlib's digests whichever implementation serves the input."""

from __future__ import annotations

import hashlib

from mdgrill.formats.hashing import _LARGE, sha256


def test_same_digest_on_both_sides_of_the_switch() -> None:
    for size in (0, 1, _LARGE - 1, _LARGE, _LARGE + 1, 3 * _LARGE):
        data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
        hasher = sha256(data)
        assert hasher.hexdigest() == hashlib.sha256(data).hexdigest()
        more = hasher.copy()
        more.update(b"tail")
        assert more.hexdigest() == hashlib.sha256(data + b"tail").hexdigest()
        assert hasher.hexdigest() == hashlib.sha256(data).hexdigest()  # the copy left it alone
