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
from collections.abc import Callable

from mdgrill.cli.verbs import Outcome
from mdgrill.errors import InputError

try:  # the `mcp` extra; this module loads only for `mdgrill mcp`, whose run() says it is missing
    from mcp.server.mcpserver import Context, MCPServer
except ImportError:  # pragma: no cover - the dev install has the extra
    Context = MCPServer = None  # type: ignore[assignment,misc]


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


# -- the tools: one per interview verb, its flags as arguments --------------------------



def status(spec: str) -> dict[str, object]:
    """One screen on a spec: phase, interview, pending questions, frontier, approvals."""
    return call("status", spec)


def frontier(spec: str) -> dict[str, object]:
    """The open, unblocked decisions of the design tree, in batches of at most four."""
    return call("frontier", spec)


def ledger(spec: str) -> dict[str, object]:
    """The settled decisions, E1 … En, as the elicitation ledger."""
    return call("ledger", spec)


def validate(path: str | None = None) -> dict[str, object]:
    """Check specs and glossaries (a spec folder, a file, or the whole repository)."""
    return call("validate", *([path] if path else []))


def node_add(spec: str, node_id: str, title: str, section: str | None = None,
             depends_on: list[str] | None = None, spawned_by: str | None = None,
             option: list[str] | None = None, recommend: int | None = None,
             rationale: str | None = None) -> dict[str, object]:
    """Add a decision to the design tree, with 2–4 options and the recommended one."""
    return call("node", "add", spec, node_id, *_flags(
        title=title, section=section, depends_on=depends_on or [], spawned_by=spawned_by,
        option=option or [], recommend=recommend, rationale=rationale))


def begin_interview(spec: str, phase: str, interview_id: str) -> dict[str, object]:
    """Begin (or resume) the phase's interview; records the context digest."""
    return call("begin-interview", spec, *_flags(phase=phase, interview_id=interview_id))


def ask(spec: str) -> dict[str, object]:
    """Open the round the gate requires and give it as AskUserQuestion's payload."""
    return call("ask", spec)


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


def record_answer(spec: str, decision_id: str, answer: str,
                  by: str | None = None) -> dict[str, object]:
    """Record the user's answer to one pending decision."""
    return call("record-answer", spec, *_flags(decision_id=decision_id, answer=answer,
                                               by=by))


def record_fact(spec: str, text: str, decision_id: str | None = None) -> dict[str, object]:
    """Record a fact found in the code or docs (it resolves the decision it names)."""
    return call("record-fact", spec, text, *_flags(decision_id=decision_id))


def await_confirmation(spec: str, decision_id: str, approach: str) -> dict[str, object]:
    """Close the rounds and present the approach for the user's approval."""
    return call("await-confirmation", spec, *_flags(decision_id=decision_id,
                                                    approach=approach))


def confirm(spec: str, decision_id: str, reply: str | None = None,
            by: str | None = None) -> dict[str, object]:
    """Record the user's explicit approval (`Approve and delegate`) and commit it."""
    return call("confirm", spec, *_flags(decision_id=decision_id,
                                         source="approve-and-delegate", reply=reply, by=by))


def check_delegation(spec: str, phase: str, interview_id: str) -> dict[str, object]:
    """Whether the agent may delegate: only for an approved, current interview."""
    return call("check-delegation", spec, *_flags(phase=phase, interview_id=interview_id))


def init(spec: str, goal: str, title: str | None = None,
         required_section: list[str] | None = None,
         phase: str | None = None) -> dict[str, object]:
    """Create a spec's `.progress.md` from the template."""
    return call("init", spec, *_flags(goal=goal, title=title,
                                      required_section=required_section or [], phase=phase))


def open_frontier(spec: str, round: int, decision_id: list[str]) -> dict[str, object]:
    """Open the current or next round for these decisions and record its Asked line."""
    return call("open-frontier", spec, *_flags(round=round, decision_id=decision_id))


def out_of_scope(spec: str, decision_id: str, reply: str,
                 by: str | None = None) -> dict[str, object]:
    """Record that the user placed an asked decision out of scope (`reply`: their words)."""
    return call("out-of-scope", spec, *_flags(decision_id=decision_id, reply=reply, by=by))


def record_stop(spec: str, choice: str, section: str | None = None) -> dict[str, object]:
    """Record the user's answer to `Ready to build?`: ship, keep-asking or refine."""
    return call("record-stop", spec, *_flags(choice=choice, section=section))


def classify_reply(text: str, spec: str | None = None, decision_id: str | None = None,
                   option: list[str] | None = None,
                   recommend: int | None = None) -> dict[str, object]:
    """What a reply is: substantive, control_only, bare_skip, stop, skip_decision, …"""
    return call("classify-reply", *_flags(text=text, spec=spec, decision_id=decision_id,
                                          option=option or [], recommend=recommend))


def skip(spec: str, reason: str, assumption: list[str] | None = None,
         decision_id: str | None = None, by: str | None = None) -> dict[str, object]:
    """Skip the remaining decisions with recorded assumptions (confirm follows)."""
    return call("skip", spec, *_flags(reason=reason, assumption=assumption or [],
                                      decision_id=decision_id, by=by))


def revise(spec: str, decision_id: list[str]) -> dict[str, object]:
    """Reopen decisions (and their answered dependents) after the brief."""
    return call("revise", spec, *_flags(decision_id=decision_id))


def cancel(spec: str, reply: str | None = None, by: str | None = None) -> dict[str, object]:
    """Record the user's Cancel: the interview stays open, nothing is delegated."""
    return call("cancel", spec, *_flags(reply=reply, by=by))


def amend(spec: str, decision_id: str, answer: str, reason: str,
          by: str | None = None) -> dict[str, object]:
    """Correct a recorded answer's wording (an Amended block; the log stays append-only)."""
    return call("amend", spec, *_flags(decision_id=decision_id, answer=answer,
                                       reason=reason, by=by))


def reopen(spec: str, phase: str, reason: str, by: str | None = None) -> dict[str, object]:
    """Go back to an earlier phase, setting aside the approvals since (committed)."""
    return call("reopen", spec, *_flags(phase=phase, reason=reason, by=by))


def digest(spec: str, phase: str | None = None) -> dict[str, object]:
    """The context digest the spec's phase would record now."""
    return call("digest", spec, *_flags(phase=phase))


def tree(spec: str, format: str = "text") -> dict[str, object]:
    """The design tree as text or as a Mermaid diagram."""
    return call("tree", spec, *_flags(format=format))


def mode(spec: str) -> dict[str, object]:
    """The spec's mode. Setting it is left to the user's own `mdgrill mode`: quick mode
    is a bypass only the user authorizes."""
    return call("mode", spec)


async def ask_approval(spec: str, decision_id: str, ctx: Context) -> dict[str, object]:
    """Ask the user the final approval question directly (MCP elicitation), so their
    selection reaches mdgrill without passing through the model; it is journaled as the
    approval's evidence, and `Approve and delegate` is then confirmed and committed,
    `Cancel` recorded. `Revise decisions` comes back for the agent to ask which ones."""
    return await _ask_approval(spec, decision_id, ctx)


def progress(spec: str) -> str:
    """A spec's `.progress.md` as it is on disk."""
    from mdgrill.shell import store

    found = store.resolve_spec(spec.replace("~", "/"))
    return store.read_file(found.progress, found.rel_progress, found.root).decode(
        "utf-8", "replace")


def ledger_resource(spec: str) -> str:
    """A spec's elicitation ledger (E1 … En), as the `ledger` verb's JSON."""
    return json.dumps(call("ledger", spec.replace("~", "/")), ensure_ascii=False)


TOOLS: list[Callable[..., object]] = [
    status, frontier, ledger, validate, node_add, begin_interview, ask, answer, record_answer,
    record_fact, await_confirmation, confirm, check_delegation, init, open_frontier,
    out_of_scope, record_stop, classify_reply, skip, revise, cancel, amend, reopen, digest,
    tree, mode, ask_approval]


def server() -> MCPServer:
    if MCPServer is None:
        raise ImportError("mcp")
    app = MCPServer("mdgrill", instructions=(
        "The grill: ask the user the open decisions of a spec round by round and delegate only "
        "after their explicit approval. Loop: status, node_add, begin_interview, ask (pass its "
        "batches to the question tool), answer (the tool's result), until answer says "
        "await_confirmation; then ask for the approval question, confirm with the user's "
        "exact selection (or ask_approval, which asks the user directly where the client "
        "can), check_delegation before delegating."))
    for tool in TOOLS:
        app.add_tool(tool)
    app.resource("mdgrill://spec/{spec}/progress", mime_type="text/markdown")(progress)
    app.resource("mdgrill://spec/{spec}/ledger", mime_type="application/json")(ledger_resource)
    return app


async def _ask_approval(spec: str, decision_id: str, ctx: Context) -> dict[str, object]:
    """The approval question as an elicitation; what the user picked, acted on."""
    from typing import Literal

    from mcp.types import ClientCapabilities, ElicitationCapability, FormElicitationCapability
    from pydantic import BaseModel, Field

    from mdgrill.core.approval import APPROVE_AND_DELEGATE, CANCEL, approval_choice
    from mdgrill.shell import journal, store

    question = call("ask", spec)
    if question.get("kind") != "approval":
        return question if not question.get("ok", True) else _refusal(
            "ILLEGAL_TRANSITION", "the interview is not awaiting confirmation: present the "
            "approach with await_confirmation first")
    if not ctx.session.check_client_capability(
            ClientCapabilities(elicitation=ElicitationCapability(form=FormElicitationCapability()))):
        return _refusal("ELICITATION_UNSUPPORTED", "this client cannot ask the user directly: "
                        "ask the approval question with ask's payload and call confirm with "
                        "the user's exact selection")
    labels = [str(o["label"]) for o in question["questions"][0]["options"]]  # type: ignore[index]

    class Approval(BaseModel):
        choice: Literal[tuple(labels)] = Field(  # type: ignore[valid-type]
            description="Approve and delegate hands the work on; Revise decisions reopens "
            "some; Cancel stops without delegating")

    reply = await ctx.elicit("The approach is ready. Approve and delegate?", Approval)
    if reply.action != "accept" or reply.data is None:
        return {"ok": True, "choice": None, "action": reply.action, "recorded": False,
                "next": "nothing was recorded; ask again when the user is ready"}
    picked = str(reply.data.choice)
    # the user's selection, kept outside the model's reach before anything acts on it
    journal.append(store.resolve_spec(spec).root, "MCPElicitation", picked)
    choice = approval_choice(picked)
    if choice == APPROVE_AND_DELEGATE:
        result = call("confirm", spec, *_flags(decision_id=decision_id,
                                               source="approve-and-delegate", reply=picked))
    elif choice == CANCEL:
        result = call("cancel", spec, *_flags(reply=picked))
    else:
        result = {"ok": True, "next": "ask which decisions to revise, then revise"}
    return {**result, "choice": picked, "action": "accept"}


def _refusal(code: str, message: str) -> dict[str, object]:
    return {"ok": False, "error": {"code": code, "message": message}}


def run(args: argparse.Namespace) -> Outcome:
    try:
        app = server()
    except ImportError:
        raise InputError("MISSING_EXTRA", "`mdgrill mcp` needs the MCP SDK: pip install "
                         "'mdgrill[mcp]'") from None
    app.run(args.transport)
    return Outcome({"stopped": True}, "")
