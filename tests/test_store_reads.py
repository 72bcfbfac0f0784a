"""`store.read_file` and `store.still` read a file piece by piece now (issue 37, goal 3): what
they answer is what reading it whole answered, at sizes around their pieces."""

from __future__ import annotations

import os

import pytest

from mdgrill.errors import InputError
from mdgrill.shell import store

PIECE = 64 * 1024


def _write(path: str, data: bytes) -> str:
    with open(path, "wb") as handle:
        handle.write(data)
    return path


@pytest.mark.parametrize("size", [0, 1, PIECE - 1, PIECE, PIECE + 1, 3 * PIECE + 7])
def test_still_is_true_for_the_same_bytes_only(tmp_path: object, size: int) -> None:
    data = bytes((i * 7) % 251 for i in range(size))
    path = _write(os.path.join(str(tmp_path), "f"), data)
    assert store.still(path, data) is True
    assert store.still(path, data + b"x") is False  # the file is shorter than expected
    if size:
        assert store.still(path, data[:-1]) is False  # the file goes on past what is expected
        changed = bytearray(data)
        changed[-1] ^= 1  # in the last piece
        assert store.still(path, bytes(changed)) is False
        changed = bytearray(data)
        changed[0] ^= 1  # in the first
        assert store.still(path, bytes(changed)) is False


def test_still_is_false_for_a_missing_file(tmp_path: object) -> None:
    assert store.still(os.path.join(str(tmp_path), "gone"), b"") is False


@pytest.mark.parametrize("size", [0, 1, PIECE + 3, 3 * 1024 * 1024])
def test_read_file_returns_every_byte(tmp_path: object, size: int) -> None:
    data = os.urandom(size)
    path = _write(os.path.join(str(tmp_path), "f"), data)
    assert store.read_file(path) == data


def test_read_file_refuses_a_file_over_the_limit(tmp_path: object) -> None:
    path = _write(os.path.join(str(tmp_path), "f"), b"x" * 11)
    assert store.read_file(path, limit=11) == b"x" * 11
    with pytest.raises(InputError) as caught:
        store.read_file(path, limit=10)
    assert caught.value.code == "FILE_TOO_LARGE"
