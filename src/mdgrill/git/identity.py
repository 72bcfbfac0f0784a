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
import re

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
# The grammar of a configuration file's lines, compiled by the reader (re keeps them), not when
# the module loads: with GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL set no file is read, and each
# answer recorded paid for two compiles it never used.
# The blanks after the name are read once: a `[ \t]*` on each side of the optional subsection
# made a long run of tabs quadratic (the ReDoS check in .ci/run found it).
_SECTION = r'\[[ \t]*([A-Za-z0-9.-]+)[ \t]*(?:"([^"\\]*)"[ \t]*)?\][ \t]*(?:[#;].*)?'
_ENTRY = r"([A-Za-z][A-Za-z0-9-]*)[ \t]*(?:=(.*))?"
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
    section_re = re.compile(_SECTION)  # each name its own, so .ci/redos.py reads the use
    entry_re = re.compile(_ENTRY)
    found: dict[tuple[str, str], str] = {}
    section: tuple[str, str | None] | None = None
    for raw in text.split("\n"):
        line = raw.strip(" \t")
        if not line or line[0] in "#;":
            continue
        if line.endswith("\\"):  # a value continued on the next line
            return None
        if line.startswith("["):
            head = section_re.fullmatch(line)
            if head is None:
                return None
            name = head.group(1).lower()
            if name in ("include", "includeif") or name.startswith(("include.", "includeif.")):
                return None
            section = (name, head.group(2))
            continue
        entry = entry_re.fullmatch(line)
        if entry is None or section is None:
            return None
        key = (section[0], entry.group(1).lower())
        if section[1] is not None or key not in _WANTED:
            continue
        value = entry.group(2)
        if value is None or '"' in value or "\\" in value:
            return None
        value = re.split(r"[#;]", value, maxsplit=1)[0].strip(" \t")
        # git keeps each blank inside an unquoted value as one space
        found[key] = value.replace("\t", " ")
    return found


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
