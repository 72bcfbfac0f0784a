"""Fuzzing the readers and writers: grammar-aware generators plus byte mutations of real files.

For every input: no exception but MdgrillError escapes the library; `validate`'s checks never
raise and every diagnostic points at a line of the file; a writer fed arbitrary text either
refuses it or produces a file that reads back with the same value and a sound log.
`MDGRILL_FUZZ_EXAMPLES` sets the examples per test (the stress run uses 10,000 per kind).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase
from test_reliability import MDGRILL, make_repo, ok

from mdgrill.checks.spec import validate_glossary_bytes, validate_progress_bytes
from mdgrill.core import machine
from mdgrill.errors import MdgrillError
from mdgrill.formats.glossary import check_context_map, parse_context_map, parse_glossary, set_term
from mdgrill.formats.progress import Change, Progress, apply_change, read_progress
from mdgrill.formats.textfile import decode
from mdgrill.shell import store
from mdgrill.shell.session import check_loaded
from mdgrill.shell.skills import normalize

CHECKOUT = Path(__file__).resolve().parents[1]
EXAMPLES = int(os.environ.get("MDGRILL_FUZZ_EXAMPLES", "150"))
# The example database is committed (tests/hypothesis-db): every failure a run finds is saved
# there and replayed first by every later run, CI's clean clone included, and the failing
# example is printed as a `@reproduce_failure` blob.
FUZZ_DB = DirectoryBasedExampleDatabase(str(CHECKOUT / "tests" / "hypothesis-db"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=FUZZ_DB, derandomize=False,
                print_blob=True, suppress_health_check=list(HealthCheck))

CORPUS = CHECKOUT.parent / "shared" / "corpus"


def _files(pattern: str, *roots: Path) -> list[bytes]:
    found = []
    for root in roots:
        if root.is_dir():
            found.extend(p.read_bytes() for p in sorted(root.rglob(pattern)) if p.is_file())
    return found


PROGRESS_FILES = _files(".progress.md", CHECKOUT / "examples", CORPUS / "ralph")
GLOSSARY_FILES = _files("*CONTEXT.md", CORPUS / "context", CHECKOUT / "examples")
MAP_FILES = _files("*CONTEXT-MAP.md", CORPUS / "context", CHECKOUT / "examples")


# -- byte mutations -------------------------------------------------------------------------

TOKENS = [b"---\n", b"\x00", b"\xff", b"\xef\xbb\xbf", b"\r", b"\r\n", b"### ", b"## ", b"# ",
          b"- Decisions: ", b"- Asked: ", b"**", b"_Avoid_:", b"```\n", b"<!--", b"-->", b"[",
          b"{", b"&a ", b"*a", b"!!python/object:os.system", b": ", b'"', b"\\u0000", b"\t",
          b"  - ", "\u2028".encode(), b"log:\n  sha256: x\n", b"](",
          b"../", b"(Recommended)", b"\n\n", b"|", b"#",
          # spec-kit's clarifications
          b"- Q: ", " \u2192 A: ".encode(), b" -> A (x): ", b"### Session 2026-01-01\n",
          b"## Clarifications\n"]


@st.composite
def mutated(draw: st.DrawFn, seeds: list[bytes]) -> bytes:
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.integers(0, 5))
        at = draw(st.integers(0, len(data)))
        if op == 0 and data:  # flip a byte
            at = min(at, len(data) - 1)
            data[at] = draw(st.integers(0, 255))
        elif op == 1:  # delete a range
            del data[at:at + draw(st.integers(1, 200))]
        elif op == 2:  # insert a token of the grammar
            data[at:at] = draw(st.sampled_from(TOKENS))
        elif op == 3:  # duplicate a range
            data[at:at] = data[at:at + draw(st.integers(1, 300))]
        elif op == 4:  # random bytes
            data[at:at] = draw(st.binary(max_size=12))
        else:  # swap two lines
            lines = bytes(data).split(b"\n")
            if len(lines) > 2:
                i = draw(st.integers(0, len(lines) - 1))
                j = draw(st.integers(0, len(lines) - 1))
                lines[i], lines[j] = lines[j], lines[i]
                data = bytearray(b"\n".join(lines))
    return bytes(data)


# -- grammar-aware generators ---------------------------------------------------------------

WORD = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)),
               max_size=12)
PLAIN = st.sampled_from(["D1", "D2", "E3", "auth.users", "none", "null", "true", "yes", "~",
                         "0x1F", "1e3", "12", "-1", "2024-01-01", "a: b", "x #c", "'q'", '"q"',
                         '"\\x41"', "|", ">", "&a x", "*a", "!!str x", "[D1, D2]", "[]", "{}",
                         "{a: 1}", "[[D1]]", "@x", "%x", "`x`", ""])
VALUE = st.one_of(PLAIN, WORD)
SHA = st.sampled_from(["a" * 64, "0" * 64, "f" * 63, "A" * 64])


@st.composite
def front_matter(draw: st.DrawFn) -> list[str]:
    lines = ["---"]
    if draw(st.booleans()):
        lines.append(f"mdgrill: {draw(st.sampled_from(['1', '2', 'one', '']))}")
    keys = ["spec", "goal", "phase", "mode", "discovery_revision", "required_sections", "git",
            "skills", "other"]
    for key in draw(st.lists(st.sampled_from(keys), max_size=6)):
        lines.append(f"{key}: {draw(VALUE)}")
    if draw(st.booleans()):
        status = draw(st.sampled_from(["collecting", "awaiting_confirmation", "complete",
                                       "skipped", "bypassed_quick", "done"]))
        lines += ["interview:", f"  id: {draw(PLAIN)}",
                  f"  phase: {draw(st.sampled_from(['start', 'requirements', 'nope']))}",
                  f"  round: {draw(st.sampled_from(['1', '2', '0', '-3', 'x']))}",
                  f"  status: {status}", f"  context_digest: {draw(SHA)}",
                  f"  context: {draw(st.sampled_from(['[]', '[{path: a, sha256: b}]', 'x']))}",
                  f"  asked: {draw(PLAIN)}", f"  pending: {draw(PLAIN)}",
                  f"  approach: {draw(VALUE)}",
                  f"  confirmation: {draw(st.sampled_from(['null', 'approve-and-delegate']))}",
                  f"  bypass_reason: {draw(VALUE)}", f"  assumptions: {draw(PLAIN)}"]
        lines = [line for line in lines if draw(st.integers(0, 9)) > 0 or line == "---"]
    if draw(st.booleans()):
        lines += ["log:", f"  blocks: {draw(PLAIN)}", f"  sha256: {draw(SHA)}"]
    if draw(st.integers(0, 9)) > 0:
        lines.append(draw(st.sampled_from(["---", "...", "--- ", "----"])))
    return lines


HEADINGS = ["# Title", "## Goal", "## Design Tree", "## Interview Responses", "## Notes",
            "### D1: Primary user", "### E2: x", "### 9bad: heading", "### Goal Grill - Round 1",
            "### Requirements Grill - Round 2", "### Requirements Grill - Round 2",
            "### Goal Grill - Confirmed", "### Goal Grill - Awaiting Confirmation",
            "### Design Grill - Revised", "### Tasks Grill - Skipped", "### Goal Grill - Reset",
            "### Requirements Artifact - Approved", "### Goal Interview (from x.md)",
            "#### deep", "####### seven"]
BULLETS = ["- Asked: D1, D2", "- Decisions: D1 -> yes", "- Decisions: nothing",
           "- Facts resolved: none", "- Out of scope: D2", "- Domain language: A -> b",
           "- Frontier after round: none", "- Section: users", "- Depends on: D9",
           "- Depends on: D1", "- Spawned by: D1, D2", "- Options:", "  - A (Recommended)",
           "  - B", "  - C (Recommended)", "- Confirmation ID: C1", "- Approach: x",
           "- Interview: s1", "- Status: complete", "- **Bold**: v", "* Star: v", "-no space",
           "> quote", "```", "~~~", "<!-- c", "-->", "", "plain text", "\tTab: x"]


@st.composite
def progress_text(draw: st.DrawFn) -> bytes:
    lines = draw(front_matter()) if draw(st.integers(0, 9)) > 0 else []
    for _ in range(draw(st.integers(0, 40))):
        kind = draw(st.integers(0, 4))
        if kind == 0:
            lines.append(draw(st.sampled_from(HEADINGS)))
        elif kind == 4:
            lines.append(draw(st.sampled_from(BULLETS)) + draw(WORD))
        else:
            lines.append(draw(st.sampled_from(BULLETS)))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join(lines) + draw(st.sampled_from(["", newline]))
    return (b"\xef\xbb\xbf" if draw(st.integers(0, 9)) == 0 else b"") + text.encode()


TERM_LINES = ["# Ordering", "# Language", "## Language", "## Relationships", "### Group",
              "**Order**:", "**Order**", "**Fulfilment**:", "**Order** (noun):", "**Cart**: A "
              "basket.", "A customer's request to buy.", "Everything after payment.",
              "_Avoid_: purchase, basket", "_Avoid_: Order", "_Avoid_:", "- shipping",
              "- **Term**: definition", "| Term | Definition | Avoid |", "|---|---|---|",
              "| Order | A request | basket |", "```", "<!--", "-->", "", "> quote",
              "## Example dialogue", "## Flagged ambiguities", "**Bad*name**:", "**:"]
MAP_LINES = ["# Map", "## Contexts", "## Other", "- [Ordering](contexts/ordering/CONTEXT.md): x",
             "- [Billing](contexts/billing/): y", "- [Up](../CONTEXT.md): z", "- [Abs](/etc/x)",
             "- [Web](https://example.com/CONTEXT.md)", "- [Empty](): e", "- [Dup](a.md)",
             "- [Dup](b.md)", "- plain", "* [Star](s/CONTEXT.md)", "", "text", "```"]


@st.composite
def markdown_lines(draw: st.DrawFn, vocabulary: list[str]) -> bytes:
    lines = [draw(st.one_of(st.sampled_from(vocabulary), WORD,
                            st.builds(lambda a, b: a + b, st.sampled_from(vocabulary), WORD)))
             for _ in range(draw(st.integers(0, 40)))]
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return newline.join(lines).encode("utf-8", "surrogatepass")


# -- oracles --------------------------------------------------------------------------------


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + 1


def check_progress_input(data: bytes) -> None:
    """No traceback; rejections are errors with a line; diagnostics point inside the file."""
    rejected = False
    try:
        prog = read_progress(data, "p.md")
        prog.blocks, prog.nodes  # noqa: B018 - parse everything lazily parsed
        check_loaded(prog)
    except MdgrillError as exc:
        rejected = True
        assert exc.code and exc.code.isupper()
    diagnostics = validate_progress_bytes(data, "p.md")
    for d in diagnostics:
        assert 1 <= d.line <= _line_count(data) + 1, d
        assert d.code and d.message
    if rejected:
        assert any(d.is_error for d in diagnostics) or not data.strip() or \
            b"mdgrill" not in data, diagnostics


def check_glossary_input(data: bytes) -> None:
    try:
        tf = decode(data, "CONTEXT.md")
    except MdgrillError:
        tf = None
    diagnostics = validate_glossary_bytes(data, "CONTEXT.md")
    for d in diagnostics:
        assert 1 <= d.line <= _line_count(data) + 1, d
    if tf is None:
        assert any(d.is_error for d in diagnostics)
        return
    glossary = parse_glossary(tf, "CONTEXT.md")
    before = {t.name for t in glossary.terms}
    try:
        new_tf = set_term(tf, glossary, "Zyzzyva", "A fuzz-made term.", None)
    except MdgrillError:
        return
    after = parse_glossary(new_tf, "CONTEXT.md")
    names = {t.name for t in after.terms}
    assert "Zyzzyva" in names
    assert before <= names, before - names  # adding a term never loses another


def check_map_input(data: bytes) -> None:
    try:
        tf = decode(data, "CONTEXT-MAP.md")
    except MdgrillError:
        assert any(d.is_error for d in validate_glossary_bytes(data, "m", is_map=True))
        return
    cmap = parse_context_map(tf, "CONTEXT-MAP.md")
    for d in list(cmap.diagnostics) + check_context_map(cmap, 0):
        assert 1 <= d.line <= _line_count(data) + 1, d
    for d in validate_glossary_bytes(data, "CONTEXT-MAP.md", is_map=True):
        assert 1 <= d.line <= _line_count(data) + 1, d


# -- progress -------------------------------------------------------------------------------


@FUZZ
@given(progress_text())
def test_fuzz_progress_generated(data: bytes) -> None:
    check_progress_input(data)


@pytest.mark.skipif(not PROGRESS_FILES, reason="no real .progress.md files found")
@FUZZ
@given(st.deferred(lambda: mutated(PROGRESS_FILES)))
def test_fuzz_progress_mutated(data: bytes) -> None:
    check_progress_input(data)


def _collecting_spec() -> Progress:
    text = ("---\nmdgrill: 1\nspec: f\ngoal: Fuzz\nphase: start\nmode: interactive\n"
            "required_sections: []\ninterview:\n  id: s1\n  phase: start\n  round: 1\n"
            "  status: collecting\n  context_digest: " + "a" * 64 + "\n  context: []\n"
            "  asked: [D1]\n  pending: [D1]\n  approach: null\n  confirmation: null\n"
            "  bypass_reason: null\n  assumptions: []\nskills: []\n---\n# F\n\n## Goal\n\nFuzz\n"
            "\n## Interview Responses\n\n### Goal Grill - Round 1\n- Asked: D1\n")
    prog = read_progress(text.encode(), "p.md")
    change = Change()
    change.append_lines.append("- Facts resolved: none")  # seal the log once
    return read_progress(apply_change(prog, change).encode(), "p.md")


TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1,
               max_size=80)


def _unusable(text: str) -> bool:
    """Text no bullet line can hold: nothing but space, or a control character."""
    cleaned = " ".join(text.replace("\r", "\n").split())
    return not cleaned or any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in cleaned)


def _refusal_of(answer: str, assumption: str | None) -> str | None:
    """The code record-answer must refuse this input with, or None: it must record it."""
    from mdgrill.model import replies

    if _unusable(answer):
        return "INVALID_INPUT"
    kind = replies.classify(answer, [], None).kind
    by_kind = {replies.CONTROL_ONLY: "CONTROL_ONLY_ANSWER",
               replies.BARE_SKIP: "CONTROL_ONLY_ANSWER", replies.STOP: "STOP_REQUESTED",
               replies.SKIP_DECISION: "SKIP_DECISION_REQUESTED",
               replies.ACCEPT_RECOMMENDATION: "NO_RECOMMENDATION"}  # D1 has no options
    if kind in by_kind:
        return by_kind[kind]
    if assumption and _unusable(assumption):
        return "INVALID_INPUT"
    return None


@FUZZ
@given(answer=TEXT, assumption=st.one_of(st.none(), TEXT))
def test_fuzz_answer_text_round_trips(answer: str, assumption: str | None) -> None:
    """Any answer is refused or written as one line that reads back; the log stays sealed."""
    prog = _collecting_spec()
    expected = _refusal_of(answer, assumption)
    try:
        change, _ = machine.record_answer(prog.data, prog, "D1", answer, assumption)
    except MdgrillError as exc:
        # a refusal is bounded: only the one this input calls for (a writer that refused
        # everything, or refused for another reason, fails here)
        assert exc.code == expected, (exc.code, exc.message, answer, assumption)
        return
    assert expected is None, (expected, answer, assumption)
    after = read_progress(apply_change(prog, change).encode(), "p.md")
    check_loaded(after)
    decisions = [e.value for b in after.blocks for e in b.get("Decisions")]
    assert decisions == ["D1 -> " + " ".join(answer.split())]
    headings = [h.text for h in after.headings]
    assert headings == [h.text for h in prog.headings]
    assert not [d for d in validate_progress_bytes(after.tf.encode(), "p.md") if d.is_error]


# -- glossaries and maps --------------------------------------------------------------------


@FUZZ
@given(markdown_lines(TERM_LINES))
def test_fuzz_glossary_generated(data: bytes) -> None:
    check_glossary_input(data)


@pytest.mark.skipif(not GLOSSARY_FILES, reason="no corpus CONTEXT.md files found")
@FUZZ
@given(st.deferred(lambda: mutated(GLOSSARY_FILES)))
def test_fuzz_glossary_mutated(data: bytes) -> None:
    check_glossary_input(data)


@FUZZ
@given(markdown_lines(MAP_LINES))
def test_fuzz_context_map_generated(data: bytes) -> None:
    check_map_input(data)


@pytest.mark.skipif(not MAP_FILES, reason="no corpus CONTEXT-MAP.md files found")
@FUZZ
@given(st.deferred(lambda: mutated(MAP_FILES)))
def test_fuzz_context_map_mutated(data: bytes) -> None:
    check_map_input(data)


# -- skill manifests ------------------------------------------------------------------------

JSONISH = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(),
                                 TEXT, st.sampled_from(["start", "loaded", "failed", "a" * 64,
                                                        "skills/x.md", "../x", "/etc/passwd"])),
                       lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.sampled_from(["name", "path", "sha256", "core",
                                                          "status", "errors", "x"]), inner,
                                         max_size=6), max_leaves=12)


@st.composite
def manifest(draw: st.DrawFn) -> object:
    skills = draw(st.lists(st.fixed_dictionaries(
        {"name": st.one_of(TEXT, st.sampled_from(["core", "domain"])),
         "path": st.sampled_from(["skills/x.md", "skills/y.md", "../x.md", "/etc/passwd",
                                  "skills\\x.md", "", "skills/missing.md"]),
         "sha256": st.sampled_from([SKILL_SHA, "a" * 64, "x"]),
         "core": st.one_of(st.booleans(), JSONISH),
         "status": st.sampled_from(["loaded", "failed", "other"]),
         "errors": st.one_of(st.lists(TEXT, max_size=2), JSONISH)}), max_size=4))
    value: dict[str, object] = {
        "phase": draw(st.sampled_from(["start", "requirements", "nope"])),
        "interview_id": draw(st.one_of(st.sampled_from(["s1", ""]), TEXT)),
        "discovery_revision": draw(st.one_of(st.integers(), TEXT, st.none())),
        "skills": skills}
    if draw(st.integers(0, 4)) == 0:
        value[draw(st.sampled_from(["phase", "skills", "interview_id"]))] = draw(JSONISH)
    return value


SKILL_TEXT = b"# Skill\n"
SKILL_SHA = __import__("hashlib").sha256(SKILL_TEXT).hexdigest()


@pytest.fixture(scope="module")
def skill_spec(tmp_path_factory: pytest.TempPathFactory) -> store.Spec:
    root = tmp_path_factory.mktemp("skills")
    (root / ".git").mkdir()
    (root / "skills").mkdir()
    (root / "skills" / "x.md").write_bytes(SKILL_TEXT)
    (root / "skills" / "y.md").write_bytes(SKILL_TEXT)
    (root / "specs" / "f").mkdir(parents=True)
    return store.Spec(str(root / "specs" / "f"), str(root))


def check_manifest(value: object, spec: store.Spec) -> None:
    """normalize refuses with MdgrillError or yields skills that survive the front matter."""
    if not isinstance(value, dict):
        return
    try:
        header, skills = normalize(value, spec)
    except MdgrillError as exc:
        assert exc.code.isupper()
        return
    prog = _collecting_spec()
    change, _ = machine.record_skill_load(prog.data, header, skills)
    after = read_progress(apply_change(prog, change).encode(), "p.md")
    check_loaded(after)
    assert after.data["skills"] == skills
    assert after.data["skill_manifest"] == header


@pytest.mark.parametrize("path", ["skills/x\x00.md", "skills/\nx.md", "skills/x.md\x7f"])
def test_a_manifest_path_with_a_control_character_is_refused(skill_spec: store.Spec,
                                                              path: str) -> None:
    # found by the 10,000-example stress fuzz: a NUL reached os.stat as a ValueError
    value = {"phase": "start", "interview_id": "s1", "discovery_revision": 1,
             "skills": [{"name": "core", "path": path, "sha256": SKILL_SHA, "core": True,
                         "status": "loaded", "errors": []}]}
    with pytest.raises(MdgrillError) as info:
        normalize(value, skill_spec)
    assert info.value.code == "INVALID_MANIFEST"


@FUZZ
@given(manifest())
def test_fuzz_manifest(skill_spec: store.Spec, value: object) -> None:
    check_manifest(value, skill_spec)


@FUZZ
@given(st.deferred(lambda: mutated([json.dumps(
    {"phase": "start", "interview_id": "s1", "discovery_revision": 1,
     "skills": [{"name": "core", "path": "skills/x.md", "sha256": SKILL_SHA, "core": True,
                 "status": "loaded", "errors": []}]}).encode()])))
def test_fuzz_manifest_bytes(skill_spec: store.Spec, data: bytes) -> None:
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return  # read_manifest turns this into INVALID_JSON (tested through the CLI below)
    check_manifest(value, skill_spec)


# -- a sample through the CLI ---------------------------------------------------------------


def with_tokens(rng: random.Random, seed: bytes) -> bytes:
    """`seed` with one to five tokens of the grammar inserted at random places."""
    data = bytearray(seed)
    for _ in range(rng.randint(1, 5)):
        at = rng.randint(0, len(data))
        data[at:at] = rng.choice(TOKENS)
    return bytes(data)


def test_cli_validate_sample_never_writes(tmp_path: Path) -> None:
    """Generated and mutated files through `mdgrill validate`: exit 0/1, no traceback, no write."""
    rng = random.Random(7)
    repo, env = make_repo(tmp_path)
    count = max(20, EXAMPLES // 5)
    seeds = PROGRESS_FILES or [b"---\nmdgrill: 1\n---\n"]
    gseeds = GLOSSARY_FILES or [b"# G\n\n**T**:\nd.\n"]
    for i in range(count):
        folder = repo / "specs" / f"s{i}"
        folder.mkdir(parents=True)
        (folder / ".progress.md").write_bytes(with_tokens(rng, rng.choice(seeds)))
        gdata = bytearray(rng.choice(gseeds))
        at = rng.randint(0, len(gdata))
        gdata[at:at] = rng.choice(TOKENS)
        (folder / "CONTEXT.md").write_bytes(bytes(gdata))
    files = sorted(p for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts)
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files}
    for i in range(0, count, 10):
        paths = [f"specs/s{j}" for j in range(i, min(i + 10, count))]
        proc = subprocess.run([*MDGRILL, "--json", "validate", *paths], cwd=repo, env=env,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode in (0, 1), proc.stderr
        assert "Traceback" not in proc.stderr
        payload = json.loads(proc.stdout)
        assert all(d["line"] >= 1 for d in payload["diagnostics"])
    manifest_bad = ["{", "[]", '{"phase": 1}', "\xff", '{"phase": "start", "skills": 3}']
    ok(repo, env, "init", "specs/m", "--goal", "Manifests")
    for text in manifest_bad:
        proc = subprocess.run([*MDGRILL, "--json", "record-skill-load", "specs/m", "--input",
                               "-"], cwd=repo, env=env, input=text, capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files}
    assert after == before


# -- spec-kit's spec.md ---------------------------------------------------------------------

SPECKIT_FILES = _files("spec.md", CHECKOUT / "tests" / "fixtures" / "speckit")


@FUZZ
@given(data=mutated(SPECKIT_FILES or [b"# Feature Specification: x\n"]))
def test_fuzz_speckit_import_validates_or_refuses(data: bytes) -> None:
    """Any spec.md: the imported file passes validate (or the import refuses with a code),
    and writing its answers back changes nothing outside `## Clarifications`."""
    from mdgrill.cli.verbs import speckit as verb
    from mdgrill.errors import InputError
    from mdgrill.integrations import speckit

    try:
        tf = decode(data)
    except InputError:
        return
    feature = speckit.read(tf)
    sessions, _ = verb._sessions(feature)
    spec = store.Spec("/r/specs/f", "/r")
    try:
        text = verb._render(spec, "f", "the goal", "T", "requirements", "specs/f/spec.md", data,
                            sessions)
    except InputError:
        return
    problems = [d for d in validate_progress_bytes(text.encode(), "x") if d.is_error]
    assert problems == [], (problems, text)
    # what was imported reads back as the same answers: an export would add nothing
    answered, unnamed = verb._answered(Progress(type(tf)(text), "x"))
    assert unnamed == [] and speckit.missing(feature, answered) == []
    pairs = speckit.missing(feature, [("Is this new?", "Yes")])
    try:
        out = speckit.write_back(tf, feature, pairs, "2026-12-02")
    except InputError:  # the verb refuses such a file, and says why
        return
    again = speckit.read(type(tf)(out))
    assert again.clarifications is not None
    assert ("Is this new?", "Yes") in [(c.question, c.answer)
                                       for c in again.clarifications.items]
    section = feature.clarifications
    if section is not None:  # the lines before the section are the same bytes
        head = "".join(tf.lines[:section.heading_line])
        assert out.startswith(head)


def test_cli_speckit_sample_never_tracebacks(tmp_path: Path) -> None:
    """Mutated spec.md files through `import-speckit` and `export-speckit`: exit 0 or 2, no
    traceback, spec.md never written by the import, every imported file valid."""
    rng = random.Random(11)
    repo, env = make_repo(tmp_path)
    seeds = SPECKIT_FILES or [b"# Feature Specification: x\n"]
    for i in range(max(10, EXAMPLES // 15)):
        folder = repo / "specs" / f"f{i}"
        folder.mkdir(parents=True)
        data = with_tokens(rng, rng.choice(seeds))
        (folder / "spec.md").write_bytes(data)
        proc = subprocess.run([*MDGRILL, "--json", "import-speckit", f"specs/f{i}/spec.md"],
                              cwd=repo, env=env, capture_output=True, text=True, timeout=60)
        assert proc.returncode in (0, 2) and "Traceback" not in proc.stderr, proc.stderr
        assert (folder / "spec.md").read_bytes() == data
        if proc.returncode == 0:
            check = subprocess.run([*MDGRILL, "validate", f"specs/f{i}"], cwd=repo, env=env,
                                   capture_output=True, text=True, timeout=60)
            assert check.returncode == 0, check.stdout
            out = subprocess.run([*MDGRILL, "--json", "export-speckit", f"specs/f{i}"],
                                 cwd=repo, env=env, capture_output=True, text=True, timeout=60)
            assert out.returncode == 0 and json.loads(out.stdout)["written"] is False, out.stdout
