"""The MCP server: `mdgrill.Spec`'s methods as tools, in one long-lived process over stdio.

Each tool calls the `Spec` method of its verb (`METHOD_OF`) with its arguments as values:
nothing is parsed as a flag, nothing is printed or captured, no file is written on the way.
A tool answers what `mdgrill --json <verb>` prints: `{"ok": true, …}`, or `{"ok": false,
"error": {"code", "message"}}` for a refusal, bad input, or a defect of ours (`INTERNAL`),
so no call can stop the server. The answer is that one line of JSON as the call's one text
block, and nothing else (`answered`): no `outputSchema`, no `structuredContent`. A spec, a
file or a resource named by a call must lie inside the server's repository (after
symlinks), else `PATH_OUTSIDE_REPOSITORY`.

Every argument of the `Spec` method is a tool argument, under the name the tool has always
had (`RENAMED`), except those `WITHHELD` from an agent on purpose; `tests/test_mcp_api.py`
holds the tools to the methods' signatures. Needs the `mcp` extra (from a clone: `pip install
'.[mcp,lsp]'`; `mdgrill mcp` says so when it is missing, with the interpreter to use).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import os
import stat
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from mdgrill.errors import InputError, MdgrillError
from mdgrill.git.discovery import find_root

try:  # the `mcp` extra; `mdgrill mcp` says when it is missing. The SDK reads the tools'
    # annotations at run time, so `Context` (ask_approval's argument) must be a real name here.
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.types import CallToolResult, TextContent
except ImportError:  # pragma: no cover - the dev install has the extra
    Context = MCPServer = CallToolResult = TextContent = None  # type: ignore[assignment,misc]

if TYPE_CHECKING:
    from mdgrill.api import Spec
    from mdgrill.services.result import Result

Tool = TypeVar("Tool", bound=Callable[..., Any])

# tool -> the Spec method it calls (the others have the same name)
METHOD_OF = {"node_add": "add_node"}
# tool -> {its argument: the method's name for it} (the tools kept the CLI flags' names)
RENAMED: dict[str, dict[str, str]] = {
    "node_add": {"option": "options"}, "open_frontier": {"decision_id": "decision_ids"},
    "revise": {"decision_id": "decision_ids"}, "skip": {"assumption": "assumptions"},
    "init": {"spec": "path", "required_section": "required_sections"},
    "classify_reply": {"option": "options"}, "bind": {"target": "targets"},
}
# method arguments no tool offers, and why: each is the user's own decision, not an agent's
WITHHELD: dict[str, dict[str, str]] = {
    "init": {"root": "the root is the server's repository"},
    "mode": {"quick": "quick mode bypasses the interview: only the user's own `mdgrill mode "
                      "--quick` authorizes it",
             "interactive": "the mode is set by the user's own `mdgrill mode`"},
    "confirm": {"source": "always approve-and-delegate, the one approval there is",
                "no_commit": "the approval is a commit: an agent does not skip it",
                "sign": "a signature is the user's key: git signs when the user's own config "
                        "says so (commit.gpgsign), not when an agent asks"},
    "begin_interview": {"no_commit": "a quick bypass is a commit: an agent does not skip it"},
    "reopen": {"no_commit": "a reopening is a commit: an agent does not skip it"},
    "approve_artifact": {"no_commit": "the approval is a commit: an agent does not skip it"},
    "bind": {"no_commit": "a binding is a commit: an agent does not skip it"},
    "reaffirm": {"no_commit": "the owner's word is a commit: an agent does not skip it"},
}
# Spec's methods no tool is made of, and why
NO_TOOL: dict[str, str] = {
    "open": "it makes a Spec: each tool names its spec",
    "approve": "it reads the user's selection from their own terminal; over MCP the user is "
               "asked by elicitation (`ask_approval`)",
}


class Workspace:
    """The repository the server serves: every path a call names must lie inside it.

    A spec named again is taken from the last call that resolved it while every folder from
    the root down to it is the one it was resolved through (`_trail`); resolving it again
    costs more than most reads (issue 37, goal 2), and the answer can only change when one
    of those folders, or a `.git` in one of them, or the `.progress.md`, is not what it was."""

    __slots__ = ("root", "_specs")

    # the specs a server keeps resolved: an agent works on one or two at a time
    KEPT = 16

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)
        # the spec argument -> the spec it resolved to, and the trail it was resolved through
        self._specs: dict[str, tuple[Spec, tuple[object, ...]]] = {}

    def inside(self, path: str) -> str:
        """`path` (relative to the server's folder) as an absolute path inside the root."""
        from mdgrill.shell import store

        if "\0" in path:
            raise InputError("INVALID_INPUT", "a path holds a NUL character")
        full = os.path.abspath(path)
        if not store.is_inside(full, self.root):
            raise InputError("PATH_OUTSIDE_REPOSITORY", f"{path} resolves outside the "
                             f"repository {self.root} this server serves: name a spec inside "
                             "it")
        return full

    def spec(self, path: str) -> Spec:
        from mdgrill.api import Spec
        from mdgrill.shell.store import PROGRESS

        known = self._specs.get(path)
        if known is not None and self._trail(known[0].folder) == known[1]:
            return known[0]
        full = self.inside(path)
        folder = os.path.dirname(full) if os.path.basename(full) == PROGRESS else full
        before = self._trail(folder)
        found = Spec.open(full)
        self._specs.pop(path, None)
        # kept only when nothing on the trail changed while it was resolved
        if before is not None and found.folder == folder and self._trail(folder) == before:
            while len(self._specs) >= self.KEPT:  # the oldest goes (dicts keep their order)
                del self._specs[next(iter(self._specs))]
            self._specs[path] = (found, before)
        return found

    def read_ahead(self, path: str) -> None:
        """After a write to the spec `path`, make the parse its next call would make first
        (`services.status.read_ahead`): in the time the client takes to read the answer and
        send its next call, not in that call. Nothing is written, nothing is refused: a
        spec that cannot be read now is left to the next call, which says why."""
        from mdgrill.services.status import read_ahead

        try:
            found = self.spec(path)
            read_ahead(found.progress, found.root)
        except Exception:  # noqa: BLE001 - the next call on this spec reports it
            return

    def _trail(self, folder: str) -> tuple[object, ...] | None:
        """What resolving the spec in `folder` depends on, read with an `lstat` a name: each
        folder from the root down to it (none a symlink, so that the path is its own real
        path, inside the root), whether each holds a `.git` (a repository nested in another
        changes the spec's repository), and whether its `.progress.md` is there. None when it
        cannot be told this way (a symlink on the way, a root that is no repository, Windows
        and its junctions): that spec is resolved on every call."""
        from mdgrill.git.discovery import is_dotgit
        from mdgrill.shell.store import PROGRESS

        root = self.root
        if os.name == "nt" or not folder.startswith(root + os.sep):
            return None
        trail: list[object] = []
        current = root
        try:
            for name in ["", *folder[len(root) + 1:].split(os.sep)]:
                current = os.path.join(current, name) if name else current
                st = os.lstat(current)
                if not stat.S_ISDIR(st.st_mode):  # a symlink, or no folder
                    return None
                dotgit = os.path.join(current, ".git")
                try:
                    git = os.lstat(dotgit)
                except FileNotFoundError:
                    trail.append((st.st_dev, st.st_ino))
                    continue
                trail.append((st.st_dev, st.st_ino, git.st_ino, git.st_mode, is_dotgit(dotgit)))
            trail.append(os.path.lexists(os.path.join(folder, PROGRESS)))
        except (OSError, ValueError):  # unreadable, or a NUL in the name
            return None
        first = trail[0]
        if not (isinstance(first, tuple) and first[-1] is True):
            return None  # the root is no repository: one could appear above it
        return tuple(trail)


def _refuse_unreadable(values: object) -> None:
    """A NUL character or a lone surrogate (text that is no UTF-8, as the CLI refuses an
    argument) in any text argument: refused before anything reads it. A lone surrogate
    reached the answer otherwise, which the SDK could not serialise: the call went
    unanswered."""
    if isinstance(values, str):
        if "\0" in values:
            raise InputError("INVALID_INPUT", "an argument holds a NUL character")
        if not values.isascii():
            try:
                values.encode("utf-8")
            except UnicodeEncodeError:
                raise InputError("INVALID_INPUT", "an argument is not valid UTF-8 text (a lone "
                                 "surrogate): pass it in UTF-8 (nothing was written)") from None
    if isinstance(values, (list, tuple)):
        for value in values:
            _refuse_unreadable(value)
    if isinstance(values, dict):
        for value in values.values():
            _refuse_unreadable(value)


def failure(exc: BaseException) -> dict[str, object]:
    """A tool's answer for an exception: its code, or INTERNAL for a defect of ours."""
    if isinstance(exc, MdgrillError):
        return {"ok": False, "error": exc.to_json()}
    return {"ok": False, "error": {"code": "INTERNAL", "message": f"mdgrill failed on this "
                                   f"call ({type(exc).__name__}: {exc}); the server keeps "
                                   "serving. Please report this."}}


def answered(answer: dict[str, object]) -> CallToolResult:
    """A tool's answer as the client gets it: the line `mdgrill --json` prints, as the one
    text block of the result.

    Only the text, serialised once: the SDK's structured output (an `outputSchema` saying no
    more than "an object") sent every answer twice, once indented as text and once as
    `structuredContent`, which each side then walked five times more (validated against the
    schema, dumped, validated and dumped again per protocol version, written; parsed, checked
    with jsonschema): a third of a `status` call's round trip (issue 37, goal 2)."""
    return CallToolResult(content=[TextContent(type="text", text=json_text(answer))])


def json_text(answer: dict[str, object]) -> str:
    """The answer as the CLI's JSON line; a lone surrogate that reached it (a defect) escaped,
    so the SDK can serialise it and the call is still answered."""
    text = json.dumps(answer, ensure_ascii=False)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return json.dumps(answer)
    return text


def guarded(tool: Tool, ws: Workspace | None = None) -> Tool:
    """`tool`, answering every exception as a tool result, so no call stops the server; what
    it returns (or the failure) reaches the client `answered`. With `ws`, a call that wrote
    its spec has the spec read ahead once the answer has gone (`Workspace.read_ahead`).

    The guard is a coroutine function even for a plain tool: the SDK would run a plain one on
    a worker thread, a wake-up of another thread per call (issue 37, goal 2); on the event
    loop, calls run one at a time, in the order they came."""
    coroutine = inspect.iscoroutinefunction(tool)

    @functools.wraps(tool)
    async def run(*args: Any, **kwargs: Any) -> CallToolResult:
        result: dict[str, object]
        try:
            _refuse_unreadable([*args, kwargs])
            if coroutine:
                result = await tool(*args, **kwargs)
            else:
                result = tool(*args, **kwargs)
        except Exception as exc:  # every failure is the call's answer
            result = failure(exc)
        spec = kwargs.get("spec")
        if ws is not None and result.get("written") is True and isinstance(spec, str):
            # run by the event loop at its next turn: the answer is written before this
            # task lets it turn (nothing between here and the pipe waits on anything)
            asyncio.get_running_loop().call_soon(ws.read_ahead, spec)
        return answered(result)
    return run  # type: ignore[return-value]


def ok(result: Result, success: bool = True) -> dict[str, object]:
    return {"ok": success, **result.to_json()}


def tools(ws: Workspace) -> list[Callable[..., object]]:  # noqa: C901 - one closure a tool
    """The tools, each calling one `Spec` method for a spec inside `ws`."""

    def status(spec: str) -> dict[str, object]:
        """One screen on a spec: phase, interview, pending questions, frontier, approvals."""
        return ok(ws.spec(spec).status())

    def frontier(spec: str, group: str | None = None) -> dict[str, object]:
        """The open, unblocked decisions of the design tree, in batches of at most four."""
        return ok(ws.spec(spec).frontier(group=group))

    def ledger(spec: str, new: bool = False) -> dict[str, object]:
        """The settled decisions, E1 … En, as the elicitation ledger."""
        return ok(ws.spec(spec).ledger(new=new))

    def validate(path: str | None = None) -> dict[str, object]:
        """Check a spec (its folder or .progress.md), a CONTEXT.md, or every spec and
        glossary under a folder (default: the whole repository)."""
        from mdgrill.diagnostics import sort_diagnostics
        from mdgrill.services.status import validate_glossary, validate_repository

        full = ws.inside(path) if path is not None else ws.root
        if os.path.isdir(full):  # a spec folder is one of the folders it walks
            found = validate_repository(ws.root, full)
        elif os.path.basename(full) == "CONTEXT.md":
            found = validate_glossary(full, ws.root)
        else:
            found = ws.spec(full).validate()
        found = sort_diagnostics(found)
        errors = sum(1 for d in found if d.is_error)
        return {"ok": errors == 0, "diagnostics": [d.to_json() for d in found],
                "errors": errors, "warnings": len(found) - errors}

    def node_add(spec: str, title: str, node_id: str | None = None, section: str | None = None,
                 depends_on: list[str] | None = None, spawned_by: str | None = None,
                 option: list[str] | None = None, recommend: int | None = None,
                 evidence: str | None = None, investigating: str | None = None,
                 recommendation: str | None = None, rationale: str | None = None,
                 tradeoffs: str | None = None,
                 consequences: str | None = None) -> dict[str, object]:
        """Add a decision to the design tree, with 2–4 options and the recommended one."""
        return ok(ws.spec(spec).add_node(
            node_id, title=title, section=section, depends_on=depends_on,
            spawned_by=spawned_by, options=option, recommend=recommend, evidence=evidence,
            investigating=investigating, recommendation=recommendation, rationale=rationale,
            tradeoffs=tradeoffs, consequences=consequences))

    def begin_interview(spec: str, phase: str, interview_id: str, round: int | None = None,
                        discovery_revision: str | None = None) -> dict[str, object]:
        """Begin (or resume) the phase's interview; records the context digest."""
        return ok(ws.spec(spec).begin_interview(phase=phase, interview_id=interview_id,
                                                round=round,
                                                discovery_revision=discovery_revision))

    def ask(spec: str) -> dict[str, object]:
        """Open the round the gate requires and give it as AskUserQuestion's payload."""
        return ok(ws.spec(spec).ask())

    def answer(spec: str, tool_result: str, by: str | None = None) -> dict[str, object]:
        """Record what the question tool returned (its JSON) or the user's plain reply."""
        done = ws.spec(spec).answer(tool_result, by=by)
        return ok(done, done.exit_code == 0)

    def record_answer(spec: str, decision_id: str, answer: str, by: str | None = None,
                      other: bool = False, assumption: str | None = None) -> dict[str, object]:
        """Record the user's answer to one pending decision (`other`: the user chose Other
        and wrote this; `assumption`: what it assumes)."""
        return ok(ws.spec(spec).record_answer(decision_id, answer, by=by, other=other,
                                              assumption=assumption))

    def record_fact(spec: str, text: str, decision_id: str | None = None,
                    by: str | None = None) -> dict[str, object]:
        """Record a fact found in the code or docs (it resolves the decision it names)."""
        return ok(ws.spec(spec).record_fact(text, decision_id=decision_id, by=by))

    def await_confirmation(spec: str, decision_id: str, approach: str,
                           brief_file: str | None = None) -> dict[str, object]:
        """Close the rounds and present the approach (and the brief file) for approval."""
        brief = ws.inside(brief_file) if brief_file is not None else None
        return ok(ws.spec(spec).await_confirmation(decision_id=decision_id, approach=approach,
                                                   brief_file=brief))

    def confirm(spec: str, decision_id: str, reply: str | None = None,
                by: str | None = None) -> dict[str, object]:
        """Record the user's explicit approval (`Approve and delegate`) and commit it."""
        return ok(ws.spec(spec).confirm(decision_id=decision_id, reply=reply, by=by))

    def check_delegation(spec: str, phase: str, interview_id: str,
                         context_digest: str | None = None,
                         discovery_revision: str | None = None,
                         prompt: str | None = None) -> dict[str, object]:
        """Whether the agent may delegate: only for an approved, current interview (and,
        given the prompt it will delegate, one that passes the prompt checks)."""
        return ok(ws.spec(spec).check_delegation(phase=phase, interview_id=interview_id,
                                                 context_digest=context_digest,
                                                 discovery_revision=discovery_revision,
                                                 prompt=prompt))

    def init(spec: str, goal: str, title: str | None = None,
             required_section: list[str] | None = None,
             phase: str | None = None) -> dict[str, object]:
        """Create a spec's `.progress.md` from the template."""
        from mdgrill.services import content

        _, made = content.init(ws.inside(spec), goal=goal, title=title,
                               required_sections=required_section, phase=phase or "start")
        return ok(made)

    def open_frontier(spec: str, round: int, decision_id: list[str]) -> dict[str, object]:
        """Open the current or next round for these decisions and record its Asked line."""
        return ok(ws.spec(spec).open_frontier(round=round, decision_ids=decision_id))

    def out_of_scope(spec: str, decision_id: str, reply: str,
                     by: str | None = None) -> dict[str, object]:
        """Record that the user placed an asked decision out of scope (`reply`: their
        words)."""
        return ok(ws.spec(spec).out_of_scope(decision_id, reply=reply, by=by))

    def record_stop(spec: str, choice: str, section: str | None = None) -> dict[str, object]:
        """Record the user's answer to `Ready to build?`: ship, keep-asking or refine."""
        return ok(ws.spec(spec).record_stop(choice=choice, section=section))

    def classify_reply(text: str, spec: str | None = None, decision_id: str | None = None,
                       option: list[str] | None = None,
                       recommend: int | None = None) -> dict[str, object]:
        """What a reply is: substantive, control_only, bare_skip, stop, skip_decision, …"""
        from mdgrill.services.replies import classify_reply as classify
        from mdgrill.shell import store

        where = store.resolve_spec(ws.inside(spec)) if spec is not None else None
        return ok(classify(text, spec=where, decision_id=decision_id, options=option,
                           recommend=recommend))

    def skip(spec: str, reason: str, assumption: list[str] | None = None,
             decision_id: str | None = None, by: str | None = None) -> dict[str, object]:
        """Skip the remaining decisions with recorded assumptions (confirm follows)."""
        return ok(ws.spec(spec).skip(reason=reason, assumptions=assumption or [],
                                     decision_id=decision_id or "skip-confirmation", by=by))

    def revise(spec: str, decision_id: list[str],
               keep: list[str] | None = None) -> dict[str, object]:
        """Reopen decisions (and their answered dependents, but those in `keep`: dependents
        whose answers the change does not touch) after the brief."""
        return ok(ws.spec(spec).revise(decision_ids=decision_id, keep=keep))

    def cancel(spec: str, reply: str | None = None, by: str | None = None) -> dict[str, object]:
        """Record the user's Cancel: the interview stays open, nothing is delegated."""
        return ok(ws.spec(spec).cancel(reply=reply, by=by))

    def amend(spec: str, decision_id: str, answer: str, reason: str,
              by: str | None = None) -> dict[str, object]:
        """Correct a recorded answer's wording (an Amended block; the log stays
        append-only); another option or meaning is refused: that is a `revise`."""
        return ok(ws.spec(spec).amend(decision_id, answer=answer, reason=reason, by=by))

    def reopen(spec: str, phase: str, reason: str, by: str | None = None) -> dict[str, object]:
        """Go back to an earlier phase, setting aside the approvals since (committed)."""
        return ok(ws.spec(spec).reopen(phase=phase, reason=reason, by=by))

    def digest(spec: str, phase: str | None = None,
               compat: str | None = None) -> dict[str, object]:
        """The context digest the spec's phase would record now."""
        return ok(ws.spec(spec).digest(phase=phase, compat=compat))

    def tree(spec: str, format: str = "text") -> dict[str, object]:
        """The design tree as text or as a Mermaid diagram."""
        return ok(ws.spec(spec).tree(format=format))

    def mode(spec: str) -> dict[str, object]:
        """The spec's mode. Setting it is left to the user's own `mdgrill mode`: quick mode
        is a bypass only the user authorizes."""
        return ok(ws.spec(spec).mode())

    def record_skill_load(spec: str, input: str) -> dict[str, object]:
        """Record the skill-load manifest: `input`, a JSON file inside the repository."""
        return ok(ws.spec(spec).record_skill_load(input=ws.inside(input)))

    def questionnaire(spec: str) -> dict[str, object]:
        """Write the open round as the spec's questions.md, for the user to fill in their
        editor (`collect` records it)."""
        return ok(ws.spec(spec).questionnaire())

    def collect(spec: str, file: str | None = None, by: str | None = None) -> dict[str, object]:
        """Record the answers the user filled in questions.md (or `file`, another tool's
        questionnaire inside the repository)."""
        done = ws.spec(spec).collect(file=ws.inside(file) if file is not None else None, by=by)
        return ok(done, done.exit_code == 0)

    def await_artifact_approval(spec: str, artifact: str) -> dict[str, object]:
        """Submit the phase's artifact (a file inside the repository) for the user's
        approval."""
        return ok(ws.spec(spec).await_artifact_approval(artifact=ws.inside(artifact)))

    def approve_artifact(spec: str, source: str, by: str | None = None) -> dict[str, object]:
        """Record the user's approval of the artifact (`source`: their selection,
        `approve-artifact`) and commit it."""
        return ok(ws.spec(spec).approve_artifact(source=source, by=by))

    def request_revision(spec: str, feedback: str, by: str | None = None) -> dict[str, object]:
        """Record what the user wants changed in the artifact."""
        return ok(ws.spec(spec).request_revision(feedback=feedback, by=by))

    def resolve_approval(spec: str, text: str) -> dict[str, object]:
        """The one live approval action a free-text reply maps to (reads only)."""
        return ok(ws.spec(spec).resolve_approval(text=text))

    def bind(spec: str, decision_id: str | None = None, target: list[str] | None = None,
             by: str | None = None) -> dict[str, object]:
        """Bind a settled decision to the code and docs that carry it out (a file, a glob,
        `file.py::symbol`, `file.md#Heading`), fingerprinted at HEAD and committed; with no
        decision, every hand-written `- Binds:` target not bound yet."""
        return ok(ws.spec(spec).bind(decision_id, target, by=by))

    def reaffirm(spec: str, decision_id: str, reply: str,
                 by: str | None = None) -> dict[str, object]:
        """Record the owner's selection for a decision whose bound code drifted: `Still
        holds`, `Revise the decision` or `The change was wrong`, committed."""
        return ok(ws.spec(spec).reaffirm(decision_id, reply=reply, by=by))

    async def ask_approval(spec: str, decision_id: str, ctx: Context) -> dict[str, object]:
        """Ask the user the final approval question directly (MCP elicitation), so their
        selection reaches mdgrill without passing through the model; it is journaled as the
        approval's evidence, and `Approve and delegate` is then confirmed and committed,
        `Cancel` recorded. `Revise decisions` comes back for the agent to ask which ones."""
        return await approval_by_elicitation(ws.spec(spec), decision_id, ctx)

    return [guarded(t, ws) for t in (
        status, frontier, ledger, validate, node_add, begin_interview, ask, answer,
        record_answer, record_fact, await_confirmation, confirm, check_delegation, init,
        open_frontier, out_of_scope, record_stop, classify_reply, skip, revise, cancel, amend,
        reopen, digest, tree, mode, record_skill_load, questionnaire, collect,
        await_artifact_approval, approve_artifact, request_revision, resolve_approval, bind,
        reaffirm, ask_approval)]


async def approval_by_elicitation(spec: Spec, decision_id: str,
                                  ctx: Context) -> dict[str, object]:
    """The approval question as an elicitation; what the user picked, acted on."""
    from typing import Literal

    from mcp.types import ClientCapabilities, ElicitationCapability, FormElicitationCapability
    from pydantic import BaseModel, Field

    from mdgrill.core.approval import APPROVE_AND_DELEGATE, CANCEL, approval_choice
    from mdgrill.shell import journal

    asked = spec.ask()
    if asked.kind != "approval":
        return failure(InputError("ILLEGAL_TRANSITION", "the interview is not awaiting "
                                  "confirmation: present the approach with await_confirmation "
                                  "first"))
    if not ctx.session.check_client_capability(
            ClientCapabilities(elicitation=ElicitationCapability(form=FormElicitationCapability()))):
        return failure(InputError("ELICITATION_UNSUPPORTED", "this client cannot ask the user "
                                  "directly: ask the approval question with ask's payload and "
                                  "call confirm with the user's exact selection"))
    questions = asked["questions"]
    if not isinstance(questions, list):  # the approval question ask always gives
        return failure(TypeError("ask gave no list of questions"))
    labels = [str(o["label"]) for o in questions[0]["options"]]

    class Approval(BaseModel):
        choice: Literal[tuple(labels)] = Field(  # type: ignore[valid-type]
            description="Approve and delegate hands the work on; Revise decisions reopens "
            "some; Cancel stops without delegating")

    # the form carries what is approved: the approach and the decisions it rests on
    reply = await ctx.elicit(str(questions[0]["question"]), Approval)
    if reply.action != "accept" or reply.data is None:
        return {"ok": True, "choice": None, "action": reply.action, "recorded": False,
                "next": "nothing was recorded; ask again when the user is ready"}
    picked = str(reply.data.choice)
    # the user's selection, kept outside the model's reach before anything acts on it
    journal.append(spec.root, "MCPElicitation", picked,
                   answers=[(str(questions[0]["question"]), picked)])
    choice = approval_choice(picked)
    if choice == APPROVE_AND_DELEGATE:
        result = ok(spec.confirm(decision_id=decision_id, reply=picked))
    elif choice == CANCEL:
        result = ok(spec.cancel(reply=picked))
    else:
        result = {"ok": True, "next": "ask which decisions to revise, then revise"}
    return {**result, "choice": picked, "action": "accept"}


INSTRUCTIONS = (
    "The grill: ask the user the open decisions of a spec round by round and delegate only "
    "after their explicit approval. Loop: status, node_add, begin_interview, ask (pass its "
    "batches to the question tool), answer (the tool's result), until answer says "
    "await_confirmation; then ask for the approval question, confirm with the user's exact "
    "selection (or ask_approval, which asks the user directly where the client can), "
    "check_delegation before delegating.")


def untraced(app: MCPServer) -> None:
    """Leave out the SDK's OpenTelemetry middleware when no tracer provider is set, as in
    every server an agent starts: its span around each message then records nothing, and
    costs ~50 us of every call (issue 37, goal 2). A provider set before the server is made
    (`opentelemetry-instrument mdgrill mcp`) keeps it, and its spans."""
    from opentelemetry import trace

    if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        app.middleware[:] = [m for m in app.middleware
                             if type(m).__name__ != "OpenTelemetryMiddleware"]


def server(root: str | None = None) -> MCPServer:
    """The server for the repository around `root` (default: the working directory)."""
    from mdgrill.shell import store

    if MCPServer is None:
        raise ImportError("mcp")
    from mdgrill.integrations.pipes import pipe_server

    ws = Workspace(find_root(root or os.getcwd()))
    app = pipe_server("mdgrill", instructions=INSTRUCTIONS)
    untraced(app)
    for tool in tools(ws):  # unstructured: the answer is its text block (`answered`)
        app.add_tool(tool, structured_output=False)

    def progress(spec: str) -> str:
        """A spec's `.progress.md` as it is on disk."""
        from mcp.server.mcpserver.exceptions import ResourceError

        try:
            _refuse_unreadable(spec)
            found = ws.spec(spec.replace("~", "/"))
            return store.read_file(found.progress, os.path.basename(found.progress),
                                   found.root).decode("utf-8", "replace")
        except MdgrillError as exc:  # the SDK passes a ResourceError's words on as they are
            raise ResourceError(f"{exc.code}: {exc.message}") from None

    def ledger_resource(spec: str) -> str:
        """A spec's elicitation ledger (E1 … En), as the `ledger` verb's JSON."""
        try:
            _refuse_unreadable(spec)
            answer = ok(ws.spec(spec.replace("~", "/")).ledger())
        except Exception as exc:  # every failure is the call's answer
            answer = failure(exc)
        return json_text(answer)

    app.resource("mdgrill://spec/{spec}/progress", mime_type="text/markdown")(progress)
    app.resource("mdgrill://spec/{spec}/ledger", mime_type="application/json")(ledger_resource)
    return app
