"""`mdgrill validate` through the installed CLI: paths, output, exit codes, bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

Run = Callable[..., tuple[int, str, str]]  # the `mdgrill` fixture of conftest.py

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def make_spec(mdgrill: Run, root: Path, name: str = "login") -> Path:
    code, _, err = mdgrill("--root", str(root), "init", str(root / "specs" / name),
                           "--goal", "Let customers sign in with a link.")
    assert code == 0, err
    return root / "specs" / name / ".progress.md"


def snapshot(top: Path) -> dict[str, tuple[bytes, int]]:
    out = {}
    for dirpath, _, files in os.walk(top):
        for name in files:
            p = Path(dirpath) / name
            if p.is_file() and p.stat().st_size < 1_000_000:
                out[str(p)] = (p.read_bytes(), p.stat().st_mtime_ns)
            elif p.is_file():
                out[str(p)] = (b"", p.stat().st_mtime_ns)
    return out


def test_a_clean_spec_exits_0_with_a_summary(mdgrill: Run, repo: Path) -> None:
    make_spec(mdgrill, repo)
    code, out, err = mdgrill("validate", "specs/login", cwd=repo)
    assert (code, out, err) == (0, "", "0 errors, 0 warnings in 1 file\n")


def test_default_is_the_repository_root(mdgrill: Run, repo: Path) -> None:
    make_spec(mdgrill, repo, "a")
    make_spec(mdgrill, repo, "b")
    (repo / "specs" / "a" / "deep").mkdir()
    code, _, err = mdgrill("validate", cwd=repo / "specs" / "a" / "deep")
    assert (code, err) == (0, "0 errors, 0 warnings in 2 files\n")



# What no walk goes into (shell/walk.py): hidden folders, tools' folders by name, and a Python
# environment of any name (it holds `pyvenv.cfg`, or `conda-meta` for conda's).
SKIPPED = ("venv/lib/pkg", ".venv/lib", "node_modules/x", "__pycache__/y", "tools/myenv/lib",
           "envs/base/lib", "site-packages/z", ".tox/py311")


def _skipped_folders_with_broken_files(root: Path) -> None:
    (root / "tools" / "myenv").mkdir(parents=True)
    (root / "tools" / "myenv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "envs" / "base" / "conda-meta").mkdir(parents=True)
    for folder in SKIPPED:
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / ".progress.md").write_text("broken")
        (root / folder / "CONTEXT.md").write_text("<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n")


def test_validate_and_lint_skip_environments_and_tools_folders(mdgrill: Run, repo: Path) -> None:
    make_spec(mdgrill, repo)
    _skipped_folders_with_broken_files(repo)
    code, out, err = mdgrill("validate", str(repo), cwd=repo)
    assert (code, out, err) == (0, "", "0 errors, 0 warnings in 1 file\n")
    code, out, err = mdgrill("--json", "lint", cwd=repo)
    assert code == 0, out + err
    assert json.loads(out)["diagnostics"] == []
    # the same folders, named on the command line, are checked: the skip list is for walks
    code, out, _ = mdgrill("validate", str(repo / "venv" / "lib" / "pkg"), cwd=repo)
    assert code == 1 and "venv/lib/pkg/.progress.md" in out


def test_walk_skips_git_node_modules_and_hidden_folders(mdgrill: Run, repo: Path) -> None:
    make_spec(mdgrill, repo)
    for hidden in ("node_modules/x", ".cache/y", ".git/z"):
        (repo / hidden).mkdir(parents=True)
        (repo / hidden / ".progress.md").write_text("broken")
    code, out, err = mdgrill("validate", str(repo), cwd=repo)
    assert (code, out, err) == (0, "", "0 errors, 0 warnings in 1 file\n")


def test_errors_exit_1_sorted_in_editor_format(mdgrill: Run, repo: Path) -> None:
    path = make_spec(mdgrill, repo)
    text = path.read_text().replace(
        "## Design Tree\n",
        "## Design Tree\n\n### D1: Q\n- Sectoin: x\n- Depends on: D9\n\n### D1: Again\n")
    path.write_text(text)
    code, out, err = mdgrill("validate", "specs/login/.progress.md", cwd=repo)
    assert code == 1
    lines = out.splitlines()
    assert [line.split(": ")[1] for line in lines] == [
        "warning UNKNOWN_NODE_KEY", "error MISSING_REFERENCE", "error DUPLICATE_ID"]
    assert lines[1] == ("specs/login/.progress.md:21:1: error MISSING_REFERENCE: D1 depends on "
                        "D9, which does not exist: add a node for D9 or fix the reference")
    assert err == "2 errors, 1 warning in 1 file\n"


def test_warnings_alone_exit_0(mdgrill: Run, repo: Path) -> None:
    path = make_spec(mdgrill, repo)
    path.write_text(path.read_text().replace("## Goal\n", "## Aim\n"))
    code, out, err = mdgrill("validate", cwd=repo)
    assert code == 0
    assert "warning MISSING_GOAL" in out
    assert err == "0 errors, 1 warning in 1 file\n"


def test_json_output(mdgrill: Run, repo: Path) -> None:
    path = make_spec(mdgrill, repo)
    path.write_text(path.read_text() + "\n## Design Tree\n")
    code, out, err = mdgrill("--json", "validate", cwd=repo)
    assert code == 1 and err == ""
    payload = json.loads(out)
    assert payload["ok"] is False
    assert (payload["files"], payload["errors"], payload["warnings"]) == (1, 1, 0)
    d = payload["diagnostics"][0]
    assert d["code"] == "DUPLICATE_SECTION" and d["severity"] == "error"
    assert d["path"] == "specs/login/.progress.md" and d["col"] == 1


def test_a_missing_path_exits_2(mdgrill: Run, repo: Path) -> None:
    code, out, err = mdgrill("validate", "specs/nope", cwd=repo)
    assert (code, out) == (2, "")
    assert err.startswith("mdgrill: error NOT_FOUND: specs/nope does not exist")


@pytest.mark.parametrize("content,code_word,line", [
    (b"---\nmdgrill: 1\ngoal: [x\nphase: start\n---\n", "MALFORMED_FILE", "4:6"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "MALFORMED_FILE", "3:1"),
    (b"---\nmdgrill: 1\ngoal: \xff\xfe\n---\n", "MALFORMED_FILE", "3:7"),
    (b"", "EMPTY_FILE", "1:1"),
])
def test_bad_files_are_diagnostics_not_tracebacks(mdgrill: Run, repo: Path, content: bytes,
                                                  code_word: str, line: str) -> None:
    spec = repo / "specs" / "bad"
    spec.mkdir(parents=True)
    (spec / ".progress.md").write_bytes(content)
    before = snapshot(repo)
    code, out, err = mdgrill("validate", "specs/bad", cwd=repo)
    assert code == 1
    assert out.startswith(f"specs/bad/.progress.md:{line}: error {code_word}: ")
    assert "Traceback" not in err
    assert snapshot(repo) == before


def test_a_file_over_the_size_limit(mdgrill: Run, repo: Path) -> None:
    spec = repo / "specs" / "huge"
    spec.mkdir(parents=True)
    with open(spec / ".progress.md", "wb") as handle:
        chunk = b"a" * (1 << 20)
        for _ in range(70):
            handle.write(chunk)
    mtime = (spec / ".progress.md").stat().st_mtime_ns
    code, out, err = mdgrill("validate", "specs/huge", cwd=repo)
    assert code == 1
    assert out.startswith("specs/huge/.progress.md:1:1: error FILE_TOO_LARGE: ")
    assert "Traceback" not in err
    assert (spec / ".progress.md").stat().st_mtime_ns == mtime
    assert sorted(os.listdir(spec)) == [".progress.md"]


def test_a_folder_named_progress_md(mdgrill: Run, repo: Path) -> None:
    (repo / "specs" / "odd" / ".progress.md").mkdir(parents=True)
    for arg in ("specs/odd", "specs/odd/.progress.md", "."):
        code, out, err = mdgrill("validate", arg, cwd=repo)
        assert code == 1, arg
        assert out == ("specs/odd/.progress.md:1:1: error NOT_A_FILE: specs/odd/.progress.md is "
                       "a folder, not a file\n"), arg
        assert "Traceback" not in err


def test_a_symlink_out_of_the_repository(mdgrill: Run, repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / ".progress.md").write_text("---\nmdgrill: 1\n---\n")
    (repo / "specs").mkdir()
    (repo / "specs" / "link").mkdir()
    (repo / "specs" / "link" / ".progress.md").symlink_to(outside / ".progress.md")
    code, out, _ = mdgrill("validate", cwd=repo)
    assert code == 1
    assert "error PATH_OUTSIDE_REPOSITORY" in out


def test_glossary_files_and_map_symlinks(mdgrill: Run, repo: Path, tmp_path: Path) -> None:
    (repo / "CONTEXT-MAP.md").write_text(
        "# Map\n\n## Contexts\n\n- [Ordering](ordering/CONTEXT.md): orders\n"
        "- [Sneaky](sneaky/CONTEXT.md): out\n- [Up](../up/CONTEXT.md): up\n")
    (repo / "ordering").mkdir()
    (repo / "ordering" / "CONTEXT.md").write_text(
        "# Ordering\n\n## Language\n\n**Order**:\nA request.\n\n**Order**:\nAgain.\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "CONTEXT.md").write_text("# X\n")
    (repo / "sneaky").symlink_to(elsewhere)
    code, out, _ = mdgrill("validate", cwd=repo)
    assert code == 1
    assert out.splitlines() == [
        "CONTEXT-MAP.md:6:4: error MAP_PATH_ESCAPES: context \"Sneaky\" points at "
        "'sneaky/CONTEXT.md', which goes through a symlink out of the repository: point it at "
        "a CONTEXT.md inside the repository",
        "CONTEXT-MAP.md:7:4: error MAP_PATH_ESCAPES: context \"Up\" points at "
        "'../up/CONTEXT.md', outside the repository: use a relative path to a CONTEXT.md inside "
        "it",
        "ordering/CONTEXT.md:8:3: error DUPLICATE_TERM: \"Order\" is already defined at line 5: "
        "merge the two entries into one, or rename one of them",
    ]
    code, out, _ = mdgrill("validate", "ordering/CONTEXT.md", cwd=repo)
    assert code == 1 and out.count("\n") == 1


def test_prompt_against_an_example_spec(mdgrill: Run, tmp_path: Path) -> None:
    spec = EXAMPLES / "specs" / "order-fulfilment"
    draft = tmp_path / "prompt.md"
    draft.write_text("# Task\n\n<!-- E1 -->\nBuild the fulfilment service.\n"
                     "<!-- E7 -->\nShip to Mars.\n")
    code, out, err = mdgrill("--root", str(EXAMPLES), "validate", "--prompt", str(draft),
                             "--spec", str(spec), cwd=tmp_path)
    assert code == 1
    assert out == ("prompt.md:5:1: error PROVENANCE_UNKNOWN_ENTRY: E7 names no ledger entry (the "
                   "spec has E1–E6): cite an existing entry or record the decision first\n")
    assert err == "1 error, 0 warnings in 1 file\n"
    draft.write_text("<!-- E6 -->\nShip with DPD first.\n")
    code, out, err = mdgrill("--root", str(EXAMPLES), "validate", "--prompt", str(draft),
                             "--spec", str(spec), cwd=tmp_path)
    assert (code, out) == (0, "")


def test_prompt_that_does_not_exist(mdgrill: Run, tmp_path: Path) -> None:
    code, _, err = mdgrill("validate", "--prompt", "nope.md", cwd=tmp_path)
    assert code == 2 and "NOT_FOUND" in err


def test_validate_imports_no_heavy_library(repo: Path, home: Path) -> None:
    script = ("import sys, contextlib, io\nfrom mdgrill.cli.main import main\n"
              "with contextlib.redirect_stderr(io.StringIO()):\n"
              f"    main(['--root', {str(EXAMPLES)!r}, 'validate', {str(EXAMPLES)!r}])\n"
              "print(sorted({m.split('.')[0] for m in sys.modules} & "
              "{'mistune', 'git', 'watchdog', 'yaml'}))\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    assert proc.stdout.splitlines()[-1] == "[]"


def test_a_walk_skips_a_smart_ralph_progress_file_but_a_named_one_is_an_error(
        tmp_path: Path, mdgrill: Run) -> None:
    ralph = tmp_path / "specs" / "old"
    ralph.mkdir(parents=True)
    (ralph / ".progress.md").write_text("# Progress: old\n\n## Original Goal\nx\n")
    code, out, err = mdgrill("--json", "validate", str(tmp_path))
    assert code == 0, (out, err)
    payload = json.loads(out)
    assert [d["code"] for d in payload["diagnostics"]] == ["NOT_MDGRILL"]
    assert payload["diagnostics"][0]["severity"] == "warning"
    code, out, _ = mdgrill("--json", "validate", str(ralph))
    assert code == 1
    assert [d["code"] for d in json.loads(out)["diagnostics"]] == ["NO_FRONT_MATTER"]
