"""The delegation gate has no way around it (issue 38 points 1-3, issue 31 point 10).

The PreToolUse hook is fed the JSON events Claude Code sends for an `Agent`/`Task` call
(`tool_input.subagent_type`, `prompt`, `description`; `cwd`, `session_id`,
`hook_event_name`), and `check-delegation` / `begin-interview` run through the installed CLI.
Framework: "Inspect facts with read-only tools or an `Explore` agent" (such a call passes),
while no spec's work reaches a sub-agent without an approved interview of its phase.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from test_hook import decision, interview, mdgrill, ok
from test_reliability import make_repo, run_json

from mdgrill.checks.prompt import CHECKLIST_ROWS
from mdgrill.integrations import hook

AGENTS = ("delegation:\n  agents:\n    requirements: [product-manager]\n"
          "    design: [architect-reviewer]\n    tasks: [task-planner]\n")


def call(root: Path | None, prompt: str, agent: str = "general-purpose",
         tool: str = "Agent", cwd: bool = True) -> bytes:
    """A PreToolUse event as Claude Code sends it for a sub-agent call."""
    payload: dict[str, object] = {
        "session_id": "3f1c", "transcript_path": "/tmp/t.jsonl", "permission_mode": "default",
        "hook_event_name": "PreToolUse", "tool_name": tool,
        "tool_input": {"description": "Do the work", "prompt": prompt, "subagent_type": agent}}
    if cwd and root is not None:
        payload["cwd"] = str(root)
    return json.dumps(payload).encode()


def run_hook(event: bytes) -> tuple[str, str] | None:
    """The hook's decision, or None when it printed nothing (the call is not its business)."""
    proc = mdgrill("hook", "pretooluse", stdin=event)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    return decision(proc) if proc.stdout else None


class Repo:
    """A git repository with an identity, and `mdgrill --json` run in it."""

    def __init__(self, base: Path) -> None:
        self.path, self.env = make_repo(base)

    def run(self, *argv: str) -> tuple[int, dict[str, object]]:
        return run_json(self.path, self.env, *argv)

    def ok(self, *argv: str) -> dict[str, object]:
        code, payload = self.run(*argv)
        assert code == 0, (argv, payload)
        return payload

    def refused(self, *argv: str) -> tuple[int, str, dict[str, object]]:
        """(exit code, error code, error) of a refused command."""
        code, payload = self.run(*argv)
        error = payload["error"]
        assert isinstance(error, dict), payload
        return code, str(error["code"]), error

    def interview(self, confirm: bool = True) -> None:
        """specs/login's requirements interview req-1, approved (and committed) or not."""
        spec = "specs/login"
        self.ok("init", spec, "--goal", "Let customers sign in with an email link.")
        self.ok("begin-interview", spec, "--phase", "requirements", "--interview-id", "req-1")
        self.ok("open-frontier", spec, "--round", "1", "--decision-id", "D1")
        self.ok("record-answer", spec, "--decision-id", "D1", "--answer", "External customers")
        if confirm:
            self.ok("await-confirmation", spec, "--decision-id", "C1", "--approach", "Link")
            self.ok("confirm", spec, "--decision-id", "C1", "--source", "approve-and-delegate")


def configure(root: Path, text: str) -> None:
    (root / ".mdgrill.yaml").write_text(text, encoding="utf-8")


def requirements_gate(spec: str = "specs/login", phase: str = "requirements") -> str:
    return "Write the artifact.\n\n" + hook.render_gate(spec, phase, "req-1") + "\n"


# -- 38.1: unmarked delegations ------------------------------------------------------------

def test_artifact_agent_without_a_gate_block_is_denied(tmp_path: Path) -> None:
    interview(tmp_path)
    configure(tmp_path, AGENTS)
    kind, reason = run_hook(call(tmp_path, "Write requirements.md for login.",
                                 agent="product-manager")) or ("", "")
    assert kind == "deny" and reason.startswith("DELEGATION_UNGATED: sub-agent "
                                                "`product-manager` writes the requirements")
    # the reason says what to do next
    assert "mdgrill check-delegation SPEC --phase requirements" in reason


@pytest.mark.parametrize("agent", ["ralph-specum:product-manager", "other-plugin:product-manager"])
def test_a_plugin_agent_is_matched_by_its_bare_name(tmp_path: Path, agent: str) -> None:
    # Claude Code names a plugin's agent `plugin:agent`; `.mdgrill.yaml` lists it bare
    interview(tmp_path)
    configure(tmp_path, AGENTS)
    kind, reason = run_hook(call(tmp_path, "Write requirements.md for login.",
                                 agent=agent)) or ("", "")
    assert kind == "deny" and reason.startswith(f"DELEGATION_UNGATED: sub-agent `{agent}` "
                                                "writes the requirements")


def test_an_agent_listed_with_its_plugin_matches_only_that_plugin(tmp_path: Path) -> None:
    interview(tmp_path)
    configure(tmp_path, "delegation:\n  agents:\n"
                        "    requirements: [ralph-specum:product-manager]\n")
    kind, _ = run_hook(call(tmp_path, "Write requirements.md for login.",
                            agent="ralph-specum:product-manager")) or ("", "")
    assert kind == "deny"
    # another plugin's agent of that name, and the bare name, are not the listed agent
    assert run_hook(call(tmp_path, "Write requirements.md for login.",
                         agent="other-plugin:product-manager")) is None
    assert run_hook(call(tmp_path, "Write requirements.md for login.",
                         agent="product-manager")) is None


def test_artifact_agent_with_its_phase_gate_is_allowed(tmp_path: Path) -> None:
    interview(tmp_path)
    configure(tmp_path, AGENTS)
    kind, reason = run_hook(call(tmp_path, requirements_gate(),
                                 agent="product-manager")) or ("", "")
    assert kind == "allow" and "requirements interview req-1 is complete" in reason


def test_an_artifact_agent_without_a_text_prompt_is_denied(tmp_path: Path) -> None:
    configure(tmp_path, AGENTS)
    event = json.loads(call(tmp_path, "x", agent="task-planner"))
    event["tool_input"]["prompt"] = {"text": "write tasks.md"}
    kind, reason = run_hook(json.dumps(event).encode()) or ("", "")
    assert kind == "deny" and reason.startswith("DELEGATION_UNGATED: ")
    event["tool_input"]["subagent_type"] = "Explore"
    assert run_hook(json.dumps(event).encode()) is None


def test_task_planner_through_a_requirements_gate_is_denied(tmp_path: Path) -> None:
    interview(tmp_path)
    configure(tmp_path, AGENTS)
    kind, reason = run_hook(call(tmp_path, requirements_gate(), agent="task-planner")) or ("", "")
    assert kind == "deny"
    assert reason.startswith("DELEGATION_UNGATED: sub-agent `task-planner` writes the tasks "
                             "artifact")
    assert "its gate block is for requirements" in reason


@pytest.mark.parametrize("mention", ["specs/login", "./specs/login/requirements.md",
                                     "{root}/specs/login/design.md", "specs\\login\\tasks.md",
                                     "`specs/login`'s", "out=specs/login#goal",
                                     "specs/login/" + "a" * 5000])
def test_a_prompt_naming_an_unapproved_spec_is_denied(tmp_path: Path, mention: str) -> None:
    interview(tmp_path, confirm=False)  # no list of agents in .mdgrill.yaml at all
    prompt = f"Write the requirements into {mention.format(root=tmp_path)} now."
    kind, reason = run_hook(call(tmp_path, prompt)) or ("", "")
    assert kind == "deny"
    assert reason.startswith("SPEC_NOT_APPROVED: the prompt names specs/login, whose current "
                             "phase is not approved (INTERVIEW_INCOMPLETE: ")


def test_a_spec_named_among_many_made_up_paths_is_found(tmp_path: Path) -> None:
    # no walk and no stat per word: decoys cost a lookup each, and never hide the spec
    interview(tmp_path, confirm=False)
    decoys = " ".join(f"q{i}/b{i}/c specs/b{i} a/../specs/c{i}" for i in range(20_000))
    kind, reason = run_hook(call(tmp_path, decoys + " then specs/x/../login/design.md")) \
        or ("", "")
    assert kind == "deny" and reason.startswith("SPEC_NOT_APPROVED: the prompt names "
                                                "specs/login")


def test_a_spec_named_before_any_interview_is_denied(tmp_path: Path) -> None:
    ok("init", "specs/login", "--goal", "Sign in by link", cwd=tmp_path)
    kind, reason = run_hook(call(tmp_path, "Draft specs/login/design.md")) or ("", "")
    assert kind == "deny" and "(INTERVIEW_MISSING: its start phase has no interview" in reason


def test_a_prompt_naming_an_approved_spec_passes_silently(tmp_path: Path) -> None:
    interview(tmp_path)
    # passes to Claude Code's own permission flow: no allow is printed for an unmarked call
    assert run_hook(call(tmp_path, "Summarize specs/login/research.md")) is None


@pytest.mark.parametrize("prompt", [
    "Find where sessions are created in src/auth and report the file names.",
    "Compare specs/login-v2 with myspecs/login and specs/loginx.",  # longer names, not it
])
def test_an_explorer_naming_no_spec_passes(tmp_path: Path, prompt: str) -> None:
    interview(tmp_path, confirm=False)
    configure(tmp_path, AGENTS)
    assert run_hook(call(tmp_path, prompt, agent="Explore")) is None


def test_an_explorer_naming_an_unapproved_spec_is_denied(tmp_path: Path) -> None:
    interview(tmp_path, confirm=False)
    kind, reason = run_hook(call(tmp_path, "Read specs/login and list open questions",
                                 agent="Explore", tool="Task")) or ("", "")
    assert kind == "deny" and reason.startswith("SPEC_NOT_APPROVED: ")


def test_a_gate_for_one_spec_does_not_cover_another_named_one(tmp_path: Path) -> None:
    interview(tmp_path)
    ok("init", "specs/billing", "--goal", "Invoices", cwd=tmp_path)
    prompt = requirements_gate() + "Also write specs/billing/requirements.md.\n"
    kind, reason = run_hook(call(tmp_path, prompt, agent="product-manager")) or ("", "")
    assert kind == "deny" and reason.startswith("SPEC_NOT_APPROVED: the prompt names "
                                                "specs/billing")


def test_a_gate_of_an_earlier_phase_does_not_cover_the_specs_next_phase(tmp_path: Path) -> None:
    """The requirements approval carried on once the spec moved to design: the block still
    passes its own check, but the design work it names has no approved interview."""
    interview(tmp_path)
    (tmp_path / "specs/login/requirements.md").write_text("# Requirements\n", encoding="utf-8")
    ok("await-artifact-approval", "specs/login", "--artifact", "specs/login/requirements.md",
       cwd=tmp_path)
    ok("approve-artifact", "specs/login", "--source", "approve-artifact", cwd=tmp_path)
    prompt = requirements_gate() + "Write specs/login/design.md and implement it.\n"
    kind, reason = run_hook(call(tmp_path, prompt)) or ("", "")
    assert kind == "deny" and reason.startswith("SPEC_NOT_APPROVED: the prompt names "
                                                "specs/login"), reason
    # the same block for work of its own phase, before the move, was allowed (test above)


def test_a_hostile_long_path_is_not_echoed_whole(tmp_path: Path) -> None:
    long_spec = "specs/" + "x" * 100_000
    prompt = "Go.\n" + hook.render_gate(long_spec, "requirements", "req-1") + "\n"
    kind, reason = run_hook(call(tmp_path, prompt)) or ("", "")
    assert kind == "deny" and reason.startswith("MALFORMED_GATE: line 3: `spec` is 100,006 "
                                                "characters long")
    assert len(reason) < 400


def test_a_long_deny_reason_keeps_its_code_and_its_advice() -> None:
    reason = "NOT_FOUND: no spec at " + "y" * 100_000 + ": create it with `mdgrill init`"
    out = hook.answer("deny", reason)["hookSpecificOutput"]
    assert isinstance(out, dict)
    text = out["permissionDecisionReason"]
    assert len(text) <= hook.MAX_REASON
    assert text.startswith("NOT_FOUND: no spec at yyy")
    assert text.endswith("create it with `mdgrill init`") and "characters left out" in text


@pytest.mark.parametrize(("config", "message"), [
    ("delegation:\n  agents:\n    coding: [coder]\n", "delegation.agents.coding is not a phase"),
    ("delegation:\n  agent: {tasks: [x]}\n", "delegation.agent is not a setting"),
    ("delegation:\n  prompt_checks: yes please\n", "delegation.prompt_checks is true or false"),
    ("delegation: [product-manager]\n", "delegation must be a mapping"),
])
def test_an_unreadable_config_is_denied_for_a_delegation(tmp_path: Path, config: str,
                                                         message: str) -> None:
    interview(tmp_path)
    configure(tmp_path, config)
    kind, reason = run_hook(call(tmp_path, requirements_gate())) or ("", "")
    assert (kind, reason.split(":")[0]) == ("deny", "INVALID_CONFIG")
    assert message in reason


# -- 38.2: foreign specs and a missing cwd --------------------------------------------------

def test_a_gated_call_without_cwd_is_denied(tmp_path: Path) -> None:
    interview(tmp_path)
    proc = mdgrill("hook", "pretooluse", cwd=tmp_path,
                   stdin=call(tmp_path, requirements_gate(), cwd=False))
    kind, reason = decision(proc)
    # never answered from the hook's own folder, though an approved spec is right there
    assert kind == "deny" and reason.startswith("MALFORMED_EVENT: the event's cwd is missing")


def test_an_approved_spec_in_another_repository_approves_nothing(tmp_path: Path) -> None:
    elsewhere, here = tmp_path / "elsewhere", tmp_path / "here"
    elsewhere.mkdir()
    here.mkdir()
    interview(elsewhere)
    ok("init", "specs/login", "--goal", "Sign in by link", cwd=here)
    for spec in (str(elsewhere / "specs/login"), "../elsewhere/specs/login"):
        prompt = requirements_gate(spec)
        kind, reason = run_hook(call(here, prompt, agent="product-manager")) or ("", "")
        assert kind == "deny" and reason.startswith("PATH_OUTSIDE_REPOSITORY: the gate block "
                                                    "names "), spec


def test_a_spec_of_the_same_repository_by_absolute_path_is_allowed(tmp_path: Path) -> None:
    interview(tmp_path)
    kind, _ = run_hook(call(tmp_path, requirements_gate(str(tmp_path / "specs/login")))) \
        or ("", "")
    assert kind == "allow"


# -- 31.10: Phase-3 check 5 at the transition ------------------------------------------------
# Framework, Phase 3: "5. Shells out to `hooks/blocking/prompt_workflow_validate.py` for
# structural and 15-row compliance checks." Here it runs at the transition itself.

CHECKS = "delegation:\n  prompt_checks: true\n"
GOOD = ("<!-- E1 -->\nWrite requirements.md for external customers.\n\n```yaml\n"
        "checklist_results:\n" + "".join(f"  {row}: pass\n" for row in CHECKLIST_ROWS)
        + "```\n")


def test_the_hook_refuses_a_prompt_that_fails_the_prompt_checks(tmp_path: Path) -> None:
    interview(tmp_path)
    configure(tmp_path, CHECKS)
    kind, reason = run_hook(call(tmp_path, requirements_gate())) or ("", "")
    assert kind == "deny"
    assert reason.startswith("PROMPT_CHECK_FAILED: the delegated prompt fails 1 prompt "
                             "check(s): line 1: PROVENANCE_MISSING: `Write the artifact.`")


def test_the_hook_allows_a_prompt_that_passes_them(tmp_path: Path) -> None:
    interview(tmp_path)
    configure(tmp_path, CHECKS)
    prompt = GOOD + "\n" + hook.render_gate("specs/login", "requirements", "req-1") + "\n"
    kind, _ = run_hook(call(tmp_path, prompt)) or ("", "")
    assert kind == "allow"


def test_without_the_setting_the_hook_does_not_check_the_prompt(tmp_path: Path) -> None:
    interview(tmp_path)
    kind, _ = run_hook(call(tmp_path, requirements_gate())) or ("", "")
    assert kind == "allow"


DELEGATE = ("check-delegation", "specs/login", "--phase", "requirements", "--interview-id",
            "req-1")


def test_check_delegation_checks_the_prompt_file(tmp_path: Path) -> None:
    repo = Repo(tmp_path)
    repo.interview()
    configure(repo.path, CHECKS)
    assert repo.refused(*DELEGATE)[:2] == (3, "PROMPT_REQUIRED")
    (tmp_path / "bad.md").write_text("Just build it.\n", encoding="utf-8")
    code, error, body = repo.refused(*DELEGATE, "--prompt", str(tmp_path / "bad.md"))
    assert (code, error) == (3, "PROMPT_CHECK_FAILED")
    assert "`Just build it.` has no provenance comment" in str(body["message"])
    (tmp_path / "good.md").write_text(GOOD, encoding="utf-8")
    assert repo.ok(*DELEGATE, "--prompt", str(tmp_path / "good.md"))["prompt_checked"] is True


# -- 38.3: the entry contract's skill load ---------------------------------------------------

SKILL = ".claude/skills/grill/SKILL.md"
DOMAIN = ".claude/skills/checkout/SKILL.md"


def manifest(root: Path, *, core: tuple[bool, bool] = (True, False), revision: object = 3,
             interview_id: str = "req-1", failed_sha: bool = False) -> Path:
    """A load manifest of the two skills (written to root/manifest.json)."""
    entries = []
    for (name, rel), is_core in zip((("grill", SKILL), ("checkout", DOMAIN)), core,
                                    strict=True):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {name}\n", encoding="utf-8")
        entries.append({"name": name, "path": rel, "core": is_core, "status": "loaded",
                        "sha256": hashlib.sha256(path.read_bytes()).hexdigest()})
    if failed_sha:
        entries[1].update(status="failed", errors=["not readable"])
    out = root / "manifest.json"
    out.write_text(json.dumps({"phase": "requirements", "interview_id": interview_id,
                               "discovery_revision": revision, "skills": entries}), "utf-8")
    return out


BEGIN = ("begin-interview", "specs/login", "--phase", "requirements", "--interview-id", "req-1")
INIT = ("init", "specs/login", "--goal", "Sign in by link")


def record(repo: Repo, **how: object) -> dict[str, object]:
    return repo.ok("record-skill-load", "specs/login", "--input",
                   str(manifest(repo.path, **how)))  # type: ignore[arg-type]


def test_begin_interview_requires_the_manifest_where_skills_are_declared(tmp_path: Path) -> None:
    # "Record the load manifest with `phase_gate.py record-skill-load`" (mdgrill's verb)
    repo = Repo(tmp_path)
    repo.ok(*INIT)
    configure(repo.path, "skills: [grill, checkout]\n")
    before = (repo.path / "specs/login/.progress.md").read_bytes()
    code, error, body = repo.refused(*BEGIN)
    assert (code, error) == (3, "SKILL_LOAD_MISSING")
    assert "mdgrill record-skill-load SPEC" in str(body["message"])
    assert (repo.path / "specs/login/.progress.md").read_bytes() == before
    record(repo)
    assert repo.ok(*BEGIN)["status"] == "collecting"


@pytest.mark.parametrize("core", [(False, False), (True, True)])
def test_exactly_one_core_skill(tmp_path: Path, core: tuple[bool, bool]) -> None:
    # "Block when this skill or the core algorithm reference cannot be loaded"
    repo = Repo(tmp_path)
    repo.ok(*INIT)
    configure(repo.path, "skills: [grill]\n")
    record(repo, core=core)
    assert repo.refused(*BEGIN)[:2] == (3, "CORE_SKILL_COUNT")


def test_a_manifest_without_a_declared_skill_is_missing_it(tmp_path: Path) -> None:
    repo = Repo(tmp_path)
    repo.ok(*INIT)
    configure(repo.path, "skills: [grill, billing]\n")
    record(repo)
    code, error, body = repo.refused(*BEGIN)
    assert (code, error, body["missing"]) == (3, "SKILL_LOAD_MISSING", ["billing"])


def test_the_quick_bypass_requires_the_manifest(tmp_path: Path) -> None:
    # "Quick mode bypasses interview questions only. It still requires current discovery,
    # contract loading, ..."
    repo = Repo(tmp_path)
    repo.ok(*INIT)
    repo.ok("mode", "specs/login", "--quick")
    configure(repo.path, "skills: [grill]\n")
    assert repo.refused(*BEGIN)[:2] == (3, "SKILL_LOAD_MISSING")
    record(repo)
    assert repo.ok(*BEGIN)["status"] == "bypassed_quick"
    assert repo.ok(*DELEGATE)["status"] == "bypassed_quick"


def test_check_delegation_and_the_hook_require_the_manifest(tmp_path: Path) -> None:
    repo = Repo(tmp_path)
    repo.interview()  # approved before the project declared its skills
    configure(repo.path, "skills: [grill]\n")
    assert repo.refused(*DELEGATE)[:2] == (3, "SKILL_LOAD_MISSING")
    kind, reason = run_hook(call(repo.path, requirements_gate())) or ("", "")
    assert kind == "deny" and reason.startswith("SKILL_LOAD_MISSING: ")


@pytest.mark.parametrize("revision", [-1, "-7"])
def test_a_negative_discovery_revision_is_refused(tmp_path: Path, revision: object) -> None:
    repo = Repo(tmp_path)
    repo.ok(*INIT)
    code, error, _ = repo.refused("record-skill-load", "specs/login", "--input",
                                  str(manifest(repo.path, revision=revision)))
    assert (code, error) == (2, "INVALID_REVISION")


def test_a_failed_entry_with_a_hash_is_inconsistent(tmp_path: Path) -> None:
    repo = Repo(tmp_path)
    repo.ok(*INIT)
    before = (repo.path / "specs/login/.progress.md").read_bytes()
    code, error, _ = repo.refused("record-skill-load", "specs/login", "--input",
                                  str(manifest(repo.path, failed_sha=True)))
    assert (code, error) == (2, "INCONSISTENT_LOAD")
    assert (repo.path / "specs/login/.progress.md").read_bytes() == before


def test_session_start_reminds_of_a_missing_manifest(tmp_path: Path) -> None:
    repo = Repo(tmp_path)
    repo.ok(*INIT)
    event = json.dumps({"session_id": "s", "hook_event_name": "SessionStart",
                        "source": "startup", "cwd": str(repo.path)})
    assert mdgrill("hook", "sessionstart", stdin=event).stdout == b""  # nothing declared
    configure(repo.path, "skills: [grill]\n")
    out = json.loads(mdgrill("hook", "sessionstart", stdin=event).stdout)
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "- specs/login: no load manifest for its interview" in context
    assert "mdgrill record-skill-load specs/login --input MANIFEST.json" in context
    record(repo)
    assert mdgrill("hook", "sessionstart", stdin=event).stdout == b""


def test_the_plugin_skill_tells_the_agent_to_record_the_manifest() -> None:
    text = (Path(__file__).resolve().parents[1] / "skills/grill/SKILL.md").read_text("utf-8")
    assert "`mdgrill record-skill-load SPEC --input MANIFEST.json`" in text


def test_the_setting_is_checked(tmp_path: Path) -> None:
    repo = Repo(tmp_path)
    repo.ok(*INIT)
    configure(repo.path, "skills: {grill: yes}\n")
    assert repo.refused(*BEGIN)[:2] == (2, "INVALID_CONFIG")
