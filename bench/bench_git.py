"""Git integration speed (issue 4): `confirm` with its commit, and `verify` over long histories.

    .venv/bin/python bench/bench_git.py [--runs 10] [--verify-runs 3] [--baseline-rev REV]

1. `mdgrill confirm` (the transition and its approval commit) against `git commit -- PATH` of
   the same file by the git CLI, interleaved in the same run; each run on a fresh spec in
   awaiting_confirmation that is tracked in the repository (so both commit a modification).
   Budget: median confirm <= 3x median git commit.
2. `mdgrill verify` over a history of 250, 500 and 1,000 commits of one spec, each commit
   adding a round of four decisions and four design-tree nodes (built with `git fast-import`
   from `genspec.progress_text`). Budget: < 10 s at 1,000 commits, growing linearly.
3. `mdgrill verify` over 200 commits (issue 37 goal 5), wall and CPU time of the child
   (user + system, which the load of a shared machine disturbs less). With `--baseline-rev`,
   mdgrill's `src/` at that revision of this checkout (`git archive`) runs the same verify,
   interleaved in the same run, as the before. Budget: median wall <= 0.2 s.

Children run as on an installed machine: PYTHONDONTWRITEBYTECODE (set in this environment)
is removed for them, and mdgrill is byte-compiled first
(`python -m compileall -q` into a PYTHONPYCACHEPREFIX under the temporary folder, so nothing is
written into the checkout).
"""

from __future__ import annotations

import argparse
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

CHILD_ENV = dict(os.environ)
CHILD_ENV.pop("PYTHONDONTWRITEBYTECODE", None)
for _name in ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"):
    CHILD_ENV.pop(_name, None)
SPEC_GOAL = "Let customers apply a promo code."


def git(cwd: str, *args: str, data: bytes | None = None) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, input=data, capture_output=True,
                          env=CHILD_ENV, check=True)
    return proc.stdout.decode().strip()


def timed(argv: list[str], cwd: str) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, env=CHILD_ENV)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:3])} failed ({proc.returncode}): "
                         f"{(proc.stdout + proc.stderr).decode(errors='replace')[:500]}")
    return elapsed


def timed_cpu(argv: list[str], cwd: str, env: dict[str, str]) -> tuple[float, float]:
    """(wall, child CPU user + system) seconds of one successful run of `argv`."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])} failed ({proc.returncode}): "
                         f"{(proc.stdout + proc.stderr).decode(errors='replace')[:500]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def baseline_source(tmp: str, rev: str) -> str:
    """mdgrill's `src/` at `rev` of this checkout, unpacked and byte-compiled under `tmp`."""
    dest = os.path.join(tmp, "baseline")
    os.makedirs(dest)
    archive = subprocess.run(["git", "-C", os.path.dirname(HERE), "archive", rev, "src"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)
    src = os.path.join(dest, "src")
    subprocess.run([sys.executable, "-m", "compileall", "-q", src], env=CHILD_ENV, check=True)
    return src


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def compile_packages(tmp: str) -> None:
    import mdgrill

    CHILD_ENV["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
    folders = [os.path.dirname(mdgrill.__file__ or "")]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], env=CHILD_ENV,
                   check=True)


def awaiting_text(mdgrill: str, tmp: str) -> bytes:
    """A `.progress.md` at awaiting_confirmation (C1), built with the CLI outside any repo."""
    top = os.path.join(tmp, "template")
    os.makedirs(top)
    spec = "specs/t"
    for argv in (["init", spec, "--goal", SPEC_GOAL],
                 ["begin-interview", spec, "--phase", "requirements", "--interview-id", "req-1"],
                 ["open-frontier", spec, "--round", "1", "--decision-id", "D1"],
                 ["record-answer", spec, "--decision-id", "D1", "--answer", "Every customer"],
                 ["await-confirmation", spec, "--decision-id", "C1", "--approach", "one code"]):
        timed([mdgrill, *argv], top)
    with open(os.path.join(top, spec, ".progress.md"), "rb") as handle:
        return handle.read()


def bench_confirm(mdgrill: str, tmp: str, runs: int) -> bool:
    repo = os.path.join(tmp, "confirm-repo")
    os.makedirs(repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "Bench")
    git(repo, "config", "user.email", "bench@example.invalid")
    git(repo, "config", "commit.gpgsign", "false")
    awaiting = awaiting_text(mdgrill, tmp)
    confirmed = awaiting.replace(b"status: awaiting_confirmation", b"status: complete")
    for i in range(runs + 1):  # +1: the first of each is a warm-up, not counted
        for kind, data in (("m", awaiting), ("g", awaiting)):
            folder = os.path.join(repo, "specs", f"{kind}{i}")
            os.makedirs(folder)
            with open(os.path.join(folder, ".progress.md"), "wb") as handle:
                handle.write(data)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "fresh specs awaiting confirmation")
    mine: list[float] = []
    theirs: list[float] = []
    for i in range(runs + 1):
        m = timed([mdgrill, "confirm", f"specs/m{i}", "--decision-id", "C1", "--source",
                   "approve-and-delegate"], repo)
        path = f"specs/g{i}/.progress.md"
        with open(os.path.join(repo, path), "wb") as handle:
            handle.write(confirmed)
        g = timed(["git", "commit", "-q", "-m", "grill(requirements): approve req-1 (round 1)",
                   "--", path], repo)
        if i:
            mine.append(m)
            theirs.append(g)
    commits = int(git(repo, "rev-list", "--count", "--grep=Mdgrill-Transition: approve",
                      "HEAD"))
    floor = statistics.median(timed([sys.executable, "-c", "pass"], repo) for _ in range(runs))
    import importlib.util

    has_gitpython = importlib.util.find_spec("git") is not None  # docs/differences.md's comparison
    gitpy = statistics.median(timed([sys.executable, "-c", "import git"], repo)
                              for _ in range(runs)) if has_gitpython else 0.0
    med_m, med_g = statistics.median(mine), statistics.median(theirs)
    ratio = med_m / med_g
    print("1. confirm + approval commit vs `git commit -- PATH` (same file size, same run)")
    print(f"   spec file: {len(awaiting):,} bytes; {runs} runs each, interleaved, after a warm-up")
    print(f"   mdgrill confirm (median): {ms(med_m)}   min {ms(min(mine))}   "
          f"max {ms(max(mine))}")
    print(f"   git commit      (median): {ms(med_g)}   min {ms(min(theirs))}   "
          f"max {ms(max(theirs))}")
    print(f"   ratio: {ratio:.2f}x (budget <= 3x): {'OK' if ratio <= 3 else 'OVER BUDGET'}; "
          f"{commits} approval commits made")
    if has_gitpython:
        print(f"   for scale: `python -c pass` {ms(floor)}, `python -c 'import git'` {ms(gitpy)} "
              f"(GitPython's import alone is {(gitpy - floor) / med_g:.1f}x a git commit)")
    else:
        print(f"   for scale: `python -c pass` {ms(floor)} (GitPython is not installed here: "
              "`pip install GitPython` to time its import too)")
    return ratio <= 3 and commits == runs + 1


def build_history(path: str, commits: int) -> tuple[int, int]:
    """A repository whose one spec has `commits` versions: (last version's size, all sizes)."""
    git(tmp_parent(path), "init", "-q", "-b", "main", path)
    parts: list[bytes] = []
    size = total = 0
    for i in range(1, commits + 1):
        data = genspec.progress_text(4 * i, pending=[], rounds=i).encode()
        size = len(data)
        total += size
        parts.append(b"blob\nmark :%d\ndata %d\n%s\n" % (i, len(data), data))
    for i in range(1, commits + 1):
        msg = b"round %d" % i
        parts.append(b"commit refs/heads/main\ncommitter Bench <b@example.invalid> %d +0000\n"
                     b"data %d\n%s\nM 100644 :%d specs/bench/.progress.md\n\n"
                     % (1_700_000_000 + i, len(msg), msg, i))
    git(path, "fast-import", "--quiet", data=b"".join(parts))
    git(path, "reset", "-q", "--hard")
    return size, total


def tmp_parent(path: str) -> str:
    return os.path.dirname(path)


def bench_verify(mdgrill: str, tmp: str, runs: int) -> bool:
    print("\n2. verify over the history of one spec (each commit adds a round and 4 nodes)")
    rows = []
    for commits in (250, 500, 1000):
        repo = os.path.join(tmp, f"history-{commits}")
        size, volume = build_history(repo, commits)
        times = [timed([mdgrill, "verify"], repo) for _ in range(runs)]
        rows.append((commits, size, volume, statistics.median(times)))
    base_n, _, base_v, base_t = rows[0]
    for commits, size, volume, t in rows:
        print(f"   {commits:5d} commits  last version {size / 1e6:4.2f} MB  all versions "
              f"{volume / 1e6:6.1f} MB  verify {ms(t)}  {t / commits * 1e3:5.2f} ms/commit  "
              f"{t / volume * 1e9:5.2f} ms/MB  time x{t / base_t:4.2f} for x{commits / base_n:.0f}"
              f" commits, x{volume / base_v:.1f} bytes")
    total = rows[-1][3]
    print(f"   1,000 commits: {total:.2f} s (budget < 10 s): "
          f"{'OK' if total < 10 else 'OVER BUDGET'}")
    return total < 10


VERIFY_BUDGET = 0.2


def bench_verify_200(tmp: str, runs: int, baseline_rev: str | None) -> bool:
    print("\n3. verify over 200 commits of one spec: wall and child CPU (user + system)")
    repo = os.path.join(tmp, "history-200")
    size, volume = build_history(repo, 200)
    kinds = [("now", dict(CHILD_ENV))]
    if baseline_rev is not None:
        env = dict(CHILD_ENV)
        env["PYTHONPATH"] = baseline_source(tmp, baseline_rev)
        kinds.append((f"at {baseline_rev}", env))
    argv = [sys.executable, "-m", "mdgrill", "verify"]
    walls: dict[str, list[float]] = {name: [] for name, _ in kinds}
    cpus: dict[str, list[float]] = {name: [] for name, _ in kinds}
    for i in range(runs + 1):  # the first round warms the caches and is not counted
        for name, env in kinds:
            wall, cpu = timed_cpu(argv, repo, env)
            if i:
                walls[name].append(wall)
                cpus[name].append(cpu)
    floor = statistics.median(timed_cpu([sys.executable, "-c", "pass"], repo, CHILD_ENV)[1]
                              for _ in range(runs))
    print(f"   last version {size / 1e6:4.2f} MB, all versions {volume / 1e6:5.1f} MB; {runs} "
          f"runs each, interleaved; `python -c pass` CPU {ms(floor)}; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for name, _ in kinds:
        print(f"   {name:>18}: wall median {ms(statistics.median(walls[name]))}  min "
              f"{ms(min(walls[name]))}   CPU median {ms(statistics.median(cpus[name]))}  min "
              f"{ms(min(cpus[name]))}")
    now = statistics.median(walls["now"])
    print(f"   200 commits: wall {now:.3f} s, CPU {statistics.median(cpus['now']):.3f} s "
          f"(budget <= {VERIFY_BUDGET} s wall): {'OK' if now <= VERIFY_BUDGET else 'OVER BUDGET'}")
    return now <= VERIFY_BUDGET


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--verify-runs", type=int, default=3)
    ap.add_argument("--verify200-runs", type=int, default=9)
    ap.add_argument("--baseline-rev", default=None,
                    help="time section 3 also with mdgrill's src/ at this revision")
    ap.add_argument("--only-verify200", action="store_true",
                    help="run section 3 alone")
    ap.add_argument("--mdgrill", default=shutil.which("mdgrill") or
                    os.path.join(os.path.dirname(sys.executable), "mdgrill"))
    opts = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="mdgrill-bench-git-")
    home = os.path.join(tmp, "home")
    os.makedirs(home)
    CHILD_ENV.update({"HOME": home, "GIT_CONFIG_GLOBAL": os.path.join(home, ".gitconfig"),
                      "GIT_CONFIG_NOSYSTEM": "1"})
    try:
        compile_packages(tmp)
        print(f"mdgrill: {opts.mdgrill}\ngit: {git(tmp, 'version')}\nchildren: "
              "PYTHONDONTWRITEBYTECODE removed, packages byte-compiled first "
              "(compileall into a PYTHONPYCACHEPREFIX)\n")
        ok = True
        if not opts.only_verify200:
            ok = bench_confirm(opts.mdgrill, tmp, opts.runs)
            ok = bench_verify(opts.mdgrill, tmp, opts.verify_runs) and ok
        ok = bench_verify_200(tmp, opts.verify200_runs, opts.baseline_rev) and ok
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
