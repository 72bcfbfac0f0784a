"""`mdgrill mcp`: the interview verbs as MCP tools, in one long-lived process over stdio.

Each tool is the CLI verb of the same name (dashes become underscores), with the CLI's flags
as its arguments, and answers what `mdgrill --json <verb>` prints: `{"ok": true, …}` or
`{"ok": false, "error": {"code": …}}`. The verbs run in this process under the same file
locks as the CLI, so a CLI call, `watch` and the server can work on one spec at once; what
the server saves is the start of a process per call. Needs the `mcp` extra
(`pip install 'mdgrill[mcp]'`).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
from typing import TYPE_CHECKING

from mdgrill.cli.verbs import Outcome
from mdgrill.errors import InputError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer


def configure(verb: str, p: argparse.ArgumentParser) -> None:
    p.add_argument("--transport", choices=["stdio"], default="stdio",
                   help="how the client talks to the server (stdio, the one local clients use)")


def call(*argv: str) -> dict[str, object]:
    """Run one verb in this process, as `mdgrill --json <argv>` would, and return its JSON."""
    from mdgrill.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(["--json", *argv])
    try:
        result = json.loads(out.getvalue().strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"ok": False, "error": {"code": "INTERNAL", "message": err.getvalue().strip()
                                       or "the verb printed no JSON"}}
    return result if isinstance(result, dict) else {"ok": False, "result": result}


def _flags(**values: object) -> list[str]:
    """CLI flags from keyword arguments: `decision_id="D1"` -> `--decision-id D1`; a list
    repeats its flag; True is a bare flag; None and False are left out."""
    argv: list[str] = []
    for name, value in values.items():
        flag = "--" + name.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            argv.append(flag)
        elif isinstance(value, list):
            for item in value:
                argv += [flag, str(item)]
        else:
            argv += [flag, str(value)]
    return argv


def server() -> MCPServer:
    from mcp.server.mcpserver import MCPServer

    app = MCPServer("mdgrill", instructions=(
        "The grill: ask the user the open decisions of a spec round by round and delegate only "
        "after their explicit approval. Loop: status, node_add, begin_interview, ask (pass its "
        "batches to the question tool), answer (the tool's result), until answer says "
        "await_confirmation; then ask for the approval question, confirm with the user's "
        "exact selection, check_delegation before delegating."))

    @app.tool()
    def status(spec: str) -> dict[str, object]:
        """One screen on a spec: phase, interview, pending questions, frontier, approvals."""
        return call("status", spec)

    @app.tool()
    def frontier(spec: str) -> dict[str, object]:
        """The open, unblocked decisions of the design tree, in batches of at most four."""
        return call("frontier", spec)

    @app.tool()
    def ledger(spec: str) -> dict[str, object]:
        """The settled decisions, E1 … En, as the elicitation ledger."""
        return call("ledger", spec)

    @app.tool()
    def validate(path: str | None = None) -> dict[str, object]:
        """Check specs and glossaries (a spec folder, a file, or the whole repository)."""
        return call("validate", *([path] if path else []))

    @app.tool()
    def node_add(spec: str, node_id: str, title: str, section: str | None = None,
                 depends_on: list[str] | None = None, spawned_by: str | None = None,
                 option: list[str] | None = None, recommend: int | None = None,
                 rationale: str | None = None) -> dict[str, object]:
        """Add a decision to the design tree, with 2–4 options and the recommended one."""
        return call("node", "add", spec, node_id, *_flags(
            title=title, section=section, depends_on=depends_on or [], spawned_by=spawned_by,
            option=option or [], recommend=recommend, rationale=rationale))

    @app.tool()
    def begin_interview(spec: str, phase: str, interview_id: str) -> dict[str, object]:
        """Begin (or resume) the phase's interview; records the context digest."""
        return call("begin-interview", spec, *_flags(phase=phase, interview_id=interview_id))

    @app.tool()
    def ask(spec: str) -> dict[str, object]:
        """Open the round the gate requires and give it as AskUserQuestion's payload."""
        return call("ask", spec)

    @app.tool()
    def answer(spec: str, tool_result: str, by: str | None = None) -> dict[str, object]:
        """Record what the question tool returned (its JSON) or the user's plain reply."""
        import os
        import tempfile

        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False,
                                         encoding="utf-8") as handle:
            handle.write(tool_result)
        try:
            return call("answer", spec, *_flags(tool_result=handle.name, by=by))
        finally:
            os.unlink(handle.name)

    @app.tool()
    def record_answer(spec: str, decision_id: str, answer: str,
                      by: str | None = None) -> dict[str, object]:
        """Record the user's answer to one pending decision."""
        return call("record-answer", spec, *_flags(decision_id=decision_id, answer=answer,
                                                   by=by))

    @app.tool()
    def record_fact(spec: str, text: str, decision_id: str | None = None) -> dict[str, object]:
        """Record a fact found in the code or docs (it resolves the decision it names)."""
        return call("record-fact", spec, text, *_flags(decision_id=decision_id))

    @app.tool()
    def await_confirmation(spec: str, decision_id: str, approach: str) -> dict[str, object]:
        """Close the rounds and present the approach for the user's approval."""
        return call("await-confirmation", spec, *_flags(decision_id=decision_id,
                                                        approach=approach))

    @app.tool()
    def confirm(spec: str, decision_id: str, reply: str | None = None,
                by: str | None = None) -> dict[str, object]:
        """Record the user's explicit approval (`Approve and delegate`) and commit it."""
        return call("confirm", spec, *_flags(decision_id=decision_id,
                                             source="approve-and-delegate", reply=reply, by=by))

    @app.tool()
    def check_delegation(spec: str, phase: str, interview_id: str) -> dict[str, object]:
        """Whether the agent may delegate: only for an approved, current interview."""
        return call("check-delegation", spec, *_flags(phase=phase, interview_id=interview_id))

    @app.resource("mdgrill://spec/{spec}/progress", mime_type="text/markdown")
    def progress(spec: str) -> str:
        """A spec's `.progress.md` as it is on disk."""
        from mdgrill.shell import store

        found = store.resolve_spec(spec.replace("~", "/"))
        return store.read_file(found.progress, found.rel_progress, found.root).decode(
            "utf-8", "replace")

    return app


def run(args: argparse.Namespace) -> Outcome:
    try:
        app = server()
    except ImportError:
        raise InputError("MISSING_EXTRA", "`mdgrill mcp` needs the MCP SDK: pip install "
                         "'mdgrill[mcp]'") from None
    app.run(args.transport)
    return Outcome({"stopped": True}, "")
