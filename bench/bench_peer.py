"""The CLI against smart-ralph's `phase_gate.py` doing the same job, at 10, 1,000 and 10,000
decisions, side by side in one run (issue 37, goal 3).

    nice -n 10 .venv/bin/python bench/bench_peer.py --phase-gate PATH [--runs 11]
        [--sizes 10,1000,10000] [--clock cpu|wall] [--mdgrill PATH] [--before PATH]

Each job is one process of each tool, the two taking turns run by run, every file put back
from a pristine copy before each run (not timed):

- `classify-reply`: one reply, no spec (the same at every size; timed once);
- `begin`: `begin-interview` resuming the requirements interview in progress (both read and
  check their whole state, and write nothing);
- `record-answer`: the one pending decision answered;
- `open-frontier`: the next round opened for two new decisions.

mdgrill's spec holds the decisions as answered rounds and a design tree (`genspec.py`);
phase_gate's state file holds them as its `phaseInterview` lists, with the skill load its
`begin-interview` checks (a copy of `phase_gate.py` runs from a temporary plugin folder whose
core skill files are stubs, so the hashes it verifies are real). Target: each verb <= 0.8x
phase_gate's median at every size. `phase_gate.py` is not part of mdgrill: name it with
`--phase-gate` or MDGRILL_PHASE_GATE (smart-ralph's `plugins/ralph-specum/scripts/`).

`--clock cpu` (default) compares the children's CPU time (user + system, from wait4), which
other jobs on a loaded machine do not inflate; `--clock wall` compares wall-clock time.

`--before PATH` times another installed mdgrill (an earlier commit's, say) in the same turns,
so a change is measured against its baseline under the same load; its column and ratio are
printed beside (the target is judged on `--mdgrill`'s).

`--floor` also times, in the same turns, `floor.py` opening the same round of the same spec
(the least a CPython program can do for `open-frontier`, checking nothing), once alone and
once after importing the mdgrill modules the real verb imports (read from the verb's own
`PYTHONPROFILEIMPORTTIME` report). Their ratios to phase_gate say how much of the 0.8x budget
is left for mdgrill's work once its code is loaded.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import genspec  # noqa: E402
from installed import CHILD_ENV, install_fresh  # noqa: E402

PLUGIN = "ralph-specum"
CORE = "interview-framework"
RESOURCES = ("algorithm.md", "domain-modeling.md")
REPLY = "Use the magic link, valid 15 minutes"


def frame(value: bytes) -> bytes:
    return str(len(value)).encode("ascii") + b":" + value


def sha(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def plugin_copy(tmp: str, phase_gate: str) -> str:
    """phase_gate.py copied into a plugin folder of its own, beside stub core skill files."""
    root = os.path.join(tmp, "plugins", PLUGIN)
    script = os.path.join(root, "scripts", "phase_gate.py")
    os.makedirs(os.path.dirname(script))
    shutil.copyfile(phase_gate, script)
    skill = os.path.join(root, "skills", CORE)
    os.makedirs(os.path.join(skill, "references"))
    for name, text in (("SKILL.md", "# Interview framework (bench stub)\n"),
                       *((os.path.join("references", r), f"# {r} (bench stub)\n")
                         for r in RESOURCES)):
        with open(os.path.join(skill, name), "w", encoding="utf-8") as handle:
            handle.write(text)
    return script


def gate_state(script: str, decisions: int, pending: list[str]) -> tuple[str, str]:
    """(phase_gate's state as JSON, its context digest): the interview in progress with
    `decisions` answered and `pending` asked, and the skill load begin-interview checks."""
    skill = os.path.join(os.path.dirname(os.path.dirname(script)), "skills", CORE)
    source = os.path.join(skill, "SKILL.md")
    resources = [os.path.join(skill, "references", r) for r in RESOURCES]
    digest = hashlib.sha256(b"".join([frame(b"ralph-phase-context-v1"), frame(b"requirements"),
                                      frame(genspec.GOAL.encode("utf-8"))])).hexdigest()
    ids = [f"D{i}" for i in range(1, decisions + 1)]
    rounds = -(-decisions // genspec.PER_ROUND) + (1 if pending else 0)
    state = {
        "goal": genspec.GOAL, "quickMode": False,
        "discoveredSkills": [{"pass": 1, "revision": "rev-1", "name": CORE,
                              "activeSource": source, "reason": "core interview contract",
                              "shadowedSources": [], "outcome": "selected"}],
        "phaseSkillLoad": {
            "phase": "requirements", "interviewId": "req-1", "discoveryRevision": "rev-1",
            "contextDigest": digest, "context": {"goal": genspec.GOAL, "artifacts": []},
            "status": "complete",
            "selected": [{"name": CORE, "reason": "core interview contract", "source": source,
                          "core": True, "body": {"sha256": sha(source), "loadStatus": "loaded",
                                                 "errors": []},
                          "requiredResourceSources": resources,
                          "requiredResources": [{"source": r, "sha256": sha(r),
                                                 "loadStatus": "loaded", "errors": []}
                                                for r in resources]}],
            "warnings": [], "conflicts": [], "failures": [], "noDomainMatches": True,
            "artifactAgentLoads": []},
        "phaseInterview": {
            "phase": "requirements", "interviewId": "req-1", "round": max(rounds, 1),
            "status": "collecting", "askedDecisionIds": ids + pending,
            "pendingDecisionIds": list(pending), "answeredDecisionIds": ids,
            "selectedApproach": None, "confirmationSource": None, "bypassReason": None,
            "assumptionsRecorded": []},
    }
    return json.dumps(state, indent=2, sort_keys=True) + "\n", digest


def write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
    shutil.copyfile(path, path + ".pristine")


def generate(tmp: str, script: str, size: int) -> dict[str, tuple[list[str], list[str], str]]:
    """verb -> (mdgrill argv without the executable, phase_gate argv without python, the file
    to restore before each run of either) for the spec and state of `size` decisions."""
    jobs: dict[str, tuple[list[str], list[str], str]] = {}
    rnd = -(-size // genspec.PER_ROUND)
    for verb, pending in (("begin", ["X1"]), ("record-answer", ["X1"]),
                          ("open-frontier", [])):
        folder = os.path.join(tmp, f"{verb}-{size}")
        spec = os.path.join(folder, "spec")
        write(os.path.join(spec, ".progress.md"), genspec.progress_text(size, pending=pending))
        state_text, digest = gate_state(script, size, pending)
        state = os.path.join(folder, "ralph", ".ralph-state.json")
        write(state, state_text)
        if verb == "begin":
            md = ["begin-interview", spec, "--phase", "requirements", "--interview-id", "req-1"]
            gate = ["begin-interview", state, "--phase", "requirements", "--interview-id",
                    "req-1", "--round", str(rnd + 1), "--discovery-revision", "rev-1",
                    "--context-digest", digest]
        elif verb == "record-answer":
            md = ["record-answer", spec, "--decision-id", "X1", "--answer", REPLY]
            gate = ["record-answer", state, "--decision-id", "X1", "--answer", REPLY]
        else:
            md = ["open-frontier", spec, "--round", str(rnd + 1), "--decision-id", "X1",
                  "--decision-id", "X2"]
            gate = ["open-frontier", state, "--round", str(rnd + 1), "--decision-id", "X1",
                    "--decision-id", "X2"]
        jobs[verb] = (md, gate, folder)
    return jobs


def restore(folder: str | None) -> None:
    if folder is None:
        return
    for base, _, files in os.walk(folder):
        for name in files:
            if name.endswith(".pristine"):
                shutil.copyfile(os.path.join(base, name),
                                os.path.join(base, name[:-len(".pristine")]))


def run_once(argv: list[str], folder: str | None) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one child process; a failure stops the bench."""
    restore(folder)
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=CHILD_ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    err = proc.stderr.read() if proc.stderr else b""
    if proc.stderr:
        proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv[:3])}... failed: {err.decode(errors='replace')[:400]}")
    return wall, usage.ru_utime + usage.ru_stime


def floor_cases(mdgrill: str, cases: list[tuple[str, int | None, list[str], list[str],
                                                 str | None]]
                ) -> dict[int, tuple[tuple[list[str], list[float]], tuple[list[str], list[float]]]]:
    """For each `open-frontier` case: floor.py's argv alone and with the mdgrill modules the
    verb imports (in the order it imports them), each with its list of times to fill."""
    python = os.path.join(os.path.dirname(mdgrill), "python")
    if not os.path.isfile(python):  # an mdgrill outside a venv: the bench's own interpreter
        python = sys.executable
    floors = {}
    for i, (verb, _, md, _, folder) in enumerate(cases):
        if verb != "open-frontier":
            continue
        restore(folder)
        report = subprocess.run(md, capture_output=True, text=True, check=True,
                                env={**CHILD_ENV, "PYTHONPROFILEIMPORTTIME": "1"}).stderr
        # each line: "import time: self | cumulative | <indent>name", the innermost first
        names = [line.rsplit("|", 1)[1].strip() for line in report.splitlines()
                 if line.startswith("import time:") and "|" in line]
        modules = ",".join(name for name in names if name.split(".")[0] == "mdgrill")
        args = [python, os.path.join(HERE, "floor.py"), *md[md.index("open-frontier") + 1:]]
        floors[i] = ((args, []), ([*args, "--imports", modules], []))
        for argv, _ in floors[i]:  # check each succeeds
            run_once(argv, folder)
    return floors


def print_floors(floors: dict[int, tuple[tuple[list[str], list[float]],
                                          tuple[list[str], list[float]]]],
                 cases: list[tuple[str, int | None, list[str], list[str], str | None]],
                 times: list[tuple[list[float], list[float], list[float]]]) -> None:
    if not floors:
        return
    print("\nopen-frontier's floor (floor.py), its ratio to phase_gate in the same turns:")
    print(f"{'decisions':>9} {'floor':>17} {'with the imports':>22}")
    for i, ((_, alone), (_, loaded)) in floors.items():
        gate_m = statistics.median(times[i][1]) * 1000
        bare, with_imports = statistics.median(alone) * 1000, statistics.median(loaded) * 1000
        print(f"{cases[i][1] or 0:>9,} {bare:7.1f} ms {bare / gate_m:6.2f} "
              f"{with_imports:10.1f} ms {with_imports / gate_m:6.2f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--phase-gate", default=os.environ.get("MDGRILL_PHASE_GATE"),
                    help="smart-ralph's phase_gate.py (default: $MDGRILL_PHASE_GATE)")
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--sizes", default="10,1000,10000")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    ap.add_argument("--mdgrill", help="an installed mdgrill to time (default: install this "
                    "checkout, not editable, into a temporary venv)")
    ap.add_argument("--before", help="another installed mdgrill (an earlier commit) to time "
                    "in the same turns, printed beside")
    ap.add_argument("--floor", action="store_true", help="also time floor.py's open-frontier "
                    "alone and after importing the modules mdgrill's verb imports")
    opts = ap.parse_args()
    if not opts.phase_gate or not os.path.isfile(opts.phase_gate):
        raise SystemExit("name smart-ralph's phase_gate.py with --phase-gate PATH (or "
                         "MDGRILL_PHASE_GATE): it is the baseline and is not part of mdgrill")
    sizes = [int(s) for s in opts.sizes.split(",")]
    before = os.path.abspath(opts.before) if opts.before else None
    if before is not None and not os.path.isfile(before):
        raise SystemExit(f"--before {opts.before}: no such file")
    tmp = tempfile.mkdtemp(prefix="mdgrill-bench-peer-")
    try:
        if opts.mdgrill:
            mdgrill, python = os.path.abspath(opts.mdgrill), sys.executable
        else:
            mdgrill, python = install_fresh(tmp)
        script = plugin_copy(tmp, opts.phase_gate)
        cases: list[tuple[str, int | None, list[str], list[str], str | None]] = [
            ("classify-reply", None, [mdgrill, "classify-reply", "--text", REPLY],
             [python, script, "classify-reply", "--text", REPLY], None)]
        for size in sizes:
            for verb, (md, gate, folder) in generate(tmp, script, size).items():
                cases.append((verb, size, [mdgrill, "--json", *md], [python, script, *gate],
                              folder))
        print(f"mdgrill: {mdgrill}\nphase_gate.py: {opts.phase_gate} (run from a copy)\n"
              f"{opts.runs} runs a figure, medians of {opts.clock} time, taking turns; "
              f"load average {os.getloadavg()[0]:.1f} at the start")
        times: list[tuple[list[float], list[float], list[float]]] = \
            [([], [], []) for _ in cases]
        for _, _, md, gate, folder in cases:  # warm the page cache, check each succeeds
            run_once(md, folder)
            run_once(gate, folder)
            if before is not None:
                run_once([before, *md[1:]], folder)
        floors = floor_cases(mdgrill, cases) if opts.floor else {}
        pick = 1 if opts.clock == "cpu" else 0
        for _ in range(opts.runs):
            for i, (_, _, md, gate, folder) in enumerate(cases):
                times[i][0].append(run_once(md, folder)[pick])
                times[i][1].append(run_once(gate, folder)[pick])
                if before is not None:
                    times[i][2].append(run_once([before, *md[1:]], folder)[pick])
                for argv, found in floors.get(i, ()):
                    found.append(run_once(argv, folder)[pick])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end\n")
    extra = f" {'before':>10} {'ratio':>6}" if before is not None else ""
    print(f"{'verb':15} {'decisions':>9} {'mdgrill':>10} {'phase_gate':>11} {'ratio':>6}{extra}")
    missed = []
    for (verb, size, *_), (md_t, gate_t, before_t) in zip(cases, times, strict=True):
        md_m, gate_m = statistics.median(md_t) * 1000, statistics.median(gate_t) * 1000
        ratio = md_m / gate_m
        shown = "any" if size is None else f"{size:,}"
        beside = ""
        if before_t:
            before_m = statistics.median(before_t) * 1000
            beside = f" {before_m:7.1f} ms {before_m / gate_m:6.2f}"
        print(f"{verb:15} {shown:>9} {md_m:7.1f} ms {gate_m:8.1f} ms {ratio:6.2f}{beside}")
        if ratio > 0.8:
            missed.append(f"{verb}@{shown}: {ratio:.2f}x")
    print("\ntarget: each <= 0.8x phase_gate: " + ("met" if not missed else
                                                     "NOT met (" + ", ".join(missed) + ")"))
    print_floors(floors, cases, times)
    return 0 if not missed else 1


if __name__ == "__main__":
    sys.exit(main())
