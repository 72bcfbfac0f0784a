"""`mdgrill mode SPEC` says whether quick mode is authorized (issue 38 point 5). The framework:
"Only exact `--quick` authorization may bypass the interview … stale booleans, and legacy
malformed quick state do not bypass the gate"; so a `mode: quick` typed by hand is shown as
what it is, not as quick mode in force."""

from __future__ import annotations

from pathlib import Path

from conftest import Run, json_ok

SPEC = "specs/a"


def test_a_hand_typed_quick_mode_is_shown_as_unauthorized(repo: Path, mdgrill: Run) -> None:
    json_ok(mdgrill, repo, "init", SPEC, "--goal", "A goal")
    path = repo / SPEC / ".progress.md"
    path.write_text(path.read_text(encoding="utf-8").replace("mode: interactive", "mode: quick"),
                    encoding="utf-8")

    shown = json_ok(mdgrill, repo, "mode", SPEC)
    code, out, _ = mdgrill("mode", SPEC, cwd=repo)

    assert (shown["mode"], shown["quick_authorized"]) == ("quick", False)
    assert code == 0 and out.startswith("mode: quick (not authorized")
    assert f"`mdgrill mode {SPEC} --quick`" in out


def test_the_users_quick_mode_is_shown_as_authorized(repo: Path, mdgrill: Run) -> None:
    json_ok(mdgrill, repo, "init", SPEC, "--goal", "A goal")
    json_ok(mdgrill, repo, "mode", SPEC, "--quick")

    shown = json_ok(mdgrill, repo, "mode", SPEC)
    code, out, _ = mdgrill("mode", SPEC, cwd=repo)

    assert (shown["mode"], shown["quick_authorized"]) == ("quick", True)
    assert code == 0 and out == "mode: quick\n"
    assert json_ok(mdgrill, repo, "mode", SPEC, "--interactive")["mode"] == "interactive"
    assert json_ok(mdgrill, repo, "mode", SPEC)["quick_authorized"] is False
