"""The CLI itself: help for every verb, usage errors as JSON, repeated flags at scale."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Run, mdgrill_command

from mdgrill.cli.main import GROUPS, VERBS, build_parser
from mdgrill.errors import InputError


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


def test_top_level_help_groups_the_verbs_by_task_most_used_first(mdgrill: Run) -> None:
    """Issue 35, part 4: fifty verbs in one list hid the six an agent needs; the help lists
    them by task, every verb once, the interview's own verbs first."""
    grouped = [verb for _, verbs in GROUPS for verb in verbs]
    assert sorted(grouped) == sorted(VERBS)  # every verb in exactly one group
    code, out, _ = mdgrill("--help")
    assert code == 0
    titles = [title for title, _ in GROUPS]
    assert [t.split(" (")[0] for t in titles][:3] == ["run an interview", "answering",
                                                      "approval and delegation"]
    positions = [out.index(f"\n{title}:\n") for title in titles]
    assert positions == sorted(positions)
    lines = out.splitlines()
    listed = [line.split()[0] for line in lines[lines.index(f"{titles[0]}:"):]
              if line.startswith("  ") and not line.startswith("   ")]
    assert listed == grouped
    assert "usage: mdgrill [-h] [--root DIR] [--json] [--version] <command> ..." in out
    # the recommended loop is named where a newcomer looks first
    assert "then ask / answer until" in " ".join(out.split())


def test_the_cli_module_run_with_python_m_is_the_mdgrill_command() -> None:
    """`python -m mdgrill.cli.main` used to import the module and exit 0 having done nothing."""
    done = subprocess.run([sys.executable, "-m", "mdgrill.cli.main", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert done.stdout.startswith("mdgrill ")


def test_top_level_help_imports_no_verb_module() -> None:
    probe = ("import sys\nfrom mdgrill.cli.main import main\ntry:\n    main(['--help'])\n"
             "except SystemExit:\n    pass\n"
             "print([m for m in sys.modules if m.startswith('mdgrill.cli.verbs.')])")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_classify_reply_imports_no_state_machine_and_no_spec_reader() -> None:
    """A verb imports only what it uses (issue 37, goal 3): classifying a reply reads the
    reply model, not the interview's state machine, the progress reader or the session."""
    probe = ("import sys\nfrom mdgrill.cli.main import main\n"
             "main(['--json', 'classify-reply', '--text', 'yes please'])\n"
             "print(sorted(m for m in sys.modules if m.startswith('mdgrill.')))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=60).stdout.strip().splitlines()
    assert '"classification": "control_only"' in out[0]
    loaded = out[-1]
    assert "'mdgrill.model.replies'" in loaded
    for heavy in ("mdgrill.core.machine", "mdgrill.formats.progress", "mdgrill.shell.session",
                  "mdgrill.services.interview", "mdgrill.shell.store", "mdgrill.git.discovery"):
        assert f"'{heavy}'" not in loaded, heavy


# What the verbs an agent calls at every step must not import (issue 37, goal 3: each <= 0.8x
# phase_gate's time, most of which is start-up): typing and what it pulls in (3 ms), the
# standard library's heavy helpers, the git layer, the public API and the services they do
# not call, the closing transitions, the checks `validate` runs.
NEVER_AT_EACH_STEP = {
    "typing", "contextlib", "importlib.util", "dataclasses", "inspect", "copy", "datetime",
    "subprocess", "shutil", "tempfile", "textwrap", "difflib", "yaml", "mdgrill.api",
    "mdgrill.git.vcs", "mdgrill.services.rounds", "mdgrill.core.machine.closing",
    "mdgrill.checks.spec.entry", "mdgrill.checks.spec.blocks", "mdgrill.checks.spec.tree",
    "mdgrill.checks.spec.glossaries", "mdgrill.core.evidence", "mdgrill.model.scope",
}
# begin-interview classifies no reply, names nobody and opens no round
NEVER_AT_BEGIN = {"mdgrill.model.replies", "mdgrill.git.identity",
                  "mdgrill.core.machine.rounds"}
# the mdgrill modules each loads (62, 56, 55 before issue 37's start-up work; one since is
# mdgrill.lazy, the one lazy-name loader of three packages): a new import on
# this path is a choice to make here, with its cost measured (bench/bench_peer.py), not a
# side effect
MDGRILL_MODULES = {"begin-interview": 52, "record-answer": 51, "open-frontier": 49,
                   "classify-reply": 12}


def _modules_loaded(argv: list[str], cwd: Path) -> list[str]:
    # what the interpreter loaded before mdgrill (an editable install's finder loads
    # contextlib and importlib.util) is not the verb's doing
    probe = ("import sys\nbefore = set(sys.modules)\nfrom mdgrill.cli.main import main\n"
             f"code = main({argv!r})\nprint(code, sorted(set(sys.modules) - before))")
    # git's identity from the environment, as `git var` would answer it: no git process
    env = {**os.environ, "GIT_AUTHOR_NAME": "Ann", "GIT_AUTHOR_EMAIL": "ann@example.com"}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=60, cwd=cwd, env=env).stdout.strip().splitlines()
    code, _, loaded = out[-1].partition(" ")
    assert code == "0", out
    names: list[str] = json.loads(loaded.replace("'", '"'))
    return names


def test_the_interview_steps_import_only_what_they_use(tmp_path: Path, home: Path,
                                                       mdgrill: Run) -> None:
    """begin-interview, open-frontier, record-answer (and classify-reply), in a folder outside
    git: none loads typing, a closing transition, the git layer or a check it does not run,
    and the mdgrill modules each loads are counted (issue 37, goal 3)."""
    spec = str(tmp_path / "spec")
    code, out, err = mdgrill("init", spec, "--goal", "Let customers sign in by email link.")
    assert code == 0, err
    steps = {
        "begin-interview": ["begin-interview", spec, "--phase", "requirements",
                            "--interview-id", "r1"],
        "open-frontier": ["open-frontier", spec, "--round", "1", "--decision-id", "D1"],
        "record-answer": ["record-answer", spec, "--decision-id", "D1", "--answer",
                          "Use the magic link"],
        "classify-reply": ["classify-reply", "--text", "Use the magic link"],
    }
    for verb, argv in steps.items():
        loaded = set(_modules_loaded(["--json", *argv], tmp_path))
        ran = "mdgrill.model.replies" if verb == "classify-reply" else "mdgrill.services.interview"
        assert ran in loaded, verb  # the probe ran the verb
        assert sorted(loaded & NEVER_AT_EACH_STEP) == [], verb
        if verb == "begin-interview":
            assert sorted(loaded & NEVER_AT_BEGIN) == []
        ours = sorted(m for m in loaded if m == "mdgrill" or m.startswith("mdgrill."))
        assert len(ours) <= MDGRILL_MODULES[verb], (verb, ours)


def test_each_verb_is_declared_once_in_its_module_table() -> None:
    """One declaration per verb (issue 29 part 7): each verb module lists its verbs (name,
    help, arguments, handler) in its VERBS table; main.py's lazy name -> module map, which
    `mdgrill --help` reads without importing them, names the same verbs, modules and help."""
    import importlib
    import pkgutil

    import mdgrill.cli.verbs as package

    declared: dict[str, tuple[str, str]] = {}
    twice: list[str] = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"mdgrill.cli.verbs.{info.name}")
        assert not hasattr(module, "configure"), f"{info.name}: arguments go in its VERBS"
        for entry in module.VERBS:
            twice += [entry.name] if entry.name in declared else []
            declared[entry.name] = (info.name, entry.help)
            assert callable(entry.arguments) and callable(entry.run), entry.name
    assert twice == []
    assert declared == VERBS


def _missing_help(parser: argparse.ArgumentParser, path: str) -> list[str]:
    """`path OPTION` for each argument (or sub-verb) of `parser` without help text."""
    missing = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                missing += [] if helps.get(name) else [f"{path} {name}"]
                missing += _missing_help(sub, f"{path} {name}")
            continue
        if not action.help or action.help == argparse.SUPPRESS:
            missing.append(f"{path} {'/'.join(action.option_strings) or action.metavar}")
    return missing


# Options still without help text: empty since issue 35, and it may only stay so.
HELP_OWED: set[str] = set()


def test_every_verb_and_option_has_help_text() -> None:
    """A verb or option added without help fails here (sqlite-utils' rule)."""
    missing: set[str] = set()
    for verb in VERBS:
        sub = next(a for a in build_parser(verb)._actions
                   if isinstance(a, argparse._SubParsersAction)).choices[verb]
        missing.update(_missing_help(sub, verb))
    assert sorted(missing - HELP_OWED) == []
    assert sorted(HELP_OWED - missing) == [], "help was added: take it off HELP_OWED"


def test_node_add_says_what_each_option_takes(mdgrill: Run) -> None:
    code, out, _ = mdgrill("node", "add", "--help")
    text = " ".join(out.split())
    assert code == 0
    assert "--depends-on ID the ID of a node that must be settled" in text
    assert "repeat it for several" in text
    assert "--option T one option, as `label` or `label: why`; repeat it: 2 to 4 options" in text


def test_the_interview_verbs_say_what_their_options_take(mdgrill: Run) -> None:
    """Issue 35, point 4: `confirm`, `answer`, `amend` and `revise` get help for every option
    (that `--source` has one legal value, what `CID` is, the reply shapes `answer` reads)."""
    def help_of(*verb: str) -> str:
        code, out, _ = mdgrill(*verb, "--help")
        assert code == 0
        return " ".join(out.split())

    confirm = help_of("confirm")
    assert "--decision-id CID the confirmation ID given to await-confirmation (the interview " \
        "keeps its first: C1)" in confirm
    assert "--source {approve-and-delegate} its one legal value" in confirm
    assert "--tool-result FILE what the question tool returned, as it came (`{\"answers\": " \
        "{question: answer}}`, also inside a hook's `tool_response`), or the user's reply: each " \
        "answer after its question's number or decision ID, on one line or several (`Q1: a, " \
        "Q2: 2`, `1) b 2) a`, `D1: the option's words; D2: their own words`; a one-question " \
        "round takes the bare reply); FILE, or - for stdin" in help_of("answer")
    assert "--decision-id ID a decision to reopen; repeat it; what depends on it reopens too" \
        in help_of("revise")
    assert "--decision-id ID an answered decision whose wording to correct" in help_of("amend")
    begin = help_of("begin-interview")
    assert "--interview-id ID a new ID per interview (r1, design-1); the same ID resumes it" \
        in begin
    assert "the skill-discovery revision this interview was begun at" in begin
    assert "--approach TEXT the approach in one line: what the user approves" \
        in help_of("await-confirmation")


def test_an_unknown_verb_names_the_closest_one(mdgrill: Run) -> None:
    code, out, _ = mdgrill("--json", "anser", "specs/a")
    assert code == 2
    message = json.loads(out)["error"]["message"]
    assert message == ("mdgrill: unknown command 'anser': did you mean `answer`? "
                       "(see `mdgrill --help`)")


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


def _to_a_reader_gone_away(argv: list[str], env: dict[str, str]) -> tuple[int, str]:
    """`mdgrill ARGV | head` where the pipe closes before mdgrill writes: its exit code and
    what it said on standard error."""
    proc = subprocess.Popen([*mdgrill_command(), *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    with proc.stderr:
        err = proc.stderr.read().decode()
    return proc.wait(timeout=60), err


@pytest.mark.parametrize("buffered", [True, False])
def test_a_reader_that_goes_away_gets_no_traceback(home: Path, buffered: bool) -> None:
    root = Path(__file__).resolve().parents[1] / "examples" / "specs"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    code, err = _to_a_reader_gone_away(["--json", "validate", str(root)], env)
    # EX_IOERR, not 1: in a script, `validate | head` failing to print is not "errors found"
    assert code == 74
    assert "Traceback" not in err and err == ""


def test_a_verb_printing_as_it_goes_to_a_reader_gone_away_gets_no_traceback(
        home: Path) -> None:
    # `validate` prints its diagnostics itself: the broken pipe meets it inside the verb
    bad = home / "bad" / ".progress.md"
    bad.parent.mkdir()
    bad.write_text("---\nmdgrill: 1\n---\n\n## Design Tree\n\n### D1: x\n- Options:\n"
                   "  - one\n", encoding="utf-8")
    code, err = _to_a_reader_gone_away(["validate", str(bad.parent)],
                                       dict(os.environ, PYTHONUNBUFFERED="1"))
    assert code == 74
    assert "Traceback" not in err and "INTERNAL" not in err


def _cafe(home: Path) -> Path:
    spec = home / "specs" / "cafe"
    proc = subprocess.run([*mdgrill_command(), "init", str(spec), "--goal", "Café menus"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return spec


def test_json_on_an_ascii_stdout_is_utf8_json(home: Path) -> None:
    # PYTHONIOENCODING=ascii made the result a UnicodeEncodeError traceback, exit 1, after
    # the work was done; JSON goes out in UTF-8 whatever the stream's encoding (RFC 8259)
    spec = _cafe(home)
    env = dict(os.environ, PYTHONIOENCODING="ascii")
    proc = subprocess.run([*mdgrill_command(), "--json", "status", str(spec)], env=env,
                          capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.decode("utf-8"))["goal"] == "Café menus"


def test_text_on_an_ascii_stdout_escapes_what_it_cannot_hold(home: Path) -> None:
    spec = _cafe(home)
    env = dict(os.environ, PYTHONIOENCODING="ascii")
    proc = subprocess.run([*mdgrill_command(), "status", str(spec)], env=env,
                          capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert b"goal: Caf\\xe9 menus" in proc.stdout and b"Traceback" not in proc.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("json_flag", [["--json"], []])
def test_output_to_a_full_disk_is_one_line_and_exit_74(home: Path,
                                                       json_flag: list[str]) -> None:
    spec = _cafe(home)
    with open("/dev/full", "w") as full:
        proc = subprocess.run([*mdgrill_command(), *json_flag, "status", str(spec)],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert proc.returncode == 74
    assert proc.stderr.startswith("mdgrill: error OUTPUT_FAILED: ")
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_a_verb_printing_as_it_goes_to_a_full_disk_is_exit_74(home: Path) -> None:
    # `validate` prints its diagnostics itself: the full disk met it inside the verb, which
    # made it the INTERNAL error (exit 70, a crash log) where its result's write is exit 74
    bad = home / "bad" / ".progress.md"
    bad.parent.mkdir()
    bad.write_text("---\nmdgrill: 1\n---\n\n## Design Tree\n\n### D1: x\n- Options:\n"
                   "  - one\n", encoding="utf-8")
    with open("/dev/full", "w") as full:
        proc = subprocess.run([*mdgrill_command(), "validate", str(bad.parent)], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    assert proc.returncode == 74, proc.stderr
    assert proc.stderr.startswith("mdgrill: error OUTPUT_FAILED: ")
    assert "INTERNAL" not in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("once", [True, False])
def test_watch_printing_to_a_full_disk_stops_with_exit_74(repo: Path, once: bool) -> None:
    # `watch` prints each report as it comes, following events from the observer's threads:
    # a full disk was the INTERNAL error (exit 70, a crash log), and stopping just after the
    # start let watchdog print "queue_events() called when the thread is inactive" (in two
    # runs of five); `--once` exits 74 as any verb's refused output does
    shutil.copytree(Path(__file__).resolve().parents[1] / "examples" / "specs",
                    repo / "specs")
    for _ in range(1 if once else 5):
        with open("/dev/full", "w") as full:
            proc = subprocess.run([*mdgrill_command(), "watch", *(["--once"] if once else []),
                                   str(repo)], stdout=full, stderr=subprocess.PIPE,
                                  text=True, timeout=60)
        assert proc.returncode == 74, proc.stderr
        assert proc.stderr.startswith("mdgrill: error OUTPUT_FAILED: ")
        assert proc.stderr.count("\n") == 1, proc.stderr  # the one line, nothing of watchdog's


def _with_closed(stream: str, *argv: str) -> subprocess.CompletedProcess[str]:
    """`mdgrill ARGV` started with `stream` closed (`>&-` or `2>&-`), as a shell does it."""
    return subprocess.run(["sh", "-c", f'exec "$0" "$@" {stream}', *mdgrill_command(), *argv],
                          capture_output=True, text=True, timeout=60)


def test_a_closed_standard_output_is_exit_74_and_nothing_done(home: Path) -> None:
    # Python gives a process started with `>&-` no stdout (None): every verb crashed on its
    # first print (exit 1, a traceback), a writing one after its write
    spec = home / "specs" / "closed"
    proc = _with_closed(">&-", "--json", "init", str(spec), "--goal", "Promo codes")
    assert proc.returncode == 74, proc.stderr
    assert proc.stderr.startswith("mdgrill: error OUTPUT_FAILED: standard output is closed")
    assert "Traceback" not in proc.stderr and not spec.exists()


def test_a_closed_standard_error_is_no_crash(home: Path) -> None:
    # what it would say goes nowhere; the exit codes stay the verbs' own
    spec = home / "specs" / "closed"
    proc = _with_closed("2>&-", "--json", "init", str(spec), "--goal", "Promo codes")
    assert proc.returncode == 0 and json.loads(proc.stdout)["ok"] is True
    assert spec.is_dir()
    assert _with_closed("2>&-", "validate", str(home / "nowhere")).returncode == 2


def _one_value_options(verb: str) -> list[tuple[argparse.ArgumentParser, argparse.Action]]:
    parser = build_parser(verb)
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    found: list[tuple[argparse.ArgumentParser, argparse.Action]] = []
    for sub in (p for a in subs for p in a.choices.values()):
        for action in sub._actions:
            if action.option_strings and action.nargs is None and action.dest != "help":
                found.append((sub, action))
    return found


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_an_option_given_dashes_as_its_value_holds_that_text(verb: str) -> None:
    # argparse takes `--answer=--` as an option with no value and gave it an empty list,
    # which crashed `record-answer` (INTERNAL, exit 70) and `answer --tool-result=--`
    checked = 0
    for sub, action in _one_value_options(verb):
        for other in sub._actions:
            other.required = False  # only this option is under test
        given = [f"{action.option_strings[-1]}=--"]
        if action.type is not None or action.choices:  # `--` is no number, no choice
            with pytest.raises(InputError) as refused:
                sub.parse_known_args(given)
            assert refused.value.code == "USAGE"
        else:
            value = getattr(sub.parse_known_args(given)[0], action.dest)
            expected = ["--"] if "append" in type(action).__name__.lower() else "--"
            assert value == expected, (verb, action.option_strings)
        checked += 1
    assert checked == len(_one_value_options(verb))


def test_dashes_as_an_answer_are_read_as_text_not_a_crash(mdgrill: Run, tmp_path: Path) -> None:
    spec = tmp_path / "spec"
    assert mdgrill("init", str(spec), "--goal", "Sign in")[0] == 0
    code, out, _ = mdgrill("--json", "record-answer", str(spec), "--decision-id", "D1",
                           "--answer=--")
    assert code in (2, 3) and json.loads(out)["error"]["code"] != "INTERNAL"
    code, out, _ = mdgrill("--json", "answer", str(spec), "--tool-result=--")
    assert code == 2 and json.loads(out)["error"]["code"] == "NOT_FOUND", out


def test_a_reply_refused_whole_carries_its_error_code(mdgrill: Run, tmp_path: Path) -> None:
    # every `--json` failure names its code in `error` (docs/contract.md); a reply whose
    # every answer the gate refused printed `ok: false` with none (found by the MCP fuzz test)
    spec = tmp_path / "spec"
    assert mdgrill("init", str(spec), "--goal", "Sign in")[0] == 0
    assert mdgrill("node", "add", str(spec), "D1", "--title", "How?", "--option", "Password",
                   "--option", "Magic link", "--recommend", "2")[0] == 0
    assert mdgrill("begin-interview", str(spec), "--phase", "requirements",
                   "--interview-id", "r1")[0] == 0
    assert mdgrill("ask", str(spec))[0] == 0
    reply = tmp_path / "reply.txt"
    reply.write_text("--\n", encoding="utf-8")
    before = (spec / ".progress.md").read_bytes()
    code, out, _ = mdgrill("--json", "answer", str(spec), "--tool-result", str(reply))
    result = json.loads(out)
    assert code == 3 and result["ok"] is False and result["recorded"] == {}
    assert result["error"]["code"] == "CONTROL_ONLY_ANSWER"
    assert result["refused"]["D1"]["code"] == "CONTROL_ONLY_ANSWER"
    assert (spec / ".progress.md").read_bytes() == before
