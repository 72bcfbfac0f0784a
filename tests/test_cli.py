"""The CLI itself: help for every verb, usage errors as JSON, repeated flags at scale."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import Run, mdgrill_command

from mdgrill.cli.main import VERBS


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_every_verb_has_help_that_says_what_it_does(mdgrill: Run, verb: str) -> None:
    code, out, err = mdgrill(verb, "--help")
    assert code == 0, err
    assert VERBS[verb][1].split(":")[0].rstrip(".") in " ".join(out.split())
    assert "--json" in out or verb in ("node", "term")


def test_top_level_help_lists_every_verb_with_its_line(mdgrill: Run) -> None:
    code, out, _ = mdgrill("--help")
    assert code == 0
    for verb in VERBS:
        assert verb in out
    assert "exit codes" in out


def test_a_usage_error_is_exit_2_and_json_with_json(mdgrill: Run, tmp_path: Path) -> None:
    code, out, err = mdgrill("--json", "mode", str(tmp_path), "--qui")
    assert code == 2
    payload = json.loads(out)
    assert payload["ok"] is False and payload["error"]["code"] == "USAGE"
    assert "--qui" in payload["error"]["message"]
    code, out, err = mdgrill("mode", str(tmp_path), "--quick=true")
    assert code == 2 and out == "" and "USAGE" in err


def test_an_unknown_verb_is_a_usage_error(mdgrill: Run) -> None:
    code, _, err = mdgrill("grill-me")
    assert code == 2 and "USAGE" in err and "grill-me" in err


def test_no_verb_prints_help_and_exits_2(mdgrill: Run) -> None:
    code, _, err = mdgrill()
    assert code == 2 and "usage: mdgrill" in err


def test_a_thousand_repeated_flags_are_all_taken_in_order(mdgrill: Run, tmp_path: Path) -> None:
    spec = tmp_path / "specs" / "many"
    assert mdgrill("init", str(spec), "--goal", "Many decisions.")[0] == 0
    assert mdgrill("begin-interview", str(spec), "--phase", "start",
                   "--interview-id", "s1")[0] == 0
    ids = [f"D{i}" for i in range(1, 1001)]
    flags = [part for node_id in ids for part in ("--decision-id", node_id)]
    code, out, err = mdgrill("--json", "open-frontier", str(spec), "--round", "1", *flags)
    assert code == 0, err
    assert json.loads(out)["pending"] == ids
    text = (spec / ".progress.md").read_text()
    assert f"- Asked: {', '.join(ids)}" in text


@pytest.mark.parametrize("buffered", [True, False])
def test_a_reader_that_goes_away_gets_no_traceback(home: Path, buffered: bool) -> None:
    # `mdgrill ... | head`: the pipe closes before mdgrill writes its result
    root = Path(__file__).resolve().parents[1] / "examples" / "specs"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    proc = subprocess.Popen([*mdgrill_command(), "--json", "validate", str(root)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    with proc.stderr:
        err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 1
    assert "Traceback" not in err and err == ""
