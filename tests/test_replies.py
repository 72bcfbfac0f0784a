"""Reply classification: one deterministic table, the same through every verb that reads a reply.

The framework: "Classify the entire reply before applying it." A control-only reply "does not
answer any active decision"; "a substantive answer can include control words without losing
its decision content"; "Treat bare `skip`, after an active question, as authorization to
default the remaining phase interview"; the elicitation skill's stop: "done", "that's enough",
"build it".
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import mdgrill_command
from hypothesis import given
from hypothesis import strategies as st

from mdgrill.model.replies import (
    _NOT_WORD,
    ACCEPT_RECOMMENDATION,
    BARE_SKIP,
    CONTROL_ONLY,
    SKIP_DECISION,
    STOP,
    SUBSTANTIVE,
    _squeezed,
    classify,
    classify_reply,
    normalize_reply,
    overall,
    split_by_question,
    without_question_prefix,
)

S, C, B, P, K, A = SUBSTANTIVE, CONTROL_ONLY, BARE_SKIP, STOP, SKIP_DECISION, ACCEPT_RECOMMENDATION

# (reply, class with no decision in view, script)
TABLE: list[tuple[str, str, str]] = [
    # phase_gate's closed list, and the framework's own control-only examples
    ("", C, "none"), ("   ", C, "none"), ("\n\t", C, "none"), ("...", C, "none"),
    ("ok", C, "latin"), ("OK.", C, "latin"), ("okay!", C, "latin"), ("Yes!!!", C, "latin"),
    ("y", C, "latin"), ("yes 🎉", C, "latin"), ("approved", C, "latin"),
    ("Approved.", C, "latin"), ("confirm", C, "latin"), ("confirmed", C, "latin"),
    ("continue", C, "latin"), ("continue please", C, "latin"), ("please continue", C, "latin"),
    ("Please, continue. Thanks!", C, "latin"), ("go ahead", C, "latin"),
    ("Go-ahead", C, "latin"), ("looks good", C, "latin"), ("Looks good, thank you!", C, "latin"),
    ("LOOKS   GOOD", C, "latin"), ("next", C, "latin"), ("proceed", C, "latin"),
    ("sounds good!", C, "latin"), ("apply the changes", C, "latin"),
    ("please please ok thanks thanks", C, "latin"), ("ok thanks", C, "latin"),
    ("thank you", C, "latin"), ("thanks", C, "latin"), ("please", C, "latin"),
    ("please thank you", C, "latin"), ("thanks please", C, "latin"),
    # acknowledgements that carry no decision either
    ("lgtm", C, "latin"), ("LGTM", C, "latin"), ("k", C, "latin"), ("sure", C, "latin"),
    ("Sure!", C, "latin"), ("yep", C, "latin"), ("ok ok", C, "latin"), ("yes yes", C, "latin"),
    ("yes, go ahead", C, "latin"), ("alright", C, "latin"), ("got it", C, "latin"),
    ("approve", C, "latin"), ("okey", C, "latin"), ("ｏｋ", C, "fullwidth"),
    ("👍", C, "emoji"), ("👍👍", C, "emoji"), ("🙂 !", C, "emoji"), ("—", C, "none"),
    ("Ja", C, "latin-de"), ("weiter", C, "latin-de"), ("sí", C, "latin-es"),
    ("oui", C, "latin-fr"), ("да", C, "cyrillic"), ("Да!", C, "cyrillic"),
    ("продолжай", C, "cyrillic"), ("はい", C, "kana"), ("好的", C, "han"), ("是", C, "han"),
    ("네", C, "hangul"), ("כן", C, "hebrew"), ("نعم", C, "arabic"), ("हाँ", C, "devanagari"),
    # bare skip: exactly `skip`
    ("skip", B, "latin"), ("Skip.", B, "latin"), ("SKIP!!", B, "latin"),
    ("please skip", B, "latin"), ("skip, thanks", B, "latin"), ("  skip  ", B, "latin"),
    # the user is done being asked
    ("done", P, "latin"), ("Done.", P, "latin"), ("that's enough", P, "latin"),
    ("That's enough!", P, "latin"), ("build it", P, "latin"), ("Build it.", P, "latin"),
    ("I'm done", P, "latin"), ("we're done", P, "latin"), ("no more questions", P, "latin"),
    ("ok, that's all", P, "latin"), ("enough", P, "latin"), ("let's build it", P, "latin"),
    # leave one decision
    ("skip this", K, "latin"), ("skip it", K, "latin"), ("skip that one", K, "latin"),
    ("Skip this question.", K, "latin"), ("skip it for now", K, "latin"), ("pass", K, "latin"),
    ("I don't know", K, "latin"), ("not sure", K, "latin"), ("idk", K, "latin"),
    ("next question", K, "latin"),
    # take the recommended option
    ("go with your recommendation", A, "latin"), ("your call", A, "latin"),
    ("whatever you recommend", A, "latin"), ("the recommended one", A, "latin"),
    ("Recommended", A, "latin"), ("ok, your call", A, "latin"),
    ("yes, go with your recommendation", A, "latin"), ("you decide", A, "latin"),
    ("use the default", A, "latin"), ("as recommended.", A, "latin"),
    # substantive: decisions, in any script, with or without control words
    ("Skip browser tests; keep the rollback task.", S, "latin"),
    ("skip D2", S, "latin"), ("yes, but only for staff", S, "latin"),
    ("ok thanks bye", S, "latin"), ("thank you very much", C, "latin"), ("no", S, "latin"),
    ("No.", S, "latin"), ("15 minutes", S, "latin"), ("External customers", S, "latin"),
    ("1", S, "latin"), ("ÿes", S, "latin"), ("proceed with option B", S, "latin"),
    ("go ahead with the token bucket", S, "latin"), ("continue with 24 hours", S, "latin"),
    ("approved, but keep passwords", S, "latin"), ("done by the billing team", S, "latin"),
    ("skip the SMS channel", S, "latin"), ("Nur Kunden, kein Personal", S, "latin-de"),
    ("Sí, pero solo para clientes", S, "latin-es"), ("Les clients seulement", S, "latin-fr"),
    ("Pas de mot de passe", S, "latin-fr"), ("Ja, aber nur für Kunden", S, "latin-de"),
    ("Используйте процент от суммы", S, "cyrillic"), ("Только клиенты", S, "cyrillic"),
    ("😀 Ответ", S, "cyrillic"), ("Ответ: 15 минут", S, "cyrillic"),
    ("百分比", S, "han"), ("只给外部客户", S, "han"), ("十五分钟", S, "han"),
    ("パーセントで割引", S, "kana"), ("顧客のみ", S, "han-ja"), ("15分で期限切れ", S, "kana"),
    ("고객만", S, "hangul"), ("15분 후 만료", S, "hangul"),
    ("רק לקוחות חיצוניים", S, "hebrew"), ("חמש עשרה דקות", S, "hebrew"),
    ("العملاء فقط", S, "arabic"), ("خمس عشرة دقيقة", S, "arabic"),
    ("केवल ग्राहक", S, "devanagari"), ("पंद्रह मिनट", S, "devanagari"),
    ("Μόνο πελάτες", S, "greek"), ("δεκαπέντε λεπτά", S, "greek"),
    ("เฉพาะลูกค้า", S, "thai"), ("สิบห้านาที", S, "thai"),
    ("Só clientes externos", S, "latin-pt"), ("Tylko klienci", S, "latin-pl"),
    ("Evet, ama sadece müşteriler", S, "latin-tr"), ("Token bucket", S, "latin"),
    ("the fixed window", S, "latin"), ("both, per code", S, "latin"),
]


def test_the_table_is_wide() -> None:
    assert len(TABLE) >= 150
    assert len({script for _, _, script in TABLE} - {"none", "emoji", "fullwidth"}) >= 10
    assert {cls for _, cls, _ in TABLE} == {S, C, B, P, K, A}
    assert len({r for r, _, _ in TABLE}) == len(TABLE)


@pytest.mark.parametrize(("reply", "expected"), [(r, c) for r, c, _ in TABLE])
def test_classification_table(reply: str, expected: str) -> None:
    assert classify_reply(reply) == expected


# A decision whose options the replies are read against
OPTIONS = ["Token bucket (Recommended): smooths bursts", "Fixed window"]


@pytest.mark.parametrize(("reply", "option", "number", "how"), [
    ("Token bucket", "Token bucket", 1, "label"), ("token bucket.", "Token bucket", 1, "label"),
    ("Token bucket (Recommended)", "Token bucket", 1, "label"),
    ("Fixed window", "Fixed window", 2, "label"), ("2", "Fixed window", 2, "number"),
    ("Q1: 2", "Fixed window", 2, "number"), ("option 2", "Fixed window", 2, "number"),
    ("the second one", "Fixed window", 2, "number"), ("first", "Token bucket", 1, "number"),
    ("go with your recommendation", "Token bucket", 1, "recommendation"),
])
def test_an_option_is_recognised(reply: str, option: str, number: int, how: str) -> None:
    got = classify(reply, OPTIONS, 1)
    assert (got.option, got.index, got.how) == (option, number, how)


def test_an_option_label_wins_over_the_control_words() -> None:
    """On a Yes/No node, `Yes` is that option, not a go-on."""
    for reply in ("Yes", "Yes.", "yes"):
        got = classify(reply, ["Yes", "No"])
        assert (got.kind, got.option) == (SUBSTANTIVE, "Yes")
    assert classify("3", ["Yes", "No"]).option is None  # no third option


def test_a_reply_with_several_decisions_is_split_by_question_number() -> None:
    parts = split_by_question("Q1: the first one, Q2: go with your recommendation, skip Q3")
    assert parts == [(1, "the first one"), (2, "go with your recommendation"), (3, "skip")]
    assert [classify(t).kind for _, t in parts] == [S, A, B]
    assert split_by_question("Q1: A percentage, capped at 50%, Q2: yes") == \
        [(1, "A percentage, capped at 50%"), (2, "yes")]
    assert split_by_question("just one answer") == [(None, "just one answer")]
    assert overall([C, C]) == C and overall([C, S]) == S and overall([P, C]) == P


@pytest.mark.parametrize(("reply", "normalized"), [
    ("Please, continue. Thanks!", "continue"), ("  Go--ahead!! ", "go ahead"),
    ("please please thanks thank you", ""), ("thank you thanks", ""), ("I'm fine", "i m fine"),
    ("LOOKS\u2028GOOD", "looks good"), ("thanks, please", ""), ("👍", ""),
    ("😀 Ответ", "ответ"), ("ｏｋ", "ok"), ("केवल ग्राहक", "केवल ग्राहक"),
])
def test_normalize(reply: str, normalized: str) -> None:
    assert normalize_reply(reply) == normalized


# -- through the installed CLI ------------------------------------------------------------


def _run(cwd: Path, env: dict[str, str], *args: str) -> tuple[int, dict[str, object]]:
    proc = subprocess.run([*mdgrill_command(), "--json", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)
    return proc.returncode, json.loads(proc.stdout)


@pytest.fixture(scope="module")
def pending_spec(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A spec whose D1 (Token bucket recommended / Fixed window) is pending in round 1."""
    work = tmp_path_factory.mktemp("replies")
    env = {"PATH": str(Path(mdgrill_command()[0]).parent) + ":/usr/bin:/bin",
           "LC_ALL": "C.UTF-8", "HOME": str(work)}
    spec = "specs/s"
    for args in (["init", spec, "--goal", "Rate limits"],
                 ["node", "add", spec, "D1", "--title", "Which limiter?", "--option",
                  "Token bucket: smooths bursts", "--option", "Fixed window", "--recommend", "1"],
                 ["begin-interview", spec, "--phase", "requirements", "--interview-id", "r1"],
                 ["open-frontier", spec, "--round", "1", "--decision-id", "D1"]):
        code, out = _run(work, env, *args)
        assert code == 0, out
    return work / spec / ".progress.md"


def _through_the_cli(base: Path, index: int, raw: bytes, reply: str,
                     expected: str) -> str | None:
    """classify-reply and record-answer agree with the table: an answer is recorded exactly
    when the reply carries a decision, and nothing is written otherwise."""
    work = base / f"r{index}"
    (work / "specs" / "s").mkdir(parents=True)
    progress = work / "specs" / "s" / ".progress.md"
    progress.write_bytes(raw)
    env = {"PATH": str(Path(mdgrill_command()[0]).parent) + ":/usr/bin:/bin",
           "LC_ALL": "C.UTF-8", "HOME": str(work)}
    code, out = _run(work, env, "classify-reply", "--text", reply)
    if code != 0 or out["classification"] != expected:
        return f"classify-reply {reply!r}: {out}"
    code, out = _run(work, env, "record-answer", "specs/s", "--decision-id", "D1", "--answer",
                     reply)
    carries = expected in (S, A)
    if carries != (code == 0):
        return f"record-answer {reply!r}: exit {code} {out}"
    if not carries and progress.read_bytes() != raw:
        return f"record-answer {reply!r} wrote the file"
    if expected == A and "Token bucket (accepted recommendation" not in progress.read_text():
        return f"record-answer {reply!r} did not record the recommended option"
    return None


def _cli_sample() -> list[tuple[str, str]]:
    """One reply of each (class, script) pair: every kind of reply still goes through the
    installed CLI, the whole table goes through the same rule in process."""
    taken: dict[tuple[str, str], int] = {}
    rows = []
    for reply, cls, script in TABLE:
        if reply.strip() and taken.get((cls, script), 0) < 1:  # argparse: no empty --answer
            taken[(cls, script)] = taken.get((cls, script), 0) + 1
            rows.append((reply, cls))
    return rows


@pytest.mark.parametrize(("reply", "expected"),
                         [(r, c) for r, c, _ in TABLE if r.strip()])
def test_every_reply_of_the_table_records_or_refuses_in_process(
        pending_spec: Path, reply: str, expected: str) -> None:
    """What `record-answer` does with each reply, through the state machine it calls: an
    answer is recorded exactly when the reply carries a decision."""
    from mdgrill.core import machine
    from mdgrill.errors import MdgrillError
    from mdgrill.formats.progress import apply_change, read_progress

    prog = read_progress(pending_spec.read_bytes(), "p")
    try:
        change, result = machine.record_answer(prog.data, prog, "D1", reply, None)
    except MdgrillError as exc:
        assert expected not in (S, A), (reply, exc.code, exc.message)
        return
    assert expected in (S, A), (reply, result)
    text = apply_change(prog, change)
    if expected == A:
        assert "Token bucket (accepted recommendation" in text, text


def test_a_sample_of_the_table_through_the_cli(pending_spec: Path, tmp_path: Path) -> None:
    raw = pending_spec.read_bytes()
    rows = _cli_sample()
    assert {c for _, c in rows} == {S, C, B, P, K, A} and len(rows) <= 60
    with ThreadPoolExecutor(max_workers=4) as pool:
        failures = list(pool.map(lambda a: _through_the_cli(tmp_path, a[0], raw, *a[1]),
                                 enumerate(rows)))
    assert [f for f in failures if f] == []
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_classify_reply_reads_a_decisions_options(pending_spec: Path) -> None:
    work = pending_spec.parents[2]
    env = {"PATH": str(Path(mdgrill_command()[0]).parent) + ":/usr/bin:/bin",
           "LC_ALL": "C.UTF-8", "HOME": str(work)}
    code, out = _run(work, env, "classify-reply", "--text", "2", "--spec", "specs/s",
                     "--decision-id", "D1")
    assert code == 0 and (out["option"], out["matched"]) == ("Fixed window", "number")
    code, out = _run(work, env, "classify-reply", "--text",
                     "Q1: the first one, Q2: go with your recommendation, skip Q3")
    assert [p["classification"] for p in out["parts"]] == [S, A, B]  # type: ignore[union-attr]
    assert out["classification"] == S


def test_a_reply_as_json_names_the_option_only_when_it_picks_one() -> None:
    """What `classify-reply --json` prints: the option, its number and how it matched."""
    from mdgrill.model.replies import classify

    options = ["Token bucket: smooths bursts", "Fixed window"]
    picked = classify("2", options, 1).to_json()
    assert picked == {"classification": SUBSTANTIVE, "normalized": "2",
                      "option": "Fixed window", "option_number": 2, "matched": "number"}
    plain = classify("ok", options, 1).to_json()
    assert plain == {"classification": CONTROL_ONLY, "normalized": "ok"}


def test_edges_of_the_reading() -> None:
    """A stop after an acknowledgement as long as all but its last word is still a stop;
    only the leading `Q1:` of a reply is a question number, a later `Q2` is its words."""
    from mdgrill.model.replies import classify

    assert classify("looks good, enough").kind == P
    assert classify("Q1: use the Q2 budget").normalized == "use the q2 budget"


def test_a_clause_without_a_question_number_continues_the_one_before() -> None:
    assert split_by_question("Q1: token bucket, Q2: fixed; with a burst of 10") == [
        (1, "token bucket"), (2, "fixed, with a burst of 10")]
    assert split_by_question("about these; Q1: yes") == [(None, "about these"), (1, "yes")]


# -- what issue 32's mutation run of the classifier asked for ------------------------------


def test_a_trailing_thank_you_drops_only_those_two_words() -> None:
    assert normalize_reply("Use Postgres, thank you!") == "use postgres"
    assert classify_reply("Postgres thank you") == S


@pytest.mark.parametrize("reply", ["yess", "okk", "Yesss!", "mm", "mm, ok"])
def test_a_stretched_acknowledgement_is_still_one(reply: str) -> None:
    """A doubled last letter is taken back once (`yess` -> yes, `okk` -> ok, a hum `mm` -> m,
    the glue of `I'm`), each letter once, never two at a time."""
    assert classify_reply(reply) == C


def test_a_word_beside_a_stop_is_glue_only_beside_a_stop() -> None:
    """`done for today` stops; `today` alone (or after an acknowledgement) answers a when."""
    assert classify_reply("done for today") == P
    assert classify_reply("I'm done for now") == P
    assert classify_reply("today") == S
    assert classify_reply("ok, today") == S


def test_a_word_of_an_unspaced_script_is_cut_up_to_48_characters() -> None:
    """The cut (`好的谢谢` -> 好的 谢谢) is bounded: a longer run says something."""
    assert classify_reply("好的" * 24) == C
    assert classify_reply("好的" * 25) == S


@pytest.mark.parametrize("reply", ["díkydíky", "dziękidzięki", "mercitrès"])
def test_an_unspaced_word_is_cut_only_into_listed_words(reply: str) -> None:
    """`díkydíky` (thanks thanks, typed as one word) is cut into díky + díky; a cut that
    needs a piece no list holds is no cut (the pieces before it do not stand for it)."""
    assert classify_reply(reply) == C


# The patterns issue 37's start-up work replaced by hand (each compile was 0.4-0.6 M
# instructions of every reply a verb reads): the readings must stay exactly theirs.
_QUESTION_PREFIX = re.compile(r"\s*[Qq](?P<n>[0-9]{1,3})\b")
_RUNS = re.compile(r"(.)\1{2,}")
# the characters the patterns turn on (blanks of every kind, word characters and not, the
# digits, the Q) more often than plain text would hold them, and any text besides
_EDGES = " \t\n\r\x0b\x1c\x85\u00a0\u2003\u3000_Qq0123456789\u0663\u00b2aAkKoOs\u00e9\u597d:.)-"
_REPLIES = st.text(alphabet=st.sampled_from(_EDGES), max_size=12) | st.text(max_size=24)


@given(_REPLIES)
def test_the_question_prefix_read_by_hand_is_the_pattern_it_replaced(text: str) -> None:
    m = _QUESTION_PREFIX.match(text)
    assert without_question_prefix(text) == (text if m is None else text[m.end():])


@given(_REPLIES)
def test_stretched_letters_cut_by_hand_are_what_the_pattern_cut(text: str) -> None:
    assert _squeezed(text, 1) == _RUNS.sub(r"\1", text)
    assert _squeezed(text, 2) == _RUNS.sub(r"\1\1", text)


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=30))
def test_ascii_words_split_by_hand_are_what_the_pattern_split(text: str) -> None:
    folded = text.lower()
    assert folded.translate(_NOT_WORD).split() == re.sub(r"[^a-z0-9]+", " ", folded).split()


def test_hand_readings_at_their_edges() -> None:
    assert without_question_prefix("  Q12: yes") == ": yes"
    assert without_question_prefix("Q1234 yes") == "Q1234 yes"  # four digits: no number
    assert without_question_prefix("q3_x") == "q3_x"  # `_` is a word character
    assert without_question_prefix("Q\u06637") == "Q\u06637"  # [0-9] is ASCII only
    assert without_question_prefix("\u2003Q7\u00e9") == "\u2003Q7\u00e9"  # a letter follows
    assert _squeezed("okkk\n\n\nyesss", 1) == "ok\n\n\nyes"  # `.` takes no line break
    # a letter stretched inside a word is read back to one (`yeees` is yes) or, where the word
    # doubles it, to two (`gooood` is good): both spellings are tried
    assert classify("yeees").kind == classify("yes").kind == CONTROL_ONLY
    assert classify("sounds gooood").kind == classify("sounds good").kind == CONTROL_ONLY
    assert classify("the second one").kind == SUBSTANTIVE  # no options: nothing picked
    assert classify("2", ["A", "B (Recommended)"]).option == "B"
