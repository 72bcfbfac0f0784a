"""The reply journal (`shell/journal.py`) in process: where it lives, what a line holds, how it
is read back, and that a failed append leaves it as it was. An approval whose reply the
journal does not hold is refused once the repository keeps one (`services/evidence.py`), so
a journal that lost its lines, or vanished, would change what the gate accepts.
tests/test_journal.py holds the same journal through the hooks and linked worktrees."""

from __future__ import annotations

import errno
import json
import os
from hashlib import sha256
from pathlib import Path

import pytest
from test_scope import brief_shown

from mdgrill.formats.progress import Progress
from mdgrill.formats.textfile import TextFile
from mdgrill.shell import journal


def _file(repo: Path) -> Path:
    return repo / ".git" / "mdgrill" / "replies.jsonl"


def test_outside_a_repository_nothing_is_kept(tmp_path: Path) -> None:
    assert journal.path_of(str(tmp_path)) is None
    journal.append(str(tmp_path), "UserPromptSubmit", "Approve and delegate")
    assert list(tmp_path.iterdir()) == []
    assert journal.entries(str(tmp_path)) is None
    assert journal.source_of(str(tmp_path), "a" * 64) is None


def test_a_repository_without_replies_keeps_no_journal(repo: Path) -> None:
    assert journal.path_of(str(repo)) == str(_file(repo))
    assert journal.entries(str(repo)) is None
    prog = _confirmed("0" * 64)
    assert journal.unmatched_approvals(str(repo), prog.blocks) == []


def test_a_line_holds_the_words_their_digest_and_what_awaited_them(repo: Path) -> None:
    brief_shown(repo)
    journal.append(str(repo), "UserPromptSubmit", "Approve and delegate — é", session="s1")
    journal.append(str(repo), "AskUserQuestion", "Ready?: Approve and delegate",
                   answers=[("Ready?", "Approve and delegate")])

    raw = _file(repo).read_bytes()
    assert "— é".encode() in raw  # the words as written, not as JSON escapes
    first, second = (json.loads(line) for line in raw.splitlines())
    assert first["source"] == "UserPromptSubmit" and first["session"] == "s1"
    assert first["sha256"] == sha256("Approve and delegate — é".encode()).hexdigest()
    assert [(p["spec"], p["interview"], p["status"]) for p in first["pending"]] == [
        ("specs/a", "r1", "awaiting_confirmation")]
    assert "answers" not in first
    assert second["answers"] == [["Ready?", "Approve and delegate"]]
    assert journal.entries(str(repo)) == [first, second]


def test_a_brief_is_recorded_whatever_else_is_wrong_with_its_record(repo: Path) -> None:
    """The journal records what the user was shown; judging the record is the gate's work
    when the approval is recorded (a record broken now may be repaired before then)."""
    spec = brief_shown(repo)
    path = Path(spec.progress)
    text = path.read_text(encoding="utf-8")
    assert "  pending: [C1]\n" in text
    path.write_text(text.replace("  pending: [C1]", "  pending: [C1, X9]", 1), encoding="utf-8")
    journal.append(str(repo), "UserPromptSubmit", "Approve and delegate")
    [entry] = journal.entries(str(repo)) or []
    pending = entry["pending"]
    assert isinstance(pending, list)
    assert [(p["spec"], p["status"]) for p in pending] == [("specs/a", "awaiting_confirmation")]


def test_a_lone_surrogate_is_kept_as_its_escape(repo: Path) -> None:
    journal.append(str(repo), "UserPromptSubmit", "odd \ud800 text")
    [entry] = journal.entries(str(repo)) or []
    assert entry["text"] == "odd \ud800 text"
    assert b"\\ud800" in _file(repo).read_bytes()


def test_reading_skips_a_torn_line_and_what_is_no_reply(repo: Path) -> None:
    journal.append(str(repo), "UserPromptSubmit", "first")
    with _file(repo).open("ab") as handle:
        handle.write(b'["a list"]\n{"source": "x"}\n{"text": 3}\n{"text": "torn')
    assert [e["text"] for e in journal.entries(str(repo)) or []] == ["first"]


def test_a_failed_append_leaves_the_journal_as_it_was(repo: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    def full_disk(fd: int, data: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    # the first append creates the journal: a failure removes it again (an empty journal
    # would make every approval need a reply it never kept)
    with monkeypatch.context() as patch:
        patch.setattr(os, "write", full_disk)
        with pytest.raises(OSError) as first:
            journal.append(str(repo), "UserPromptSubmit", "lost")
    assert first.value.errno == errno.ENOSPC  # the write's own error reaches the caller
    assert not _file(repo).exists()

    journal.append(str(repo), "UserPromptSubmit", "kept")
    before = _file(repo).read_bytes()
    with monkeypatch.context() as patch:
        patch.setattr(os, "write", full_disk)
        with pytest.raises(OSError) as second:
            journal.append(str(repo), "UserPromptSubmit", "lost")
    assert second.value.errno == errno.ENOSPC
    assert _file(repo).read_bytes() == before  # cut back, never removed


@pytest.mark.parametrize(("entry", "words"), [
    ({"source": "UserPromptSubmit", "text": "Tests: unit only"}, "Tests: unit only"),
    ({"source": "AskUserQuestion", "text": "Scope?: Members\nReady?: Approve and delegate"},
     "Approve and delegate"),
    ({"source": "AskUserQuestion", "text": "no colon here"}, "no colon here"),
])
def test_a_question_tools_reply_is_its_last_answer(entry: dict[str, object],
                                                   words: str) -> None:
    assert journal.reply_words(entry) == words


def _confirmed(sha: str, kind: str = "Confirmed") -> Progress:
    text = ("---\nmdgrill: 1\nspec: s\ngoal: g\nphase: start\nmode: interactive\n"
            "required_sections: []\ninterview: null\nskills: []\n---\n# S\n\n"
            "## Interview Responses\n\n"
            f"### Requirements Grill - {kind}\n- Interview: r1\n- Reply sha256: {sha}\n\n"
            "### Requirements Grill - Confirmed\n- Interview: r0\n")
    return Progress(TextFile(text), "p")


def test_an_approval_is_unmatched_when_the_journal_lacks_its_reply(repo: Path) -> None:
    journal.append(str(repo), "UserPromptSubmit", "Approve and delegate")
    journal.append(str(repo), "MCPElicitation", "Approve and delegate")
    known = sha256(b"Approve and delegate").hexdigest()

    assert journal.unmatched_approvals(str(repo), _confirmed(known).blocks) == []
    prog = _confirmed("f" * 64)
    assert [(b.first("Interview"), sha) for b, sha in
            journal.unmatched_approvals(str(repo), prog.blocks)] == [("r1", "f" * 64)]
    # only a Confirmed block claims a reply; one without a sha claims none
    assert journal.unmatched_approvals(str(repo), _confirmed("f" * 64, "Cancelled").blocks) \
        == []
    assert journal.source_of(str(repo), known) == "MCPElicitation"  # the latest holding it
    assert journal.source_of(str(repo), "f" * 64) is None
