"""`mdgrill mcp`: start the MCP server (`integrations/mcp.py`) over stdio."""

from __future__ import annotations

import argparse

from mdgrill.cli.verbs import Outcome, Verb, missing_extra


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--transport", choices=["stdio"], default="stdio",
                   help="how the client talks to the server (stdio, the one local clients use)")


def _mcp(args: argparse.Namespace) -> Outcome:
    from mdgrill.integrations.mcp import server

    try:
        app = server(args.root)
    except ImportError:
        raise missing_extra("mcp", "mcp", "the MCP SDK") from None
    app.run(args.transport)
    return Outcome({"stopped": True}, "")


VERBS = (
    Verb("mcp", "Serve the interview verbs as MCP tools over stdio (needs the mcp extra).",
         _arguments, _mcp),
)
