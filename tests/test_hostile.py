"""Hostile input: refused with a clear error, nothing written, nothing outside read.

Each case starts from a real spec in a real repository, plants the hostile input, runs the
CLI, and checks the exit code, the error code, that every file in the repository (and the
decoy folder outside it) kept its bytes and mtime, and that no traceback was printed.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest
from test_reliability import MDGRILL, make_repo, ok

from mdgrill.core.machine import MAX_DECISIONS
from mdgrill.formats.textfile import MAX_FILE_BYTES

SPEC = "specs/s"
PROGRESS = f"{SPEC}/.progress.md"


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, dict[str, str], Path]:
    """A repository with one spec (round 1 open, D1 and D2 pending) and a decoy folder outside."""
    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", SPEC, "--goal", "Hostile input")
    ok(repo, env, "begin-interview", SPEC, "--phase", "start", "--interview-id", "s1")
    ok(repo, env, "open-frontier", SPEC, "--round", "1", "--decision-id", "D1",
       "--decision-id", "D2")
    ok(repo, env, "term", "add", "Order", "--definition", "A request to buy.")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "CONTEXT.md").write_text("# Secret\n\n## Language\n\n**Secret**:\nKeep out.\n")
    (outside / ".progress.md").write_bytes((repo / PROGRESS).read_bytes())
    return repo, env, outside


def snapshot(*folders: Path) -> dict[str, tuple[str, int]]:
    out = {}
    for folder in folders:
        for path in folder.rglob("*"):
            if ".git" in path.parts or path.is_symlink() or not path.is_file():
                continue
            if path.stat().st_size > MAX_FILE_BYTES:  # the sparse giant: size and mtime only
                out[str(path)] = (str(path.stat().st_size), path.stat().st_mtime_ns)
            else:
                out[str(path)] = (hashlib.sha256(path.read_bytes()).hexdigest(),
                                  path.stat().st_mtime_ns)
    return out


def cli(repo: Path, env: dict[str, str], *args: str) -> tuple[int, dict[str, object], str]:
    proc = subprocess.run([*MDGRILL, "--json", *args], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=60)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def error_code(payload: dict[str, object]) -> str:
    error = payload.get("error")
    assert isinstance(error, dict), payload
    return str(error["code"])


def diag_codes(payload: dict[str, object]) -> set[str]:
    diagnostics = payload["diagnostics"]
    assert isinstance(diagnostics, list)
    assert all(isinstance(d["line"], int) and d["line"] >= 1 for d in diagnostics)
    return {d["code"] for d in diagnostics if d["severity"] == "error"}


def plant_front_matter(repo: Path, extra: bytes) -> None:
    path = repo / PROGRESS
    path.write_bytes(path.read_bytes().replace(b"mdgrill: 1\n", b"mdgrill: 1\n" + extra + b"\n",
                                               1))


HOSTILE_FRONT_MATTER = {
    "python-object-tag": b'x: !!python/object/apply:os.system ["touch PWNED"]',
    "python-name-tag": b"x: !!python/name:os.system",
    "billion-laughs": (b"a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
                       b"b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                       b"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                       b"d: [*c, *c, *c, *c, *c, *c, *c, *c, *c]"),
    "merge-key-alias": b"base: &b {k: v}\nother:\n  <<: *b",
    "deep-flow-lists": b"x: " + b"[" * 5000 + b"]" * 5000,
    "deep-flow-maps": b"x: " + b"{a: " * 3000 + b"1" + b"}" * 3000,
    "deep-block-lists": b"x:\n" + b"".join(b"  " * i + b"- a\n" + b"  " * i + b"-\n"
                                          for i in range(1, 200)),
    "duplicate-key": b"mdgrill: 1",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_FRONT_MATTER))
def test_hostile_front_matter(world: tuple[Path, dict[str, str], Path], name: str) -> None:
    repo, env, outside = world
    plant_front_matter(repo, HOSTILE_FRONT_MATTER[name])
    before = snapshot(repo, outside)
    code, payload, _ = cli(repo, env, "record-answer", SPEC, "--decision-id", "D1", "--answer",
                           "External customers")
    assert code == 2 and error_code(payload) == "MALFORMED_FILE"
    code, payload, _ = cli(repo, env, "validate", SPEC)
    assert code == 1 and diag_codes(payload) == {"MALFORMED_FILE"}
    assert snapshot(repo, outside) == before
    assert not (repo / "PWNED").exists()


def test_giant_file_is_refused_without_reading_it(
        world: tuple[Path, dict[str, str], Path]) -> None:
    repo, env, outside = world
    for rel in (PROGRESS, "CONTEXT.md"):
        with open(repo / rel, "r+b") as handle:  # sparse: 200 MB in no time and no disk
            handle.truncate(200 * 1024 * 1024)
    before = snapshot(repo, outside)
    code, payload, _ = cli(repo, env, "record-answer", SPEC, "--decision-id", "D1", "--answer",
                           "External customers")
    assert code == 2 and error_code(payload) == "FILE_TOO_LARGE"
    code, payload, _ = cli(repo, env, "validate")
    assert code == 1 and diag_codes(payload) == {"FILE_TOO_LARGE"}
    code, payload, _ = cli(repo, env, "term", "add", "Cart", "--definition", "A basket.")
    assert code == 2 and error_code(payload) == "FILE_TOO_LARGE"
    # (the size is checked on the file's stat, before it is opened; how fast that is
    # belongs in bench/, not in a test a loaded machine would fail)
    assert snapshot(repo, outside) == before


@pytest.mark.parametrize(("name", "data", "code"), [
    ("nul-byte", b"---\nmdgrill: 1\n---\n# T\n\x00\n", "MALFORMED_FILE"),
    ("invalid-utf8", b"---\nmdgrill: 1\n---\n# T\n\n\xff\xfe broken\n", "MALFORMED_FILE"),
    ("utf16", "---\nmdgrill: 1\n---\n".encode("utf-16"), "MALFORMED_FILE"),
    ("unclosed-front-matter", b"---\nmdgrill: 1\n# T\n", "MALFORMED_FILE"),
])
def test_binary_and_broken_files(world: tuple[Path, dict[str, str], Path], name: str,
                                 data: bytes, code: str) -> None:
    repo, env, outside = world
    (repo / PROGRESS).write_bytes(data)
    (repo / "CONTEXT.md").write_bytes(data.replace(b"mdgrill: 1", b"title: x"))
    before = snapshot(repo, outside)
    rc, payload, _ = cli(repo, env, "record-answer", SPEC, "--decision-id", "D1", "--answer",
                         "External customers")
    assert rc == 2 and error_code(payload) == code
    rc, payload, _ = cli(repo, env, "validate", SPEC)
    assert rc == 1 and code in diag_codes(payload)
    if name != "unclosed-front-matter":
        rc, payload, _ = cli(repo, env, "term", "add", "Cart", "--definition", "A basket.")
        assert rc == 2 and error_code(payload) == code
    assert snapshot(repo, outside) == before


def write_map(repo: Path, target: str) -> None:
    (repo / "CONTEXT-MAP.md").write_text(
        f"# Map\n\n## Contexts\n\n- [Sales]({target}): where orders come from\n")


@pytest.mark.parametrize("target", ["../outside/CONTEXT.md", "docs/../../outside/CONTEXT.md",
                                    "ABSOLUTE", "link/CONTEXT.md", "linkfile.md"])
def test_context_map_paths_out_of_the_repository(world: tuple[Path, dict[str, str], Path],
                                                 target: str) -> None:
    repo, env, outside = world
    os.symlink(outside, repo / "link")
    os.symlink(outside / "CONTEXT.md", repo / "linkfile.md")
    if target == "ABSOLUTE":
        target = str(outside / "CONTEXT.md")
    write_map(repo, target)
    before = snapshot(repo, outside)
    code, payload, _ = cli(repo, env, "term", "add", "Lead", "--definition", "A maybe-buyer.")
    assert code == 2 and error_code(payload) == "PATH_OUTSIDE_REPOSITORY"
    code, payload, _ = cli(repo, env, "validate")
    assert code == 1 and "MAP_PATH_ESCAPES" in diag_codes(payload)
    assert snapshot(repo, outside) == before


def test_spec_folder_symlinked_out_of_the_repository(
        world: tuple[Path, dict[str, str], Path]) -> None:
    repo, env, outside = world
    os.symlink(outside, repo / "specs" / "escape")
    os.symlink(outside / ".progress.md", repo / "specs" / "s" / "linked.md")
    before = snapshot(repo, outside)
    for spec in ("specs/escape", "specs/escape/.progress.md"):
        code, payload, _ = cli(repo, env, "record-answer", spec, "--decision-id", "D1",
                               "--answer", "External customers")
        assert code == 2 and error_code(payload) == "PATH_OUTSIDE_REPOSITORY"
        code, payload, _ = cli(repo, env, "term", "add", "Lead", "--definition", "A buyer.",
                               "--spec", spec)
        assert code == 2 and error_code(payload) == "PATH_OUTSIDE_REPOSITORY"
    code, payload, _ = cli(repo, env, "validate", "specs/escape")
    assert code == 1 and diag_codes(payload) == {"PATH_OUTSIDE_REPOSITORY"}
    code, payload, _ = cli(repo, env, "init", "specs/escape/sub", "--goal", "Escape")
    assert code == 2 and error_code(payload) == "PATH_OUTSIDE_REPOSITORY"
    assert not (outside / "sub").exists()
    assert snapshot(repo, outside) == before


def test_skill_manifest_paths_out_of_the_repository(
        world: tuple[Path, dict[str, str], Path]) -> None:
    repo, env, outside = world
    secret = outside / "CONTEXT.md"
    sha = hashlib.sha256(secret.read_bytes()).hexdigest()
    before = snapshot(repo, outside)
    for path in ("../outside/CONTEXT.md", str(secret)):
        manifest = {"phase": "start", "interview_id": "s1", "discovery_revision": 1,
                    "skills": [{"name": "x", "path": path, "sha256": sha, "core": True,
                                "status": "loaded", "errors": []}]}
        proc = subprocess.run([*MDGRILL, "--json", "record-skill-load", SPEC, "--input", "-"],
                              cwd=repo, env=env, input=json.dumps(manifest), text=True,
                              capture_output=True, timeout=60)
        assert proc.returncode == 2, proc.stdout
        assert "Traceback" not in proc.stderr
    assert snapshot(repo, outside) == before


INJECTIONS = [
    "x\n### Requirements Grill - Confirmed",
    "x\r\n## Interview Responses\r\n### Goal Grill - Round 9",
    "x\u2028### Goal Grill - Confirmed",
    "x\u0085- Decisions: D2 -> forged",
    "x\nMdgrill-Transition: approve",
    "x\n---\nstatus: complete\n---",
]


@pytest.mark.parametrize("text", INJECTIONS)
def test_no_heading_or_line_injection_through_answers(
        world: tuple[Path, dict[str, str], Path], text: str) -> None:
    repo, env, _ = world
    code, payload, _ = cli(repo, env, "record-answer", SPEC, "--decision-id", "D1", "--answer",
                           text)
    assert code == 0, payload
    lines = (repo / PROGRESS).read_text().splitlines()
    decision = [line for line in lines if line.startswith("- Decisions: D1 -> ")]
    assert len(decision) == 1 and decision[0].startswith("- Decisions: D1 -> x ")
    headings = [line for line in lines if line.startswith("#")]
    assert headings == ["# S", "## Goal", "## Design Tree", "## Interview Responses",
                        "### Goal Grill - Round 1"]
    assert not any(line.startswith("- Decisions: D2") for line in lines)
    code, payload, _ = cli(repo, env, "validate", SPEC)
    assert code == 0, payload


@pytest.mark.parametrize("text", ["\x1b[31mred", "bell\x07", "del\x7f"])
def test_control_characters_are_refused(world: tuple[Path, dict[str, str], Path],
                                        text: str) -> None:
    repo, env, outside = world
    before = snapshot(repo, outside)
    for args in (["record-answer", SPEC, "--decision-id", "D1", "--answer", text],
                 ["record-fact", SPEC, text],
                 ["term", "add", "Cart", "--definition", text],
                 ["term", "add", text, "--definition", "A basket."]):
        code, payload, _ = cli(repo, env, *args)
        assert code == 2 and error_code(payload) in ("INVALID_INPUT", "INVALID_TERM"), payload
    assert snapshot(repo, outside) == before


def test_no_trailer_injection_through_approach_or_spec_name(
        world: tuple[Path, dict[str, str], Path]) -> None:
    repo, env, _ = world
    ok(repo, env, "record-answer", SPEC, "--decision-id", "D1", "--answer", "Customers")
    ok(repo, env, "record-answer", SPEC, "--decision-id", "D2", "--answer", "Fifteen minutes")
    approach = "Ship it\nMdgrill-Transition: approve\n\nMdgrill-Interview: other"
    ok(repo, env, "await-confirmation", SPEC, "--decision-id", "C1", "--approach", approach)
    ok(repo, env, "confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate")
    message = subprocess.run(["git", "log", "-1", "--format=%B"], cwd=repo, env=env,
                             capture_output=True, text=True, check=True).stdout
    assert message.count("Mdgrill-Transition:") == 1
    assert message.count("Mdgrill-Interview: s1") == 1 and "other" not in message
    text = (repo / PROGRESS).read_text()
    assert "- Approach: Ship it Mdgrill-Transition: approve Mdgrill-Interview: other" in text
    code, payload, _ = cli(repo, env, "init", "specs/x\nMdgrill-Transition: approve",
                           "--goal", "Injected")
    assert code == 2 and error_code(payload) == "INVALID_ID"


def test_decision_limit_both_sides(tmp_path: Path) -> None:
    """MAX_DECISIONS decisions are accepted; one more is refused with TOO_MANY_DECISIONS."""
    from mdgrill.core import machine
    from mdgrill.shell import store
    from mdgrill.shell.session import transaction

    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", SPEC, "--goal", "Many decisions")
    ok(repo, env, "begin-interview", SPEC, "--phase", "start", "--interview-id", "s1")
    spec = store.resolve_spec(str(repo / SPEC))
    ids = [f"D{i}" for i in range(MAX_DECISIONS)]
    transaction(spec, lambda prog: machine.open_frontier(prog.data, prog, 1, ids))
    ok(repo, env, "record-answer", SPEC, "--decision-id", f"D{MAX_DECISIONS - 1}", "--answer",
       "the last one")
    before = (repo / PROGRESS).read_bytes()
    code, payload, _ = cli(repo, env, "open-frontier", SPEC, "--round", "1", "--decision-id",
                           "Extra")
    assert code == 2 and error_code(payload) == "TOO_MANY_DECISIONS"
    assert (repo / PROGRESS).read_bytes() == before
    code, payload, _ = cli(repo, env, "validate", SPEC)
    assert code == 0
