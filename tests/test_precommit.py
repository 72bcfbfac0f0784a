"""`.pre-commit-hooks.yaml`: it parses and names both hooks with sensible settings."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def hooks() -> dict[str, dict[str, object]]:
    data = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return {hook["id"]: hook for hook in data}


def test_both_hooks_are_declared() -> None:
    found = hooks()
    assert set(found) == {"mdgrill-validate", "mdgrill-verify", "mdgrill-drift"}
    assert found["mdgrill-validate"]["entry"] == "mdgrill validate"
    assert found["mdgrill-verify"]["entry"] == "mdgrill verify"
    assert {h["language"] for h in found.values()} == {"python"}
    assert found["mdgrill-validate"]["pass_filenames"] is True
    assert found["mdgrill-verify"]["pass_filenames"] is False


def test_files_pattern_picks_progress_and_context_files() -> None:
    for hook in (h for h in hooks().values() if "files" in h):  # drift runs on every commit
        pattern = re.compile(str(hook["files"]))
        for path in ("specs/login/.progress.md", ".progress.md", "CONTEXT.md",
                     "CONTEXT-MAP.md", "src/billing/CONTEXT.md"):
            assert pattern.search(path), path
        for path in ("specs/login/requirements.md", "README.md", "docs/CONTEXT.md.bak",
                     "specs/login/progress.md", "CONTEXT/notes.md"):
            assert not pattern.search(path), path


def test_ci_doc_has_a_workflow() -> None:
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    block = text.split("```yaml", 2)[2].split("```", 1)[0]
    workflow = yaml.safe_load(block)
    steps = workflow["jobs"]["specs"]["steps"]
    assert any(step.get("run") == "mdgrill validate" for step in steps)
    assert any(step.get("run") == "mdgrill verify" for step in steps)
