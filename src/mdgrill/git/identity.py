"""Who git says is working here: `Name <email>` as it would author a commit.

Apart from `vcs` because every answer asks it and most make no commit: importing `vcs` costs
more than this whole lookup.

Read from the environment and git's configuration files when they say it plainly (the common
case: `[user] name = …`, `email = …` in `~/.gitconfig`), as `git var GIT_AUTHOR_IDENT` would
answer; anything the reader here does not follow exactly (an include, a quoted or escaped
value, configuration from the environment, a git installed elsewhere than /usr/bin, a name
git would trim) asks git itself.
"""

from __future__ import annotations

import os

from mdgrill.git.discovery import QUIET, executable, git_dirs, repo_root

# (root, the environment git reads the identity from) -> what git answered: asked once per
# process. A server (`mdgrill mcp`) serves one person for its life; asking git again for
# every answer it records was a process start per call.
_IDENTITIES: dict[tuple[str, tuple[tuple[str, str], ...]], str | None] = {}

# Environment that changes where git reads its configuration (or what it is): ask git.
_CONFIG_ENV = ("GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_GLOBAL",
               "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_DIR", "GIT_COMMON_DIR",
               "GIT_WORK_TREE", "GIT_EXEC_PATH", "GIT_CEILING_DIRECTORIES",
               "GIT_PYTHON_GIT_EXECUTABLE")
# The one git whose system configuration is known to be /etc/gitconfig (a distribution's).
_SYSTEM_GIT, _SYSTEM_CONFIG = "/usr/bin/git", "/etc/gitconfig"
# The grammar of a configuration file's lines, read by hand (`_section_of`, `_entry_of`): the
# three patterns it was compiled to cost 1.8 M instructions of every answer recorded (1.3% of
# record-answer), and tests/test_git_identity.py holds the reading to them.
_SECTION_NAME = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-")
_KEY = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-")
# the line breaks and blanks git reads otherwise than Python (a string, not a pattern: its
# non-ASCII class took 0.3 ms of every answer's start to compile)
_ODD_BLANKS = "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_WANTED = {("author", "name"), ("author", "email"), ("user", "name"), ("user", "email")}
# What git trims from a name's or an address's ends (and '.', which older gits trim too),
# and drops from inside: a value holding any of them is left to git.
_TRIMMED = frozenset(",:;<>\"\\'.")


def git_identity(root: str) -> str | None:
    """`Name <email>` as git would author a commit in `root`, or None when git has none."""
    name, email = os.environ.get("GIT_AUTHOR_NAME"), os.environ.get("GIT_AUTHOR_EMAIL")
    if name and email is not None:  # what `git var` would answer, without starting git
        return f"{name} <{email}>"
    read = _from_config(root, name, email)
    if read is not None:
        return read
    key = (root, tuple(sorted((k, v) for k, v in os.environ.items()
                              if k.startswith("GIT_") or k in ("EMAIL", "HOME",
                                                               "XDG_CONFIG_HOME"))))
    if key not in _IDENTITIES:
        _IDENTITIES[key] = _ask_git(root)
    return _IDENTITIES[key]


def _from_config(root: str, name: str | None, email: str | None) -> str | None:
    """The identity from the environment and the configuration files, when both parts are
    there plainly; None when git must be asked."""
    env = os.environ
    home = env.get("HOME")
    if not home or any(k in env for k in _CONFIG_ENV) or not _system_git():
        return None
    files = [_SYSTEM_CONFIG,
             os.path.join(env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config"), "git",
                          "config"),
             os.path.join(home, ".gitconfig")]
    dirs = git_dirs(root)
    if dirs is None and repo_root(root) is not None:  # git would read a repository above
        return None
    if dirs is not None:
        git_dir, common = dirs
        try:  # git reads no repository configuration from a folder someone else owns
            if os.stat(git_dir).st_uid != os.geteuid():
                return None
        except OSError:
            return None
        if os.path.exists(os.path.join(git_dir, "config.worktree")):
            return None
        files.append(os.path.join(common, "config"))
    found: dict[tuple[str, str], str] = {}
    for path in files:
        if not _read_config(path, found):
            return None
    if name is None:
        name = found.get(("author", "name"), found.get(("user", "name")))
    if email is None:
        email = found.get(("author", "email"), found.get(("user", "email"),
                                                         env.get("EMAIL")))
    if not name or not email or not _plain(name) or not _plain(email):
        return None
    return f"{name} <{email}>"


def _system_git() -> bool:
    """Whether the git that would run is the distribution's, /usr/bin/git."""
    if executable() != "git":
        return False
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(folder or ".", "git")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.realpath(candidate) == _SYSTEM_GIT
    return False


def _plain(value: str) -> bool:
    """Nothing git would trim from the ends or drop from inside."""
    return (value[0] > " " and value[-1] > " " and value[0] not in _TRIMMED
            and value[-1] not in _TRIMMED and not any(c in value for c in "<>\n"))


def _read_config(path: str, found: dict[tuple[str, str], str]) -> bool:
    """Add `path`'s author/user name and email to `found` (a later file overrides); False
    when the file holds what this reader does not follow exactly.

    The file is read every time; what it says is parsed again only when its bytes changed
    (`_CONFIGS`), so a long-lived server sees every edit and parses each version once."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    kept = _CONFIGS.get(path)
    if kept is not None and kept[0] == data:
        entries = kept[1]
    else:
        entries = _parse_config(data)
        if len(_CONFIGS) >= _CONFIGS_KEPT:  # the oldest goes (dicts keep their order)
            del _CONFIGS[next(iter(_CONFIGS))]
        _CONFIGS.pop(path, None)
        _CONFIGS[path] = (data, entries)
    if entries is None:
        return False
    found.update(entries)
    return True


# path -> (the bytes of the configuration file read last, what `_parse_config` made of them)
_CONFIGS: dict[str, tuple[bytes, dict[tuple[str, str], str] | None]] = {}
_CONFIGS_KEPT = 16


def _parse_config(data: bytes) -> dict[tuple[str, str], str] | None:
    """A configuration file's author/user name and email (the last of each wins); None when
    it holds what this reader does not follow exactly."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if any(blank in text for blank in _ODD_BLANKS):
        return None
    found: dict[tuple[str, str], str] = {}
    section: tuple[str, str | None] | None = None
    for raw in text.split("\n"):
        line = raw.strip(" \t")
        if not line or line[0] in "#;":
            continue
        if line.endswith("\\"):  # a value continued on the next line
            return None
        if line.startswith("["):
            head = _section_of(line)
            if head is None:
                return None
            name = head[0].lower()
            if name in ("include", "includeif") or name.startswith(("include.", "includeif.")):
                return None
            section = (name, head[1])
            continue
        entry = _entry_of(line)
        if entry is None or section is None:
            return None
        key = (section[0], entry[0].lower())
        if section[1] is not None or key not in _WANTED:
            continue
        value = entry[1]
        if value is None or '"' in value or "\\" in value:
            return None
        comment = [at for at in (value.find("#"), value.find(";")) if at >= 0]
        value = (value[:min(comment)] if comment else value).strip(" \t")
        # git keeps each blank inside an unquoted value as one space
        found[key] = value.replace("\t", " ")
    return found


def _section_of(line: str) -> tuple[str, str | None] | None:
    """A section line's name and subsection: `[`, the name (letters, digits, `.`, `-`), an
    optional `"subsection"` (no `"` or `\\` inside), `]`, blanks around each part, then
    nothing or a comment (`#`, `;`); None for any other line."""
    if not line.startswith("["):
        return None
    start = _past_blanks(line, 1)
    end = start
    while end < len(line) and line[end] in _SECTION_NAME:
        end += 1
    if end == start:
        return None
    at = _past_blanks(line, end)
    sub = None
    if line.startswith('"', at):
        close = line.find('"', at + 1)
        if close < 0 or "\\" in line[at + 1:close]:
            return None
        sub = line[at + 1:close]
        at = _past_blanks(line, close + 1)
    if not line.startswith("]", at):
        return None
    rest = _past_blanks(line, at + 1)
    if rest < len(line) and line[rest] not in "#;":
        return None
    return line[start:end], sub


def _entry_of(line: str) -> tuple[str, str | None] | None:
    """A variable line's name and value (None without `=`): the name (a letter, then letters,
    digits and `-`), blanks, then nothing or `=` and the value; None for any other line."""
    equals = line.find("=")
    name = (line if equals < 0 else line[:equals]).rstrip(" \t")
    if not (name[:1].isascii() and name[:1].isalpha() and all(c in _KEY for c in name)):
        return None
    return name, None if equals < 0 else line[equals + 1:]


def _past_blanks(line: str, at: int) -> int:
    """The index of the first character from `at` on that is not a space or a tab."""
    while at < len(line) and line[at] in " \t":
        at += 1
    return at


def _ask_git(root: str) -> str | None:
    """`git var GIT_AUTHOR_IDENT` in `root`, without its timestamp."""
    import subprocess

    try:
        proc = subprocess.run([executable(), "var", "GIT_AUTHOR_IDENT"], cwd=root,
                              env={**os.environ, **QUIET}, stdin=subprocess.DEVNULL,
                              capture_output=True, check=False)
    except OSError:
        return None
    ident = proc.stdout.decode("utf-8", "replace").strip() if proc.returncode == 0 else ""
    # "Name <email> 1700000000 +0000": the timestamp and zone are not the person
    return ident.rsplit(" ", 2)[0] if ident.count(" ") >= 2 else ident or None
