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

Classes 3 to 6 are one reading, phrase by phrase and word by word (`word_class`): the phrase
lists first, the word lists after them. Two earlier readings of whole phrases (a run of
control phrases; a stop, skip or accept phrase after acknowledgements) agreed with it on every
reply tried (480,000) and were dropped (issue 32's mutation run found them redundant).
"""

from __future__ import annotations

import re
from functools import cache  # loaded with re already
from itertools import groupby

# names for annotations only, one module fewer a verb loads; type checkers treat this name
# as true
TYPE_CHECKING = False
if TYPE_CHECKING:
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
    "alles klar", "alles gut", "ga door", "fair enough", "thanks a lot", "a lot",
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

# The safe reading, word by word (issue 31): people acknowledge, agree, thank, stop and skip
# in more ways than any list of phrases holds ("sounds fine", "we're good", "ok danke",
# "vale, gracias", "I think we're done here"). A reply none of whose words says anything
# beyond that is not an answer, whatever their order: it is asked again. A single word that
# is not in these lists (a noun, a number, a negation) makes the reply an answer.
# Acknowledgement, agreement, politeness and the glue words around them, in many languages:
ACK_WORDS = frozenset("""
ok okay okey okie oki k kk ack yes yeah yea yep yup ya yah aye sure surely fine good great
perfect cool nice alright correct exactly agreed agree approve approved confirm
confirmed continue proceed go ahead on onward onwards next move looks look looking sounds
sound seems seem seemed lgtm wfm np thanks thank thx ty tysm please pls plz much very so
really just well then now absolutely definitely totally indeed course of by for to me with
us i we you it that this those these thing things is s re m am are was be been
 here there think guess suppose reckon fair enough enuf lets let t do does did
yes sir madam sounds awesome excellent brilliant wonderful splendid fantastic superb neat
sweet lovely ideal works worked working going roger noted understood understand
got gotcha acknowledged whatever fine happy glad
too also again as said
merci oui ouais bien très tres parfait super génial genial daccord accord entendu volontiers
bon bonne continuez continue allez vas y cest c est ça ca va ok
danke ja jawohl genau gut sehr klar passt einverstanden super prima weiter mach bitte schön
schon okay jo jep stimmt doch das beaucoup così いいですね muy
gracias sí si vale claro bueno bien perfecto genial listo dale de acuerdo acuerdo muchas
vamos sigue adelante está esta ok
grazie sì va bene perfetto certo certamente ottimo d accordo prego avanti continua
obrigado obrigada sim beleza tá ta bom certo perfeito ótimo otimo combinado pode valeu
dank je wel bedankt prima goed oké oke akkoord prima
tak dziękuję dzieki dzięki dobrze jasne świetnie super okej
ano dobře dobre díky diky děkuji jo jasně
evet tamam teşekkürler tesekkurler sağol sagol olur peki harika
ja tack bra fint okej kör
ja takk bra fint greit
kyllä kiitos selvä hyvä joo
igen köszönöm rendben jó oké
da hvala dobro može važi
так дякую добре гаразд звісно
да спасибо хорошо ладно ок окей конечно отлично понял поняла понятно давай продолжай дальше
согласен согласна верно ага угу так
ναι ευχαριστώ εντάξει ωραία σωστά
כן תודה בסדר סבבה מעולה אוקיי
نعم شكرا حسنا تمام موافق طيب ممتاز
हाँ हां जी धन्यवाद ठीक है अच्छा बढ़िया शुक्रिया
ya baik terima kasih oke siap setuju lanjut
vâng cảm ơn được ok đồng ý tốt
ใช่ ขอบคุณ ครับ ค่ะ คะ โอเค ได้ มาก นะ แล้ว
はい ありがとう ありがとうございます 了解 了解です 分かりました わかりました 大丈夫 いいです いいね
オッケー お願いします 続けて どうぞ
好 好的 是 是的 行 可以 谢谢 謝謝 没问题 沒問題 对 對 嗯 继续 繼續 明白 收到
你 您 吧 了 的 啊 呀 哦 啦
네 예 감사합니다 고마워요 좋아요 좋습니다 알겠습니다 계속 괜찮아요
""".split())  # noqa: SIM905 - word lists read best as prose
# The user is done being asked (the elicitation skill's "done", "that's enough", "build it",
# "or similar"):
STOP_WORDS = frozenset("""
done enough build ship finish finished finito stop wrap ready complete completed
fertig genug reicht terminé termine fini finis assez suffit listo basta terminado suficiente
hecho basta chega concluído acabou klaar genoeg gotowe wystarczy dość hotovo
stačí tamamdır yeter bitti klart nok valmis kész elég gotovo готово хватит достаточно
всё все закончили готово досить έτοιμο αρκετά מספיק סיימנו كفى انتهينا बस हो गया
selesai cukup xong đủ พอ เสร็จ 完了 以上 十分 够了 夠了 完成 就这样 끝 충분해요 그만
""".split())  # noqa: SIM905 - word lists read best as prose
# Leave the rest ("skip the rest", "skip all", "ok skip"): bare skip, the framework's
# "authorization to default the remaining phase interview"
SKIP_WORDS = frozenset("""
skip skipping passer sauter überspringen saltar salta pular
pula saltare overslaan pomiń přeskočit atla hoppa ohita пропустить пропусти пропускаем
דלג تخطى छोड़ें lewati bỏ qua ข้าม スキップ 跳过 跳過 건너뛰기
""".split())  # noqa: SIM905 - word lists read best as prose
# what may stand beside a skip word: "skip the rest", "skip all of them"
_SKIP_GLUE = frozenset(["rest", "remaining", "others", "all", "everything", "them", "the",
                        "of"])
# what may stand beside a stop word: "that's all, build it", "done for today"
_STOP_GLUE = frozenset(["all", "today", "good", "here", "now"])
# A reply that asks for the recommendation and nothing else takes it ("go with your
# recommendations", "take the recommended one")
RECOMMEND_STEMS = ("recommend", "recomend", "recommand", "empfehl", "raccomand", "consigli",
                   "aanbevol", "zaleca", "doporuč", "öner", "рекоменд", "推荐", "推薦",
                   "おすすめ", "推奨", "추천")
_RECOMMEND_GLUE = frozenset("""go with take use follow pick choose what your the a one ones
option options answer answers yours as you 按 用 就""".split())  # noqa: SIM905 - as above
_POLITE_TAIL = ("please", "thanks", "thx", "ty")
_LONGEST_PHRASE = 6
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "one": 1, "two": 2,
             "three": 3, "four": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
# The patterns below are compiled on first use, not when the module loads: a reply to a
# decision with no options in view (classify-reply, an answer to a decision outside the tree)
# never needs them, and each compile is 0.5-0.9 M instructions of a verb's 100-150 M.


@cache
def _number_forms() -> re.Pattern[str]:
    """An option named by its number: `2`, `option 2`, `the second one`."""
    number_forms = re.compile(  # a name of its own, as .ci/redos.py reads it
        r"(?:(?:the |option |choice |number |answer |no )?(?P<n>[0-9]+|first|second|third"
        r"|fourth|1st|2nd|3rd|4th)(?: one| option| choice)?"
        r"|option (?P<w>one|two|three|four))\Z")
    return number_forms


@cache
def _recommended_mark() -> re.Pattern[str]:
    """`(Recommended)` in any case (the blanks before it are dropped by hand)."""
    recommended_mark = re.compile(r"\((?i:recommended)\)")
    return recommended_mark


# ASCII's characters but [a-z0-9], each made a blank (normalize_reply)
_NOT_WORD = str.maketrans(dict.fromkeys(
    (chr(c) for c in range(128) if chr(c) not in "abcdefghijklmnopqrstuvwxyz0123456789"), " "))
_DIGITS = frozenset("0123456789")


def normalize_reply(text: str) -> str:
    """NFKC, lower case, runs of non-letters/digits -> one space, polite words dropped."""
    if text.isascii():  # NFKC leaves ASCII as it is: unicodedata loads for other text only
        folded = text.lower()
    else:
        from unicodedata import normalize

        folded = normalize("NFKC", text).lower()
    if folded.isascii():  # the common case, at C speed: every [^a-z0-9] a blank, then split
        words = folded.translate(_NOT_WORD).split()
    else:
        from unicodedata import category

        # a letter, a digit or a combining mark is part of a word
        words = "".join(c if c.isalnum() or category(c)[0] == "M" else " "
                        for c in folded).split()
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


def _spellings(word: str) -> tuple[str, ...]:
    """The word and its stretched letters taken back: `okkk` -> ok, `sooo` -> so/soo."""
    return (word, _squeezed(word, 1), _squeezed(word, 2), _last_letter_once(word))


def _squeezed(word: str, keep: int) -> str:
    """Each run of three or more of one character (a letter said three times or more: `okkk`,
    `yesss`) cut to `keep` of it; a line break is never cut. By hand: a pattern's compile was
    a third of what reading a short reply cost."""
    out: list[str] = []
    for char, run in groupby(word):
        size = sum(1 for _ in run)
        out.append(char * (keep if size >= 3 and char != "\n" else size))
    return "".join(out)


def _last_letter_once(word: str) -> str:
    """`yess` -> yes, `okk` -> ok: a doubled last letter taken back, never one inside a word
    (`sso` is no `so`). By hand: `(.)\\1+\\Z` searched a long word quadratically."""
    end = len(word)
    while end > 1 and word[end - 2] == word[-1]:
        end -= 1
    return word[:end]


_LONGEST_WORD = 12
_SEGMENT_WORDS = ACK_WORDS | STOP_WORDS | SKIP_WORDS | _RECOMMEND_GLUE | frozenset(
    RECOMMEND_STEMS)


def _segments(word: str) -> list[str] | None:
    """A word of a script written without spaces (`好的谢谢`, `ขอบคุณครับ`) cut into words of
    the lists, or None when it cannot be (then it says something); a word longer than 48
    characters is not cut (a bound on the work), and so says something."""
    if word.isascii() or len(word) > 4 * _LONGEST_WORD:
        return None
    known = _SEGMENT_WORDS
    best: list[list[str] | None] = [None] * (len(word) + 1)
    best[0] = []
    for i in range(len(word)):
        here = best[i]
        if here is None:
            continue
        for j in range(i + 1, min(len(word), i + _LONGEST_WORD) + 1):
            if best[j] is None and word[i:j] in known:
                best[j] = [*here, word[i:j]]
    return best[len(word)]


_WORD_LISTS = (("ack", ACK_WORDS), ("stop", STOP_WORDS), ("skip", SKIP_WORDS),
               ("skip-glue", _SKIP_GLUE), ("stop-glue", _STOP_GLUE),
               ("recommend-glue", _RECOMMEND_GLUE))


def _kinds(word: str) -> set[str]:
    """What a word can be (ack, stop, skip, recommend, or glue beside one of those), as first
    spelled, else with its stretched letters taken back; empty: the word says something."""
    for spelled in _spellings(word):
        kinds = {kind for kind, words in _WORD_LISTS if spelled in words}
        if spelled.startswith(RECOMMEND_STEMS):
            kinds.add("recommend")
        if kinds:
            return kinds
    return set()


_PHRASE_KINDS = {**{p: "ack" for p in _CONTROL}, **{p: "stop" for p in STOP_PHRASES},
                 **{p: "recommend" for p in ACCEPT_PHRASES},
                 **{p: "skip-one" for p in SKIP_DECISION_PHRASES}}


def word_class(normalized: str) -> str | None:
    """The class of a reply none of whose words carries a decision (the safe reading), or
    None when a word does: then it is read as an answer."""
    found: list[set[str]] = []
    words = normalized.split()
    i = 0
    while i < len(words):
        # a listed phrase first, longest first ("all good", "that s all"), then one word
        for j in range(min(len(words), i + _LONGEST_PHRASE), i, -1):
            phrase = " ".join(words[i:j])
            kind = _PHRASE_KINDS.get(phrase)
            if kind is not None:
                found.append({kind})
                i = j
                break
        else:
            kinds = _kinds(words[i])
            if not kinds:
                parts = _segments(words[i])
                if parts is None:
                    return None
                found.extend(_kinds(part) for part in parts)
            else:
                found.append(kinds)
            i += 1
    if not found:
        return None
    has = set().union(*found)
    allowed = {"ack", "stop", "skip", "skip-one", "recommend"}
    if "skip" in has:
        allowed.add("skip-glue")
    if "recommend" in has:
        allowed.add("recommend-glue")
    if "stop" in has:
        allowed.add("stop-glue")
    if not all(kinds & allowed for kinds in found):
        return None
    if "skip" in has:
        return BARE_SKIP
    if "skip-one" in has:
        return SKIP_DECISION
    if "recommend" in has:
        return ACCEPT_RECOMMENDATION
    return STOP if "stop" in has else CONTROL_ONLY


def option_label(option: str) -> str:
    """An option's label: its text before `: why`, without the `(Recommended)` mark."""
    return _without_mark(option.partition(": ")[0]).strip()


def _without_mark(text: str) -> str:
    """The text without its `(Recommended)` marks and the blanks before each."""
    parts = _recommended_mark().split(text)
    return "".join(part.rstrip() for part in parts[:-1]) + parts[-1]


def without_question_prefix(text: str) -> str:
    """A reply without its leading `Q1` (the mark after it, `Q1:`, goes with every other mark
    when the reply is normalized): blanks, `Q` or `q`, one to three digits, then no letter,
    digit or `_` (the end of a word). By hand: every reply read pays this, and a pattern's
    compile was 0.6 M instructions of it."""
    start = len(text) - len(text.lstrip())
    if text[start:start + 1] not in ("Q", "q"):
        return text
    end = start + 1
    while end < len(text) and end - start <= 3 and text[end] in _DIGITS:
        end += 1
    if end == start + 1 or (end < len(text) and (text[end].isalnum() or text[end] == "_")):
        return text
    return text[end:]


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
    if not labels:
        return None
    m = _number_forms().match(normalized)
    if m is not None:
        raw = m.group("n") or m.group("w")
        number = int(raw) if raw.isdigit() else _ORDINALS[raw]
        if 1 <= number <= len(labels):
            return number, "number"
    return None


def classify(text: str, options: Sequence[str] = (), recommended: int | None = None) -> Reply:
    """Classify one reply to one decision whose `options` (full option texts) are known."""
    text = without_question_prefix(text)
    normalized = normalize_reply(text)
    labels = [option_label(o) for o in options]
    # with no options in view no reply names one (nor do its marks need taking out)
    picked = (_option_of(normalized, labels)
              or _option_of(normalize_reply(_without_mark(text)), labels)) if labels else None
    if picked is not None:
        index, how = picked
        return Reply(SUBSTANTIVE, normalized, labels[index - 1], index, how)
    if normalized == "skip":
        return Reply(BARE_SKIP, normalized)
    if not normalized:  # nothing but marks, emoji and polite words
        return Reply(CONTROL_ONLY, normalized)
    kind = word_class(normalized)
    if kind == ACCEPT_RECOMMENDATION:
        if recommended is not None and 1 <= recommended <= len(labels):
            return Reply(ACCEPT_RECOMMENDATION, normalized, labels[recommended - 1],
                         recommended, "recommendation")
        return Reply(ACCEPT_RECOMMENDATION, normalized)
    return Reply(kind or SUBSTANTIVE, normalized)


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
    # compiled here (re's cache keeps them), not when the module loads: a reply to one
    # question never splits, and record-answer pays no compile for them
    question_ref = re.compile(r"(?<![0-9A-Za-z])[Qq](?P<n>[0-9]{1,3})(?![0-9A-Za-z])")
    if question_ref.search(text) is None:
        return [(None, text.strip())]
    # the words between a comma and the next `Qn` start with a letter, so that the lookahead
    # does not try every split of a long blank run between the comma's blanks and those words
    clause_split = re.compile(r"[\n;]+|,(?=\s*(?:[A-Za-z][A-Za-z ]{0,19}\b)?[Qq][0-9])")
    parts: list[tuple[int | None, str]] = []
    for clause in clause_split.split(text):
        refs = question_ref.findall(clause)
        if len(set(refs)) == 1:
            m = question_ref.search(clause)
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
