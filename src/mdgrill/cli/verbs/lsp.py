"""`mdgrill lsp`: the language server (integrations/lsp.py) on stdio, for editors."""

from __future__ import annotations

import argparse

from mdgrill.cli.verbs import Outcome, Verb, missing_extra


def _arguments(p: argparse.ArgumentParser) -> None:
    # editors start servers with `--stdio` (VS Code's client does); it is the only transport
    p.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the "
                   "default and only transport)")


def _lsp(args: argparse.Namespace) -> Outcome:
    try:
        from mdgrill.integrations.lsp import server
    except ImportError:
        raise missing_extra("lsp", "lsp", "pygls") from None
    server().start_io()
    return Outcome({"stopped": True}, "")


VERBS = (
    Verb("lsp", "Serve diagnostics, hovers and the outline to editors over LSP (needs the lsp "
         "extra).", _arguments, _lsp),
)
