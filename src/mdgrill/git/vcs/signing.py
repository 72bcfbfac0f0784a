"""Commit signatures: whether git will sign a commit, and who signed one.

git does the cryptography: `commit.gpgsign` (or `-S`) signs with `user.signingkey`, and
`%G?`/`%GS` read a signature back against GPG's keyring or, with `gpg.format ssh`, the
allowed-signers file (`gpg.ssh.allowedSignersFile`), whose principal is the signer named.
"""

from __future__ import annotations

from typing import NamedTuple

from mdgrill.git.vcs.repo import open_repo, run_git

# `%G?`: G good; U good, validity unknown (GPG); X/Y expired signature/key; R revoked key;
# E cannot be checked (no allowed-signers file, a missing key); B bad; N none.
GOOD = "G"


class Signature(NamedTuple):
    """A commit's signature as git reads it: its `%G?` status, the signer (an allowed-signers
    principal or a GPG user ID) and the key's fingerprint."""

    status: str
    signer: str
    key: str

    @property
    def good(self) -> bool:
        """A valid signature by a key git ties to `signer` (only `G`: an unknown validity,
        an expired or revoked key and an unchecked signature do not count)."""
        return self.status == GOOD and bool(self.signer)


def signs_commits(repo_root: str) -> bool:
    """Whether git is configured to sign every commit here (`commit.gpgsign`)."""
    with open_repo(repo_root) as repo:
        status, out, _ = run_git(repo, "config", "--type=bool", "--get", "commit.gpgsign")
    return status == 0 and out.strip() == b"true"


def commit_signature(repo_root: str, sha: str) -> Signature:
    """The signature of commit `sha` (status `N` when it has none)."""
    with open_repo(repo_root) as repo:
        status, out, _ = run_git(repo, "log", "-1", "--no-show-signature",
                              "--format=%G?%x00%GS%x00%GF", sha, "--")
    parts = out.decode("utf-8", "replace").strip("\n").split("\x00")
    if status != 0 or len(parts) != 3:
        return Signature("E", "", "")
    return Signature(parts[0] or "N", parts[1].strip(), parts[2].strip())
