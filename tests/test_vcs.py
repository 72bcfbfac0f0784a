"""vcs.py against real git repositories in tmp_path (never the user's config or $HOME)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mdgrill.errors import GateRefusal, InputError
from mdgrill.git import vcs
from mdgrill.git.vcs.repo import _env_pins

_REPO_VARS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
              "GIT_OBJECT_DIRECTORY", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
              "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_AUTHOR_DATE",
              "GIT_COMMITTER_DATE", "EMAIL", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
              "GIT_LITERAL_PATHSPECS")


@pytest.fixture(autouse=True)
def isolated_git(tmp_path_factory: pytest.TempPathFactory,
                 monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No real global/system git config, no $HOME, no inherited repository variables."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in _REPO_VARS:
        monkeypatch.delenv(name, raising=False)
    yield
    assert not (home / "gitconfig").exists(), "a test wrote the global git config"


def git(repo: Path, *args: str, input: bytes | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=repo, input=input, capture_output=True,
                          check=True)
    return done.stdout.decode()


def make_repo(path: Path, identity: bool = True) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "core.autocrlf", "false")
    if identity:
        git(path, "config", "user.name", "Test Person")
        git(path, "config", "user.email", "test@example.com")
    return path


def commit_all(repo: Path, message: str = "work") -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def fast_import(repo: Path, versions: list[dict[str, bytes | None]]) -> None:
    """One commit per dict on main of a fresh repo: path -> new bytes, or None to delete."""
    chunks: list[bytes] = []
    for i, files in enumerate(versions, 1):
        msg = b"c%d" % i
        chunks.append(b"commit refs/heads/main\ncommitter T <t@e> %d +0000\ndata %d\n%s\n"
                      % (1_700_000_000 + i, len(msg), msg))
        for path, data in files.items():
            if data is None:
                chunks.append(b"D %s\n" % path.encode())
            else:
                chunks.append(b"M 100644 inline %s\ndata %d\n%s\n"
                              % (path.encode(), len(data), data))
    git(repo, "fast-import", "--quiet", input=b"".join(chunks))


def staged(repo: Path) -> list[str]:
    return git(repo, "diff", "--cached", "--name-only").split()


def committed_paths(repo: Path, sha: str) -> list[str]:
    return git(repo, "show", "--format=", "--name-only", "--root", sha).split()


def spec_message(spec: str = "specs/login", transition: str = "approve",
                 interview: str = "req-1") -> str:
    return vcs.format_message(f"grill(requirements): {transition} {interview} (round 2)", [
        (vcs.TRAILER_SPEC, spec), (vcs.TRAILER_PHASE, "requirements"),
        (vcs.TRAILER_INTERVIEW, interview), (vcs.TRAILER_TRANSITION, transition),
        (vcs.TRAILER_CONTEXT_DIGEST, "ab" * 32)])


def cat_file_children() -> list[int]:
    """`git cat-file` processes whose parent is this test process."""
    found: list[int] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\x00")
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        ppid = next((int(line.split()[1]) for line in status.splitlines()
                     if line.startswith("PPid:")), -1)
        if ppid == os.getpid() and b"cat-file" in cmdline:
            found.append(int(entry))
    return found


# ----------------------------------------------------------------------------- trailers

HOSTILE = [
    "line one\nMdgrill-Phase: forged",
    "carriage\rMdgrill-Phase: forged",
    "crlf\r\n\r\nMdgrill-Transition: approve",
    "100% sure, %0A is not a newline, %25 neither",
    "unicode: café ✓ 日本語 \U0001f600",
    "separators\u2028and\u2029and\x85NEL",
    "bidi \u202eevil\u202c override",
    "\x00nul \x1b[31mescape\x7f",
    "  leading and trailing spaces  ",
    "\ttabs\t",
    "",
]


def test_trailer_values_round_trip_and_cannot_forge() -> None:
    pairs = [(f"Mdgrill-Value-{i}", value) for i, value in enumerate(HOSTILE)]
    message = vcs.format_message("grill(design): approve d-1 (round 1)", pairs)
    lines = message.split("\n")
    assert lines[0] == "grill(design): approve d-1 (round 1)" and lines[1] == ""
    assert len(lines) == 2 + len(pairs) + 1 and lines[-1] == ""
    assert all(line.startswith("Mdgrill-Value-") for line in lines[2:-1])
    assert not any(ch in message for ch in "\r\x00\x1b\x7f\x85\u2028\u2029\u202e")
    assert vcs.parse_trailers(message) == dict(pairs)
    assert "Mdgrill-Phase" not in vcs.parse_trailers(message)


def test_git_itself_sees_only_our_trailer_keys(tmp_path: Path) -> None:
    message = vcs.format_message("subject", [(vcs.TRAILER_SPEC, HOSTILE[0]),
                                             (vcs.TRAILER_ROUND, HOSTILE[2])])
    parsed = git(tmp_path, "interpret-trailers", "--parse", input=message.encode())
    keys = [line.split(":")[0] for line in parsed.splitlines()]
    assert keys == [vcs.TRAILER_SPEC, vcs.TRAILER_ROUND]


def test_subject_cannot_carry_a_newline_or_forge_trailers() -> None:
    message = vcs.format_message("approve\nMdgrill-Phase: forged\r\n\n x", [])
    assert message == "approve Mdgrill-Phase: forged x\n"
    assert vcs.parse_trailers(message) == {}  # the subject is never a trailer block
    with pytest.raises(ValueError):
        vcs.format_message(" \n\t", [])
    with pytest.raises(ValueError):
        vcs.format_message("s", [("Bad Key", "v")])


def test_parse_trailers_reads_only_the_last_paragraph() -> None:
    message = ("subject\n\nMdgrill-Phase: in-body\nprose line\n\n"
               "Mdgrill-Spec: specs/a%0Ab\nSigned-off-by: X <x@y>\nMdgrill-Spec: second\n")
    assert vcs.parse_trailers(message) == {"Mdgrill-Spec": "specs/a\nb",
                                           "Signed-off-by": "X <x@y>"}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=())), max_size=5),
       st.text())
def test_trailer_round_trip_property(values: list[str], subject: str) -> None:
    pairs = [(f"K{i}", v) for i, v in enumerate(values)]
    message = vcs.format_message("s " + subject, pairs)
    assert message.count("\n") == (2 + len(pairs) if pairs else 1)
    assert vcs.parse_trailers(message) == dict(pairs)
    for value in values:
        assert vcs.unescape_value(vcs.escape_value(value)) == value


# ----------------------------------------------------------------------------- find_repo_root

def test_find_repo_root(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "specs" / "a").mkdir(parents=True)
    (repo / "specs" / "a" / ".progress.md").write_text("x")
    assert vcs.find_repo_root(str(repo / "specs" / "a" / ".progress.md")) == str(repo)
    assert vcs.find_repo_root(str(repo / "specs" / "not-yet" / "deeper")) == str(repo)
    assert vcs.find_repo_root(str(repo)) == str(repo)
    (tmp_path / "plain").mkdir()
    assert vcs.find_repo_root(str(tmp_path / "plain")) in (None, *map(str, tmp_path.parents))
    (tmp_path / "fake" / ".git").mkdir(parents=True)  # an empty .git folder is no repo
    assert vcs.find_repo_root(str(tmp_path / "fake")) != str(tmp_path / "fake")
    commit_all(repo)
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"))
    assert vcs.find_repo_root(str(tmp_path / "wt" / "specs")) == str(tmp_path / "wt")


def test_linked_worktree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "a.md").write_text("a\n")
    commit_all(repo)
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"))
    wt = str(tmp_path / "wt")
    (tmp_path / "wt" / "a.md").write_text("in worktree\n")
    sha = vcs.commit_paths(wt, ["a.md"], spec_message()).sha
    assert vcs.head_state(wt)["branch"] == "wt"
    assert vcs.blob_at(str(repo), "wt", "a.md") == b"in worktree\n"
    assert [c.sha for c in vcs.approval_commits(wt, "specs/login")] == [sha]
    assert vcs.approval_commits(str(repo), "specs/login") == []  # main did not move


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        vcs.head_state(str(tmp_path))
    assert info.value.code == "NOT_A_REPOSITORY" and info.value.exit_code == 2
    with pytest.raises(InputError) as info:
        vcs.commit_paths(str(tmp_path), ["a"], "m\n")
    assert info.value.code == "NOT_A_REPOSITORY"


# ----------------------------------------------------------------------------- commit_paths

def test_commit_only_the_named_paths(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "specs" / "login").mkdir(parents=True)
    progress = repo / "specs" / "login" / ".progress.md"
    progress.write_text("v1\n")
    (repo / "other.txt").write_text("base\n")
    base = commit_all(repo)
    progress.write_text("v2\n")
    (repo / "CONTEXT.md").write_text("# Glossary\n")  # new, untracked
    (repo / "other.txt").write_text("staged change\n")
    git(repo, "add", "other.txt")
    (repo / "scratch.txt").write_text("untracked\n")

    result = vcs.commit_paths(str(repo), ["specs/login/.progress.md",
                                          str(repo / "CONTEXT.md")], spec_message())

    assert result.sha == git(repo, "rev-parse", "HEAD").strip()
    assert result.parent == base and result.branch == "main"
    assert result.paths == ["specs/login/.progress.md", "CONTEXT.md"]
    assert sorted(committed_paths(repo, result.sha)) == ["CONTEXT.md",
                                                         "specs/login/.progress.md"]
    assert git(repo, "show", f"{result.sha}:specs/login/.progress.md") == "v2\n"
    assert staged(repo) == ["other.txt"]  # still staged, not committed
    assert git(repo, "show", ":other.txt") == "staged change\n"
    status = git(repo, "status", "--porcelain").splitlines()
    assert "?? scratch.txt" in status and "M  other.txt" in status and len(status) == 2
    message = git(repo, "log", "-1", "--format=%B")
    assert vcs.parse_trailers(message)[vcs.TRAILER_SPEC] == "specs/login"


def test_commit_on_unborn_branch(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "a.md").write_text("a\n")
    (repo / "staged.txt").write_text("s\n")
    git(repo, "add", "staged.txt")
    result = vcs.commit_paths(str(repo), ["a.md"], spec_message())
    assert result.parent is None
    assert committed_paths(repo, result.sha) == ["a.md"]
    assert git(repo, "status", "--porcelain").splitlines() == ["A  staged.txt"]


def test_commit_unchanged_path_still_records_the_transition(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "a.md").write_text("a\n")
    first = commit_all(repo)
    result = vcs.commit_paths(str(repo), ["a.md"], spec_message())
    assert result.parent == first and committed_paths(repo, result.sha) == []
    assert [c.sha for c in vcs.approval_commits(str(repo), "specs/login")] == [result.sha]


def test_commit_deleted_path_and_literal_pathspec(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    for name in ("*.md", "a.md", "gone.md"):
        (repo / name).write_text("1\n")
    commit_all(repo)
    for name in ("*.md", "a.md"):
        (repo / name).write_text("2\n")
    (repo / "gone.md").unlink()
    result = vcs.commit_paths(str(repo), ["*.md", "gone.md"], spec_message())
    assert sorted(committed_paths(repo, result.sha)) == ["*.md", "gone.md"]
    assert git(repo, "status", "--porcelain").splitlines() == [" M a.md"]


def test_commit_refuses_paths_outside_the_work_tree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (tmp_path / "outside.md").write_text("x")
    (repo / "folder").mkdir()
    (repo / "folder" / "f.md").write_text("x")
    (repo / "link").symlink_to(tmp_path)
    for bad in (str(tmp_path / "outside.md"), "../outside.md", ".git/config", "link/outside.md",
                str(repo / "link" / "outside.md")):
        with pytest.raises(InputError) as info:
            vcs.commit_paths(str(repo), [bad], spec_message())
        assert info.value.code == "PATH_OUTSIDE_REPOSITORY", bad
    for bad in (".", "folder", str(repo)):
        with pytest.raises(InputError) as info:
            vcs.commit_paths(str(repo), [bad], spec_message())
        assert info.value.code == "NOT_A_FILE", bad
    assert git(repo, "status", "--porcelain") == "?? folder/\n?? link\n"


def test_no_identity_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", identity=False)
    (repo / "a.md").write_text("a\n")
    with pytest.raises(GateRefusal) as info:
        vcs.commit_paths(str(repo), ["a.md"], spec_message())
    assert info.value.code == "GIT_IDENTITY_MISSING" and info.value.exit_code == 3
    assert "user.name" in info.value.message and "git config" in info.value.message
    assert vcs.head_state(str(repo))["unborn"] is True
    assert git(repo, "status", "--porcelain") == "?? a.md\n"  # not even staged

    git(repo, "config", "user.name", "Only Name")
    with pytest.raises(GateRefusal) as info:
        vcs.commit_paths(str(repo), ["a.md"], spec_message())
    assert info.value.details["missing"] == ["user.email"]


def test_identity_from_environment_is_accepted(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "r", identity=False)
    (repo / "a.md").write_text("a\n")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Env Person")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "env@example.com")
    result = vcs.commit_paths(str(repo), ["a.md"], spec_message())
    assert git(repo, "log", "-1", "--format=%an <%ae>", result.sha).strip() == \
        "Env Person <env@example.com>"


def test_detached_head_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "a.md").write_text("a\n")
    head = commit_all(repo)
    git(repo, "checkout", "-q", "--detach")
    (repo / "a.md").write_text("b\n")
    with pytest.raises(GateRefusal) as info:
        vcs.commit_paths(str(repo), ["a.md"], spec_message())
    assert info.value.code == "GIT_DETACHED_HEAD" and "git switch" in info.value.message
    assert git(repo, "rev-parse", "HEAD").strip() == head
    state = vcs.head_state(str(repo))
    assert state["detached"] and state["branch"] is None and state["head"] == head


def test_failing_pre_commit_hook(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "a.md").write_text("a\n")
    (repo / "other.txt").write_text("o\n")
    head = commit_all(repo)
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'trailing whitespace in a.md'\n"
                    "echo 'lint: 1 error' >&2\nexit 1\n")
    hook.chmod(0o755)
    (repo / "a.md").write_text("b\n")
    (repo / "new.md").write_text("n\n")
    (repo / "other.txt").write_text("staged\n")
    git(repo, "add", "other.txt")
    with pytest.raises(GateRefusal) as info:
        vcs.commit_paths(str(repo), ["a.md", "new.md"], spec_message())
    assert info.value.code == "GIT_HOOK_FAILED"
    assert "trailing whitespace in a.md" in info.value.message
    assert "lint: 1 error" in info.value.message
    assert info.value.details["hooks"] == ["pre-commit"]
    assert git(repo, "rev-parse", "HEAD").strip() == head
    assert sorted(git(repo, "status", "--porcelain").splitlines()) == [
        " M a.md", "?? new.md", "M  other.txt"]


def test_commit_msg_hook_adding_trailers_keeps_ours(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    hook = repo / ".git" / "hooks" / "commit-msg"
    hook.write_text('#!/bin/sh\nprintf "Change-Id: I1234\\n" >> "$1"\n')
    hook.chmod(0o755)
    (repo / "a.md").write_text("a\n")
    vcs.commit_paths(str(repo), ["a.md"], spec_message())
    [commit] = vcs.all_transitions(str(repo))
    assert commit.trailers["Change-Id"] == "I1234"
    assert commit.trailers[vcs.TRAILER_TRANSITION] == "approve"


def test_other_commit_failure(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "a.md").write_text("a\n")
    head = commit_all(repo)
    (repo / "a.md").write_text("b\n")
    (repo / ".git" / "index.lock").write_text("")  # another git process at work
    with pytest.raises(GateRefusal) as info:
        vcs.commit_paths(str(repo), ["a.md"], spec_message())
    assert info.value.code == "GIT_COMMIT_FAILED" and "index.lock" in info.value.message
    assert git(repo, "rev-parse", "HEAD").strip() == head


def test_ignored_path_is_refused_and_new_files_stay_untracked(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / ".gitignore").write_text("ignored.md\n")
    head = commit_all(repo)
    (repo / "new.md").write_text("n\n")
    (repo / "ignored.md").write_text("i\n")
    with pytest.raises(GateRefusal) as info:
        vcs.commit_paths(str(repo), ["new.md", "ignored.md"], spec_message())
    assert info.value.code == "GIT_COMMIT_FAILED" and "ignored" in info.value.message
    assert git(repo, "rev-parse", "HEAD").strip() == head
    assert git(repo, "status", "--porcelain").splitlines() == ["?? new.md"]


def test_inherited_hook_variables_of_another_repository_are_ignored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = make_repo(tmp_path / "other")
    (other / "x.txt").write_text("x\n")
    other_head = commit_all(other)
    repo = make_repo(tmp_path / "r")
    (repo / "a.md").write_text("a\n")
    monkeypatch.chdir(other)
    monkeypatch.setenv("GIT_DIR", ".git")
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "next-index-1.lock"))
    result = vcs.commit_paths(str(repo), ["a.md"], spec_message())
    assert committed_paths(repo, result.sha) == ["a.md"]
    assert vcs.head_state(str(repo))["head"] == result.sha
    monkeypatch.delenv("GIT_DIR")
    monkeypatch.delenv("GIT_WORK_TREE")
    monkeypatch.delenv("GIT_INDEX_FILE")
    assert git(other, "rev-parse", "HEAD").strip() == other_head
    assert not (other / ".git" / "next-index-1.lock").exists()


def test_inherited_variables_of_this_repository_are_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "a.md").write_text("a\n")
    commit_all(repo)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("GIT_DIR", ".git")
    monkeypatch.setenv("GIT_WORK_TREE", ".")
    assert _env_pins(str(repo), str(repo / ".git"), str(repo / ".git")) == {}
    monkeypatch.setenv("GIT_DIR", str(tmp_path))
    assert _env_pins(str(repo), str(repo / ".git"), str(repo / ".git")) == {
        "GIT_DIR": str(repo / ".git"), "GIT_WORK_TREE": str(repo)}


# ----------------------------------------------------------------------------- transitions

def test_approval_commits_find_transitions_and_ignore_others(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "a.md").write_text("0\n")
    commit_all(repo, "plain commit")
    shas = []
    for n, (spec, transition) in enumerate([("specs/login", "approve"),
                                            ("specs/loginx", "approve"),
                                            ("specs/login", "skip")]):
        (repo / "a.md").write_text(f"{n}\n")
        shas.append(vcs.commit_paths(str(repo), ["a.md"], spec_message(spec, transition)).sha)
    # mentions the trailer, but in the subject and in a paragraph that is not the last one
    (repo / "a.md").write_text("x\n")
    git(repo, "commit", "-qam", "talk about Mdgrill-Transition: approve",
        "-m", "Mdgrill-Transition: approve\nMdgrill-Spec: specs/login", "-m", "closing prose")

    found = vcs.approval_commits(str(repo), "specs/login/")
    assert [c.sha for c in found] == [shas[2], shas[0]]  # newest first
    assert found.shallow is False
    latest = found[0]
    assert latest.trailers[vcs.TRAILER_TRANSITION] == "skip"
    assert latest.trailers[vcs.TRAILER_CONTEXT_DIGEST] == "ab" * 32
    assert latest.subject == "grill(requirements): skip req-1 (round 2)"
    assert (latest.author, latest.email) == ("Test Person", "test@example.com")
    assert datetime.fromisoformat(latest.date).tzinfo is not None
    assert latest.to_json()["sha"] == shas[2]
    assert [c.sha for c in vcs.all_transitions(str(repo))] == shas[::-1]
    assert vcs.approval_commits(str(repo), "specs/none") == []
    assert [c.sha for c in vcs.approval_commits(str(repo), "specs/login", rev=shas[1])] == \
        [shas[0]]


def test_spec_names_with_hostile_characters(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    spec = "specs/we%ird\nMdgrill-Spec: specs/login"
    (repo / "a.md").write_text("a\n")
    sha = vcs.commit_paths(str(repo), ["a.md"], spec_message(spec)).sha
    assert [c.sha for c in vcs.approval_commits(str(repo), spec)] == [sha]
    assert vcs.approval_commits(str(repo), "specs/login") == []


def test_transitions_without_commits_and_detached(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    empty = vcs.all_transitions(str(repo))
    assert empty == [] and empty.shallow is False
    assert vcs.head_state(str(repo)) == {"branch": "main", "detached": False, "unborn": True,
                                         "shallow": False, "head": None}
    (repo / "a.md").write_text("a\n")
    sha = vcs.commit_paths(str(repo), ["a.md"], spec_message()).sha
    git(repo, "checkout", "-q", "--detach")
    assert [c.sha for c in vcs.approval_commits(str(repo), "specs/login")] == [sha]


# ----------------------------------------------------------------------------- file history

def test_file_history_order_and_content(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    versions: list[dict[str, bytes | None]] = []
    expected: list[bytes] = []
    for i in range(50):
        if i % 7 == 3:
            versions.append({"other.md": b"%d\n" % i})  # does not touch the file
            continue
        data: bytes | None = None if i == 20 else b"".join(b"round %d\n" % j for j in range(i + 1))
        versions.append({"specs/a/.progress.md": data})
        expected.append(b"" if data is None else data)
    fast_import(repo, versions)
    log = git(repo, "log", "--reverse", "--format=%H", "--", "specs/a/.progress.md").split()

    history = vcs.file_history(str(repo), "specs/a/.progress.md")
    assert [sha for sha, _ in history] == log
    assert [data for _, data in history] == expected
    assert len(history) == len(expected) == 43

    ranged = vcs.file_history(str(repo), str(repo / "specs/a/.progress.md"),
                              f"{log[9]}..{log[19]}")
    assert [sha for sha, _ in ranged] == log[10:20]
    assert vcs.file_history(str(repo), "never/there.md") == []
    with pytest.raises(InputError):
        vcs.file_history(str(repo), "a.md", "--output=/tmp/x")


def test_file_history_through_a_merge(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "f.md").write_text("1\n2\n3\n")
    commit_all(repo, "c1")
    git(repo, "checkout", "-q", "-b", "side")
    (repo / "f.md").write_text("0\n1\n2\n3\n")
    side = commit_all(repo, "side")
    git(repo, "checkout", "-q", "main")
    (repo / "f.md").write_text("1\n2\n3\n4\n")
    commit_all(repo, "main")
    git(repo, "merge", "-q", "--no-commit", "side")
    (repo / "f.md").write_text("0\n1\n2\n3\n4\nmerged\n")
    merge = commit_all(repo, "merge")
    history = vcs.file_history(str(repo), "f.md")
    assert history[-1] == (merge, b"0\n1\n2\n3\n4\nmerged\n")
    assert len(history) == 4 and side in [sha for sha, _ in history]
    first_parent = vcs.file_history(str(repo), "f.md", first_parent=True)
    assert side not in [sha for sha, _ in first_parent] and len(first_parent) == 3


def test_crlf_and_exact_bytes_round_trip(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    crlf = b"---\r\nmdgrill: 1\r\n---\r\n# T\r\n\r\n"
    (repo / "c.md").write_bytes(crlf)
    (repo / "nofinal.md").write_bytes(b"no final newline")
    (repo / "empty.md").write_bytes(b"")
    sha = commit_all(repo)
    assert vcs.blob_at(str(repo), "HEAD", "c.md") == crlf
    assert vcs.blob_at(str(repo), sha, "nofinal.md") == b"no final newline"
    assert vcs.blob_at(str(repo), "HEAD", "empty.md") == b""
    assert vcs.file_history(str(repo), "c.md") == [(sha, crlf)]
    assert vcs.blob_at(str(repo), "HEAD", "missing.md") is None
    assert vcs.blob_at(str(repo), "HEAD~5", "c.md") is None
    assert vcs.blob_at(str(repo), "-h", "c.md") is None


def test_blobs_at_and_tracked_files(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "specs" / "a").mkdir(parents=True)
    (repo / "specs" / "a" / ".progress.md").write_bytes(b"one\r\n")
    (repo / "my file.md").write_bytes(b"spaced\n")
    first = commit_all(repo)
    (repo / "specs" / "a" / ".progress.md").write_bytes(b"two\r\n")
    (repo / "untracked.md").write_text("u")
    commit_all(repo)
    git(repo, "rm", "-q", "--cached", "untracked.md")
    assert vcs.blobs_at(str(repo), [(first, "specs/a/.progress.md"),
                                    ("HEAD", "specs/a/.progress.md"),
                                    ("HEAD", "my file.md"), ("HEAD", "specs"),
                                    ("HEAD", "nope.md"), ("-x", "my file.md")]) == [
        b"one\r\n", b"two\r\n", b"spaced\n", None, None, None]
    assert vcs.tracked_files(str(repo)) == ["my file.md", "specs/a/.progress.md"]


def test_shallow_clone_is_flagged(tmp_path: Path) -> None:
    origin = make_repo(tmp_path / "origin")
    for i in range(6):
        (origin / "a.md").write_text(f"{i}\n")
        vcs.commit_paths(str(origin), ["a.md"], spec_message(interview=f"req-{i}"))
    oldest = git(origin, "rev-list", "--max-parents=0", "HEAD").strip()
    git(tmp_path, "clone", "-q", "--depth", "3", f"file://{origin}", "clone")
    clone = str(tmp_path / "clone")
    assert vcs.head_state(clone)["shallow"] is True
    found = vcs.approval_commits(clone, "specs/login")
    assert len(found) == 3 and found.shallow is True
    assert len(vcs.file_history(clone, "a.md")) == 3
    assert vcs.is_ancestor(clone, oldest) is False
    assert vcs.approval_commits(str(origin), "specs/login").shallow is False


# ----------------------------------------------------------------------------- revisions

def test_revisions_ancestry_and_changed_files(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "a.md").write_text("a\n")
    first = commit_all(repo)
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "b.md").write_text("b\n")
    (repo / "a.md").write_text("a2\n")
    second = commit_all(repo)
    assert vcs.rev_parse(str(repo), "HEAD") == second
    assert vcs.rev_parse(str(repo), "HEAD~1") == first
    assert vcs.rev_parse(str(repo), "nope") is None
    assert vcs.rev_parse(str(repo), "--all") is None
    assert vcs.is_ancestor(str(repo), first) is True
    assert vcs.is_ancestor(str(repo), second, of=first) is False
    assert vcs.is_ancestor(str(repo), "0" * 40) is False
    assert vcs.changed_files(str(repo), first, second) == ["a.md", "b.md"]
    with pytest.raises(InputError) as info:
        vcs.changed_files(str(repo), first, "nope")
    assert info.value.code == "BAD_REVISION"
    assert vcs.merge_base_with_default(str(repo)) == first


def test_merge_base_prefers_origin_head(tmp_path: Path) -> None:
    origin = make_repo(tmp_path / "origin")
    (origin / "a.md").write_text("a\n")
    base = commit_all(origin)
    git(tmp_path, "clone", "-q", str(origin), "clone")
    clone = tmp_path / "clone"
    git(clone, "config", "user.name", "T")
    git(clone, "config", "user.email", "t@e")
    git(clone, "branch", "-q", "-m", "main", "work")  # no local main any more
    (clone / "b.md").write_text("b\n")
    commit_all(clone)
    assert vcs.merge_base_with_default(str(clone)) == base
    empty = make_repo(tmp_path / "empty")
    assert vcs.merge_base_with_default(str(empty)) is None


# ----------------------------------------------------------------------------- processes, imports

def test_no_cat_file_process_is_left_behind(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    fast_import(repo, [{"a.md": b"%d\n" % i} for i in range(5)])
    probe = subprocess.Popen(["git", "cat-file", "--batch"], cwd=repo, stdin=subprocess.PIPE)
    deadline = time.monotonic() + 5
    while cat_file_children() != [probe.pid] and time.monotonic() < deadline:
        time.sleep(0.01)  # /proc/PID/cmdline is empty for a moment during exec
    assert cat_file_children() == [probe.pid]  # the detector sees a live one
    probe.communicate(b"")
    gc.disable()  # a process kept alive only by a reference cycle must show up too
    try:
        vcs.file_history(str(repo), "a.md")
        vcs.blob_at(str(repo), "HEAD", "a.md")
        vcs.all_transitions(str(repo))
        vcs.head_state(str(repo))
        stopped = vcs.iter_file_history(str(repo), "a.md")
        assert next(stopped)[1] == b"0\n"
        assert len(cat_file_children()) == 1  # one batch process for the whole history
        stopped.close()  # abandoned half way
        assert cat_file_children() == []
    finally:
        gc.enable()


def test_many_blobs_read_in_order_across_windows(tmp_path: Path) -> None:
    """Names go to one `git cat-file` a window at a time: answers stay in order across
    windows, missing and unnameable ones included, and a history abandoned with answers
    still unread leaves no process behind."""
    repo = make_repo(tmp_path / "r")
    fast_import(repo, [{"a.md": b"%d\n" % i * 4000} for i in range(300)])
    shas = git(repo, "log", "--reverse", "--format=%H").split()
    wanted = [(sha, "a.md") for sha in shas]
    wanted[7] = (shas[7], "missing.md")
    wanted[150] = ("-bad", "a.md")
    wanted[151] = (shas[151], "new\nline.md")
    blobs = vcs.blobs_at(str(repo), wanted)
    expected: list[bytes | None] = [b"%d\n" % i * 4000 for i in range(300)]
    expected[7] = expected[150] = expected[151] = None
    assert blobs == expected
    stopped = vcs.iter_file_history(str(repo), "a.md")
    assert next(stopped)[1] == b"0\n" * 4000
    stopped.close()  # a window of ~15 KB answers unread
    assert cat_file_children() == []


def test_importing_vcs_does_not_import_git() -> None:
    code = ("import sys, mdgrill.git.vcs; "
            "print(sorted(m for m in ('git', 'subprocess', 'dataclasses', 'typing') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert "git" not in out and "subprocess" not in out, out


def test_thousand_commit_history_reads_every_version(tmp_path: Path) -> None:
    """Every version of a 1,000-commit history, in order (its speed: bench/bench_git.py)."""
    repo = make_repo(tmp_path / "r")
    versions: list[dict[str, bytes | None]] = [
        {"specs/x/.progress.md": b"".join(b"- line %04d of a growing file\n" % j
                                          for j in range(i // 6 + 1)) + b"round %d\n" % i}
        for i in range(1000)]
    fast_import(repo, versions)
    history = vcs.file_history(str(repo), "specs/x/.progress.md")
    assert len(history) == 1000
    assert [data for _, data in history] == [v["specs/x/.progress.md"] for v in versions]
