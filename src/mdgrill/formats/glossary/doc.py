"""A glossary file's lines: headings, fenced code, comments and quotes, and which sections
hold terms (the heading words are in the package docstring)."""

from __future__ import annotations

import re

from mdgrill.diagnostics import Diagnostic, warning
from mdgrill.formats.markdown import atx_heading, fence_closer, fence_opener
from mdgrill.formats.textfile import TextFile, content

# --------------------------------------------------------------------------- line classes

BLANK_LINE, TEXT_LINE, _HEADING_LINE, CODE_LINE, COMMENT_LINE = range(5)

class Heading:
    __slots__ = ("line", "level", "text", "end", "parent", "mode", "gloss_level")

    def __init__(self, line: int, level: int, text: str) -> None:
        self.line = line
        self.level = level
        self.text = text
        self.end = line + 1
        self.parent: Heading | None = None
        self.mode = MODE_NEUTRAL
        self.gloss_level = 0


class Doc:
    """The lines of one file, each classified once; headings with their direct bodies."""

    __slots__ = ("texts", "kinds", "headings", "path", "diagnostics")

    def __init__(self, tf: TextFile, path: str) -> None:
        self.texts = [content(line) for line in tf.lines]
        self.kinds = [TEXT_LINE] * len(self.texts)
        self.headings: list[Heading] = []
        self.path = path
        self.diagnostics: list[Diagnostic] = []
        self._classify()

    def _classify(self) -> None:
        texts, kinds, n = self.texts, self.kinds, len(self.texts)
        i = 0
        while i < n:
            t = texts[i]
            if not t.strip():
                kinds[i] = BLANK_LINE
                i += 1
                continue
            fence = fence_opener(t)
            if fence is not None:
                i = self._mark_fence(i, fence)
                continue
            heading = atx_heading(t)
            if heading is not None:
                kinds[i] = _HEADING_LINE
                self.headings.append(Heading(i, *heading))
                i += 1
                continue
            stripped = t.lstrip(" ")
            if stripped.startswith("<!--") and len(t) - len(stripped) <= 3:
                i = self._mark_comment(i, t.find("<!--") + 4, block=True)
                continue
            i = self._inline_comment(i)

    def _mark_fence(self, i: int, fence: str) -> int:
        closer = fence_closer(fence[0], len(fence))
        j = i + 1
        while j < len(self.texts) and closer.match(self.texts[j]) is None:
            j += 1
        if j >= len(self.texts):
            self.diagnostics.append(warning(
                self.path, i + 1, "UNCLOSED_FENCE",
                f"the code fence {fence} opened here is never closed, so the rest of the file "
                f"is read as code: add a closing {fence} line"))
            j = len(self.texts) - 1
        for k in range(i, j + 1):
            self.kinds[k] = CODE_LINE
        return j + 1

    def _mark_comment(self, i: int, after: int, block: bool) -> int:
        """Mark lines from i through the line closing an HTML comment opened at `after`."""
        texts = self.texts
        if block:
            self.kinds[i] = COMMENT_LINE
        if "-->" in texts[i][after:]:
            return i + 1
        j = i + 1
        while j < len(texts):
            if not block and not texts[j].strip():
                return j  # an inline comment cannot run past the end of its paragraph
            self.kinds[j] = COMMENT_LINE
            if "-->" in texts[j]:
                return j + 1
            j += 1
        if block:
            self.diagnostics.append(warning(
                self.path, i + 1, "UNCLOSED_COMMENT",
                "the HTML comment opened here is never closed, so the rest of the file is "
                "hidden: add a closing -->"))
        return j

    def _inline_comment(self, i: int) -> int:
        t = self.texts[i]
        pos = t.find("<!--")
        if pos < 0 or t[:pos].count("`") % 2 or "-->" in t[pos + 4:]:
            return i + 1
        return self._mark_comment(i, pos + 4, block=False)


# --------------------------------------------------------------------------- section modes

MODE_GLOSSARY, MODE_CHILD, MODE_NEUTRAL, _OTHER, MODE_TOP, MODE_NONE = (
    "glossary", "child", "neutral", "other", "top", "none")

_GLOSS_WORDS = frozenset((
    "language", "languages", "glossary", "glossaire", "glosario", "glossário", "glossar",
    "glossarium", "terms", "terminology", "terminologie", "terminología", "terminologia",
    "termos", "términos", "termini", "terminos", "vocabulary", "vocabulaire", "vocabulario",
    "vocabulário", "wortschatz", "lexicon", "lexique", "léxico", "begriffe", "definitions",
))
_GLOSS_CJK = ("术语", "術語", "词汇", "詞彙", "用语", "用語", "語彙", "语言", "言語", "용어")
# Section names that are never terms. Strong words end a section wherever they stand; weak
# words only outside a glossary or as a heading's first word (a glossary may well define a
# "Mid-match dialog surface").
_OTHER_STRONG = frozenset((
    "relationships", "relações", "relaciones", "beziehungen", "flagged", "rulings",
    "decisions", "decisões", "decisiones", "entscheidungen", "instructions", "contexts",
    "examples", "exemplos", "ejemplos", "beispiele", "dialogues", "conversations",
))
_OTHER_WEAK = frozenset((
    "relationship", "relations", "relação", "example", "exemplo", "ejemplo", "beispiel",
    "dialogue", "dialog", "diálogo", "conversation", "avoid", "avoided", "evitar", "vermeiden",
))
_OTHER_CJK = ("避免", "关系", "關係", "对话", "對話", "示例", "歧义", "歧義", "决策", "決策",
              "禁用")
WORD_RE = re.compile(r"\w+")
_HEADING_CORE = re.compile(r"\s[-–—]\s|[–—:：(（|]")


def _heading_kind(text: str, in_glossary: bool) -> str:
    folded = text.casefold()
    words = WORD_RE.findall(folded)
    strong = (any(w in _OTHER_STRONG or w.startswith("ambigu") for w in words)
              or "known issues" in folded or any(k in text for k in _OTHER_CJK))
    weak = bool(words) and (words[0] in _OTHER_WEAK if in_glossary
                            else any(w in _OTHER_WEAK for w in words))
    if strong or weak:
        return _OTHER
    # "Language — work", "Ubiquitous language", "Key terms", "术语表"; not "Research: Language
    # filtering" nor "Python language detection libraries"
    core = _HEADING_CORE.split(text, 1)[0]
    core_words = WORD_RE.findall(core.casefold())
    if len(core_words) <= 3 and any(w in _GLOSS_WORDS for w in core_words):
        return MODE_GLOSSARY
    if len(core) <= 12 and any(k in core for k in _GLOSS_CJK):
        return MODE_GLOSSARY
    return MODE_NEUTRAL


def assign_modes(doc: Doc) -> None:
    stack: list[Heading] = []
    heads = doc.headings
    for index, h in enumerate(heads):
        h.end = heads[index + 1].line if index + 1 < len(heads) else len(doc.texts)
        while stack and stack[-1].level >= h.level:
            stack.pop()
        h.parent = stack[-1] if stack else None
        parent = h.parent
        kind = _heading_kind(h.text,
                             parent is not None and parent.mode in (MODE_GLOSSARY, MODE_CHILD))
        if kind == MODE_GLOSSARY:
            h.mode, h.gloss_level = MODE_GLOSSARY, h.level
        elif kind == _OTHER:
            h.mode = _OTHER
        elif parent is not None and parent.mode in (MODE_GLOSSARY, MODE_CHILD):
            h.mode, h.gloss_level = MODE_CHILD, parent.gloss_level
        elif parent is not None and parent.mode == _OTHER:
            h.mode = _OTHER
        else:
            h.mode = MODE_NEUTRAL
        stack.append(h)
