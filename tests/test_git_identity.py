"""Who answered, read from git's configuration files as `git var GIT_AUTHOR_IDENT` answers
(issue 37: "for the CLI, read from git's config files rather than a subprocess when that is
exact"). Each case is checked against git itself; the plain ones must not start git, the
others must ask it."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mdgrill.git import identity

DISTRO_GIT = os.path.realpath(os.popen("command -v git").read().strip() or "git") \
    == "/usr/bin/git"

PLAIN = "[user]\n\tname = Ann Lee\n\temail = ann@example.com\n"


def _git_var(repo: Path) -> str:
    out = subprocess.run(["git", "var", "GIT_AUTHOR_IDENT"], cwd=repo, capture_output=True,
                         text=True, check=True).stdout.strip()
    return out.rsplit(" ", 2)[0]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("GIT_") or name in ("EMAIL", "XDG_CONFIG_HOME"):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    identity._IDENTITIES.clear()
    return work


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _no_git(root: str) -> str | None:
    raise AssertionError("git was asked for an identity the files say plainly")


@pytest.mark.skipif(not DISTRO_GIT, reason="the files are read only for /usr/bin/git")
@pytest.mark.parametrize(("home_config", "local_config", "extra_env"), [
    (PLAIN, "", {}),
    (PLAIN, "[author]\n\tname = Bo Chen\n", {}),
    ("[User]\n  Name = Ann \t  Lee   # who\n  EMAIL=ann@example.com ; mail\n", "", {}),
    ('[user "work"]\n\tname = Other\n' + PLAIN + "[core]\n\tautocrlf = false\n", "", {}),
    ("[user]\n\tname = Ann Lee\n", "", {"EMAIL": "env@example.com"}),
    (PLAIN, "", {"GIT_AUTHOR_EMAIL": "given@example.com"}),
])
def test_a_plain_identity_is_read_from_the_files(
        repo: Path, monkeypatch: pytest.MonkeyPatch, home_config: str, local_config: str,
        extra_env: dict[str, str]) -> None:
    _write(Path(os.environ["HOME"]) / ".gitconfig", home_config)
    if local_config:
        with open(repo / ".git" / "config", "a", encoding="utf-8") as handle:
            handle.write(local_config)
    for name, value in extra_env.items():
        monkeypatch.setenv(name, value)
    expected = _git_var(repo)
    monkeypatch.setattr(identity, "_ask_git", _no_git)
    assert identity.git_identity(str(repo)) == expected


@pytest.mark.parametrize(("home_config", "extra_env"), [
    ('[user]\n\tname = "Ann Lee"\n\temail = ann@example.com\n', {}),  # quoted
    ("[include]\n\tpath = ~/.more\n" + PLAIN, {}),
    ("[user]\n\tname = Ann Lee Jr.\n\temail = ann@example.com\n", {}),  # git trims the dot
    ("[user]\n\tname = Ann Lee\n\temail = <ann@example.com>\n", {}),
    ("[user]\n\tname = Ann \\\n Lee\n\temail = ann@example.com\n", {}),  # continued line
    (PLAIN, {"GIT_CONFIG_PARAMETERS": "'user.name'='Cy'"}),
    # a blank or line break Python splits or strips otherwise than git
    ("[user]\n\tname = Ann\u2028Lee\n\temail = ann@example.com\n", {}),
    ("[user]\n\tname = Ann\x1dLee\n\temail = ann@example.com\n", {}),
])
def test_what_the_reader_does_not_follow_is_asked_of_git(
        repo: Path, monkeypatch: pytest.MonkeyPatch, home_config: str,
        extra_env: dict[str, str]) -> None:
    _write(Path(os.environ["HOME"]) / ".gitconfig", home_config)
    _write(Path(os.environ["HOME"]) / ".more", "[user]\n\tname = Included\n")
    for name, value in extra_env.items():
        monkeypatch.setenv(name, value)
    asked: list[str] = []
    real = identity._ask_git

    def counted(root: str) -> str | None:
        asked.append(root)
        return real(root)

    monkeypatch.setattr(identity, "_ask_git", counted)
    assert identity.git_identity(str(repo)) == _git_var(repo)
    assert asked == [str(repo)]


@pytest.mark.skipif(not DISTRO_GIT, reason="the files are read only for /usr/bin/git")
def test_a_server_parses_a_config_once_and_sees_every_edit(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long-lived process (`mdgrill mcp`) asks for the identity on every answer: each file
    is read each time, parsed again only when its bytes changed, so an edit is seen at once,
    even one that keeps the file's size and modification time."""
    gitconfig = Path(os.environ["HOME"]) / ".gitconfig"
    _write(gitconfig, PLAIN)
    monkeypatch.setattr(identity, "_ask_git", _no_git)
    identity._CONFIGS.clear()
    parsed: list[bytes] = []
    real = identity._parse_config

    def counted(data: bytes) -> dict[tuple[str, str], str] | None:
        parsed.append(data)
        return real(data)

    monkeypatch.setattr(identity, "_parse_config", counted)
    assert identity.git_identity(str(repo)) == "Ann Lee <ann@example.com>"
    first = len(parsed)
    assert identity.git_identity(str(repo)) == "Ann Lee <ann@example.com>"
    assert len(parsed) == first  # the same bytes: nothing parsed again
    before = os.stat(gitconfig)
    _write(gitconfig, PLAIN.replace("Ann Lee", "Bo Chen"))  # as long as before
    os.utime(gitconfig, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(gitconfig).st_size == before.st_size
    assert identity.git_identity(str(repo)) == "Bo Chen <ann@example.com>" == _git_var(repo)
    assert parsed[first:] == [gitconfig.read_bytes()]  # only the edited file parsed again
    _write(gitconfig, '[user]\n\tname = "Quoted"\n\temail = q@example.com\n')
    monkeypatch.setattr(identity, "_ask_git", lambda root: "asked")
    assert identity.git_identity(str(repo)) == "asked"  # what the reader cannot follow


# The patterns the configuration reader was compiled to before issue 37's start-up work read
# its lines by hand: the reading must stay exactly theirs (a line holds no line break).
_SECTION = re.compile(r'\[[ \t]*([A-Za-z0-9.-]+)[ \t]*(?:"([^"\\]*)"[ \t]*)?\][ \t]*(?:[#;].*)?')
_ENTRY = re.compile(r"([A-Za-z][A-Za-z0-9-]*)[ \t]*(?:=(.*))?")
_LINE = st.text(alphabet=st.sampled_from('[]" \t\\#;=.-_aZ09\u00e9\u0130\u212a\r'), max_size=14)


@given(_LINE | st.builds("[{}".format, _LINE) | st.text(max_size=20).filter(
    lambda text: "\n" not in text))
def test_a_config_line_read_by_hand_is_what_the_patterns_read(line: str) -> None:
    section = _SECTION.fullmatch(line)
    assert identity._section_of(line) == (None if section is None else section.groups())
    entry = _ENTRY.fullmatch(line)
    assert identity._entry_of(line) == (None if entry is None else entry.groups())


@pytest.mark.parametrize(("line", "section"), [
    ('[user]', ("user", None)), ('[ remote  "origin" ] # a comment', ("remote", "origin")),
    ('[user]x', None), ('[a "b\\c"]', None), ('[a "b" c]', None), ('[]', None),
    ('[a.b-c];', ("a.b-c", None)), ('[a "unclosed]', None),
])
def test_a_section_line_at_its_edges(line: str, section: tuple[str, str | None] | None) -> None:
    assert identity._section_of(line) == section


def test_a_comment_right_after_the_equals_sign_leaves_the_value_empty() -> None:
    # git starts a comment at `#` or `;` anywhere outside quotes, the value's first character
    # too (a mutation run found that first place untested)
    assert identity._parse_config(b"[user]\n\tname=#c\n\temail = a@b ;x\n") == \
        {("user", "name"): "", ("user", "email"): "a@b"}


def test_a_subsection_and_a_quoted_value_are_not_read_as_the_identity() -> None:
    # `[user "work"]` holds user.work.name, not user.name; a quoted value (or a bare name
    # with no value) is left to git itself, which reads it exactly
    assert identity._parse_config(b'[user]\n\tname = A\n[user "x"]\n\tname = B\n') == \
        {("user", "name"): "A"}
    assert identity._parse_config(b'[user]\n\tname = "A B"\n') is None
    assert identity._parse_config(b"[user]\n\tname\n") is None


@pytest.mark.parametrize("line", [
    '[a ""]', '[a "x"]', '[a "xy"] ', '[a"x"]', '[a "x"y]', '[ a.b ]', '[a "" ];c',
    '[a "\\x"]', '[a "x\\"]',
    "a1 = v", "x=v", "xy=", "a-b =  v ", "=v", "1a = v", "ab", "a b = c", "a=b=c", "é = v",
])
def test_config_lines_at_the_edges_are_read_as_the_patterns_read_them(line: str) -> None:
    # the quotes of a subsection, a name's first characters, the place of `=`: where a
    # mutation run of the hand reading found the generated lines too few
    section = _SECTION.fullmatch(line)
    assert identity._section_of(line) == (None if section is None else section.groups())
    entry = _ENTRY.fullmatch(line)
    assert identity._entry_of(line) == (None if entry is None else entry.groups())


def test_comment_lines_are_skipped_and_an_unreadable_line_gives_up() -> None:
    assert identity._parse_config(b"# c\n; d\n[user]\n\tname = A\n") == {("user", "name"): "A"}
    assert identity._parse_config(b"[user]\n\t!x = 1\n") is None  # left to git itself
    assert identity._parse_config(b"name = A\n") is None  # a variable before any section
