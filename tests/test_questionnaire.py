"""Answering the grill in the editor (issue 18, part 1): `questionnaire` writes the open round
as a file, `collect` (or `watch`) records what was filled in exactly as `record-answer`
records it, and leaves the file with what is still open."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from test_reliability import MDGRILL, make_repo
from test_reliability import ok_json as ok
from test_reliability import run_json as run

SPEC = "specs/codes"
QUESTIONS = f"{SPEC}/questions.md"


def spec(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    repo, env = make_repo(tmp_path)
    ok(repo, env, "init", SPEC, "--goal", "Promo codes at checkout")
    for i, title in enumerate(("Who can use a code?", "What does it take off?",
                               "Can it expire?"), 1):
        ok(repo, env, "node", "add", SPEC, f"D{i}", "--title", title, "--option",
           "First: the simple one", "--option", "Second", "--recommend", "2", "--rationale",
           "the team asked for it")
    ok(repo, env, "begin-interview", SPEC, "--phase", "requirements", "--interview-id", "r1")
    return repo, env


def test_the_questionnaire_asks_the_whole_round_with_nothing_ticked(tmp_path: Path) -> None:
    repo, env = spec(tmp_path)
    wrote = ok(repo, env, "questionnaire", SPEC)
    assert wrote["questions"] == ["D1", "D2", "D3"] and wrote["opened"] is True
    text = (repo / QUESTIONS).read_text(encoding="utf-8")
    assert "## Q1 · D1: Who can use a code?" in text
    # "the recommended option first, labelled (Recommended)"; none ticked
    section = text[text.index("## Q1"):text.index("## Q2")]
    assert section.index("- [ ] Second (Recommended)") < section.index("- [ ] First: the "
                                                                         "simple one")
    assert "- [x]" not in text and "Rationale: the team asked for it" in text
    assert "- Asked: D1, D2, D3" in (repo / SPEC / ".progress.md").read_text(encoding="utf-8")
    # an untouched questionnaire records nothing: silence is not consent
    done = ok(repo, env, "collect", SPEC)
    assert done["recorded"] == {} and done["open"] == ["D1", "D2", "D3"]


def test_collect_records_ticks_and_own_words_and_keeps_the_rest_open(tmp_path: Path) -> None:
    repo, env = spec(tmp_path)
    ok(repo, env, "questionnaire", SPEC)
    path = repo / QUESTIONS
    text = path.read_text(encoding="utf-8")
    q1, q2 = text.index("## Q1"), text.index("## Q2")
    text = text[:q1] + text[q1:q2].replace("- [ ] First", "- [x] First") + text[q2:]
    q2, q3 = text.index("## Q2"), text.index("## Q3")
    text = text[:q2] + text[q2:q3].replace("- Other: ", "- Other: Ten percent, never more") \
        + text[q3:]
    path.write_text(text, encoding="utf-8")
    done = ok(repo, env, "collect", SPEC, "--by", "Dana")
    assert done["recorded"] == {"D1": "First", "D2": "Ten percent, never more"}
    assert done["open"] == ["D3"] and done["other"] == ["D2"]
    log = (repo / SPEC / ".progress.md").read_text(encoding="utf-8")
    assert "- Decisions: D1 -> First\n- By: D1 -> Dana" in log
    assert "- Decisions: D2 -> Ten percent, never more\n- Other: D2" in log
    assert ok(repo, env, "validate")["errors"] == 0  # the same round, log and seal
    left = path.read_text(encoding="utf-8")
    assert "D1:" not in left and "D2:" not in left and "## Q1 · D3: Can it expire?" in left


def test_two_answers_to_one_question_record_nothing(tmp_path: Path) -> None:
    repo, env = spec(tmp_path)
    ok(repo, env, "questionnaire", SPEC)
    path = repo / QUESTIONS
    text = path.read_text(encoding="utf-8")
    q2 = text.index("## Q2")
    text = text[:q2].replace("- [ ] First", "- [x] First").replace("- [ ] Second",
                                                                     "- [x] Second") + \
        text[q2:].replace("- [ ] First", "- [x] First", 1)
    path.write_text(text, encoding="utf-8")
    before = (repo / SPEC / ".progress.md").read_bytes()
    code, payload = run(repo, env, "collect", SPEC)
    assert code == 2
    problems = payload["problems"]
    assert isinstance(problems, list) and problems[0]["line"] == text.split("\n").index(
        "## Q1 · D1: Who can use a code?") + 1
    assert "D1 has 2 answers" in problems[0]["message"]
    assert (repo / SPEC / ".progress.md").read_bytes() == before  # D2's tick waits too
    assert path.read_text(encoding="utf-8") == text


def test_a_question_answered_elsewhere_meanwhile_is_refused_with_its_line(
        tmp_path: Path) -> None:
    repo, env = spec(tmp_path)
    ok(repo, env, "questionnaire", SPEC)
    ok(repo, env, "record-answer", SPEC, "--decision-id", "D1", "--answer", "Second")
    path = repo / QUESTIONS
    path.write_text(path.read_text(encoding="utf-8").replace("- [ ] First", "- [x] First", 1),
                    encoding="utf-8")
    code, payload = run(repo, env, "collect", SPEC)
    assert code == 2 and "D1 is not pending any more" in payload["problems"][0]["message"]  # type: ignore[index]


def test_a_control_only_answer_stays_open_and_is_reported(tmp_path: Path) -> None:
    repo, env = spec(tmp_path)
    ok(repo, env, "questionnaire", SPEC)
    path = repo / QUESTIONS
    path.write_text(path.read_text(encoding="utf-8").replace("- Other: ", "- Other: ok", 1),
                    encoding="utf-8")
    before = (repo / SPEC / ".progress.md").read_bytes()
    code, done = run(repo, env, "collect", SPEC)
    # refused as `answer` refuses it (exit 3, the same code), and nothing is written
    assert code == 3 and done["recorded"] == {}
    assert done["refused"]["D1"]["code"] == "CONTROL_ONLY_ANSWER"  # type: ignore[index]
    assert "D1" in done["open"]  # type: ignore[operator]
    assert (repo / SPEC / ".progress.md").read_bytes() == before
    # the person's words stay in the file, beside the questions still open (nothing lost)
    assert "- Other: ok" in path.read_text(encoding="utf-8")


def test_the_whole_interview_answered_from_the_file(tmp_path: Path) -> None:
    repo, env = spec(tmp_path)
    ok(repo, env, "questionnaire", SPEC)
    path = repo / QUESTIONS
    path.write_text(path.read_text(encoding="utf-8").replace("- [ ] Second (Recommended)",
                                                             "- [x] Second (Recommended)"),
                    encoding="utf-8")
    done = ok(repo, env, "collect", SPEC)
    assert done["recorded"] == {"D1": "Second", "D2": "Second", "D3": "Second"}
    assert done["next"] == "await-confirmation" and not path.exists()  # nothing left to ask


def save_under_watch(repo: Path, env: dict[str, str], path: Path, text: str,
                     kind: str = "recorded", settle: float = 0.0) -> dict[str, object]:
    """Start `mdgrill watch` on `repo`, save `text` to `path` as an editor does (a temporary
    file renamed over it), and return the first report of `kind` that follows. With
    `settle`, watch then runs that many seconds more and must report nothing else: one save,
    one collection (a file watch rewrites itself would be collected again, and again)."""
    import queue
    import threading
    import time

    proc = subprocess.Popen([*MDGRILL, "--json", "watch", str(repo)], cwd=repo, env=env,
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reports: queue.Queue[dict[str, object]] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            reports.put(json.loads(line))
    threading.Thread(target=pump, daemon=True).start()

    def wait(wanted: str) -> dict[str, object]:
        end = time.monotonic() + 30
        while True:
            report = reports.get(timeout=max(end - time.monotonic(), 0.01))
            if report["kind"] == wanted:
                return report
    try:
        wait("started")
        temp = path.with_name(f".{path.name}.tmp")
        temp.write_text(text, encoding="utf-8")
        temp.replace(path)  # an editor's save
        first = wait(kind)
        if settle:
            time.sleep(settle)
            more = []
            while not reports.empty():
                more.append(reports.get())
            assert more == [], f"watch went on after one save: {more[:3]}"
        return first
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_watch_records_a_saved_questionnaire(tmp_path: Path) -> None:
    # "When the file is saved — by watch [...] — every filled slot is [...] recorded"
    repo, env = spec(tmp_path)
    ok(repo, env, "questionnaire", SPEC)
    path = repo / QUESTIONS
    text = path.read_text(encoding="utf-8").replace("- [ ] First", "- [x] First", 1)
    recorded = save_under_watch(repo, env, path, text)
    assert recorded["recorded"] == {"D1": "First"}
    assert recorded["open"] == ["D2", "D3"]
    log = (repo / SPEC / ".progress.md").read_text(encoding="utf-8")
    assert log.count("- Decisions: D1 -> First") == 1  # recorded once, not per event


def test_collect_reads_the_common_questionnaire_shape_too(tmp_path: Path) -> None:
    # Issue 20: "`### <question>` with a `>` answer line under it, as agent skills write them
    # for answering offline: `mdgrill collect` reads them [...], mapping each question to its
    # decision by text or ID."
    repo, env = spec(tmp_path)
    ok(repo, env, "questionnaire", SPEC)  # opens the round: D1, D2, D3 pending
    other = repo / "answers-offline.md"
    text = ("# Grill questions\n\n## Round 1\n\n### D1: Who can use a code?\n> Second\n\n"
            "### Can it expire?\n> Yes, after\n> 30 days\n\n### What does it take off?\n\n")
    other.write_text(text, encoding="utf-8")
    done = ok(repo, env, "collect", SPEC, str(other))
    assert done["recorded"] == {"D1": "Second", "D3": "Yes, after 30 days"}
    assert done["open"] == ["D2"]
    assert other.read_text(encoding="utf-8") == text  # another tool's file is never rewritten
    # a question that names no pending decision stops the whole file
    other.write_text("### Who pays for shipping?\n> We do\n", encoding="utf-8")
    code, payload = run(repo, env, "collect", SPEC, str(other))
    assert code == 2 and "is no pending question" in payload["problems"][0]["message"]  # type: ignore[index]
