"""One module per group of verbs; each verb is a function `run(args) -> Outcome`."""

from __future__ import annotations

import argparse

from mdgrill.shell import store


class Outcome:
    """What a verb returns: the JSON result, the human text, and the exit code."""

    __slots__ = ("result", "text", "exit_code")

    def __init__(self, result: dict[str, object], text: str = "", exit_code: int = 0) -> None:
        self.result = result
        self.text = text
        self.exit_code = exit_code


def spec_of(args: argparse.Namespace, must_exist: bool = True) -> store.Spec:
    """The spec named by a verb's SPEC argument (and the global --root)."""
    return store.resolve_spec(args.spec, args.root, must_exist=must_exist)
