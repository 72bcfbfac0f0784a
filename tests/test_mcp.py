"""`mdgrill mcp` driven by the MCP SDK's own client over stdio (issue 16, part 4): the loop's
tools answer what the CLI answers, with the same error codes, in one server process."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from conftest import import_part
from test_reliability import MDGRILL, make_repo

mcp = import_part("mcp", "the MCP SDK is the `mcp` extra (pip install -e '.[dev]' installs it)")


async def _session(repo: Path, env: dict[str, str], steps: list[tuple[str, dict[str, object]]],
                   elicit: object = None) -> tuple[list[str], list[dict[str, object]]]:
    """Run the tool calls in one server session; `elicit` answers the server's elicitations
    as a client that supports them would (None: a client that does not)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=MDGRILL[0], args=[*MDGRILL[1:], "mcp"],
                                   env=env, cwd=str(repo))
    results: list[dict[str, object]] = []
    async with stdio_client(params) as (read, write), \
            ClientSession(read, write, elicitation_callback=elicit) as session:  # type: ignore[arg-type]
        await session.initialize()
        tools = sorted(t.name for t in (await session.list_tools()).tools)
        for name, arguments in steps:
            reply = await session.call_tool(name, arguments)
            text = next(c.text for c in reply.content if getattr(c, "type", "") == "text")
            results.append(json.loads(text))
    return tools, results


def test_the_interview_loop_through_the_mcp_server(tmp_path: Path) -> None:
    repo, env = make_repo(tmp_path)
    spec = "specs/a"
    steps: list[tuple[str, dict[str, object]]] = [
        ("node_add", {"spec": spec, "node_id": "D1", "title": "Who?",
                      "option": ["Everyone", "Members"], "recommend": 1}),
        ("begin_interview", {"spec": spec, "phase": "requirements", "interview_id": "r1"}),
        ("ask", {"spec": spec}),
        ("answer", {"spec": spec, "tool_result": json.dumps(
            {"answers": {"Q1 - D1: Who?": "Everyone (Recommended)"}})}),
        ("confirm", {"spec": spec, "decision_id": "C1", "reply": "Approve and delegate"}),
        ("await_confirmation", {"spec": spec, "decision_id": "C1", "approach": "Everyone"}),
        ("confirm", {"spec": spec, "decision_id": "C1", "reply": "Approve and delegate"}),
        ("check_delegation", {"spec": spec, "phase": "requirements", "interview_id": "r1"}),
    ]
    import subprocess

    subprocess.run([*MDGRILL, "init", spec, "--goal", "A goal"], cwd=repo, env=env, check=True,
                   capture_output=True)
    tools, results = asyncio.run(_session(repo, env, steps))
    assert {"ask", "answer", "confirm", "check_delegation", "status"} <= set(tools)
    assert results[2]["batches"][0]["questions"][0]["question"] == "Q1 - D1: Who?"  # type: ignore[index]
    assert results[3]["recorded"] == {"D1": "Everyone"}
    # a refusal carries the CLI's code: confirm before the approach was presented
    assert results[4]["ok"] is False
    assert results[4]["error"]["code"] == "ILLEGAL_TRANSITION"  # type: ignore[index]
    assert results[6]["ok"] is True and results[6]["status"] == "complete"
    assert results[7]["ok"] is True and results[7]["status"] == "complete"
    text = (repo / spec / ".progress.md").read_text(encoding="utf-8")
    assert "### Requirements Grill - Confirmed" in text  # the server wrote the same file


def _awaiting(tmp_path: Path, evidence: bool) -> tuple[Path, dict[str, str], str]:
    """A spec whose one decision is answered and whose approach awaits the user's approval."""
    import subprocess

    repo, env = make_repo(tmp_path)
    spec = "specs/a"

    def run(*argv: str) -> None:
        subprocess.run([*MDGRILL, *argv], cwd=repo, env=env, check=True, capture_output=True)
    run("init", spec, "--goal", "A goal")
    if evidence:  # the project asks for the user's own reply behind every approval
        (repo / ".mdgrill.yaml").write_text("approval: evidence\n", encoding="utf-8")
    run("node", "add", spec, "D1", "--title", "Who?", "--option", "Everyone", "--option",
        "Members", "--recommend", "1")
    run("begin-interview", spec, "--phase", "requirements", "--interview-id", "r1")
    run("open-frontier", spec, "--round", "1", "--decision-id", "D1")
    run("record-answer", spec, "--decision-id", "D1", "--answer", "Everyone")
    run("await-confirmation", spec, "--decision-id", "C1", "--approach", "Everyone")
    return repo, env, spec


def test_the_approval_is_asked_by_elicitation_and_journaled_as_evidence(tmp_path: Path) -> None:
    # Issue 16: "the approval question sent by MCP elicitation where the client supports it
    # (the answer then reaches mdgrill without passing through the model, and is recorded as
    # evidence)".
    from mcp import types

    repo, env, spec = _awaiting(tmp_path, evidence=True)
    asked: list[types.ElicitRequestParams] = []

    async def user_approves(context: object, params: types.ElicitRequestParams) -> object:
        asked.append(params)
        return types.ElicitResult(action="accept",
                                  content={"choice": "Approve and delegate (Recommended)"})
    steps: list[tuple[str, dict[str, object]]] = [
        ("ask_approval", {"spec": spec, "decision_id": "C1"}),
        ("check_delegation", {"spec": spec, "phase": "requirements", "interview_id": "r1"})]
    _, (approved, allowed) = asyncio.run(_session(repo, env, steps, user_approves))
    schema = asked[0].requested_schema  # type: ignore[union-attr]
    assert schema["properties"]["choice"]["enum"] == [  # type: ignore[index]
        "Approve and delegate (Recommended)", "Revise decisions", "Cancel"]
    assert approved["ok"] is True and approved["status"] == "complete", approved
    assert approved["choice"] == "Approve and delegate (Recommended)"
    # the evidence: the journal holds the selection, and the approval block its hash
    journal = (repo / ".git" / "mdgrill" / "replies.jsonl").read_text(encoding="utf-8")
    entry = json.loads(journal.splitlines()[-1])
    assert entry["source"] == "MCPElicitation"
    assert entry["text"] == "Approve and delegate (Recommended)"
    # bound to the question the form asked, which names this approval (issue 30)
    [[question, answer]] = entry["answers"]
    assert question == asked[0].message and answer == entry["text"]
    assert f"(approval C1 of interview r1, {spec})" in question
    text = (repo / spec / ".progress.md").read_text(encoding="utf-8")
    assert f"- Reply sha256: {entry['sha256']}" in text
    # the channel that carried it (issue 30): the MCP form, not a hook
    assert approved["channel"] == "elicitation"
    assert "- Channel: elicitation\n" in text
    # `approval: evidence` is satisfied: delegation is allowed
    assert allowed["ok"] is True and allowed["status"] == "complete", allowed
    assert allowed["channel"] == "elicitation"


def test_a_declined_elicitation_records_nothing_and_cancel_is_recorded(tmp_path: Path) -> None:
    from mcp import types

    repo, env, spec = _awaiting(tmp_path, evidence=False)
    step: list[tuple[str, dict[str, object]]] = [
        ("ask_approval", {"spec": spec, "decision_id": "C1"})]

    def answering(result: object) -> object:
        async def user(context: object, params: types.ElicitRequestParams) -> object:
            return result
        return user
    before = (repo / spec / ".progress.md").read_bytes()
    _, (declined,) = asyncio.run(_session(repo, env, step, answering(
        types.ElicitResult(action="decline"))))
    assert declined["recorded"] is False and declined["action"] == "decline"
    assert (repo / spec / ".progress.md").read_bytes() == before
    assert not (repo / ".git" / "mdgrill" / "replies.jsonl").exists()
    _, (cancelled,) = asyncio.run(_session(repo, env, step, answering(
        types.ElicitResult(action="accept", content={"choice": "Cancel"}))))
    assert cancelled["ok"] is True and cancelled["choice"] == "Cancel", cancelled
    after = (repo / spec / ".progress.md").read_text(encoding="utf-8")
    assert "### Requirements Grill - Cancelled" in after
    assert "### Requirements Grill - Confirmed" not in after


def test_revise_decisions_through_elicitation_approves_nothing(tmp_path: Path) -> None:
    """The framework: "If Revise decisions: reopen those decisions ... and return to
    collecting." Picking it in the elicitation form records no approval: the interview stays
    awaiting confirmation (the agent asks which decisions), delegation is refused, and the
    `revise` that follows reopens the decision."""
    from mcp import types

    repo, env, spec = _awaiting(tmp_path, evidence=False)
    progress = repo / spec / ".progress.md"
    before = progress.read_bytes()

    async def user_revises(context: object, params: types.ElicitRequestParams) -> object:
        return types.ElicitResult(action="accept", content={"choice": "Revise decisions"})
    steps: list[tuple[str, dict[str, object]]] = [
        ("ask_approval", {"spec": spec, "decision_id": "C1"}),
        ("check_delegation", {"spec": spec, "phase": "requirements", "interview_id": "r1"}),
        ("status", {"spec": spec})]
    _, (picked, refused, status) = asyncio.run(_session(repo, env, steps, user_revises))
    assert picked["ok"] is True and picked["choice"] == "Revise decisions", picked
    assert "revise" in str(picked["next"])
    assert "status" not in picked  # nothing was confirmed
    assert progress.read_bytes() == before  # no block, no record change
    assert refused["ok"] is False
    assert refused["error"]["code"] == "INTERVIEW_INCOMPLETE"  # type: ignore[index]
    assert "awaiting_confirmation" in json.dumps(status)
    journal = (repo / ".git" / "mdgrill" / "replies.jsonl").read_text(encoding="utf-8")
    assert json.loads(journal.splitlines()[-1])["text"] == "Revise decisions"
    log = subprocess_log(repo, env)
    assert "Mdgrill-Transition" not in log  # no approval commit
    _, (revised,) = asyncio.run(_session(repo, env, [
        ("revise", {"spec": spec, "decision_id": ["D1"]})]))
    assert revised["ok"] is True and revised["status"] == "collecting", revised
    assert revised["reopened"] == ["D1"]


def subprocess_log(repo: Path, env: dict[str, str]) -> str:
    import subprocess

    proc = subprocess.run(["git", "log", "--all", "--format=%B"], cwd=repo, env=env,
                          capture_output=True, text=True)
    return proc.stdout


def test_a_client_without_elicitation_is_told_to_ask_with_the_payload(tmp_path: Path) -> None:
    repo, env, spec = _awaiting(tmp_path, evidence=False)
    tools, (refused,) = asyncio.run(_session(
        repo, env, [("ask_approval", {"spec": spec, "decision_id": "C1"})]))
    assert refused["ok"] is False
    assert refused["error"]["code"] == "ELICITATION_UNSUPPORTED"  # type: ignore[index]
    # every interview verb is a tool (setting the mode is the user's own command)
    assert {"init", "open_frontier", "out_of_scope", "record_stop", "classify_reply", "skip",
            "revise", "cancel", "amend", "reopen", "digest", "tree", "mode", "ask_approval",
            "record_answer", "record_fact", "await_confirmation", "confirm",
            "check_delegation"} <= set(tools)
