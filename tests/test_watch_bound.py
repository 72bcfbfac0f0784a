"""`watch` and decisions bound to code (issue 36: "`watch` reports a binding broken on save").

Through the installed CLI (`mdgrill watch`, text and `--json`) on a real repository whose
decision D1 is bound with `mdgrill bind`. Every wait is a deadline on the next report line,
never a fixed sleep; "nothing was said" is shown by the next report being the expected one.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import Run, mdgrill_command

from mdgrill.services.watch.bound import BoundFiles, standing_bindings
from mdgrill.shell.session import load
from mdgrill.shell.store import Spec

SPEC = "specs/pricing"
PRICING = '''def discount(price):
    """Ten percent off every order."""
    return price * 0.9


def tax(price):
    return price * 0.2
'''
POLICY = "# Policy\n\n## Refunds\n\nWithin 30 days.\n\n## Shipping\n\nFree over 50.\n"
DEADLINE = 15.0


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)


def ok(mdgrill: Run, repo: Path, *args: str) -> None:
    code, out, err = mdgrill("--json", *args, cwd=repo)
    assert code == 0, out + err


@pytest.fixture
def bound(repo: Path, mdgrill: Run) -> Path:
    return bind_repo(repo, mdgrill)


def bind_repo(repo: Path, mdgrill: Run) -> Path:
    """An approved interview whose D1 ('Ten percent off') is bound to a symbol and a section."""
    (repo / "src").mkdir()
    (repo / "docs").mkdir()
    (repo / "src" / "pricing.py").write_text(PRICING)
    (repo / "docs" / "policy.md").write_text(POLICY)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pricing")
    ok(mdgrill, repo, "init", SPEC, "--goal", "Discounts for loyal customers.")
    ok(mdgrill, repo, "node", "add", SPEC, "D1", "--title", "How large is the discount?",
       "--option", "Ten percent off", "--option", "Twenty percent off")
    ok(mdgrill, repo, "begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1")
    ok(mdgrill, repo, "open-frontier", SPEC, "--round", "1", "--decision-id", "D1")
    ok(mdgrill, repo, "record-answer", SPEC, "--decision-id", "D1", "--answer",
       "Ten percent off")
    ok(mdgrill, repo, "await-confirmation", SPEC, "--decision-id", "C1", "--approach", "10%")
    ok(mdgrill, repo, "confirm", SPEC, "--decision-id", "C1", "--source",
       "approve-and-delegate")
    ok(mdgrill, repo, "bind", SPEC, "--decision-id", "D1", "src/pricing.py::discount",
       "docs/policy.md#Refunds")
    return repo


class Watch:
    """`mdgrill watch` running in a subprocess; its lines land in a queue."""

    def __init__(self, repo: Path, *flags: str) -> None:
        self.json = "--json" in flags
        self.proc = subprocess.Popen([*mdgrill_command(), *flags, "watch"], cwd=repo,
                                     text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def next(self, match: Callable[[str], bool] = lambda line: True) -> str:
        """The next line matching `match` within the deadline (others are skipped)."""
        end = time.monotonic() + DEADLINE
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError("no matching report line before the deadline")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if match(line):
                return line

    def report(self) -> dict[str, object]:
        """The next `--json` report."""
        value = json.loads(self.next())
        assert isinstance(value, dict)
        return value

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def watching(bound: Path) -> Iterator[Watch]:
    run = Watch(bound, "--json")
    yield run
    run.stop()


def save(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def test_a_substantive_save_is_reported_broken_and_healed_when_put_back(
        watching: Watch, bound: Path) -> None:
    started = watching.report()
    assert started["kind"] == "started" and started["bound"] == 2
    pricing = bound / "src" / "pricing.py"
    save(pricing, PRICING.replace("0.9", "0.8"))
    broken = watching.report()
    assert broken["kind"] == "problem" and broken["code"] == "BINDING_BROKEN"
    assert (broken["decision"], broken["answer"], broken["target"]) == (
        "D1", "Ten percent off", "src/pricing.py::discount")
    assert broken["path"] == "src/pricing.py" and broken["line"] == 1
    assert "decision D1 'Ten percent off'" in str(broken["message"])
    # reformatting the original back: the substance matches again, so it is healed
    save(pricing, PRICING.replace("price * 0.9", "price*0.9  # same"))
    healed = watching.report()
    assert healed["kind"] == "fixed" and healed["code"] == "BINDING_BROKEN"
    assert healed["target"] == "src/pricing.py::discount"


def test_reformatting_and_a_neighbour_stay_quiet(watching: Watch, bound: Path) -> None:
    assert watching.report()["kind"] == "started"
    pricing = bound / "src" / "pricing.py"
    policy = bound / "docs" / "policy.md"
    # each quiet save is followed by a breaking one: the next report must be that one
    save(pricing, PRICING.replace("price * 0.9", "price*0.9").replace("0.2", "0.25"))
    save(policy, POLICY.replace("Free over 50.", "Paid.").replace("Within 30", "Within   30"))
    save(policy, POLICY.replace("30 days", "14 days"))
    broken = watching.report()
    assert (broken["kind"], broken["target"]) == ("problem", "docs/policy.md#Refunds")
    assert broken["path"] == "docs/policy.md" and broken["line"] == 3


def test_a_save_that_does_not_parse_says_nothing_until_one_does(watching: Watch,
                                                                bound: Path) -> None:
    assert watching.report()["kind"] == "started"
    pricing = bound / "src" / "pricing.py"
    save(pricing, PRICING.replace("return price * 0.9", "return price *"))  # mid-edit
    save(pricing, PRICING.replace("def discount(price):", "def discounted(price):"))
    gone = watching.report()
    assert gone["kind"] == "problem" and gone["target"] == "src/pricing.py::discount"
    assert "is gone" in str(gone["message"])


def test_the_text_output_names_decision_answer_and_target(bound: Path) -> None:
    run = Watch(bound)
    try:
        assert "2 bindings" in run.next(lambda text: text.startswith("watching "))
        save(bound / "src" / "pricing.py", PRICING.replace("0.9", "0.8"))
        line = run.next(lambda text: "BINDING_BROKEN" in text)
        assert line.startswith("src/pricing.py:1:1: error BINDING_BROKEN: "
                               "`src/pricing.py::discount` no longer matches its binding: "
                               "decision D1 'Ten percent off' (specs/pricing)")
    finally:
        run.stop()


def test_only_bound_files_are_followed(bound: Path) -> None:
    """Keep it cheap: a save is fingerprinted only when a binding names its file (or a glob
    matching it)."""
    files = BoundFiles()
    spec = Spec(str(bound / SPEC), str(bound))
    assert files.update(SPEC, standing_bindings(load(spec), SPEC))
    assert [b.binding.target for b in files.on("src/pricing.py")] == [
        "src/pricing.py::discount"]
    assert files.on("src/other.py") == [] and files.on("README.md") == []
    assert not files.update(SPEC, standing_bindings(load(spec), SPEC))  # same: nothing rebuilt


def test_a_reaffirmation_is_reported_as_fixed(watching: Watch, bound: Path,
                                              mdgrill: Run) -> None:
    assert watching.report()["kind"] == "started"
    save(bound / "src" / "pricing.py", PRICING.replace("0.9", "0.8"))
    assert watching.report()["code"] == "BINDING_BROKEN"
    git(bound, "commit", "-qam", "Twenty percent off")
    ok(mdgrill, bound, "reaffirm", SPEC, "--decision-id", "D1", "--reply", "Still holds")
    fixed = watching.report()
    assert (fixed["kind"], fixed["code"], fixed["target"]) == (
        "fixed", "BINDING_BROKEN", "src/pricing.py::discount")
    assert "no longer bound as it was: decision D1 was reaffirmed or released" in str(
        fixed["message"])
