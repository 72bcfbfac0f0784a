"""`log`, `review` and `verify` (docs/contract.md, issue 4) over real histories, and the byte-level
fast path of `verify` against the full parse."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from conftest import Run, mdgrill_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mdgrill.cli import main as cli
from mdgrill.core.history import (
    _fast_append,
    _fm_end,
    _parsed,
    _snapshot_of,
    first_broken_block,
    log_version,
    verify_log_history,
)
from mdgrill.formats.progress import log_digest

SPEC = "specs/checkout-discounts"
PROGRESS = f"{SPEC}/.progress.md"


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout.strip()


def _json(out: str) -> dict[str, object]:
    result = json.loads(out)
    assert isinstance(result, dict)
    return result


def _commit_file(repo: Path, rel: str, data: bytes, message: str) -> str:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    _git(repo, "add", rel)
    _git(repo, "commit", "-q", "-m", message)
    return _git(repo, "rev-parse", "HEAD")


def _refresh_digest(text: str) -> str:
    """The front matter's log digest recomputed, as a careful forger would."""
    log = text.split("## Interview Responses\n", 1)[1]
    return re.sub(r"sha256: [0-9a-f]{64}", f"sha256: {log_digest(log)}", text, count=1)


@pytest.fixture(scope="module")
def demo_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`mdgrill demo`: the scripted session (both phases approved) in a fresh repository."""
    top = tmp_path_factory.mktemp("demo")
    env = {**os.environ, "HOME": str(top), "GIT_CONFIG_GLOBAL": str(top / ".gitconfig"),
           "GIT_CONFIG_NOSYSTEM": "1"}
    proc = subprocess.run([*mdgrill_command(), "demo", str(top / "repo"), "--quiet"],
                          env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return top / "repo"


@pytest.fixture
def demo(demo_repo: Path, tmp_path: Path, home: Path) -> Path:
    """A private copy of the demo repository."""
    copy = tmp_path / "demo"
    subprocess.run(["cp", "-a", str(demo_repo), str(copy)], check=True)
    return copy


# --------------------------------------------------------------------------- the session

def test_scripted_session_leaves_one_approval_commit_per_phase(demo: Path, mdgrill: Run) -> None:
    subjects = _git(demo, "log", "--reverse", "--format=%s", "-E",
                    "--grep=^Mdgrill-Transition: (approve|skip)$").splitlines()
    assert subjects == ["grill(requirements): approve req-1 (round 4)",
                        "grill(design): approve design-1 (round 1)"]

    code, out, _ = mdgrill("--json", "log", SPEC, cwd=demo)
    assert code == 0
    transitions = _json(out)["transitions"]
    assert isinstance(transitions, list)
    moves = [(t["phase"], t["interview"], t["transition"]) for t in transitions
             if t["transition"] in ("approve", "skip")]
    assert moves == [("requirements", "req-1", "approve"), ("design", "design-1", "skip")]
    first = _json(out)["transitions"][0]  # type: ignore[index]
    assert first["commit"] == _git(demo, "log", "-1", "--format=%H", "--grep=approve req-1")
    assert re.fullmatch(r"[0-9a-f]{64}", first["context_digest"])
    assert first["date"].startswith("20")
    text = mdgrill("log", cwd=demo)[1]
    assert "requirements  req-1  approve" in text and "design  design-1  skip" in text

    start = _git(demo, "rev-list", "--max-parents=0", "HEAD")
    code, out, _ = mdgrill("review", f"{start}..HEAD", cwd=demo)
    assert code == 0
    assert "#### Requirements Grill - Round 1" in out and "#### Design Grill - Confirmed" in out
    # each decision with its question beside its ID
    assert "- Decisions: D2 (What does a code take off?) -> A percentage of the subtotal" in out
    assert "### Glossary contexts/ordering/CONTEXT.md" in out and "**Promo Code**" in out

    code, out, _ = mdgrill("verify", cwd=demo)
    assert code == 0 and "0 problem(s)" in out
    code, out, err = mdgrill("--json", "check-delegation", SPEC, "--phase", "design",
                             "--interview-id", "design-1", cwd=demo)
    assert code == 0, (out, err)
    assert _json(out)["approval_commit"] == _git(demo, "rev-parse", "HEAD")


def test_session_catches_a_forged_approval_and_a_rewritten_round(
        demo: Path, mdgrill: Run) -> None:
    # forged: the design approval re-committed by hand, without mdgrill's trailers
    _git(demo, "reset", "-q", "--soft", "HEAD~1")
    _git(demo, "commit", "-q", "-m", "design approved")
    code, out, _ = mdgrill("--json", "check-delegation", SPEC, "--phase", "design",
                           "--interview-id", "design-1", cwd=demo)
    assert code == 3 and _json(out)["error"]["code"] == "APPROVAL_NOT_RECORDED"  # type: ignore[index]

    # rewritten: a recorded decision changed, the front matter digest fixed up to match
    text = (demo / PROGRESS).read_text()
    edited = _refresh_digest(text.replace("D1 -> Every customer", "D1 -> Staff only"))
    assert edited != text
    sha = _commit_file(demo, PROGRESS, edited.encode(), "tidy")
    code, out, _ = mdgrill("verify", cwd=demo)
    assert code == 1
    line = edited.splitlines().index("### Requirements Grill - Round 1") + 1
    assert f"{PROGRESS}:{line}:1: error ROUND_EDITED: commit {sha[:10]} changed or removed " \
           "the recorded block `Requirements Grill - Round 1`" in out
    assert _json(mdgrill("--json", "verify", SPEC, cwd=demo)[1])["ok"] is False


# --------------------------------------------------------------------------- verify

def test_verify_reports_a_round_inserted_before_an_older_one(demo: Path, mdgrill: Run) -> None:
    text = (demo / PROGRESS).read_text()
    block = "### Requirements Grill - Round 9\n- Asked: D9\n- Decisions: D9 -> yes\n\n"
    edited = text.replace("### Requirements Grill - Round 2\n",
                          block + "### Requirements Grill - Round 2\n", 1)
    _commit_file(demo, PROGRESS, _refresh_digest(edited).encode(), "insert")

    code, out, _ = mdgrill("verify", SPEC, cwd=demo)

    assert code == 1
    assert "error ROUND_INSERTED" in out and "`Requirements Grill - Round 9`" in out


def test_verify_glossary_term_removed_needs_a_round_that_says_so(
        demo: Path, mdgrill: Run) -> None:
    glossary = demo / "contexts" / "ordering" / "CONTEXT.md"
    kept = glossary.read_text()
    without = re.sub(r"\*\*Promo Code\*\*:.*?(?=\n\n|\Z)", "", kept, flags=re.S)
    assert "Promo Code" not in without
    _commit_file(demo, "contexts/ordering/CONTEXT.md", without.encode(), "drop term")

    code, out, _ = mdgrill("verify", cwd=demo)
    assert code == 1 and "error TERM_REMOVED" in out and "**Promo Code**" in out

    text = (demo / PROGRESS).read_text().rstrip("\n")
    noted = text + "\n\n### Requirements Grill - Round 4\n- Asked: none\n" \
        "- Domain language: Promo Code -> (removed)\n"
    _commit_file(demo, PROGRESS, _refresh_digest(noted).encode(), "note the removal")
    code, out, _ = mdgrill("verify", cwd=demo)
    assert code == 0, out


def test_verify_reports_a_malformed_version_and_goes_on(demo: Path, mdgrill: Run) -> None:
    good = (demo / PROGRESS).read_bytes()
    bad = _commit_file(demo, PROGRESS, b"---\nbroken: [\n\xff\xfe not utf-8\n", "oops")
    _commit_file(demo, PROGRESS, good, "restore")

    code, out, err = mdgrill("verify", SPEC, cwd=demo)

    assert code == 0, (out, err)
    assert f"warning MALFORMED_VERSION: the version of commit {bad[:10]}" in out
    assert "Traceback" not in err


def test_verify_reports_a_deleted_spec(demo: Path, mdgrill: Run) -> None:
    good = (demo / PROGRESS).read_bytes()
    _git(demo, "rm", "-q", PROGRESS)
    _git(demo, "commit", "-q", "-m", "remove")
    _commit_file(demo, PROGRESS, good, "back")
    code, out, _ = mdgrill("verify", cwd=demo)
    # the file came back byte for byte: the episode is reported, and closed (issue 17)
    assert code == 0 and "deleted" in out and "ROUND_RESTORED" in out


def test_verify_walks_long_histories_by_the_fast_path(tmp_path: Path, home: Path) -> None:
    base = _small_spec()
    versions = []
    text = base
    for i in range(40):
        text += f"\n### Requirements Grill - Round {i + 2}\n- Asked: D{i + 2}\n"
        versions.append((f"{i:040x}", text.encode()))
    stats: dict[str, int] = {}
    assert verify_log_history(versions, "p.md", stats) == []
    assert stats == {"fast": 39, "full": 1}


# --------------------------------------------------------------------------- the fast path

def _small_spec() -> str:
    log = "\n### Requirements Grill - Round 1\n- Asked: D1\n- Decisions: D1 -> yes\n"
    return ("---\nmdgrill: 1\nspec: s\ngoal: g\nphase: requirements\n"
            f"log:\n  blocks: 1\n  sha256: {log_digest(log)}\n---\n# S\n\n## Goal\n\ng\n\n"
            "## Design Tree\n\n### D1: one\n- Section: a\n\n## Interview Responses\n" + log)


_FRAGMENTS = ["```\n", "~~~\n", "<!--\n", "-->\n", "## Interview Responses\n", "## Notes\n",
              "# Title\n", "### Requirements Grill - Round 7\n- Asked: D7\n", "x", "\n",
              "- Decisions: D1 -> no\n", "\r\n", "\xe9", "INTERVIEW RESPONSES", "---\n"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(_FRAGMENTS),
                          st.integers(0, 3)), min_size=1, max_size=4))
def test_fast_path_never_accepts_what_the_full_parse_rejects(
        edits: list[tuple[int, str, int]]) -> None:
    old = _small_spec()
    new = old
    for pos, fragment, cut in edits:
        at = pos % (len(new) + 1)
        new = new[:at] + fragment + new[at + cut:]
    old_lv, prog = _parsed(old.encode(), "p.md")
    snapshot = _snapshot_of(old.encode(), prog, old_lv)
    assert snapshot.head is not None
    data = new.encode("utf-8", "surrogatepass")
    if _fast_append(snapshot, data) is not None:
        new_lv = log_version(data, "p.md")
        if not new_lv.ok:
            # the fast path reads the log, not the YAML: with the old front matter in place
            # of the new one, the file must parse and only append
            cut, old_cut = _fm_end(data), _fm_end(old.encode())
            assert cut > 0
            new_lv = log_version(old.encode()[:old_cut] + data[cut:], "p.md")
        assert new_lv.ok
        assert first_broken_block(old_lv, new_lv) is None


def test_fast_path_accepts_appends_and_tree_growth() -> None:
    old = _small_spec()
    old_lv, prog = _parsed(old.encode(), "p.md")
    snapshot = _snapshot_of(old.encode(), prog, old_lv)
    grown = old.replace("- Section: a\n", "- Section: a\n\n### D2: two\n- Section: b\n") + \
        "\n### Requirements Grill - Round 2\n- Asked: D2\n"
    assert _fast_append(snapshot, grown.encode()) is not None
    fenced = grown.replace("### D2: two", "```\n### D2: two")
    assert _fast_append(snapshot, fenced.encode()) is None  # the full parse decides


_ROUND2 = "\n### Requirements Grill - Round 2\n- Asked: D2\n"
_BODY = "# S\n\n## Goal\n\ng\n\n## Design Tree\n\n### D1: one\n- Section: a\n\n"


def _with_body(body: str) -> str:
    return _small_spec().replace(_BODY, body)


# (old, new): a fence opened in the body and closed after an appended round hides the log
# from the full parse; each edit sits where a wrong count of the bytes the two versions
# share (`_common_prefix`, `_common_suffix`) would leave it unsearched (issue 32's mutants)
_HIDDEN = {
    "far from the body's end": (_small_spec(), lambda old: old.replace(
        "# S\n", "# S\n```\n") + _ROUND2 + "```\n"),
    "made by the body's first byte, with a change further on": (
        _with_body("x``\n" + _BODY), lambda old: old.replace("x``\n", "```\n").replace(
            "- Section: a", "- Section: b") + _ROUND2 + "```\n"),
    "near the body's end, with the title changed": (_small_spec(), lambda old: old.replace(
        "# S\n", "# T\n").replace("### D1: one", "```\n### D1: one") + _ROUND2 + "```\n"),
    "at the end of a replaced span longer than the reach": (_small_spec(), lambda old: old.replace(
        "\ng\n\n## Design Tree\n\n### D1: one\n", "\nh\n\n## Design Tree\n\n```\nD1: one\n")
        + _ROUND2 + "```\n"),
}


@pytest.mark.parametrize("case", list(_HIDDEN))
def test_fast_path_declines_an_opener_that_hides_the_log(case: str) -> None:
    old, edit = _HIDDEN[case]
    new = edit(old).encode()
    old_lv, prog = _parsed(old.encode(), "p.md")
    assert first_broken_block(old_lv, log_version(new, "p.md")) is not None  # the full parse
    snapshot = _snapshot_of(old.encode(), prog, old_lv)
    assert snapshot.head is not None and _fast_append(snapshot, new) is None
    stats: dict[str, int] = {}
    found = verify_log_history([("a" * 40, old.encode()), ("b" * 40, new)], "p.md", stats)
    assert stats == {"fast": 0, "full": 2} and "Round 1" in found[0].message


def test_fast_path_leaves_an_unclosed_front_matter_to_the_full_parse() -> None:
    """A version whose front matter is never closed cannot be read, however its log grew."""
    old = _small_spec().encode()
    new = _small_spec().replace("\n---\n# S", "\n--x\n# S") + _ROUND2
    stats: dict[str, int] = {}
    found = verify_log_history([("a" * 40, old), ("b" * 40, new.encode())], "p.md", stats)
    assert stats == {"fast": 0, "full": 2}
    assert [d.code for d in found] == ["MALFORMED_VERSION"]
    assert "front matter opened by `---` on line 1 is never closed" in found[0].message


def test_fast_path_needs_a_log_in_the_version_before() -> None:
    """A version with no Interview Responses section yet (nothing recorded), then its first
    round: nothing to report, and both read by the full parse."""
    first = _small_spec().split("## Interview Responses\n")[0]
    stats: dict[str, int] = {}
    assert verify_log_history([("a" * 40, first.encode()),
                               ("b" * 40, _small_spec().encode())], "p.md", stats) == []
    assert stats == {"fast": 0, "full": 2}


def test_fast_path_leaves_a_nul_byte_to_the_full_parse() -> None:
    """A NUL byte in what a commit appended makes the version unreadable (binary), as the full
    parse says: the fast path does not accept it as an append."""
    old = _small_spec().encode()
    new = (_small_spec() + _ROUND2.replace("D2", "D2\x00")).encode()
    stats: dict[str, int] = {}
    found = verify_log_history([("a" * 40, old), ("b" * 40, new)], "p.md", stats)
    assert stats == {"fast": 0, "full": 2}
    assert [d.code for d in found] == ["MALFORMED_VERSION"] and "NUL byte" in found[0].message


def test_fast_path_compares_a_body_of_one_byte() -> None:
    """Nothing between the front matter and the log but a blank line, then a word written
    there: the shared bytes are counted (none at the start) and the append is taken fast."""
    old = _with_body("\n")
    new = old.replace("---\n\n## Interview", "---\nx\n## Interview") + _ROUND2
    stats: dict[str, int] = {}
    assert verify_log_history([("a" * 40, old.encode()), ("b" * 40, new.encode())], "p.md",
                              stats) == []
    assert stats == {"fast": 1, "full": 1}


@pytest.mark.parametrize("start", ["no front matter", "a line of four dashes",
                                   "a blank line, then the log"])
def test_fast_path_takes_appends_to_a_file_without_front_matter(start: str) -> None:
    """The fast path does not need a front matter: an append to a file without one (its
    first line four dashes, or the log heading on line 2) is taken fast too."""
    body = _small_spec().split("\n---\n", 1)[1]
    old = {"no front matter": body, "a line of four dashes": "----\n" + body,
           "a blank line, then the log": "\n## Interview Responses\n" + body.split(
               "## Interview Responses\n")[1]}[start]
    stats: dict[str, int] = {}
    assert verify_log_history([("a" * 40, old.encode()), ("b" * 40, (old + _ROUND2).encode())],
                              "p.md", stats) == []
    assert stats == {"fast": 1, "full": 1}


# --------------------------------------------------------------------------- review, log

def test_review_defaults_to_the_merge_base_and_prints_markdown(demo: Path, mdgrill: Run) -> None:
    start = _git(demo, "rev-list", "--max-parents=0", "HEAD")
    default = _git(demo, "symbolic-ref", "--short", "HEAD")
    _git(demo, "switch", "-qc", "feature")
    _git(demo, "branch", "-f", default, start)

    code, out, _ = mdgrill("--json", "review", cwd=demo)

    assert code == 0
    result = _json(out)
    assert result["base"] == start and result["head"] == _git(demo, "rev-parse", "HEAD")
    specs = result["specs"]
    assert isinstance(specs, list) and specs[0]["spec"] == SPEC
    titles = [b["title"] for b in specs[0]["blocks"]]
    assert titles[0] == "Requirements Grill - Round 1" and "Design Grill - Confirmed" in titles
    assert result["terms"] == [{"path": "contexts/ordering/CONTEXT.md", "added": ["Promo Code"],
                                "updated": [], "definitions": {
                                    "Promo Code": "A short code a customer enters at checkout "
                                                  "to get a discount."}}]
    code, out, _ = mdgrill("review", "HEAD..HEAD", cwd=demo)
    assert code == 0 and "No rounds or glossary entries were added" in out
    code, out, _ = mdgrill("--json", "review", "nope..HEAD", cwd=demo)
    assert code == 2 and _json(out)["error"]["code"] == "NOT_FOUND"  # type: ignore[index]


def test_history_verbs_outside_a_repository(tmp_path: Path, mdgrill: Run) -> None:
    for verb in ("log", "review", "verify"):
        code, out, _ = mdgrill("--json", verb, cwd=tmp_path)
        assert code == 2 and _json(out)["error"]["code"] == "NOT_A_REPOSITORY"  # type: ignore[index]


def _cat_file_children() -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        ppid = re.search(r"^PPid:\s+(\d+)", status, re.M)
        if ppid and int(ppid.group(1)) == os.getpid() and b"cat-file" in cmdline:
            found.append(cmdline.decode(errors="replace"))
    return found


def test_log_review_verify_leave_no_cat_file_process(
        demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start = _git(demo, "rev-list", "--max-parents=0", "HEAD")
    for argv in (["log"], ["review", f"{start}..HEAD"], ["verify"],
                 ["check-delegation", str(demo / SPEC), "--phase", "design",
                  "--interview-id", "design-1"]):
        assert cli.main(["--root", str(demo), *argv]) == 0, capsys.readouterr()
    assert _cat_file_children() == []


def test_verify_reports_a_phase_moved_without_an_artifact_approval(
        demo: Path, mdgrill: Run) -> None:
    text = (demo / PROGRESS).read_text()
    assert "\nphase: design\n" in text
    _commit_file(demo, PROGRESS, text.replace("\nphase: design\n", "\nphase: tasks\n")
                 .encode(), "skip the design artifact")
    code, out, _ = mdgrill("verify", cwd=demo)
    assert code == 1
    assert "PHASE_NOT_APPROVED" in out and "from design to tasks" in out
    # the demo's own advance (requirements -> design) was an approve-artifact commit
    assert "from requirements to design" not in out


def _merge_logs(ours: str, theirs: str, merged: str) -> list[tuple[str, int] | None]:
    """merge_lost_block for each parent of a merge whose round 1 holds these answer lines."""
    from mdgrill.core.history import merge_lost_block

    def version(lines: str) -> bytes:
        log = f"### Requirements Grill - Round 1\n- Asked: D1, D2\n{lines}"
        return (f"---\nmdgrill: 1\nlog:\n  blocks: 1\n  sha256: {log_digest(log)}\n---\n"
                f"# A\n\n## Goal\n\nx\n\n## Design Tree\n\n## Interview Responses\n\n{log}"
                ).encode()
    logs = [log_version(version(t), "p.md") for t in (ours, theirs)]
    result = log_version(version(merged), "p.md")
    return [merge_lost_block(logs[i], result, (logs[1 - i],)) for i in (0, 1)]


ANA = "- Decisions: D1 -> Yes\n- By: D1 -> Ana\n"
BOB = "- Decisions: D1 -> No\n- By: D1 -> Bob\n"


@pytest.mark.parametrize(("merged", "lost"), [
    (ANA, [None, None]),  # the conflict resolved: ours kept
    (BOB, [None, None]),  # theirs kept
    (ANA + BOB, [None, None]),  # both kept (validate reports that; verify loses nothing)
    ("- Decisions: D1 -> Maybe\n- By: D1 -> Eve\n", "both"),  # neither side's answer
    ("", "both"),  # the decision's answers dropped
    (ANA + "- Decisions: D2 -> A\n", [None, None]),
])
def test_a_merge_commit_may_keep_one_of_two_answers_only(merged: str, lost: object) -> None:
    # Issue 33 point 3: a resolved conflict verifies; anything else that drops an answer does not.
    found = _merge_logs(ANA, BOB, merged)
    if lost == "both":
        assert all(f is not None and f[0] == "Requirements Grill - Round 1" for f in found)
    else:
        assert found == lost


def test_a_merge_commit_may_not_drop_an_answer_nobody_contested() -> None:
    found = _merge_logs(ANA + "- Decisions: D2 -> A\n", BOB, BOB)
    assert found[0] is not None  # our D2 is gone, and bob never answered D2


# -- an approval commit's own log: the pure rules behind check-delegation and verify --------

DIGEST = "d" * 64


def _approved(digest: str = DIGEST) -> object:
    from test_watch import make_progress

    from mdgrill.formats.progress import read_progress

    return read_progress(make_progress(complete_digest=digest).encode(), "p.md")


def _trailers(transition: str = "approve", interview: str = "req-1",
              digest: str = DIGEST) -> dict[str, str]:
    return {"Mdgrill-Spec": "specs/demo", "Mdgrill-Phase": "requirements",
            "Mdgrill-Interview": interview, "Mdgrill-Transition": transition,
            "Mdgrill-Context-Digest": digest}


def test_approval_logged_needs_kind_interview_and_digest() -> None:
    from mdgrill.core.history import approval_logged

    prog = _approved()
    assert approval_logged(prog, "confirmed", "req-1", DIGEST)  # type: ignore[arg-type]
    assert not approval_logged(prog, "bypassed", "req-1", DIGEST)  # type: ignore[arg-type]
    assert not approval_logged(prog, "confirmed", "req-2", DIGEST)  # type: ignore[arg-type]
    assert not approval_logged(prog, "confirmed", "req-1", "e" * 64)  # type: ignore[arg-type]


@pytest.mark.parametrize(("trailers", "why"), [
    (_trailers(interview="req-2"), "interview req-2"),
    (_trailers(digest="e" * 64), "context digest eeeeeeeeeeee…:"),
    (_trailers(transition="bypass"), "`Bypassed` block"),
    (_trailers(transition="skip", interview="x"), "`Confirmed` block for interview x"),
])
def test_an_approval_commit_whose_log_lacks_its_block_is_reported(
        trailers: dict[str, str], why: str) -> None:
    from test_watch import make_progress

    from mdgrill.core.history import unlogged_approval

    data = make_progress(complete_digest=DIGEST).encode()
    found = unlogged_approval("0123456789abcdef", trailers, data, "specs/demo/.progress.md")
    assert found is not None and found.code == "APPROVAL_NOT_RECORDED" and found.is_error
    assert (found.path, found.line) == ("specs/demo/.progress.md", 1)
    assert found.message.startswith("commit 0123456789 carries approval trailers"), found.message
    assert why in found.message, found.message


def test_an_approval_commit_that_logs_its_block_or_is_no_approval_passes() -> None:
    from test_watch import make_progress

    from mdgrill.core.history import unlogged_approval

    data = make_progress(complete_digest=DIGEST).encode()
    assert unlogged_approval("a" * 40, _trailers(), data, "p.md") is None
    for transition in ("reopen", "approve-artifact", ""):
        assert unlogged_approval("a" * 40, _trailers(transition), b"", "p.md") is None
    unreadable = b"---\nmdgrill: [1\n---\n# T\n"  # the log walk reports that version
    assert unlogged_approval("a" * 40, _trailers(), unreadable, "p.md") is None
    gone = unlogged_approval("a" * 40, _trailers(), None, "p.md")
    assert gone is not None and "it has no p.md" in gone.message


def test_approval_gap_holds_the_log_to_the_approval_commits() -> None:
    from test_watch import make_progress, round_block

    from mdgrill.core.history import approval_gap
    from mdgrill.formats.progress import read_progress

    committed = _approved()
    iv = committed.data["interview"]  # type: ignore[attr-defined]
    assert approval_gap(committed, committed, iv) is None  # type: ignore[arg-type]
    grown = make_progress(complete_digest=DIGEST) + "\n" + round_block(3)
    later = read_progress(grown.encode(), "p.md")
    assert approval_gap(committed, later, iv) is None  # type: ignore[arg-type]
    edited = read_progress(make_progress(complete_digest=DIGEST).replace(
        "answer number 1", "answer changed").encode(), "p.md")
    gap = approval_gap(committed, edited, iv)  # type: ignore[arg-type]
    assert gap is not None and gap[0] == "ROUND_EDITED"
    other = {**iv, "id": "req-9"}
    gap = approval_gap(committed, committed, other)  # type: ignore[arg-type]
    assert gap is not None and gap[0] == "APPROVAL_NOT_RECORDED" and "`Confirmed`" in gap[1]
    quick = {**iv, "status": "bypassed_quick"}
    gap = approval_gap(committed, committed, quick)  # type: ignore[arg-type]
    assert gap is not None and "`Bypassed`" in gap[1]
