"""smart-ralph 5 (issue 20, part 1): `import-ralph` reads a folder whose durable state is the
tracked `progress.md`, alone or beside the older `.progress.md`; it keeps every line,
changes nothing smart-ralph owns, and records `approved_through` as history, not as an
approval."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from test_reliability import MDGRILL, make_repo
from test_reliability import ok_json as ok
from test_reliability import run_json as run

from mdgrill.formats.textfile import decode
from mdgrill.integrations import ralph

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures" / "ralph5"
# the real-world corpus beside the checkout (absent on a lone clone: its tests skip)
CORPUS = HERE.parents[1] / "shared" / "corpus" / "ralph"
NO_CORPUS = f"the real-world corpus {CORPUS} is not beside this checkout"
CORPUS_FOLDERS = [pytest.param(name) for name in sorted(p.name for p in CORPUS.iterdir())] \
    if CORPUS.is_dir() else [pytest.param("", marks=pytest.mark.skip(reason=NO_CORPUS))]
# an older folder: one shipped with the tests (our own words), one of the corpus when present
LEGACY = [pytest.param(FIXTURES / "legacy-interview", id="fixture"),
          pytest.param(CORPUS / "tzachbon__smart-ralph__adopt-grill-me-interview", id="corpus",
                       marks=pytest.mark.skipif(not CORPUS.is_dir(), reason=NO_CORPUS))]
# smart-ralph 5's own setup ignores the legacy file in every spec folder
GITIGNORE = "specs/.current-spec\n**/.progress.md\n"


def project(tmp_path: Path, *names: str) -> tuple[Path, dict[str, str]]:
    """A repository set up as smart-ralph 5 sets one up, holding the fixture specs."""
    repo, env = make_repo(tmp_path)
    (repo / ".gitignore").write_text(GITIGNORE)
    for name in names:
        shutil.copytree(FIXTURES / name, repo / "specs" / name)
    commit(repo, env, "smart-ralph specs")
    return repo, env


def commit(repo: Path, env: dict[str, str], message: str) -> None:
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    subprocess.run(["git", "commit", "-qm", message], cwd=repo, env=env, check=True)


def test_a_v5_folder_gets_its_own_interview_file_and_progress_md_is_untouched(
        tmp_path: Path) -> None:
    repo, env = project(tmp_path, "digest-emails")
    spec = "specs/digest-emails"
    canonical = (repo / spec / "progress.md").read_bytes()
    out = ok(repo, env, "import-ralph", spec)
    assert out["layout"] == "5" and out["phase"] == "tasks"
    assert (repo / spec / "progress.md").read_bytes() == canonical
    assert out["progress_md"] == {"path": f"{spec}/progress.md", "spec": "digest-emails",
                                  "phase": "tasks", "approved_through": "design",
                                  "updated": "2026-11-20T09:41:00Z",
                                  "recorded_as": "Tasks Grill - Imported"}
    text = (repo / spec / ".progress.md").read_text()
    assert ("### Tasks Grill - Imported\n- Source: specs/digest-emails/progress.md (smart-ralph "
            "5)\n- Phase: tasks\n- Approved through: design\n- Updated: 2026-11-20T09:41:00Z\n"
            f"- Note: {ralph.IMPORTED_NOTE}\n") in text
    assert "goal: Send each workspace member one daily digest email" in text
    assert run(repo, env, "validate", spec)[0] == 0
    # the ignore rule smart-ralph 5 writes would make every approval commit fail: said now
    assert any("!specs/digest-emails/.progress.md" in w
               for w in out["warnings"])  # type: ignore[union-attr]
    code, again = run(repo, env, "import-ralph", spec)
    assert code == 2 and again["error"]["code"] == "ALREADY_IMPORTED"  # type: ignore[index]


def test_approved_through_is_history_not_an_approval(tmp_path: Path) -> None:
    """Framework: "Only the explicit approval selection completes the gate." smart-ralph's
    `approved_through: design` lets no design delegation through, and the tasks interview
    begins under mdgrill's gate, counting its rounds from 1."""
    repo, env = project(tmp_path, "digest-emails")
    spec = "specs/digest-emails"
    proc = subprocess.run([*MDGRILL, "import-ralph", spec], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=60)
    assert "mdgrill vouches for no approval it did not see" in proc.stdout
    assert f"mdgrill begin-interview {spec} --phase tasks" in proc.stdout
    code, _ = run(repo, env, "check-delegation", spec, "--phase", "design",
                  "--interview-id", "design")
    assert code == 3
    subprocess.run(["git", "add", "-f", f"{spec}/.progress.md"], cwd=repo, env=env, check=True)
    commit(repo, env, "mdgrill import")
    ok(repo, env, "begin-interview", spec, "--phase", "tasks", "--interview-id", "t1")
    ok(repo, env, "node", "add", spec, "D1", "--title", "One task per mailer change?",
       "--option", "One task per change", "--option", "One task for all", "--recommend", "1",
       "--rationale", "small reviews", "--tradeoffs", "more tasks to track")
    ok(repo, env, "open-frontier", spec, "--round", "1", "--decision-id", "D1")
    ok(repo, env, "record-answer", spec, "--decision-id", "D1", "--answer", "One task per change")
    assert run(repo, env, "validate", spec)[0] == 0
    code, _ = run(repo, env, "check-delegation", spec, "--phase", "tasks", "--interview-id", "t1")
    assert code == 3  # answered, not approved
    ok(repo, env, "await-confirmation", spec, "--decision-id", "C1", "--approach", "One each")
    ok(repo, env, "confirm", spec, "--decision-id", "C1", "--source", "approve-and-delegate",
       "--reply", "Approve and delegate")
    assert ok(repo, env, "check-delegation", spec, "--phase", "tasks",
              "--interview-id", "t1")["decision"] == "allow"


def test_blocked_takes_the_phase_after_the_last_approval(tmp_path: Path) -> None:
    repo, env = project(tmp_path, "blocked-export")
    spec = "specs/blocked-export"
    out = ok(repo, env, "import-ralph", spec)
    assert out["phase"] == "design"
    text = (repo / spec / ".progress.md").read_text()
    # the date-time as smart-ralph wrote it, not YAML's reading of it
    assert "- Updated: 2026-11-28T16:05:00Z\n" in text and "- Phase: blocked\n" in text
    assert run(repo, env, "validate", spec)[0] == 0


def migrated(tmp_path: Path, source: Path) -> tuple[Path, dict[str, str], Path]:
    """smart-ralph 5 migrates by writing progress.md beside the older file and leaving that
    one in place: an older folder (`source`), and the progress.md it would add."""
    repo, env = make_repo(tmp_path)
    (repo / ".gitignore").write_text(GITIGNORE)
    folder = repo / "specs" / "adopt-grill-me-interview"
    shutil.copytree(source, folder)
    for path in folder.iterdir():
        path.chmod(0o644)
    legacy = (folder / ".progress.md").read_text()
    goal = legacy.split("## Original Goal\n", 1)[1].strip().split("\n", 1)[0] \
        if "## Original Goal\n" in legacy else "Carry on with the spec"
    template = (FIXTURES / "adopt-grill-me-interview.progress.md").read_text()
    (folder / "progress.md").write_text(template.replace("@GOAL@", goal or "Carry on"))
    commit(repo, env, "smart-ralph 5 migration")
    return repo, env, folder


@pytest.mark.parametrize("name", CORPUS_FOLDERS)
def test_every_corpus_folder_migrated_to_5_imports_keeping_every_line(tmp_path: Path,
                                                                      name: str) -> None:
    repo, env, folder = migrated(tmp_path, CORPUS / name)
    legacy = (folder / ".progress.md").read_bytes()
    canonical = (folder / "progress.md").read_bytes()
    code, out = run(repo, env, "import-ralph", "specs/adopt-grill-me-interview", "--goal", "g")
    assert code == 0, out
    assert out["layout"] == "5+legacy" and out["phase"] == "design"
    assert (folder / "progress.md").read_bytes() == canonical
    body = ralph.body_text(decode(legacy), "x")  # a front matter of its own is merged into
    assert ralph.first_missing_line(body, (folder / ".progress.md").read_text()) is None
    assert run(repo, env, "validate", "specs/adopt-grill-me-interview")[0] == 0


@pytest.mark.parametrize("source", LEGACY)
def test_a_folder_holding_both_keeps_every_line_of_the_older_file(tmp_path: Path,
                                                                  source: Path) -> None:
    repo, env, folder = migrated(tmp_path, source)
    legacy = (folder / ".progress.md").read_bytes()
    canonical = (folder / "progress.md").read_bytes()
    spec = "specs/adopt-grill-me-interview"
    dry = ok(repo, env, "import-ralph", spec, "--dry-run")
    assert dry["written"] is False and (folder / ".progress.md").read_bytes() == legacy
    out = ok(repo, env, "import-ralph", spec)
    assert out["layout"] == "5+legacy" and out["phase"] == "design"
    assert (folder / "progress.md").read_bytes() == canonical
    # the older file is ignored by git, so its bytes are kept beside it
    assert (folder / ".progress.ralph.md").read_bytes() == legacy
    after = (folder / ".progress.md").read_text()
    assert ralph.first_missing_line(legacy.decode(), after) is None  # every line kept
    log = after.split("## Interview Responses", 1)[1]
    assert log.index("### Design Interview (from design.md)") < \
        log.index("### Design Grill - Imported") < log.index("## Completed Tasks")
    assert run(repo, env, "validate", spec)[0] == 0
    assert decode((folder / ".progress.md").read_bytes()).newline == "\n"


def test_progress_md_wins_over_the_adapter_state(tmp_path: Path) -> None:
    repo, env = project(tmp_path, "digest-emails")
    state = repo / "specs" / "digest-emails" / ".ralph-state.json"
    state.write_text(state.read_text().replace('"phase": "tasks"', '"phase": "requirements"'))
    out = ok(repo, env, "import-ralph", "specs/digest-emails")
    assert out["phase"] == "tasks"
    assert any("took tasks, from progress.md" in w
               for w in out["warnings"])  # type: ignore[union-attr]


def test_a_folder_with_neither_file_is_refused(tmp_path: Path) -> None:
    repo, env = make_repo(tmp_path)
    (repo / "specs" / "empty").mkdir(parents=True)
    code, out = run(repo, env, "import-ralph", "specs/empty")
    assert code == 2 and out["error"]["code"] == "NOT_FOUND"  # type: ignore[index]
    assert not (repo / "specs" / "empty" / ".progress.md").exists()
