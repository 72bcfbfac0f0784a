"""spec-kit (issue 20, part 2): `import-speckit` turns `spec.md`'s clarify sessions into rounds
without touching it, `export-speckit` writes the interview's answers back into its
`## Clarifications` in spec-kit's shape, and nothing outside that section changes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_reliability import make_repo
from test_reliability import ok_json as ok
from test_reliability import run_json as run

from mdgrill.formats.textfile import TextFile, decode
from mdgrill.integrations import speckit

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "speckit"
NAMES = ("team-invites", "offline-sync", "csv-export")
DAY = "2026-12-02"


# a node the gate asks: "options[2..4], recommendation, rationale, tradeoffs" (the framework)
CHOICE = ("--option", "Yes", "--option", "No", "--recommend", "1", "--rationale",
          "what most teams expect", "--tradeoffs", "one more rule to explain")


def feature(tmp_path: Path, name: str, crlf: bool = False) -> tuple[Path, dict[str, str], str]:
    """A repository holding the fixture feature at specs/<name>/spec.md, committed."""
    repo, env = make_repo(tmp_path)
    folder = repo / "specs" / name
    folder.mkdir(parents=True)
    data = (FIXTURES / name / "spec.md").read_bytes()
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    (folder / "spec.md").write_bytes(data)
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    subprocess.run(["git", "commit", "-qm", "spec-kit feature"], cwd=repo, env=env, check=True)
    return repo, env, f"specs/{name}"


def outside_section(data: bytes) -> tuple[str, str]:
    """spec.md's text before `## Clarifications` and from the next H2 on."""
    tf = decode(data)
    found = speckit.read(tf)
    assert found.clarifications is not None
    lines = tf.lines
    return ("".join(lines[:found.clarifications.heading_line]),
            "".join(lines[found.clarifications.end:]))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("crlf", [False, True])
def test_import_then_export_leaves_spec_md_byte_identical(tmp_path: Path, name: str,
                                                          crlf: bool) -> None:
    repo, env, spec = feature(tmp_path, name, crlf)
    before = (repo / spec / "spec.md").read_bytes()
    ok(repo, env, "import-speckit", f"{spec}/spec.md")
    assert (repo / spec / "spec.md").read_bytes() == before  # import never writes spec.md
    assert run(repo, env, "validate", spec)[0] == 0  # every imported spec passes validate
    out = ok(repo, env, "export-speckit", spec, "--date", DAY)
    assert out["written"] is False and out["added"] == []
    assert (repo / spec / "spec.md").read_bytes() == before


def test_sessions_become_rounds_with_stable_ids_and_their_dates(tmp_path: Path) -> None:
    repo, env, spec = feature(tmp_path, "team-invites")
    out = ok(repo, env, "import-speckit", f"{spec}/spec.md")
    assert out["rounds"] == 2 and out["decisions"] == 5
    assert out["ids"] == {"Q1": 12, "Q2": 13, "Q3": 14, "Q4": 18, "Q5": 19}  # spec.md lines
    text = (repo / spec / ".progress.md").read_text()
    assert "### Q2: Which roles can an invite grant?" in text
    assert "- Session: 2026-10-03 (spec-kit clarify, specs/team-invites/spec.md)" in text
    assert "- Decisions: Q5 -> 50 pending invites per workspace." in text
    assert "### Requirements Grill - Imported" in text
    # the goal is the user's own description, as spec-kit recorded it
    assert "goal: Let a workspace owner invite teammates by email, with a role chosen at " \
        "invite time.\n" in text
    ledger = ok(repo, env, "ledger", spec)
    assert [e["id"] for e in ledger["entries"]] == ["Q1", "Q2", "Q3", "Q4", "Q5"]
    # the same spec.md gives the same IDs again
    again, env2, spec2 = feature(tmp_path / "again", "team-invites")
    assert ok(again, env2, "import-speckit", f"{spec2}/spec.md")["ids"] == out["ids"]


def test_the_shapes_found_in_public_files_are_read(tmp_path: Path) -> None:
    repo, env, spec = feature(tmp_path, "offline-sync")
    out = ok(repo, env, "import-speckit", spec)  # the folder works as well as its spec.md
    sessions = out["sessions"]
    assert isinstance(sessions, list)
    assert [s["session"] for s in sessions] == ["2026-09-20", "2026-09-16 (Part 2)",
                                                "2026-09-16"]
    text = (repo / spec / ".progress.md").read_text()
    # a qualifier after the A stays with the answer; a wrapped answer is joined
    assert "Q1 -> (refined — replaces the answer of 2026-09-16) Field by field" in text
    assert "urgent. Urgent photos go over any network." in text
    assert "- Decisions: Q4 -> Yes, every 5 minutes" in text  # **Q** / **A**
    # the note is not a clarification: it stays in spec.md and is named, with its line
    assert out["not_imported"] == [{"line": 21, "text": "These answers were checked with the "
                                                        "dispatch team on a call."}]
    assert any("lines 21" in w for w in out["warnings"])  # type: ignore[union-attr]


def test_a_second_import_writes_nothing(tmp_path: Path) -> None:
    repo, env, spec = feature(tmp_path, "team-invites")
    ok(repo, env, "import-speckit", f"{spec}/spec.md")
    before = (repo / spec / ".progress.md").read_bytes()
    code, out = run(repo, env, "import-speckit", f"{spec}/spec.md")
    assert code == 2 and out["error"]["code"] == "ALREADY_EXISTS"  # type: ignore[index]
    assert (repo / spec / ".progress.md").read_bytes() == before


def test_imported_answers_are_not_an_approval(tmp_path: Path) -> None:
    """Framework: "Ask `Approve and delegate`, `Revise decisions`, or `Cancel`. Only the
    explicit approval selection completes the gate." Answers another tool recorded are
    history: with every question answered, delegation is still refused."""
    repo, env, spec = feature(tmp_path, "team-invites")
    ok(repo, env, "import-speckit", f"{spec}/spec.md")
    code, out = run(repo, env, "check-delegation", spec, "--phase", "requirements",
                    "--interview-id", "anything")
    assert code == 3 and out["error"]["code"] == "INTERVIEW_MISSING"  # type: ignore[index]
    ok(repo, env, "begin-interview", spec, "--phase", "requirements", "--interview-id", "r1")
    assert ok(repo, env, "frontier", spec)["frontier"] == []  # every question is answered
    code, out = run(repo, env, "check-delegation", spec, "--phase", "requirements",
                    "--interview-id", "r1")
    assert code == 3 and out["error"]["code"] == "INTERVIEW_INCOMPLETE"  # type: ignore[index]


def grill_one_more(repo: Path, env: dict[str, str], spec: str) -> None:
    """The next interview of the phase, through mdgrill's gate: one new question, answered
    and approved with the explicit selection."""
    ok(repo, env, "begin-interview", spec, "--phase", "requirements", "--interview-id", "r1")
    ok(repo, env, "node", "add", spec, "D1", "--title", "Can an invite be revoked?",
       "--section", "scope", *CHOICE)
    ok(repo, env, "open-frontier", spec, "--round", "1", "--decision-id", "D1")
    ok(repo, env, "record-answer", spec, "--decision-id", "D1", "--answer",
       "Yes, until it is accepted")
    ok(repo, env, "await-confirmation", spec, "--decision-id", "C1", "--approach",
       "Invites by email, revocable until accepted")
    ok(repo, env, "confirm", spec, "--decision-id", "C1", "--source", "approve-and-delegate",
       "--reply", "Approve and delegate")


def test_grill_in_mdgrill_then_export_changes_only_the_section(tmp_path: Path) -> None:
    repo, env, spec = feature(tmp_path, "team-invites")
    ok(repo, env, "import-speckit", f"{spec}/spec.md")
    grill_one_more(repo, env, spec)
    assert run(repo, env, "validate", spec)[0] == 0
    assert ok(repo, env, "check-delegation", spec, "--phase", "requirements",
              "--interview-id", "r1")["decision"] == "allow"
    md = repo / spec / "spec.md"
    before = md.read_bytes()
    dry = ok(repo, env, "export-speckit", spec, "--date", DAY, "--dry-run", "--diff")
    assert md.read_bytes() == before and "+- Q: Can an invite be revoked?" in str(dry["text"])
    out = ok(repo, env, "export-speckit", spec, "--date", DAY)
    assert out["added"] == [{"question": "Can an invite be revoked?",
                             "answer": "Yes, until it is accepted"}]
    assert out["approved"] is True and out["already_there"] == 5
    after = md.read_bytes()
    assert outside_section(after) == outside_section(before)
    assert (f"### Session 2026-10-09\n\n- Q: Can an admin (not only the owner) send invites? → A: "
            "Yes, admins can invite members but not other admins.\n- Q: Is there a limit on "
            "pending invites? → A: 50 pending invites per workspace.\n\n### Session "
            f"{DAY}\n\n- Q: Can an invite be revoked? → A: Yes, until it is accepted\n\n"
            "## User Scenarios") in after.decode()
    # spec-kit reads it back as one more session; a second export adds nothing
    again = speckit.read(decode(after))
    assert again.clarifications is not None
    assert [s.label for s in again.clarifications.sessions] == ["2026-10-03", "2026-10-09", DAY]
    assert ok(repo, env, "export-speckit", spec, "--date", DAY)["written"] is False
    assert md.read_bytes() == after


def test_export_before_approval_says_so(tmp_path: Path) -> None:
    repo, env, spec = feature(tmp_path, "csv-export")
    ok(repo, env, "import-speckit", f"{spec}/spec.md")
    ok(repo, env, "begin-interview", spec, "--phase", "requirements", "--interview-id", "r1")
    ok(repo, env, "node", "add", spec, "D1", "--title", "Which time zone are the dates in?",
       *CHOICE)
    ok(repo, env, "open-frontier", spec, "--round", "1", "--decision-id", "D1")
    ok(repo, env, "record-answer", spec, "--decision-id", "D1", "--answer", "The admin's")
    md = repo / spec / "spec.md"
    before = md.read_text()
    out = ok(repo, env, "export-speckit", spec, "--date", DAY)
    assert out["approved"] is False
    assert any("not approved yet" in w for w in out["warnings"])  # type: ignore[union-attr]
    after = md.read_text()
    # the section did not exist: it is made before the first H2, as spec-kit places it
    head, _, tail = before.partition("## User Scenarios")
    assert after == (head + f"## Clarifications\n\n### Session {DAY}\n\n- Q: Which time zone "
                     "are the dates in? → A: The admin's\n\n## User Scenarios" + tail)


def test_export_refuses_bad_input_and_writes_nothing(tmp_path: Path) -> None:
    repo, env, spec = feature(tmp_path, "team-invites")
    ok(repo, env, "import-speckit", f"{spec}/spec.md")
    code, out = run(repo, env, "export-speckit", spec, "--date", "2026-02-30")
    assert code == 2 and out["error"]["code"] == "INVALID_INPUT"  # type: ignore[index]
    (repo / spec / "spec.md").unlink()
    code, out = run(repo, env, "export-speckit", spec)
    assert code == 2 and out["error"]["code"] == "NOT_FOUND"  # type: ignore[index]
    code, out = run(repo, env, "import-speckit", "specs/nowhere/spec.md")
    assert code == 2 and out["error"]["code"] == "NOT_FOUND"  # type: ignore[index]


def test_a_question_mdgrill_cannot_keep_is_named_not_dropped(tmp_path: Path) -> None:
    repo, env, spec = feature(tmp_path, "team-invites")
    md = repo / spec / "spec.md"
    md.write_bytes(md.read_bytes().replace(b"How long does", b"How\x07long does"))
    out = ok(repo, env, "import-speckit", f"{spec}/spec.md")
    assert out["decisions"] == 4
    assert any(w.endswith(":12: not imported: it holds control characters")
               for w in out["warnings"])  # type: ignore[union-attr]


def test_newest_first_sessions_get_the_new_one_on_top(tmp_path: Path) -> None:
    tf = TextFile((FIXTURES / "offline-sync" / "spec.md").read_text())
    found = speckit.read(tf)
    text = speckit.write_back(tf, found, [("Is sync paused on low battery?", "Below 10%")],
                              "2026-09-25")
    assert ("## Clarifications\n\n### Session 2026-09-25\n- Q: Is sync paused on low battery? "
            "→ A: Below 10%\n\n### Session 2026-09-20\n") in text


def test_bench_script_checks_a_folder_of_real_files(tmp_path: Path) -> None:
    """bench/speckit_real.py, the round trip run over real spec.md files, on our fixtures."""
    corpus = tmp_path / "corpus"
    for name in NAMES:
        shutil.copytree(FIXTURES / name, corpus / name)
    script = Path(__file__).resolve().parents[1] / "bench" / "speckit_real.py"
    proc = subprocess.run([sys.executable, str(script), str(corpus), "--json"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["files"] == 3 and report["identical"] == 3 and report["valid"] == 3
    assert report["added_ok"] == 3  # a new answer lands in the section alone
    assert report["sessions"] == 5 and report["clarifications"] == 10


# -- the pure reader and writer, on generated sections --------------------------------------

_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")),
                min_size=1, max_size=30).map(lambda s: " ".join(s.split())).filter(
    lambda s: bool(s) and "→" not in s and "->" not in s and not s.startswith(("#", "-", "*",
                                                                               "+", "`", "~",
                                                                               ">", "|")))
_PAIR = st.tuples(_TEXT.map(lambda s: s + "?"), _TEXT)


@settings(max_examples=150, deadline=None)
@given(sessions=st.lists(st.lists(_PAIR, min_size=1, max_size=4), max_size=3),
       new=st.lists(_PAIR, min_size=1, max_size=4), crlf=st.booleans(),
       trailing=st.sampled_from(["", "\n## Requirements\n\n- FR-001: x\n"]))
def test_written_pairs_read_back_and_nothing_else_moves(sessions: list[list[tuple[str, str]]],
                                                        new: list[tuple[str, str]],
                                                        crlf: bool, trailing: str) -> None:
    body = ["# Feature Specification: X", "", "**Input**: User description: \"x\"", ""]
    if sessions:
        body += ["## Clarifications", ""]
        for day, pairs in enumerate(sessions, 10):
            body += [f"### Session 2026-01-{day}", ""]
            body += [speckit.bullet(q, a) for q, a in pairs] + [""]
    text = "\n".join(body) + trailing
    if crlf:
        text = text.replace("\n", "\r\n")
    tf = TextFile(text)
    found = speckit.read(tf)
    have = [(c.question, c.answer) for c in (found.clarifications.items
                                             if found.clarifications else [])]
    assert have == [p for s in sessions for p in s]
    pairs = speckit.missing(found, new)
    out = speckit.write_back(tf, found, pairs, "2026-02-01")
    after = speckit.read(TextFile(out))
    assert after.clarifications is not None
    got = [(c.question, c.answer) for c in after.clarifications.items]
    assert got == have + pairs  # what is written reads back the same, after what was there
    assert speckit.missing(after, new) == []  # a second export adds nothing
    assert out.startswith(text[:text.index("## Clarifications")] if sessions else
                          text[:text.index("##") if "##" in text else len(text)]) or not pairs
    if trailing:
        assert out.endswith(trailing.replace("\n", "\r\n") if crlf else trailing)
    assert ("\r\n" in out) == crlf or not crlf and "\r" not in out


def test_a_question_holding_the_arrow_is_not_written_twice() -> None:
    """`- Q: a → A: b?` would read back as another question: such a pair is left out (and the
    verb says so) instead of being appended again by every export."""
    tf = TextFile((FIXTURES / "csv-export" / "spec.md").read_text())
    found = speckit.read(tf)
    assert speckit.missing(found, [("Use UTC → A: or local?", "UTC"), ("Gzip?", "No")]) == \
        [("Gzip?", "No")]


def test_export_refuses_a_section_spec_kit_would_not_read(tmp_path: Path) -> None:
    """A spec.md left inside an open code fence would swallow a new section as code: the
    export says so and writes nothing (found by the fuzzer)."""
    repo, env, spec = feature(tmp_path, "csv-export")
    md = repo / spec / "spec.md"
    md.write_bytes(b"```\n" + md.read_bytes())
    ok(repo, env, "import-speckit", f"{spec}/spec.md")
    ok(repo, env, "begin-interview", spec, "--phase", "requirements", "--interview-id", "r1")
    ok(repo, env, "node", "add", spec, "D1", "--title", "Which time zone?", *CHOICE)
    ok(repo, env, "open-frontier", spec, "--round", "1", "--decision-id", "D1")
    ok(repo, env, "record-answer", spec, "--decision-id", "D1", "--answer", "UTC")
    before = md.read_bytes()
    code, out = run(repo, env, "export-speckit", spec, "--date", DAY)
    assert code == 2 and out["error"]["code"] == "MALFORMED_FILE"  # type: ignore[index]
    assert md.read_bytes() == before


def another_session(md: Path) -> None:
    """What a later `/speckit.clarify` run leaves: one more dated session at the end."""
    text = md.read_text()
    last = "- Q: Is there a limit on pending invites? → A: 50 pending invites per workspace.\n"
    md.write_text(text.replace(last, last + "\n### Session 2026-10-20\n\n- Q: Do invites show "
                               "in the audit log? → A: Yes, sent, accepted and expired.\n"))


def test_update_brings_in_sessions_spec_kit_added_since(tmp_path: Path) -> None:
    repo, env, spec = feature(tmp_path, "team-invites")
    ok(repo, env, "import-speckit", f"{spec}/spec.md")
    grill_one_more(repo, env, spec)  # an approved mdgrill interview in between
    md = repo / spec / "spec.md"
    another_session(md)
    before = (repo / spec / ".progress.md").read_text()
    out = ok(repo, env, "import-speckit", f"{spec}/spec.md", "--update")
    assert out["ids"] == {"Q6": 23} and out["rounds"] == 1  # its spec.md line
    after = (repo / spec / ".progress.md").read_text()
    log_before = before.split("## Interview Responses", 1)[1]
    assert after.split("## Interview Responses", 1)[1].startswith(log_before.rstrip())
    assert ("### Requirements Grill - Round 1\n- Asked: Q6\n- Session: 2026-10-20 (spec-kit "
            "clarify, specs/team-invites/spec.md)\n- Decisions: Q6 -> Yes, sent, accepted and "
            "expired.\n") in after.split("### Requirements Grill - Confirmed", 1)[1]
    assert run(repo, env, "validate", spec)[0] == 0
    assert run(repo, env, "verify", spec)[0] == 0  # the log only grew
    again = ok(repo, env, "import-speckit", f"{spec}/spec.md", "--update")
    assert again["written"] is False and again["rounds"] == 0
    text = md.read_bytes()
    out = ok(repo, env, "export-speckit", spec, "--date", DAY)  # D1's answer goes in; Q6's is
    assert [a["question"] for a in out["added"]] == ["Can an invite be revoked?"]  # there
    assert md.read_bytes().startswith(text[:text.index(b"### Session 2026-10-20")])


def test_update_waits_for_the_open_interview(tmp_path: Path) -> None:
    repo, env, spec = feature(tmp_path, "team-invites")
    ok(repo, env, "import-speckit", f"{spec}/spec.md")
    ok(repo, env, "begin-interview", spec, "--phase", "requirements", "--interview-id", "r1")
    another_session(repo / spec / "spec.md")
    before = (repo / spec / ".progress.md").read_bytes()
    code, out = run(repo, env, "import-speckit", f"{spec}/spec.md", "--update")
    assert code == 2 and out["error"]["code"] == "ILLEGAL_TRANSITION"  # type: ignore[index]
    assert (repo / spec / ".progress.md").read_bytes() == before
