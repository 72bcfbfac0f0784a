"""`approval: signed` and `--by` as relayed (issue 30, point 9: "The owners rule is
self-asserted: ... `confirm --by "<the owner's name and email>"` run under anyone else's git
identity satisfies it").

Real ssh keys from `ssh-keygen` in a temp dir, git's own ssh signing (`gpg.format ssh`,
`user.signingkey`, `gpg.ssh.allowedSignersFile`), checked with `git verify-commit`'s reading.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import Run, awaiting_spec, git_out, require_part

SPEC = "specs/a"
PROGRESS = f"{SPEC}/.progress.md"
CONFIRM = ("confirm", SPEC, "--decision-id", "C1", "--source", "approve-and-delegate",
           "--reply", "Approve and delegate")
CHECK = ("check-delegation", SPEC, "--phase", "requirements", "--interview-id", "r1")
ALICE = "Alice Example <alice@example.com>"


def _key(folder: Path, name: str) -> Path:
    require_part(shutil.which("ssh-keygen") is not None, "ssh-keygen (OpenSSH) is not installed")
    key = folder / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)],
                   check=True, capture_output=True)
    return key


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    """alice's and bob's keys; the allowed-signers file ties each key to its own email."""
    folder = tmp_path / "keys"
    folder.mkdir()
    found = {"alice": _key(folder, "alice"), "bob": _key(folder, "bob")}
    allowed = folder / "allowed_signers"
    allowed.write_text("".join(
        f"{who}@example.com {Path(str(key) + '.pub').read_text(encoding='utf-8')}"
        for who, key in found.items()), encoding="utf-8")
    found["allowed"] = allowed
    return found


def _as(repo: Path, who: str, email: str, key: Path | None, keys: dict[str, Path]) -> None:
    """Make git in `repo` act as `who`, signing every commit with `key` (None: unsigned)."""
    for args in (["user.name", who], ["user.email", email], ["gpg.format", "ssh"],
                 ["gpg.ssh.allowedSignersFile", str(keys["allowed"])],
                 ["commit.gpgsign", "true" if key else "false"]):
        git_out(repo, "config", *args)
    if key is not None:
        git_out(repo, "config", "user.signingkey", str(key) + ".pub")


def _awaiting(repo: Path, mdgrill: Run, config: str) -> None:
    (repo / ".mdgrill.yaml").write_text(config, encoding="utf-8")
    awaiting_spec(repo, mdgrill, SPEC)


def _error(out: str) -> dict[str, object]:
    error = json.loads(out)["error"]
    assert isinstance(error, dict)
    return error


OWNED = "approval: [signed]\nowners:\n  phases:\n    requirements: [alice@example.com]\n"


def test_the_owner_signs_and_the_approval_holds(repo: Path, mdgrill: Run,
                                                keys: dict[str, Path]) -> None:
    _awaiting(repo, mdgrill, OWNED)
    _as(repo, "Alice Example", "alice@example.com", keys["alice"], keys)

    code, out, err = mdgrill("--json", *CONFIRM, cwd=repo)

    assert code == 0, (out, err)
    assert json.loads(out)["channel"] == "signed"
    assert "- Channel: signed\n" in (repo / PROGRESS).read_text(encoding="utf-8")
    assert subprocess.run(["git", "verify-commit", "HEAD"], cwd=repo,
                          capture_output=True).returncode == 0
    code, out, _ = mdgrill("--json", *CHECK, cwd=repo)
    assert code == 0, out
    assert json.loads(out)["signed_by"] == "alice@example.com"
    code, out, _ = mdgrill("--json", "verify", SPEC, cwd=repo)
    assert code == 0, out


def test_an_unsigned_approval_is_refused_and_nothing_written(
        repo: Path, mdgrill: Run, keys: dict[str, Path]) -> None:
    _awaiting(repo, mdgrill, OWNED)
    _as(repo, "Alice Example", "alice@example.com", None, keys)
    before = (repo / PROGRESS).read_bytes()
    code, out, _ = mdgrill("--json", *CONFIRM, cwd=repo)
    assert code == 3
    error = _error(out)
    assert error["code"] == "APPROVAL_CHANNEL_NOT_ACCEPTED"
    assert "--sign" in str(error["message"])
    assert (repo / PROGRESS).read_bytes() == before
    # `--sign` asks git to sign this one commit, with the key configured
    git_out(repo, "config", "user.signingkey", str(keys["alice"]) + ".pub")
    code, out, _ = mdgrill("--json", *CONFIRM, "--sign", cwd=repo)
    assert (code, json.loads(out)["channel"]) == (0, "signed"), out
    assert mdgrill(*CHECK, cwd=repo)[0] == 0


def test_by_the_owner_under_another_identity_is_not_the_owner(
        repo: Path, mdgrill: Run, keys: dict[str, Path]) -> None:
    """Point 9: `--by "<owner>"` under Bob's identity and Bob's key approved as Alice."""
    _awaiting(repo, mdgrill, OWNED)
    _as(repo, "Bob", "bob@example.com", keys["bob"], keys)
    before = (repo / PROGRESS).read_bytes()
    code, out, _ = mdgrill("--json", *CONFIRM, "--by", ALICE, cwd=repo)
    assert code == 3
    error = _error(out)
    assert error["code"] == "NOT_AN_OWNER"
    assert "bob@example.com" in str(error["message"])
    assert "give `--by`" not in str(error["message"])  # the message no longer suggests it
    assert (repo / PROGRESS).read_bytes() == before


def test_a_signature_by_someone_else_than_the_approver_is_refused(
        repo: Path, mdgrill: Run, keys: dict[str, Path]) -> None:
    """Alice's git identity signing with Bob's key: the approval names Alice, the key is
    Bob's, so the signature does not tie the approval to its approver."""
    _awaiting(repo, mdgrill, "approval: [signed]\n")
    _as(repo, "Alice Example", "alice@example.com", keys["bob"], keys)
    assert mdgrill(*CONFIRM, cwd=repo)[0] == 0
    code, out, _ = mdgrill("--json", *CHECK, cwd=repo)
    assert code == 3
    error = _error(out)
    assert error["code"] == "APPROVAL_NOT_SIGNED"
    assert "signed by `bob@example.com`" in str(error["message"])
    code, out, _ = mdgrill("--json", "verify", SPEC, cwd=repo)
    assert code == 1
    assert "APPROVAL_NOT_SIGNED" in out


def test_a_key_the_allowed_signers_file_does_not_list_is_refused(
        repo: Path, mdgrill: Run, keys: dict[str, Path], tmp_path: Path) -> None:
    _awaiting(repo, mdgrill, "approval: [signed]\n")
    stranger = _key(tmp_path / "keys", "stranger")
    _as(repo, "Alice Example", "alice@example.com", stranger, keys)
    assert mdgrill(*CONFIRM, cwd=repo)[0] == 0
    code, out, _ = mdgrill("--json", *CHECK, cwd=repo)
    assert code == 3
    assert _error(out)["code"] == "APPROVAL_NOT_SIGNED"


def test_a_signed_signer_who_is_no_owner_is_refused(
        repo: Path, mdgrill: Run, keys: dict[str, Path]) -> None:
    """The owners map names Alice; Bob signs as himself: a good signature, not an owner's.
    (confirm refuses Bob first; a commit made by hand with his key is refused the same.)"""
    _awaiting(repo, mdgrill, "approval: [signed]\n")
    _as(repo, "Bob", "bob@example.com", keys["bob"], keys)
    assert mdgrill(*CONFIRM, cwd=repo)[0] == 0
    assert mdgrill(*CHECK, cwd=repo)[0] == 0  # no owners yet: Bob's own signature holds
    (repo / ".mdgrill.yaml").write_text(OWNED, encoding="utf-8")
    code, out, _ = mdgrill("--json", *CHECK, cwd=repo)
    assert code == 3
    error = _error(out)
    assert error["code"] == "APPROVAL_NOT_SIGNED"
    assert "not an owner of the requirements phase" in str(error["message"])


def test_by_is_recorded_as_relayed_and_the_commit_authored_by_the_account(
        repo: Path, mdgrill: Run) -> None:
    """Without `signed`, `--by` still names whom the account relays; the account is who the
    commit and the owners rule hold."""
    _awaiting(repo, mdgrill, "owners:\n  phases:\n    requirements: [alice@example.com]\n")
    code, out, _ = mdgrill("--json", *CONFIRM, "--by", ALICE, cwd=repo)
    assert (code, _error(out)["code"]) == (3, "NOT_AN_OWNER")
    (repo / ".mdgrill.yaml").unlink()
    code, out, _ = mdgrill("--json", *CONFIRM, "--by", ALICE, cwd=repo)
    assert code == 0, out
    assert json.loads(out)["relayed_by"] == "Test User <test@example.com>"
    text = (repo / PROGRESS).read_text(encoding="utf-8")
    assert f"- By: {ALICE}\n- Relayed by: Test User <test@example.com>\n" in text
    assert git_out(repo, "log", "-1", "--format=%an <%ae>") == "Test User <test@example.com>"
    body = git_out(repo, "log", "-1", "--format=%B")
    assert f"Mdgrill-By: {ALICE}" in body
    assert "Mdgrill-Relayed-By: Test User <test@example.com>" in body
