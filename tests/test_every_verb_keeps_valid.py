"""No verb ever writes a file that `validate` rejects, and a refused verb writes nothing.

Hypothesis drives random sequences of interview verbs (with replies of every class, IDs in and
out of the tree, rounds in and out of step) through `cli.main` in this process, against one
spec on disk. After every call: a non-zero exit left every byte as it was; a zero exit left a
file with no error diagnostic. Runs are derandomized, so a failure replays as it was found.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mdgrill.checks.spec import validate_progress_bytes
from mdgrill.cli import main as cli

IDS = ["D1", "D2", "D3", "D4", "X9"]
REPLIES = ["First way", "2", "proceed", "skip", "skip this", "done", "your call",
           "Only for staff", "Да", "👍", "Approve and delegate", "Revise decisions", "Cancel"]

ids = st.lists(st.sampled_from(IDS), min_size=1, max_size=3, unique=True)
verb = st.one_of(
    st.builds(lambda i, d: ["node", "add", "{S}", i, "--title", "Q?", "--section", "scope",
                            "--option", "First way", "--option", "Second way", "--recommend",
                            "1", *(["--depends-on", d] if d else [])],
              st.sampled_from(IDS), st.sampled_from([None, "D1", "D2"])),
    st.builds(lambda r, xs: ["open-frontier", "{S}", "--round", str(r),
                             *[a for x in xs for a in ("--decision-id", x)]],
              st.integers(1, 4), ids),
    st.builds(lambda i, t, o: ["record-answer", "{S}", "--decision-id", i, "--answer", t,
                               *(["--other"] if o else [])],
              st.sampled_from(IDS), st.sampled_from(REPLIES), st.booleans()),
    st.builds(lambda i: ["record-fact", "{S}", "found in code", "--decision-id", i],
              st.sampled_from(IDS)),
    st.builds(lambda i, t: ["out-of-scope", "{S}", "--decision-id", i, "--reply", t],
              st.sampled_from(IDS), st.sampled_from(REPLIES)),
    st.builds(lambda c: ["await-confirmation", "{S}", "--decision-id", c, "--approach", "A"],
              st.sampled_from(["C1", "C2"])),
    st.builds(lambda c, t: ["confirm", "{S}", "--decision-id", c, "--source",
                            "approve-and-delegate", "--reply", t, "--no-commit"],
              st.sampled_from(["C1", "C2", "skip-confirmation"]), st.sampled_from(REPLIES)),
    st.just(["skip", "{S}", "--reason", "busy", "--assumption", "defaults"]),
    st.builds(lambda xs: ["revise", "{S}", *[a for x in xs for a in ("--decision-id", x)]], ids),
    st.just(["cancel", "{S}", "--reply", "Cancel"]),
    st.sampled_from([["record-stop", "{S}", "--choice", "ship"],
                     ["mode", "{S}", "--quick"], ["mode", "{S}", "--interactive"]]),
    st.builds(lambda i: ["begin-interview", "{S}", "--phase", "requirements",
                         "--interview-id", i], st.sampled_from(["r1", "r2", "r3"])),
    # issue 22's verbs: corrections, going back, and who said it
    st.builds(lambda i, t: ["amend", "{S}", "--decision-id", i, "--answer", t, "--reason",
                            "typo"], st.sampled_from(IDS), st.sampled_from(REPLIES)),
    st.builds(lambda p: ["reopen", "{S}", "--phase", p, "--reason", "changed", "--no-commit"],
              st.sampled_from(["start", "requirements", "design"])),
    st.builds(lambda i, t, b: ["record-answer", "{S}", "--decision-id", i, "--answer", t,
                               "--by", b],
              st.sampled_from(IDS), st.sampled_from(REPLIES),
              st.sampled_from(["Alice <alice@example.com>", "Bob", "Zoë"])),
)


def _call(argv: list[str]) -> int:
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        return cli.main(argv)


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(verb, min_size=4, max_size=18))
def test_no_verb_writes_an_invalid_file(tmp_path_factory: object, steps: list[list[str]]) -> None:
    import shutil
    import tempfile

    # one folder per example (a function-scoped tmp_path is shared by all of them), removed
    # after it: 60 examples used to leave 60 folders in /tmp every run
    root = Path(tempfile.mkdtemp(prefix="mdgrill-verbs-"))
    try:
        _run_steps(root, steps)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _run_steps(root: Path, steps: list[list[str]]) -> None:
    spec = root / "specs" / "s"
    assert _call(["--root", str(root), "init", str(spec), "--goal", "A goal",
                  "--required-section", "scope"]) == 0
    _call(["--root", str(root), "node", "add", str(spec), "D1", "--title", "Q?", "--section",
           "scope", "--option", "First way", "--option", "Second way", "--recommend", "1"])
    _call(["--root", str(root), "begin-interview", str(spec), "--phase", "requirements",
           "--interview-id", "r1"])
    progress = spec / ".progress.md"
    for step in steps:
        argv = ["--root", str(root), *[str(spec) if a == "{S}" else a for a in step]]
        before = progress.read_bytes()
        code = _call(argv)
        after = progress.read_bytes()
        if code != 0:
            assert after == before, f"{step} exited {code} and wrote the file"
            continue
        errors = [d for d in validate_progress_bytes(after, "p") if d.is_error]
        assert errors == [], (step, [f"{d.code}: {d.message}" for d in errors])
