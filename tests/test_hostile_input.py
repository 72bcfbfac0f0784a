"""Hostile input never stalls, stops or escapes mdgrill (issue 34), through the installed CLI.

Each reader gets its worst line of about 100 KB (the crafted lines that once took 20-55 s);
the hooks get nested, escaped, huge and random events and a full disk; export-speckit gets a
front-matter path that leads out of the work tree.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from conftest import mdgrill_command, unmeasured
from hypothesis import given, settings
from hypothesis import strategies as st

MDGRILL = mdgrill_command()
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SIZE = 100_000
# Generous: the quadratic patterns took 20-55 s on these lines, a linear reading well under 1 s;
# the rest is start-up on a busy machine
BUDGET = 10.0
GATE = "[MDGRILL_PHASE_GATE]"
HOOKS = ("pretooluse", "sessionstart", "posttooluse", "userpromptsubmit")


def run(*args: str, cwd: Path, stdin: bytes | None = None,
        limit_file_size: int | None = None) -> tuple[int, bytes, bytes, float]:
    """The installed CLI: exit code, stdout, stderr and the seconds it took."""
    def limit() -> None:  # a file-size limit: writes past it fail (EFBIG), like a full disk
        if limit_file_size is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_file_size, limit_file_size))
    start = time.monotonic()
    # a process whose writes fail must not be measured: coverage's own data file would fail
    # too, and say so on stderr (the hook's stderr is what the full-disk tests check)
    env = unmeasured(dict(os.environ)) if limit_file_size else None
    proc = subprocess.run([*MDGRILL, *args], cwd=cwd, input=stdin, capture_output=True,
                          timeout=120, env=env, preexec_fn=limit if limit_file_size else None)
    return proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start


def ok(*args: str, cwd: Path) -> dict[str, object]:
    code, out, err, _ = run("--json", *args, cwd=cwd)
    assert code == 0, out + err
    value = json.loads(out)
    assert isinstance(value, dict)
    return value


def interview(repo: Path, *, confirm: bool = False, awaiting: bool = False) -> str:
    """specs/login with a requirements interview: D1 pending, or awaiting its approval."""
    spec = "specs/login"
    ok("init", spec, "--goal", "Let customers sign in with an email link.", cwd=repo)
    ok("begin-interview", spec, "--phase", "requirements", "--interview-id", "req-1", cwd=repo)
    ok("open-frontier", spec, "--round", "1", "--decision-id", "D1", cwd=repo)
    if awaiting or confirm:
        ok("record-answer", spec, "--decision-id", "D1", "--answer", "Customers", cwd=repo)
        ok("await-confirmation", spec, "--decision-id", "C1", "--approach", "Magic link",
           cwd=repo)
    if confirm:
        ok("confirm", spec, "--decision-id", "C1", "--source", "approve-and-delegate", cwd=repo)
    return spec


def within_budget(result: tuple[int, bytes, bytes, float], codes: tuple[int, ...]) -> bytes:
    code, out, err, took = result
    assert b"Traceback" not in err, err[-2000:]
    assert code in codes, (code, out[-500:], err[-500:])
    assert took < BUDGET, f"took {took:.1f} s"
    return out


def pre_tool_use(repo: Path, prompt: str, tool: str = "Task") -> dict[str, object]:
    return {"session_id": "s", "hook_event_name": "PreToolUse", "cwd": str(repo),
            "tool_name": tool, "tool_input": {"prompt": prompt, "description": "write"}}


def decision(out: bytes) -> tuple[str, str]:
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["hookEventName"] == "PreToolUse"
    return answer["permissionDecision"], answer["permissionDecisionReason"]


# -- 1. one crafted line of 100 KB per reader, each read in linear time ------------------------

BLANKS = [" " * SIZE + "x", "\t" * SIZE + "-x", "a:" + " " * SIZE + "x", " " * SIZE]


@pytest.mark.parametrize("line", BLANKS[:3], ids=["spaces", "tabs", "key-spaces"])
def test_hook_gate_line_of_blanks_is_denied_in_time(repo: Path, line: str) -> None:
    prompt = f"{GATE}\nspec: specs/login{line}\nphase: requirements\n{line}\n[/MDGRILL_PHASE_GATE]"
    event = json.dumps(pre_tool_use(repo, prompt)).encode()
    out = within_budget(run("hook", "pretooluse", cwd=repo, stdin=event), (0,))
    assert decision(out)[0] == "deny"


@pytest.mark.parametrize("blank", [" ", "\t"], ids=["spaces", "tabs"])
def test_glossary_table_line_of_blanks_reads_in_time(repo: Path, blank: str) -> None:
    """The CONTEXT.md table line that made `validate` take 55 s, `term add` 50 s."""
    (repo / "CONTEXT.md").write_text(
        "# Context\n\n## Language\n\n| Term | Definition |\n" + blank * SIZE + "-x\n"
        "| Order | A customer's request. |\n", encoding="utf-8")
    within_budget(run("validate", "CONTEXT.md", cwd=repo), (0, 1))
    within_budget(run("lint", cwd=repo), (0, 1, 2))
    within_budget(run("term", "add", "Basket", "--definition", "What a customer buys.",
                      cwd=repo), (0, 1, 2))


def test_questionnaire_heading_of_blanks_reads_in_time(repo: Path) -> None:
    """`collect` on a `### ` heading of spaces (24 s before)."""
    spec = interview(repo)
    answers = repo / "answers.md"
    answers.write_text("### x" + " " * SIZE + "y\n\n> yes\n\n### D1" + " " * SIZE
                       + "\n\n> Customers\n", encoding="utf-8")
    within_budget(run("collect", spec, str(answers), cwd=repo), (0, 1, 2))


@pytest.mark.parametrize("text", [" " * SIZE, "\t" * SIZE, "Q1" + " " * SIZE + "x",
                                  ", " + " " * SIZE + "Q1", " " * SIZE + "(recommended) x"],
                         ids=["spaces", "tabs", "prefix", "comma", "mark"])
def test_replies_of_blanks_classify_in_time(repo: Path, text: str) -> None:
    """`classify-reply` and `resolve-approval` on 100 KB of whitespace (21-24 s before)."""
    within_budget(run("classify-reply", "--text", text, cwd=repo), (0, 2))
    spec = interview(repo, awaiting=True)
    within_budget(run("resolve-approval", spec, "--text", text, cwd=repo), (0, 2))


PROGRESS_LINES = ["- Decisions:" + " " * SIZE + "x", "- A" * (SIZE // 3) + ":",
                  "\t" * SIZE + "*\t" + "\t" * 10 + "x", "### D9:" + "\t" * SIZE + "-",
                  "- Reopened:\t" + " " * SIZE + "x"]


@pytest.mark.parametrize("line", PROGRESS_LINES, ids=["ledger", "bullets", "sub-bullet",
                                                      "heading", "reopened"])
def test_progress_line_reads_in_time(repo: Path, line: str) -> None:
    spec = interview(repo)
    progress = repo / spec / ".progress.md"
    progress.write_text(progress.read_text(encoding="utf-8") + "\n" + line + "\n",
                        encoding="utf-8")
    within_budget(run("validate", spec, cwd=repo), (0, 1, 2))
    within_budget(run("status", spec, cwd=repo), (0, 1, 2))


def test_carriage_returns_in_a_round_read_in_time(repo: Path) -> None:
    """A run of CRs inside a recorded round, hashed with its line ends as LF (34 s before)."""
    spec = interview(repo)
    progress = repo / spec / ".progress.md"
    text = progress.read_text(encoding="utf-8")
    at = text.index("- Asked:")
    progress.write_bytes((text[:at] + "- Note: x" + "\r" * SIZE + "x\r\r\n" + text[at:])
                         .encode("utf-8"))
    within_budget(run("validate", spec, cwd=repo), (0, 1, 2))


SPECKIT_LINES = ["- Q: " + " " * SIZE + "x", "- Q: a →" + " " * SIZE + "A",
                 "### Session" + "\t" * SIZE + "x", "**Input**: User description:" + " " * SIZE]


@pytest.mark.parametrize("line", SPECKIT_LINES, ids=["question", "arrow", "session", "input"])
def test_speckit_line_imports_in_time(repo: Path, line: str) -> None:
    folder = repo / "specs" / "invites"
    folder.mkdir(parents=True)
    text = (FIXTURES / "speckit" / "team-invites" / "spec.md").read_text(encoding="utf-8")
    (folder / "spec.md").write_text(text.replace("### Session 2026-10-09\n",
                                                 f"### Session 2026-10-09\n\n{line}\n"),
                                    encoding="utf-8")
    within_budget(run("import-speckit", "specs/invites/spec.md", cwd=repo), (0, 1, 2))


@pytest.mark.parametrize("line", ["Spec:" + " " * SIZE + "x", "- Decisions:" + "\t" * SIZE,
                                  "### " + " " * SIZE + "x"], ids=["title", "ledger", "heading"])
def test_ralph_line_imports_in_time(repo: Path, line: str) -> None:
    folder = repo / "specs" / "ralph"
    shutil.copytree(FIXTURES / "ralph" / "grill-complete", folder)
    progress = folder / ".progress.md"
    progress.write_text(progress.read_text(encoding="utf-8") + "\n" + line + "\n",
                        encoding="utf-8")
    within_budget(run("import-ralph", str(folder), cwd=repo), (0, 1, 2))


def test_merge_driver_line_merges_in_time(repo: Path) -> None:
    spec = interview(repo)
    base = (repo / spec / ".progress.md").read_text(encoding="utf-8")
    files = {}
    for name, line in (("base", ""), ("ours", "- Decisions:" + " " * SIZE + "x\n"),
                       ("theirs", "### " + "\t" * SIZE + "-\n")):
        files[name] = repo / f"{name}.md"
        files[name].write_text(base + line, encoding="utf-8")
    within_budget(run("merge-file", str(files["base"]), str(files["ours"]), str(files["theirs"]),
                      f"{spec}/.progress.md", cwd=repo), (0, 1, 2))


# -- 2. the hook's own budget, under the host's 30 s timeout --------------------------------


def test_hook_timeout_denies_a_gated_call_and_passes_others(repo: Path) -> None:
    """A PreToolUse hook the host times out does not block the call: mdgrill's own budget
    (`--budget`, 20 s by default) runs out first, and a gated call is then denied."""
    gated = json.dumps(pre_tool_use(repo, f"{GATE}\nspec: specs/login\n")).encode()
    code, out, err, _ = run("hook", "pretooluse", "--budget", "0.00001", cwd=repo, stdin=gated)
    assert code == 0 and err == b""
    kind, reason = decision(out)
    assert kind == "deny" and reason.startswith("HOOK_TIMEOUT: ")
    plain = json.dumps(pre_tool_use(repo, "Summarize the research.")).encode()
    assert run("hook", "pretooluse", "--budget", "0.00001", cwd=repo, stdin=plain)[:3] == \
        (0, b"", b"")


def test_hooks_json_timeout_is_above_the_budget() -> None:
    hooks = json.loads((Path(__file__).resolve().parent.parent / "hooks" / "hooks.json")
                       .read_text(encoding="utf-8"))
    timeouts = [h["timeout"] for group in hooks["hooks"]["PreToolUse"] for h in group["hooks"]]
    assert timeouts and min(timeouts) >= 30  # the budget (20 s) plus start-up stays under it


# -- 4. no tracebacks from the hooks ----------------------------------------------------------

NESTED = "[" * 200_000 + "]" * 200_000


@pytest.mark.parametrize("verb", HOOKS)
def test_deeply_nested_event_never_prints_a_traceback(repo: Path, verb: str) -> None:
    raw = ('{"hook_event_name": "PreToolUse", "tool_name": "Task", "cwd": "' + str(repo)
           + '", "prompt": "hi", "tool_input": {"prompt": "hi", "x": ' + NESTED + "}}").encode()
    code, out, err, _ = run("hook", verb, cwd=repo, stdin=raw)
    assert (code, out, err) == (0, b"", b"")


def test_deeply_nested_event_with_the_marker_is_denied(repo: Path) -> None:
    raw = ('{"tool_name": "Task", "tool_input": {"prompt": "\\u005bMDGRILL_PHASE_GATE]", "x": '
           + NESTED + "}}").encode()
    code, out, err, _ = run("hook", "pretooluse", cwd=repo, stdin=raw)
    assert code == 0 and err == b""
    kind, reason = decision(out)
    assert kind == "deny" and reason.startswith("MALFORMED_EVENT: the hook input is nested")


def journal(repo: Path) -> Path:
    return repo / ".git" / "mdgrill" / "replies.jsonl"


def prompt_event(repo: Path, text: str) -> bytes:
    return json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "s",
                       "cwd": str(repo), "prompt": text}).encode()


def test_full_disk_leaves_no_journal_behind(repo: Path) -> None:
    """A write that fails half way (RLIMIT_FSIZE makes it fail with EFBIG, as a full disk
    fails with ENOSPC, with no root mount needed) leaves no empty journal: one that exists
    makes every approval need a reply it never kept."""
    interview(repo)
    code, out, err, _ = run("hook", "userpromptsubmit", cwd=repo,
                            stdin=prompt_event(repo, "x" * 20_000), limit_file_size=4096)
    assert (code, out, err) == (0, b"", b"")
    assert not journal(repo).exists()


def test_full_disk_leaves_the_journal_as_it_was(repo: Path) -> None:
    interview(repo)
    assert run("hook", "userpromptsubmit", cwd=repo, stdin=prompt_event(repo, "yes"))[0] == 0
    before = journal(repo).read_bytes()
    code, out, err, _ = run("hook", "userpromptsubmit", cwd=repo,
                            stdin=prompt_event(repo, "x" * 20_000),
                            limit_file_size=len(before) + 100)
    assert (code, out, err) == (0, b"", b"")
    assert journal(repo).read_bytes() == before  # no torn half line


# -- 5. the marker is looked for in the decoded prompt ---------------------------------------


@pytest.mark.parametrize("spelling", ["\\u005bMDGRILL_PHASE_GATE]",
                                      "[\\u004dDGRILL_PHASE_GATE\\u005d"])
def test_json_escaped_marker_is_gated(repo: Path, spelling: str) -> None:
    """The prompt as the tool sees it carries the marker: the gate reads that, not bytes."""
    raw = ('{"hook_event_name": "PreToolUse", "tool_name": "Task", "cwd": ' + json.dumps(str(repo))
           + ', "tool_input": {"prompt": "' + spelling + '\\nspec: specs/login\\n"}}').encode()
    assert b"[MDGRILL_PHASE_GATE]" not in raw
    code, out, err, _ = run("hook", "pretooluse", cwd=repo, stdin=raw)
    assert code == 0 and err == b""
    kind, reason = decision(out)
    assert kind == "deny" and reason.startswith("MALFORMED_GATE: ")


# -- 6. random events: the host's shape or nothing, exit 0, never a traceback ----------------

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20)
EVENTS = st.fixed_dictionaries(
    {"hook_event_name": st.sampled_from(["PreToolUse", "PostToolUse", "UserPromptSubmit",
                                         "SessionStart"]) | JSON,
     "tool_name": st.sampled_from(["Task", "Agent", "Edit", "AskUserQuestion", "Bash"]) | JSON,
     "tool_input": st.fixed_dictionaries({"prompt": st.sampled_from(
         [GATE, f"{GATE}\nspec: x\n[/MDGRILL_PHASE_GATE]", "hi"]) | JSON,
         "file_path": st.sampled_from([".progress.md", "../x/.progress.md"]) | JSON}) | JSON,
     "tool_response": JSON, "prompt": JSON, "cwd": JSON, "session_id": JSON})


def check_answer(verb: str, raw: bytes, cwd: Path, gated: bool = False) -> None:
    code, out, err, _ = run("hook", verb, cwd=cwd, stdin=raw)
    assert code == 0 and b"Traceback" not in err, err[-2000:]
    if out:
        answer = json.loads(out)
        assert isinstance(answer, dict)
        assert "hookSpecificOutput" in answer or answer.get("decision") == "block"
    if gated:
        assert decision(out)[0] == "deny", "a gated call was let through unchecked"


@settings(max_examples=25, deadline=None, derandomize=True)
@given(event=EVENTS, verb=st.sampled_from(HOOKS), extra=st.sampled_from(["", NESTED[:4000]]))
def test_random_events_answer_in_the_hosts_shape(tmp_path_factory: pytest.TempPathFactory,
                                                 event: dict[str, object], verb: str,
                                                 extra: str) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    raw = json.dumps(event).encode()
    if extra:
        raw = raw[:-1] + b', "deep": ' + extra.encode() + b"}"
    tool_input = event["tool_input"]
    gated = verb == "pretooluse" and event["hook_event_name"] == "PreToolUse" and \
        event["tool_name"] in ("Task", "Agent") and isinstance(tool_input, dict) and \
        isinstance(tool_input["prompt"], str) and GATE in tool_input["prompt"]
    check_answer(verb, raw, folder, gated)


@pytest.mark.parametrize("tool_name", [[], {"name": "Agent"}, ["Agent"], 7, None])
@pytest.mark.parametrize("verb", HOOKS)
def test_a_tool_name_that_is_no_string_is_answered(tmp_path: Path, tool_name: object,
                                                   verb: str) -> None:
    # found by the fuzz above: a list as `tool_name` stopped the hook with exit 70
    raw = json.dumps({"hook_event_name": "PreToolUse", "tool_name": tool_name,
                      "tool_input": {"prompt": GATE}, "cwd": str(tmp_path)}).encode()
    check_answer(verb, raw, tmp_path)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(raw=st.binary(max_size=200) | st.sampled_from([b"", b"[", b"{", b"\xff", b"null"]),
       verb=st.sampled_from(HOOKS))
def test_random_bytes_never_print_a_traceback(tmp_path_factory: pytest.TempPathFactory,
                                              raw: bytes, verb: str) -> None:
    check_answer(verb, raw, tmp_path_factory.mktemp("bytes"))


# -- 3. a path from a file stays in the work tree ---------------------------------------------


@pytest.mark.parametrize("target", [".git/config", "../outside.md", "link/spec.md"])
def test_export_speckit_never_follows_front_matter_out(repo: Path, target: str) -> None:
    """`speckit.spec_md` in the front matter named `.git/config`: the export wrote into it.
    Every path from a file resolves inside the work tree, never into `.git/`."""
    (repo.parent / "elsewhere").mkdir()
    (repo.parent / "elsewhere" / "spec.md").write_text("# Feature Specification: X\n")
    (repo.parent / "outside.md").write_text("# Feature Specification: X\n")
    (repo / "link").symlink_to(repo.parent / "elsewhere")
    spec = interview(repo, confirm=True)
    progress = repo / spec / ".progress.md"
    text = progress.read_text(encoding="utf-8")
    progress.write_text(text.replace("\n---\n", f"\nspeckit:\n  spec_md: {target}\n---\n", 1),
                        encoding="utf-8")
    before = {p: p.read_bytes() for p in (repo / ".git" / "config", repo.parent / "outside.md",
                                          repo.parent / "elsewhere" / "spec.md")}
    code, out, err, _ = run("--json", "export-speckit", spec, cwd=repo)
    assert code == 2 and b"Traceback" not in err, out + err
    assert json.loads(out)["error"]["code"] == "PATH_OUTSIDE_REPOSITORY"
    assert {p: p.read_bytes() for p in before} == before


@pytest.mark.parametrize("target", [".git/", ".git/CONTEXT.md", "docs/../.git/info/"])
def test_term_add_never_writes_into_git_through_the_context_map(repo: Path, target: str) -> None:
    """A CONTEXT-MAP.md path is a path from a file: the work tree, never `.git/`."""
    (repo / "CONTEXT-MAP.md").write_text(
        f"# Map\n\n## Contexts\n\n- [Sales]({target}): where orders come from\n")
    git_files = sorted(p.relative_to(repo).as_posix() for p in (repo / ".git").rglob("*"))
    code, out, err, _ = run("--json", "term", "add", "Lead", "--definition", "A maybe-buyer.",
                            cwd=repo)
    assert code == 2 and b"Traceback" not in err, out + err
    assert json.loads(out)["error"]["code"] == "PATH_OUTSIDE_REPOSITORY"
    assert sorted(p.relative_to(repo).as_posix() for p in (repo / ".git").rglob("*")) == git_files
    code, out, err, _ = run("--json", "validate", "CONTEXT-MAP.md", cwd=repo)
    assert code == 1 and "MAP_PATH_ESCAPES" in out.decode(), out + err


def plugin_hook(tmp_path: Path, raw: str, exit_code: int) -> str:
    """hooks/pretooluse.sh with an `mdgrill` that dies (as the budget's last resort does)."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    for tool in ("cat", "grep", "printf", "sh"):
        found = shutil.which(tool)
        assert found is not None
        if not (folder / tool).exists():
            (folder / tool).symlink_to(found)
    fake = folder / "mdgrill"
    fake.write_text(f"#!/bin/sh\ncat >/dev/null\nexit {exit_code}\n")
    fake.chmod(0o755)
    script = Path(__file__).resolve().parent.parent / "hooks" / "pretooluse.sh"
    proc = subprocess.run(["sh", str(script)], input=raw, text=True, capture_output=True,
                          cwd=tmp_path, timeout=60, env={"PATH": str(folder)})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("spelling", ["[MDGRILL_PHASE_GATE]", "\\u005bMDGRILL_PHASE_GATE]",
                                      "[\\u004dDGRILL\\u005fPHASE_GATE]"])
def test_plugin_script_denies_when_mdgrill_dies_on_a_gated_call(tmp_path: Path,
                                                                 spelling: str) -> None:
    raw = '{"tool_name": "Task", "tool_input": {"prompt": "' + spelling + '"}}'
    kind, reason = decision(plugin_hook(tmp_path, raw, 1).encode())
    assert kind == "deny" and reason.startswith("mdgrill hook pretooluse failed")
    # mdgrill gates calls without the marker too (an artifact agent, a named spec: issue 38),
    # so a call it could not check is denied as well
    kind, _ = decision(plugin_hook(tmp_path, '{"tool_name": "Task", "tool_input": {"prompt": '
                                   '"hi"}}', 1).encode())
    assert kind == "deny"
