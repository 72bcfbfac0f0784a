"""The public library API (issue 29 part 1): docs/api.md's examples run as written, the
top package exports what the document names and stays cheap to import."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[1]
DOC = CHECKOUT / "docs" / "api.md"


def examples() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_documented_examples_run(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = examples()
    assert len(found) >= 4
    monkeypatch.chdir(repo)
    namespace: dict[str, object] = {}
    for number, code in enumerate(found, 1):
        exec(compile(code, f"docs/api.md example {number}", "exec"), namespace)
    # what the examples did is on disk, as the CLI would have left it
    text = (repo / "specs" / "login" / ".progress.md").read_text(encoding="utf-8")
    assert "- Decisions: D1 -> Magic link\n- By: D1 -> Dana <dana@example.com>" in text
    log = subprocess.run(["git", "log", "--format=%B"], cwd=repo, capture_output=True,
                         text=True, check=True).stdout
    assert "Mdgrill-Transition: approve" in log


def test_every_exported_name_is_documented_and_importable() -> None:
    import mdgrill

    text = DOC.read_text(encoding="utf-8")
    for name in mdgrill.__all__:
        if name != "__version__":
            assert f"`{name}`" in text, name
            assert getattr(mdgrill, name) is not None
    with pytest.raises(AttributeError):
        mdgrill.no_such_name  # noqa: B018 - the lazy lookup still refuses unknown names


def test_every_interview_verb_has_a_method() -> None:
    # "a `Spec` whose methods are the verbs" (issue 29): one per interview verb of the CLI
    from mdgrill import Spec
    from mdgrill.cli.main import VERBS

    covered = {"classify-reply", "node", "status", "validate", "init", "frontier"}
    for verb, (module, _) in VERBS.items():
        if module in ("interview", "rounds", "artifact") or verb in covered:
            name = {"node": "add_node"}.get(verb, verb.replace("-", "_"))
            assert callable(getattr(Spec, name, None)), verb


def test_importing_the_cli_does_not_load_the_api() -> None:
    # every CLI call runs mdgrill/__init__.py: Spec and the services load only when used
    code = ("import sys, mdgrill.cli.main; "
            "print(sorted(m for m in sys.modules if m.startswith('mdgrill.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "mdgrill.api" not in out and "mdgrill.services" not in out
