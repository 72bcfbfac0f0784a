"""Deterministic reply classification: the one table every verb that reads a user's reply uses.

The interview framework: "Classify the entire reply before applying it." A control-only reply
"does not answer any active decision"; "a substantive answer can include control words
without losing its decision content"; bare `skip` defaults the remaining interview. The
elicitation skill adds the user saying they are done ("done", "that's enough", "build it").

Normalization (smart-ralph's, widened to every script): NFKC, lower case, every run of
characters that are not letters, digits or combining marks becomes one space, trimmed, and a
leading `please` and trailing `please`/`thanks`/`thank you` dropped. A reply with no letter or
digit at all (`👍`, `...`) normalizes to "" and is control-only.

The classes, in the order they are tried:

1. `substantive` with an `option`: the reply is one of the active decision's option labels
   (with or without `(Recommended)`), its number (`2`, `option 2`, `the second one`), when the
   decision's options are known. An option label always wins: on a Yes/No node, `Yes` is an
   answer.
2. `bare_skip`: exactly `skip`.
3. `control_only`: a sequence of go-on and acknowledgement phrases (CONTROL_PHRASES, which
   keeps phase_gate's closed list as its core, plus EXTRA_CONTROL).
4. `stop`: the user is done being asked (STOP_PHRASES). Never recorded.
5. `skip_decision`: leave this one decision (SKIP_DECISION_PHRASES). Never recorded: the
   user chooses out of scope, or a default with an assumption.
6. `accept_recommendation`: take the recommended option (ACCEPT_PHRASES).
   Stop, skip-one and accept phrases count also after acknowledgements (`ok, your call`).
7. `substantive`: anything else.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

SUBSTANTIVE = "substantive"
CONTROL_ONLY = "control_only"
BARE_SKIP = "bare_skip"
STOP = "stop"
SKIP_DECISION = "skip_decision"
ACCEPT_RECOMMENDATION = "accept_recommendation"
CLASSES = (SUBSTANTIVE, CONTROL_ONLY, BARE_SKIP, STOP, SKIP_DECISION, ACCEPT_RECOMMENDATION)
NOT_AN_ANSWER = frozenset({CONTROL_ONLY, BARE_SKIP, STOP, SKIP_DECISION})

# smart-ralph's phase_gate closed list: existing agents see the same answers for these.
CONTROL_PHRASES = frozenset({
    "", "approved", "apply the changes", "confirm", "confirmed", "continue", "continue please",
    "go ahead", "looks good", "next", "ok", "okay", "please continue", "proceed", "sounds good",
    "y", "yes",
})
# Acknowledgements and go-ons that carry no decision either (English first, then the plain
# yes/ok/go-on words of other languages: a bare `はい` answers no decision any more than `yes`).
EXTRA_CONTROL = frozenset({
    "lgtm", "k", "kk", "sure", "yep", "yeah", "yup", "ya", "alright", "all right", "fine",
    "good", "great", "perfect", "cool", "nice", "got it", "understood", "noted", "agreed",
    "agree", "i agree", "go on", "carry on", "keep going", "move on", "go for it", "do it",
    "let s go", "lets go", "sounds great", "looks great", "all good", "makes sense",
    "works for me", "yes please", "please do", "approve", "ack", "roger", "okey", "okie",
    "go", "continue on", "onward", "next one",
    "sí", "si", "oui", "ja", "jawohl", "sim", "tak", "evet", "да", "ок", "так", "はい",
    "了解", "好", "好的", "是", "是的", "行", "네", "예", "כן", "نعم", "हाँ", "हां", "ठीक है",
    "weiter", "continuar", "continuer", "продолжай", "дальше", "続けて",
})
STOP_PHRASES = frozenset({
    "done", "i m done", "im done", "we re done", "were done", "i am done", "we are done",
    "that s enough", "thats enough", "that is enough", "enough", "enough questions",
    "that s all", "thats all", "that is all", "that s it", "thats it", "build it",
    "build the prompt", "let s build", "lets build", "let s build it", "go build it",
    "stop asking", "no more questions", "stop", "finish", "finished", "wrap it up", "wrap up",
    "ready to build", "i m finished", "we re finished", "all done",
})
SKIP_DECISION_PHRASES = frozenset({
    "skip this", "skip it", "skip that", "skip this one", "skip that one", "skip this question",
    "skip that question", "skip the question", "skip for now", "skip this for now",
    "skip it for now", "pass", "next question", "i don t know", "i dont know", "don t know",
    "dont know", "idk", "no idea", "not sure", "dunno", "i m not sure", "no opinion",
})
ACCEPT_PHRASES = frozenset({
    "go with your recommendation", "go with the recommendation", "go with the recommended",
    "go with the recommended one", "go with the recommended option", "your recommendation",
    "the recommendation", "your call", "you decide", "you choose", "your choice",
    "whatever you recommend", "whatever you think", "whatever you think is best",
    "whatever is best", "the recommended one", "the recommended option", "recommended",
    "as recommended", "use the recommendation", "use your recommendation",
    "take the recommendation", "take your recommendation", "i ll go with your recommendation",
    "ill go with your recommendation", "follow your recommendation",
    "go with what you recommend", "what you recommend", "the default", "use the default",
    "go with the default", "default", "recommended one", "recommended option",
    "i trust your recommendation", "agree with your recommendation",
    "agree with the recommendation",
})
_CONTROL = CONTROL_PHRASES | EXTRA_CONTROL
_POLITE_TAIL = ("please", "thanks", "thx", "ty")
_LONGEST_PHRASE = 6
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "one": 1, "two": 2,
             "three": 3, "four": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
_NUMBER_FORMS = re.compile(
    r"(?:(?:the |option |choice |number |answer |no )?(?P<n>[0-9]+|first|second|third|fourth"
    r"|1st|2nd|3rd|4th)(?: one| option| choice)?"
    r"|option (?P<w>one|two|three|four))\Z")
# `Q1: 2`, `q2)`, `Q3 -`: a question number in front of (part of) a reply; the blanks and
# the one mark after it are stripped by hand (see without_question_prefix), as optional
# blanks around an optional mark backtrack quadratically
QUESTION_PREFIX = re.compile(r"\s*[Qq](?P<n>[0-9]{1,3})\b")
_PREFIX_MARKS = ":.)-–—"
QUESTION_REF = re.compile(r"(?<![0-9A-Za-z])[Qq](?P<n>[0-9]{1,3})(?![0-9A-Za-z])")
# the words between a comma and the next `Qn` start with a letter, so that the lookahead does
# not try every split of a long blank run between the comma's blanks and those words
_CLAUSE_SPLIT = re.compile(r"[\n;]+|,(?=\s*(?:[A-Za-z][A-Za-z ]{0,19}\b)?[Qq][0-9])")
_RECOMMENDED_MARK = re.compile(r"\((?i:recommended)\)")  # and the blanks before it, by hand


def _is_word_char(c: str) -> bool:
    return c.isalnum() or unicodedata.category(c)[0] == "M"


def normalize_reply(text: str) -> str:
    """NFKC, lower case, runs of non-letters/digits -> one space, polite words dropped."""
    folded = unicodedata.normalize("NFKC", text).lower()
    if folded.isascii():  # the common case, at C speed
        words = re.sub(r"[^a-z0-9]+", " ", folded).split()
    else:
        words = "".join(c if _is_word_char(c) else " " for c in folded).split()
    while words and words[0] == "please":
        words.pop(0)
    while words:
        if words[-1] in _POLITE_TAIL:
            words.pop()
        elif words[-2:] == ["thank", "you"]:
            del words[-2:]
        else:
            break
    return " ".join(words)


def _all_control(words: list[str]) -> bool:
    """True when the words are one or more control phrases in a row (`ok ok`, `yes go ahead`)."""
    reach = [False] * (len(words) + 1)
    reach[0] = True
    for i in range(len(words)):
        if not reach[i]:
            continue
        for j in range(i + 1, min(len(words), i + _LONGEST_PHRASE) + 1):
            if " ".join(words[i:j]) in _CONTROL:
                reach[j] = True
    return reach[len(words)]


def option_label(option: str) -> str:
    """An option's label: its text before `: why`, without the `(Recommended)` mark."""
    label = option.split(": ", 1)[0]
    return _without_mark(label).strip()


def _without_mark(text: str) -> str:
    """The text without its `(Recommended)` marks and the blanks before each."""
    parts = _RECOMMENDED_MARK.split(text)
    return "".join(part.rstrip() for part in parts[:-1]) + parts[-1]


def without_question_prefix(text: str) -> str:
    """A reply without its leading `Q1:` (number, blanks, one mark, blanks)."""
    m = QUESTION_PREFIX.match(text)
    if m is None:
        return text
    rest = text[m.end():].lstrip()
    return rest[1:].lstrip() if rest[:1] and rest[0] in _PREFIX_MARKS else rest


class Reply:
    """A classified reply: its class, normalized text, and the option it picks, if any."""

    __slots__ = ("kind", "normalized", "option", "index", "how")

    def __init__(self, kind: str, normalized: str, option: str | None = None,
                 index: int | None = None, how: str | None = None) -> None:
        self.kind = kind
        self.normalized = normalized
        self.option = option  # the chosen option's label
        self.index = index  # 1-based
        self.how = how  # label | number | recommendation

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"classification": self.kind, "normalized": self.normalized}
        if self.option is not None:
            out.update({"option": self.option, "option_number": self.index, "matched": self.how})
        return out


def _option_of(normalized: str, labels: Sequence[str]) -> tuple[int, str] | None:
    for index, label in enumerate(labels, 1):
        if normalize_reply(label) == normalized and normalized:
            return index, "label"
    m = _NUMBER_FORMS.match(normalized)
    if m is not None and labels:
        raw = m.group("n") or m.group("w")
        number = int(raw) if raw.isdigit() else _ORDINALS[raw]
        if 1 <= number <= len(labels):
            return number, "number"
    return None


def _without_leading_control(words: list[str]) -> list[str]:
    """`ok, your call` -> [`ok your call`, `your call`]: the reply with ever more of the
    acknowledgements in front dropped."""
    found = [" ".join(words)]
    while words:
        for j in range(min(len(words) - 1, _LONGEST_PHRASE), 0, -1):
            if " ".join(words[:j]) in _CONTROL:
                words = words[j:]
                found.append(" ".join(words))
                break
        else:
            break
    return found


def classify(text: str, options: Sequence[str] = (), recommended: int | None = None) -> Reply:
    """Classify one reply to one decision whose `options` (full option texts) are known."""
    text = without_question_prefix(text)
    normalized = normalize_reply(text)
    labels = [option_label(o) for o in options]
    picked = _option_of(normalized, labels) or \
        _option_of(normalize_reply(_without_mark(text)), labels)
    if picked is not None:
        index, how = picked
        return Reply(SUBSTANTIVE, normalized, labels[index - 1], index, how)
    if normalized == "skip":
        return Reply(BARE_SKIP, normalized)
    words = normalized.split()
    if normalized in _CONTROL or _all_control(words):
        return Reply(CONTROL_ONLY, normalized)
    forms = _without_leading_control(words)
    if any(f in STOP_PHRASES for f in forms):
        return Reply(STOP, normalized)
    if any(f in SKIP_DECISION_PHRASES for f in forms):
        return Reply(SKIP_DECISION, normalized)
    if any(f in ACCEPT_PHRASES for f in forms):
        if recommended is not None and 1 <= recommended <= len(labels):
            return Reply(ACCEPT_RECOMMENDATION, normalized, labels[recommended - 1],
                         recommended, "recommendation")
        return Reply(ACCEPT_RECOMMENDATION, normalized)
    return Reply(SUBSTANTIVE, normalized)


def classify_reply(text: str) -> str:
    """The class of a reply with no decision in view (the contract's `classify-reply`)."""
    return classify(text).kind


def split_by_question(text: str) -> list[tuple[int | None, str]]:
    """`Q1: the first one, Q2: go with your recommendation, skip Q3` -> [(1, 'the first
    one'), (2, 'go with your recommendation'), (3, 'skip')].

    The reply is cut into clauses at new lines, `;`, and a comma that comes just before a
    question number; a clause that names one question number belongs to that question (the
    number and its `:` removed); a clause naming none continues the clause before it. A reply
    naming no question number is one part, numbered None.
    """
    if QUESTION_REF.search(text) is None:
        return [(None, text.strip())]
    parts: list[tuple[int | None, str]] = []
    for clause in _CLAUSE_SPLIT.split(text):
        refs = QUESTION_REF.findall(clause)
        if len(set(refs)) == 1:
            m = QUESTION_REF.search(clause)
            assert m is not None
            rest = (clause[:m.start()] + " " + re.sub(r"^\s*[:.)\-–—]\s*", "", clause[m.end():]))
            parts.append((int(refs[0]), rest.strip()))
        elif parts and not refs:
            number, before = parts[-1]
            joiner = ", " if before else ""
            parts[-1] = (number, (before + joiner + clause.strip()).strip())
        elif clause.strip():
            parts.append((None, clause.strip()))
    return parts


def overall(kinds: Sequence[str]) -> str:
    """The class of a whole reply from the classes of its parts: any decision in it makes it
    substantive; otherwise the first stop, bare skip, skip of one, or control-only."""
    for kind in (SUBSTANTIVE, ACCEPT_RECOMMENDATION):
        if kind in kinds:
            return SUBSTANTIVE
    for kind in (STOP, BARE_SKIP, SKIP_DECISION):
        if kind in kinds:
            return kind
    return CONTROL_ONLY


__all__ = ["ACCEPT_RECOMMENDATION", "BARE_SKIP", "CLASSES", "CONTROL_ONLY", "NOT_AN_ANSWER",
           "Reply", "SKIP_DECISION", "STOP", "SUBSTANTIVE", "classify", "classify_reply",
           "normalize_reply", "option_label", "overall", "split_by_question"]
