"""`mdgrill import-ralph`: smart-ralph spec folders (the corpus and our own fixtures)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import mdgrill_command
from hypothesis import given, settings
from hypothesis import strategies as st

from mdgrill.formats.progress import Progress, with_record
from mdgrill.formats.textfile import TextFile
from mdgrill.integrations import ralph
from mdgrill.shell.session import check_loaded

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures" / "ralph"
CORPUS = HERE.parents[1] / "shared" / "corpus" / "ralph"
MDGRILL = mdgrill_command()


def mdgrill(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
            stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    cmd = MDGRILL
    return subprocess.run([*cmd, *args], capture_output=True, text=True, cwd=cwd, env=env,
                          input=stdin, timeout=60)


def as_json(proc: subprocess.CompletedProcess[str]) -> dict[str, object]:
    value = json.loads(proc.stdout)
    assert isinstance(value, dict)
    return value


def git_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"HOME": str(home), "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com",
                "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com"})
    return env


def frame(value: bytes) -> bytes:
    return str(len(value)).encode("ascii") + b":" + value


def independent_ralph_digest(phase: str, goal: str, sources: list[Path]) -> str:
    """smart-ralph's digest, written from its documentation (not from mdgrill's code)."""
    parts = [frame(b"ralph-phase-context-v1"), frame(phase.encode()), frame(goal.encode())]
    for source in sorted(str(s) for s in sources):
        parts.extend([frame(source.encode()), frame(Path(source).read_bytes())])
    return hashlib.sha256(b"".join(parts)).hexdigest()


def materialize(name: str, root: Path, git: bool = False) -> Path:
    """Copy a fixture spec to root/specs/<name> (and its `.root` files to root); fill the
    placeholders @ROOT@, @SPEC@, @SHA:<path from the spec>@ and @DIGEST@."""
    root.mkdir(parents=True, exist_ok=True)
    if git:
        subprocess.run(["git", "init", "-q", str(root)], check=True, env=git_env(root))
    spec = root / "specs" / name
    shutil.copytree(FIXTURES / name, spec)
    extra = FIXTURES / f"{name}.root"
    if extra.is_dir():
        shutil.copytree(extra, root, dirs_exist_ok=True)
    state_path = spec / ".ralph-state.json"
    text = state_path.read_text(encoding="utf-8")
    real_root, real_spec = os.path.realpath(root), os.path.realpath(spec)
    text = text.replace("@ROOT@", real_root).replace("@SPEC@", real_spec)
    while "@SHA:" in text:
        start = text.index("@SHA:")
        end = text.index("@", start + 1)
        rel = text[start + 5:end]
        sha = hashlib.sha256((spec / rel).read_bytes()).hexdigest()
        text = text[:start] + sha + text[end + 1:]
    if "@DIGEST@" in text:
        state = json.loads(text)
        load = state["phaseSkillLoad"]
        sources = [Path(a["source"]) for a in load["context"]["artifacts"]]
        digest = independent_ralph_digest(load["phase"], load["context"]["goal"], sources)
        text = text.replace("@DIGEST@", digest)
    state_path.write_text(text, encoding="utf-8")
    return spec


def nonempty_lines(text: str) -> list[str]:
    return [ln.rstrip("\r") for ln in text.split("\n") if ln.strip()]


def assert_lines_kept(original: str, result: str) -> None:
    """Every non-empty line of the original body is in the result, in order."""
    body = ralph.body_text(TextFile(original), "orig")
    got = [ln.rstrip("\r") for ln in result.split("\n")]
    pos = 0
    for line in nonempty_lines(body):
        assert line in got[pos:], f"lost line: {line!r}"
        pos = got.index(line, pos) + 1


def corpus_folders() -> list[str]:
    if not CORPUS.is_dir():
        return []
    return sorted(p.name for p in CORPUS.iterdir() if (p / ".progress.md").is_file())


# -- the corpus ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", corpus_folders() or ["(no corpus)"])
def test_corpus_folder_imports_keeps_every_line_and_refuses_a_second_import(
        name: str, tmp_path: Path) -> None:
    if not CORPUS.is_dir():
        pytest.skip("the shared corpus is absent")
    spec = tmp_path / name
    shutil.copytree(CORPUS / name, spec)
    for path in [spec, *spec.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    original = (spec / ".progress.md").read_text(encoding="utf-8")
    proc = mdgrill("--json", "import-ralph", str(spec))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = as_json(proc)
    assert out["written"] is True
    result = (spec / ".progress.md").read_text(encoding="utf-8")
    assert result.startswith("---\nmdgrill: 1\n")
    assert_lines_kept(original, result)
    assert (spec / ".progress.ralph.md").read_text(encoding="utf-8") == original
    check_loaded(Progress(TextFile(result), "imported"))
    check = mdgrill("validate", str(spec))
    assert check.returncode == 0, check.stdout + check.stderr
    again = mdgrill("--json", "import-ralph", str(spec))
    assert again.returncode == 2
    assert as_json(again)["error"]["code"] == "ALREADY_IMPORTED"  # type: ignore[index]


def test_corpus_front_matter_keeps_the_users_keys(tmp_path: Path) -> None:
    source = CORPUS / "Tuarisa__valencia-where-when__pipeline"
    if not source.is_dir():
        pytest.skip("the shared corpus is absent")
    spec = tmp_path / "pipeline"
    shutil.copytree(source, spec)
    for path in spec.iterdir():
        path.chmod(0o644)
    assert mdgrill("import-ralph", str(spec)).returncode == 0
    text = (spec / ".progress.md").read_text(encoding="utf-8")
    head = text.split("\n---\n", 1)[0]
    for line in ("spec: pipeline", "basePath: specs/pipeline", "phase: research", "task: 0/0",
                 "updated: 2026-06-20T13:29:14Z"):
        assert line in head.split("\n")
    prog = Progress(TextFile(text), "p")
    assert prog.data["goal"] == ralph.goal_of({}, prog)[0]
    assert str(prog.data["goal"]).startswith("pipeline — должен быть пайплайн")


def test_corpus_grill_me_spec_reports_its_legacy_blocks(tmp_path: Path) -> None:
    source = CORPUS / "tzachbon__smart-ralph__adopt-grill-me-interview"
    if not source.is_dir():
        pytest.skip("the shared corpus is absent")
    spec = tmp_path / "adopt"
    shutil.copytree(source, spec)
    for path in spec.iterdir():
        path.chmod(0o644)
    out = as_json(mdgrill("--json", "import-ralph", "--dry-run", str(spec)))
    found = out["found"]
    assert isinstance(found, dict)
    assert found["legacy_blocks"] == ["Goal Interview (from start.md)",
                                      "Requirements Interview (from requirements.md)",
                                      "Tasks Interview (from tasks.md)",
                                      "Design Interview (from design.md)"]
    assert found["interview_format"] == {"Version": "1.0"}
    assert found["intent"]["Type"] == "GREENFIELD"  # type: ignore[index]
    assert any("no .ralph-state.json" in w for w in out["warnings"])  # type: ignore[union-attr]
    text = out["text"]
    assert isinstance(text, str) and "spec: adopt-grill-me-interview" in text


# -- our fixtures ------------------------------------------------------------------------


FIXTURE_NAMES = ["grill-complete", "quick-bypassed", "skill-load-match", "skill-load-stale",
                 "legacy-front-matter"]


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixture_imports_keeps_every_line_and_refuses_a_second_import(
        name: str, tmp_path: Path) -> None:
    spec = materialize(name, tmp_path / "repo")
    original = (spec / ".progress.md").read_text(encoding="utf-8")
    proc = mdgrill("--json", "import-ralph", str(spec))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = (spec / ".progress.md").read_text(encoding="utf-8")
    assert_lines_kept(original, result)
    check_loaded(Progress(TextFile(result), "imported"))
    check = mdgrill("validate", str(spec))
    assert check.returncode == 0, check.stdout + check.stderr
    again = mdgrill("import-ralph", str(spec))
    assert again.returncode == 2
    assert "ALREADY_IMPORTED" in again.stderr


def test_complete_grill_maps_the_interview_and_delegation_is_allowed(tmp_path: Path) -> None:
    spec = materialize("grill-complete", tmp_path / "repo")
    out = as_json(mdgrill("--json", "import-ralph", str(spec)))
    assert out["interview"] == "complete"
    found = out["found"]
    assert isinstance(found, dict)
    assert found["rounds"] == ["Goal Grill - Round 1", "Goal Grill - Round 2",
                               "Requirements Grill - Round 1"]
    assert found["decisions"] == {"by_id": 2, "by_topic": 3}
    assert list(found["confirmed"]) == ["Goal Grill - Confirmed",  # type: ignore[call-overload]
                                        "Requirements Grill - Confirmed"]
    prog = Progress(TextFile((spec / ".progress.md").read_text(encoding="utf-8")), "p")
    iv = prog.data["interview"]
    assert isinstance(iv, dict)
    assert (iv["id"], iv["phase"], iv["round"], iv["status"]) == \
        ("req-1", "requirements", 1, "complete")
    assert iv["asked"] == ["req-throttle", "req-expiry", "req-confirm"]
    assert iv["pending"] == []
    assert iv["approach"] == "Throttle per address; expired links fall back to the sign-in page"
    assert iv["confirmation"] == "approve-and-delegate"
    assert iv["context"] == [{"path": "research.md", "sha256": hashlib.sha256(
        (spec / "research.md").read_bytes()).hexdigest()}]
    assert prog.data["phase"] == "requirements" and prog.data["mode"] == "interactive"
    digest = as_json(mdgrill("--json", "digest", str(spec)))
    assert digest["context_digest"] == iv["context_digest"] and digest["stale"] is False
    allow = mdgrill("--json", "check-delegation", str(spec), "--phase", "requirements",
                    "--interview-id", "req-1")
    assert allow.returncode == 0, allow.stdout
    assert as_json(allow)["checked"] == "digest-only"


def test_a_stale_quick_flag_never_bypasses(tmp_path: Path) -> None:
    """The framework: "Natural-language requests, `-q`, stale booleans, and legacy malformed
    quick state do not bypass the gate." smart-ralph's quickMode imports as interactive."""
    spec = materialize("quick-bypassed", tmp_path / "repo")
    out = as_json(mdgrill("--json", "import-ralph", str(spec)))
    assert out["mode"] == "interactive" and out["interview"] == "none"
    assert any("quickMode" in w and "interactive" in w for w in out["warnings"])
    refused = mdgrill("--json", "check-delegation", str(spec), "--phase", "research",
                      "--interview-id", "research-1")
    assert refused.returncode == 3, refused.stdout
    assert as_json(refused)["error"]["code"] == "INTERVIEW_MISSING"


def test_matching_ralph_digest_is_reported_and_skills_come_along(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    spec = materialize("skill-load-match", root, git=True)
    proc = mdgrill("--json", "import-ralph", str(spec), env=git_env(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = as_json(proc)
    rd = out["ralph_digest"]
    assert isinstance(rd, dict)
    state = json.loads((spec / ".ralph-state.json").read_text(encoding="utf-8"))
    assert rd["recorded"] == state["phaseSkillLoad"]["contextDigest"]
    assert rd["recomputed"] == rd["recorded"] and rd["match"] is True
    assert rd["sources_moved"] is False
    warnings = out["warnings"]
    assert isinstance(warnings, list)
    assert any("interview-framework" in w and "repo-relative" in w for w in warnings)
    prog = Progress(TextFile((spec / ".progress.md").read_text(encoding="utf-8")), "p")
    skill_sha = hashlib.sha256(
        (root / ".agents/skills/checkout-domain/SKILL.md").read_bytes()).hexdigest()
    assert prog.data["skills"] == [{"name": "checkout-domain",
                                    "path": ".agents/skills/checkout-domain/SKILL.md",
                                    "sha256": skill_sha, "core": False, "status": "loaded",
                                    "errors": []}]
    assert prog.data["skill_manifest"] == {"phase": "design", "interview_id": "design-1",
                                           "discovery_revision": "rev-2"}
    iv = prog.data["interview"]
    assert isinstance(iv, dict)
    assert [c["path"] for c in iv["context"]] == ["specs/skill-load-match/requirements.md",
                                                  "specs/skill-load-match/research.md"]
    assert out["backup"] == "specs/skill-load-match/.progress.ralph.md"  # untracked in git
    # Inside git an imported approval is not an approval commit: the gate still refuses.
    gate = mdgrill("--json", "check-delegation", str(spec), "--phase", "design",
                   "--interview-id", "design-1", env=git_env(tmp_path))
    assert gate.returncode == 3
    assert as_json(gate)["error"]["code"] == "APPROVAL_NOT_RECORDED"  # type: ignore[index]


def test_stale_ralph_digest_keeps_the_interview_stale(tmp_path: Path) -> None:
    spec = materialize("skill-load-stale", tmp_path / "repo")
    out = as_json(mdgrill("--json", "import-ralph", str(spec)))
    rd = out["ralph_digest"]
    assert isinstance(rd, dict)
    expected = independent_ralph_digest("design", "Record every admin action in an audit log.",
                                        [Path(os.path.realpath(spec / "requirements.md"))])
    assert rd["recomputed"] == expected and rd["match"] is False and rd["sources_moved"] is True
    prog = Progress(TextFile((spec / ".progress.md").read_text(encoding="utf-8")), "p")
    iv = prog.data["interview"]
    assert isinstance(iv, dict) and iv["context_digest"] == rd["recorded"]
    gate = mdgrill("--json", "check-delegation", str(spec), "--phase", "design",
                   "--interview-id", "design-7")
    assert gate.returncode == 3
    assert as_json(gate)["error"]["code"] == "CONTEXT_STALE"  # type: ignore[index]


def test_front_matter_collision_keeps_the_users_value(tmp_path: Path) -> None:
    spec = materialize("legacy-front-matter", tmp_path / "repo")
    out = as_json(mdgrill("--json", "import-ralph", str(spec)))
    assert out["overridden"] == {"phase": "execution"}
    text = (spec / ".progress.md").read_text(encoding="utf-8")
    prog = Progress(TextFile(text), "p")
    assert prog.data["phase"] == "tasks"
    assert prog.data["ralph"] == {"phase": "execution"}
    assert prog.data["task"] == "3/12" and prog.data["spec"] == "search-filters"
    assert "updated: 2026-05-02T10:00:00Z" in text.split("\n")
    assert prog.data["goal"] == "Let shoppers filter search results by price and brand."
    assert [b.kind for b in prog.blocks] == ["legacy", "legacy"]


def test_dry_run_prints_the_result_and_writes_nothing(tmp_path: Path) -> None:
    spec = materialize("grill-complete", tmp_path / "repo")
    before = (spec / ".progress.md").read_bytes()
    dry = mdgrill("import-ralph", "--dry-run", str(spec))
    assert dry.returncode == 0
    assert (spec / ".progress.md").read_bytes() == before
    assert not (spec / ".progress.ralph.md").exists()
    diff = mdgrill("import-ralph", "--dry-run", "--diff", str(spec))
    assert diff.stdout.startswith("--- a/")
    assert "+mdgrill: 1\n" in diff.stdout
    assert mdgrill("import-ralph", str(spec)).returncode == 0
    assert (spec / ".progress.md").read_text(encoding="utf-8") == dry.stdout


def test_bad_state_json_is_refused_and_nothing_written(tmp_path: Path) -> None:
    spec = materialize("grill-complete", tmp_path / "repo")
    (spec / ".ralph-state.json").write_text("{not json", encoding="utf-8")
    before = (spec / ".progress.md").read_bytes()
    proc = mdgrill("--json", "import-ralph", str(spec))
    assert proc.returncode == 2
    assert as_json(proc)["error"]["code"] == "INVALID_JSON"  # type: ignore[index]
    assert (spec / ".progress.md").read_bytes() == before


def test_invalid_interview_is_refused(tmp_path: Path) -> None:
    spec = materialize("quick-bypassed", tmp_path / "repo")
    state = json.loads((spec / ".ralph-state.json").read_text(encoding="utf-8"))
    state["quickMode"] = False  # bypassed_quick without quick mode: smart-ralph refuses it too
    (spec / ".ralph-state.json").write_text(json.dumps(state), encoding="utf-8")
    proc = mdgrill("--json", "import-ralph", str(spec))
    assert proc.returncode == 2
    assert as_json(proc)["error"]["code"] == "QUICK_NOT_AUTHORIZED"  # type: ignore[index]


def test_crlf_file_stays_crlf(tmp_path: Path) -> None:
    spec = tmp_path / "crlf"
    spec.mkdir()
    (spec / ".progress.md").write_bytes(b"# Progress: crlf\r\n\r\n## Original Goal\r\nShip it."
                                        b"\r\n\r\n## Interview Responses\r\n\r\n### Goal Grill"
                                        b" - Round 1\r\n- Decisions: x -> y\r\n")
    assert mdgrill("import-ralph", str(spec)).returncode == 0
    data = (spec / ".progress.md").read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n")
    assert data.startswith(b"---\r\nmdgrill: 1\r\nspec: crlf\r\ngoal: Ship it.\r\n")


LINE = st.one_of(
    st.sampled_from(["", "## Interview Responses", "## Original Goal", "### Goal Grill - Round 1",
                     "- Decisions: a -> b", "```", "<!-- x", "-->", "# Progress: p",
                     "### Design Interview (from design.md)", "text: with colon", "  - nested"]),
    st.text(alphabet="ab #-*:`>\t", max_size=12))


@settings(max_examples=150, deadline=None)
@given(st.lists(LINE, max_size=30))
def test_with_record_keeps_every_line_and_reads_back(lines: list[str]) -> None:
    if lines and lines[0].strip() == "---":
        lines = ["text", *lines]
    original = "\n".join(lines) + "\n"
    prog = Progress(TextFile(original), "p")
    text = with_record(prog, {"mdgrill": 1, "spec": "p", "mode": "interactive",
                               "interview": None, "skills": []})
    assert ralph.first_missing_line(original, text) is None
    assert text.endswith(original)
    check_loaded(Progress(TextFile(text), "p"))
