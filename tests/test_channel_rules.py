"""The approval channels' rules (`services/channels.py`), in process: which channel a confirm
names, which a project's `approval:` list accepts, and what a signed approval commit must
hold. Real git and real ssh keys in a temp folder (as `test_signed_approval.py`), the functions
called directly; `test_channels.py` and `test_signed_approval.py` drive the same rules through
the installed CLI. Written for issue 32's mutation run of this module: each test pins a rule a
mutant broke unnoticed."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import require_part

from mdgrill.api import Spec
from mdgrill.errors import GateRefusal
from mdgrill.formats.progress import Change, Progress, read_progress
from mdgrill.formats.progress.writer import Transition
from mdgrill.git.vcs import TransitionCommit
from mdgrill.services import channels
from mdgrill.shell import journal, store

SPEC = "specs/a"
ALICE = "Alice Example <alice@example.com>"


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                          check=True).stdout.strip()


@pytest.fixture(scope="module")
def signed_repo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A repository whose first commit alice signed, and a second nobody signed."""
    require_part(shutil.which("ssh-keygen") is not None, "ssh-keygen (OpenSSH) is not installed")
    root = tmp_path_factory.mktemp("signed")
    keys = tmp_path_factory.mktemp("keys")
    allowed = []
    for who in ("alice", "bob"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", who, "-f",
                        str(keys / who)], check=True, capture_output=True)
        allowed.append(f"{who}@example.com {(keys / f'{who}.pub').read_text(encoding='utf-8')}")
    (keys / "allowed").write_text("".join(allowed), encoding="utf-8")
    for args in (["init", "-q", "-b", "main"], ["config", "user.name", "Alice Example"],
                 ["config", "user.email", "alice@example.com"], ["config", "gpg.format", "ssh"],
                 ["config", "gpg.ssh.allowedSignersFile", str(keys / "allowed")],
                 ["config", "commit.gpgsign", "false"]):
        _git(root, *args)
    _git(root, "-c", f"user.signingkey={keys / 'alice.pub'}", "commit", "-q", "-S",
         "--allow-empty", "-m", "signed by alice")
    signed = _git(root, "rev-parse", "HEAD")
    _git(root, "commit", "-q", "--allow-empty", "-m", "signed by nobody")
    return {"root": str(root), "signed": signed, "unsigned": _git(root, "rev-parse", "HEAD")}


@pytest.fixture(scope="module")
def confirmed(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A `.progress.md` whose interview r1 was confirmed over the agent's word (C1)."""
    root = tmp_path_factory.mktemp("confirmed")
    spec = Spec.init(root / SPEC, goal="Let customers apply a promo code.", root=root)
    spec.begin_interview(phase="requirements", interview_id="r1")
    spec.open_frontier(round=1, decision_ids=["D1"])
    spec.record_answer("D1", "Every customer")
    spec.await_confirmation(decision_id="C1", approach="Do A")
    spec.confirm(decision_id="C1", reply="Approve and delegate", no_commit=True)
    text = Path(spec.progress).read_text(encoding="utf-8")
    assert "- Channel: agent\n" in text
    return text


def _with(text: str, channel_lines: str, by: str | None = None) -> Progress:
    """The confirmed file with its `- Channel:` line replaced (and its `- By:` line)."""
    text = text.replace("- Channel: agent\n", channel_lines)
    if by is not None:
        head, _, tail = text.rpartition("- By: ")
        text = head + by + "\n" + tail.split("\n", 1)[1]
    return read_progress(text.encode(), "x")


def _config(root: str, text: str | None) -> store.Spec:
    path = Path(root) / ".mdgrill.yaml"
    if text is None:
        path.unlink(missing_ok=True)
    else:
        path.write_text(text, encoding="utf-8")
    return store.Spec(str(Path(root) / SPEC), root)


def _refusal(call: Callable[[], object]) -> GateRefusal:
    with pytest.raises(GateRefusal) as refused:
        call()
    return refused.value


# -- how a user approves, and which channels a project accepts ----------------------------


def test_how_to_names_each_accepted_channels_command() -> None:
    assert channels.how_to(("terminal", "agent"), "specs/a", "C1") == \
        "terminal: run `mdgrill approve specs/a` yourself, in your own terminal; agent: the " \
        "agent runs `mdgrill confirm specs/a --decision-id C1 --source approve-and-delegate " \
        "--reply 'Approve and delegate'`"


def test_a_channel_the_project_does_not_list_is_refused(tmp_path: Path) -> None:
    spec = _config(str(tmp_path), "approval: [hook, terminal]\n")
    assert channels.require_accepted(spec, "terminal", "C1") is None
    refused = _refusal(lambda: channels.require_accepted(spec, "agent", "C1"))
    assert refused.code == "APPROVAL_CHANNEL_NOT_ACCEPTED"
    assert refused.details == {"channel": "agent", "accepted": ["hook", "terminal"]}
    assert "`agent` channel" in refused.message
    assert "terminal: run `mdgrill approve specs/a`" in refused.message


# -- the channel a confirm names ------------------------------------------------------------


class _Journal:
    """`evidence_of` as the interview's: the captured reply, or None; counts its calls."""

    def __init__(self, found: tuple[str, str] | None) -> None:
        self.found = found
        self.calls = 0

    def __call__(self, spec: store.Spec, reply: str | None) -> tuple[str, str] | None:
        self.calls += 1
        return self.found


def _carrier(spec: store.Spec, found: tuple[str, str] | None, *, signing: bool = False,
             terminal: bool = False) -> tuple[channels.Carrier, int]:
    evidence_of = _Journal(found)
    carrier = channels.confirm_carrier(spec, "Approve and delegate", signing=signing,
                                       terminal=terminal, evidence_of=evidence_of)
    return carrier, evidence_of.calls


def _captured(root: str, source: str, words: str) -> tuple[str, str]:
    journal.append(root, source, words)
    return words, hashlib.sha256(words.encode()).hexdigest()


def test_the_terminal_and_a_signature_the_project_names_need_no_journal(
        signed_repo: dict[str, str]) -> None:
    root = signed_repo["root"]
    hook = ("Approve and delegate", "0" * 64)
    spec = _config(root, "approval: [hook, signed]\n")
    assert _carrier(spec, hook, terminal=True) == (channels.Carrier("terminal", None), 0)
    assert _carrier(spec, hook, signing=True) == (channels.Carrier("signed", None), 0)
    # where every channel is accepted, `--sign` does not hide a captured reply
    spec = _config(root, None)
    assert _carrier(spec, hook, signing=True) == (channels.Carrier("hook", hook), 1)
    assert _carrier(spec, None, signing=True) == (channels.Carrier("signed", None), 1)
    # where `signed` is not accepted, a signing confirm still names the captured reply
    spec = _config(root, "approval: [hook]\n")
    assert _carrier(spec, hook, signing=True) == (channels.Carrier("hook", hook), 1)


def test_a_captured_reply_names_the_hook_or_the_form_that_captured_it(
        signed_repo: dict[str, str]) -> None:
    root = signed_repo["root"]
    form = _captured(root, channels.ELICITATION_SOURCE, "Approve and delegate (form)")
    typed = _captured(root, "UserPromptSubmit", "Approve and delegate (typed)")
    for config in ("approval: [elicitation]\n", "approval: [hook]\n", None):
        spec = _config(root, config)
        assert _carrier(spec, form) == (channels.Carrier("elicitation", form), 1), config
        assert _carrier(spec, typed) == (channels.Carrier("hook", typed), 1), config
        assert _carrier(spec, None) == (channels.Carrier("agent", None), 1), config
    # a project that takes no captured reply never looks for one
    spec = _config(root, "approval: [terminal, agent]\n")
    assert _carrier(spec, typed) == (channels.Carrier("agent", None), 0)
    _config(root, None)


# -- what a Confirmed block names, and check-delegation's reading of it ----------------------


def test_the_recorded_channel_of_a_block_and_of_an_older_block(confirmed: str) -> None:
    def last(prog: Progress) -> str:
        return channels.recorded_channel(prog.blocks[-1])

    assert last(_with(confirmed, "- Channel: terminal\n")) == "terminal"
    assert last(_with(confirmed, "- Reply sha256: abc\n")) == "hook"
    assert last(_with(confirmed, "")) == "agent"


def test_the_stamp_is_the_interviews_last_confirmed_block(confirmed: str) -> None:
    prog = _with(confirmed, "- Channel: hook\n- Relayed by: bob@example.com\n")
    assert channels.stamp_of(prog, "r1") == channels.Stamp("hook", "bob@example.com")
    assert channels.stamp_of(read_progress(confirmed.encode(), "x"), "r1") == \
        channels.Stamp("agent", None)
    assert channels.stamp_of(prog, "r2") == channels.Stamp(None, None)


def _approval(spec: store.Spec, prog: Progress, commit: str | None,
              interview: str = "r1") -> dict[str, object]:
    return channels.require_accepted_approval(spec, prog, interview, "requirements", commit)


def test_check_delegation_holds_the_recorded_channel_to_the_list(tmp_path: Path,
                                                                 confirmed: str) -> None:
    root = str(tmp_path)
    hook = _with(confirmed, "- Channel: hook\n- Reply sha256: abc\n")
    form = _with(confirmed, "- Channel: elicitation\n- Reply sha256: abc\n")
    agent = read_progress(confirmed.encode(), "x")
    spec = _config(root, None)
    assert _approval(spec, agent, None) == {"channel": "agent"}
    assert _approval(spec, agent, None, "r2") == {}  # no Confirmed block: a quick bypass
    spec = _config(root, "approval: [hook, terminal]\n")
    assert _approval(spec, hook, None) == {"channel": "hook"}
    # the agent's word where a captured reply is wanted, and a hook that names no reply
    for prog in (agent, _with(confirmed, "- Channel: hook\n"),
                 _with(confirmed, "- Channel: elicitation\n")):
        refused = _refusal(lambda prog=prog: _approval(spec, prog, None))  # type: ignore[misc]
        assert refused.code == "APPROVAL_NOT_EVIDENCED"
        assert refused.details == {"channel": "agent", "accepted": ["hook", "terminal"]}
        assert "--decision-id C1 --source" in refused.message  # the hook's command
        assert "mdgrill approve specs/a" in refused.message
    # a captured reply over a channel the list leaves out is that channel's refusal
    refused = _refusal(lambda: _approval(spec, form, None))
    assert (refused.code, refused.details["channel"]) == (  # type: ignore[index]
        "APPROVAL_CHANNEL_NOT_ACCEPTED", "elicitation")
    spec = _config(root, "approval: [terminal, elicitation]\n")
    assert _approval(spec, form, None) == {"channel": "elicitation"}
    refused = _refusal(lambda: _approval(spec, agent, None))
    assert refused.code == "APPROVAL_NOT_EVIDENCED"
    spec = _config(root, "approval: [terminal]\n")
    refused = _refusal(lambda: _approval(spec, agent, None))
    assert refused.code == "APPROVAL_CHANNEL_NOT_ACCEPTED"
    assert "`agent` channel" in refused.message and "interview r1" in refused.message


def test_a_refusal_names_the_confirmation_id_of_the_block(tmp_path: Path,
                                                         confirmed: str) -> None:
    spec = _config(str(tmp_path), "approval: [agent]\n")
    prog = _with(confirmed, "- Channel: terminal\n")
    refused = _refusal(lambda: _approval(spec, prog, None))
    assert "--decision-id C1 --source approve-and-delegate --reply" in refused.message
    without = _with(confirmed.replace("- Confirmation ID: C1\n- Source", "- Source"),
                    "- Channel: terminal\n")
    refused = _refusal(lambda: _approval(spec, without, None))
    assert "--decision-id CID --source approve-and-delegate --reply" in refused.message


def test_a_signed_approval_is_checked_in_git(signed_repo: dict[str, str],
                                            confirmed: str) -> None:
    root = signed_repo["root"]
    signed = _with(confirmed, "- Channel: signed\n", by=f"- By: {ALICE}")
    spec = _config(root, "approval: [signed]\n")
    assert _approval(spec, signed, signed_repo["signed"]) == \
        {"channel": "signed", "signed_by": "alice@example.com"}
    refused = _refusal(lambda: _approval(spec, signed, signed_repo["unsigned"]))
    assert refused.code == "APPROVAL_NOT_SIGNED"
    assert refused.details == {"approval_commit": signed_repo["unsigned"], "signer": "",
                               "accepted": ["signed"]}
    assert f"approval commit {signed_repo['unsigned'][:12]} carries no signature" in \
        refused.message
    # outside git (no commit) a signed claim is the agent's word
    refused = _refusal(lambda: _approval(spec, signed, None))
    assert (refused.code, refused.details["channel"]) == (  # type: ignore[index]
        "APPROVAL_CHANNEL_NOT_ACCEPTED", "agent")
    # where the agent's word is accepted, an unchecked signature is only that
    spec = _config(root, None)
    assert _approval(spec, signed, signed_repo["unsigned"]) == {"channel": "agent"}
    assert _approval(spec, signed, signed_repo["signed"]) == \
        {"channel": "signed", "signed_by": "alice@example.com"}
    _config(root, None)


def test_a_channel_the_list_leaves_out_is_held_to_a_signature(
        signed_repo: dict[str, str], confirmed: str) -> None:
    root = signed_repo["root"]
    terminal = _with(confirmed, "- Channel: terminal\n", by=f"- By: {ALICE}")
    agent = _with(confirmed, "- Channel: agent\n", by=f"- By: {ALICE}")
    spec = _config(root, "approval: [hook, signed]\n")
    # a good signature by the approver carries an approval over any channel
    assert _approval(spec, terminal, signed_repo["signed"]) == \
        {"channel": "terminal", "signed_by": "alice@example.com"}
    # without one, the channel's own refusal (the agent's word: no captured reply)
    refused = _refusal(lambda: _approval(spec, agent, signed_repo["unsigned"]))
    assert refused.code == "APPROVAL_NOT_EVIDENCED"
    refused = _refusal(lambda: _approval(spec, terminal, signed_repo["unsigned"]))
    assert refused.code == "APPROVAL_CHANNEL_NOT_ACCEPTED"
    # where a signature is the only way, the signature is the reason
    spec = _config(root, "approval: [signed]\n")
    refused = _refusal(lambda: _approval(spec, terminal, signed_repo["unsigned"]))
    assert refused.code == "APPROVAL_NOT_SIGNED"
    # a channel the list names needs no signature, and is not read as a signed one
    spec = _config(root, "approval: [terminal, signed]\n")
    assert _approval(spec, terminal, signed_repo["unsigned"]) == {"channel": "terminal"}
    assert _approval(spec, terminal, signed_repo["signed"]) == {"channel": "terminal"}
    # where the list does not name `signed`, a signature does not carry another channel
    spec = _config(root, "approval: [hook]\n")
    refused = _refusal(lambda: _approval(spec, agent, signed_repo["signed"]))
    assert refused.code == "APPROVAL_NOT_EVIDENCED"
    _config(root, None)


# -- the signature itself -------------------------------------------------------------------


def test_a_signature_counts_for_the_approver_and_an_owner_of_the_phase(
        signed_repo: dict[str, str]) -> None:
    root, sha = signed_repo["root"], signed_repo["signed"]
    _config(root, None)
    good = channels.SignatureCheck(True, "alice@example.com", "")
    assert channels.check_signed(root, sha, ALICE, "requirements") == good
    assert channels.check_signed(root, sha, "alice@example.com", "requirements") == good
    assert channels.check_signed(root, sha, "Alice@Example.com <x@y>", "requirements") == good
    assert channels.check_signed(root, sha, None, "requirements") == good
    other = channels.check_signed(root, sha, "Bob <bob@example.com>", "requirements")
    assert other == channels.SignatureCheck(
        False, "alice@example.com", f"approval commit {sha[:12]} is signed by "
        "`alice@example.com`, but the approval names `Bob <bob@example.com>`: a signature "
        "counts for the person it names")
    assert not channels.check_signed(root, sha, "Alice <>", "requirements").good
    _config(root, "owners:\n  phases:\n    requirements: [bob@example.com]\n")
    owner = channels.check_signed(root, sha, ALICE, "requirements")
    assert owner == channels.SignatureCheck(
        False, "alice@example.com", f"approval commit {sha[:12]} is signed by "
        "`alice@example.com`, who is not an owner of the requirements phase "
        "(bob@example.com, in .mdgrill.yaml)")
    assert channels.check_signed(root, sha, ALICE, "design") == good
    _config(root, "owners:\n  phases:\n    requirements: [alice@example.com]\n")
    assert channels.check_signed(root, sha, ALICE, "requirements") == good
    _config(root, None)
    unsigned = channels.check_signed(root, signed_repo["unsigned"], ALICE, "requirements")
    assert unsigned == channels.SignatureCheck(
        False, "", f"approval commit {signed_repo['unsigned'][:12]} carries no signature")


def _transition(sha: str, **trailers: str) -> TransitionCommit:
    base = {"Mdgrill-Transition": "approve", "Mdgrill-Spec": SPEC,
            "Mdgrill-Phase": "requirements", "Mdgrill-By": ALICE}
    return TransitionCommit(sha, "2026-12-03T00:00:00Z", "Alice Example", "alice@example.com",
                            "approve requirements", {**base, **trailers})


def test_verify_reports_each_approval_commit_that_does_not_hold_its_signature(
        signed_repo: dict[str, str]) -> None:
    root, good, bad = signed_repo["root"], signed_repo["signed"], signed_repo["unsigned"]

    def report(spec_rel: str | None, *commits: TransitionCommit) -> list[tuple[object, ...]]:
        found = channels.signature_diagnostics(root, spec_rel, list(commits))
        assert all(d.line == 1 for d in found)  # the file's head: history has no line
        return [(d.severity, d.path, d.code) for d in found]

    signed = {"Mdgrill-Channel": "signed"}
    _config(root, None)
    assert report(None, _transition(bad, **signed)) == \
        [("error", f"{SPEC}/.progress.md", "APPROVAL_NOT_SIGNED")]
    assert report(SPEC, _transition(bad, **signed, **{"Mdgrill-Transition": "skip"})) == \
        [("error", f"{SPEC}/.progress.md", "APPROVAL_NOT_SIGNED")]
    assert report(None, _transition(bad, **signed, **{"Mdgrill-Spec": "."})) == \
        [("error", ".progress.md", "APPROVAL_NOT_SIGNED")]
    assert report(None, _transition(good, **signed)) == []
    # another spec, another transition, or a channel nobody holds to a signature
    assert report("specs/b", _transition(bad, **signed)) == []
    assert report(None, _transition(bad, **signed, **{"Mdgrill-Transition": "confirm"})) == []
    assert report(None, _transition(bad), _transition(bad, **{"Mdgrill-Channel": "hook"})) == []
    # under a list that names `signed`, a channel it leaves out is held to a signature: a
    # warning, as history cannot be approved again
    _config(root, "approval: [terminal, signed]\n")
    assert report(None, _transition(bad)) == \
        [("warning", f"{SPEC}/.progress.md", "APPROVAL_NOT_SIGNED")]
    assert report(None, _transition(bad, **{"Mdgrill-Reply-Sha256": "abc"})) == \
        [("warning", f"{SPEC}/.progress.md", "APPROVAL_NOT_SIGNED")]
    assert report(None, _transition(bad, **{"Mdgrill-Channel": "terminal"}),
                  _transition(good)) == []
    diagnostic = channels.signature_diagnostics(root, None, [_transition(bad)])[0]
    assert "channel `agent`" in diagnostic.message and "approve requirements" in \
        diagnostic.message and "accepts terminal, signed" in diagnostic.message
    hooked = channels.signature_diagnostics(
        root, None, [_transition(bad, **{"Mdgrill-Reply-Sha256": "abc"})])[0]
    assert "channel `hook`" in hooked.message
    _config(root, "approval: [signed]\n")
    assert report(None, _transition(bad, **{"Mdgrill-Channel": "hook"})) == \
        [("warning", f"{SPEC}/.progress.md", "APPROVAL_NOT_SIGNED")]
    # a list without `signed` holds no other channel to a signature (check-delegation
    # refuses the channel itself)
    _config(root, "approval: [terminal]\n")
    assert report(None, _transition(bad)) == []
    # `approval: agent` (every channel): `signed` is not required, only held where claimed
    _config(root, "approval: agent\n")
    assert report(None, _transition(bad)) == []
    _config(root, None)


# -- a relayed approval -------------------------------------------------------------------


def test_an_approval_relayed_for_someone_else_says_who_relayed_it() -> None:
    def step(prog: Progress) -> Transition:
        change = Change()
        change.block("### Requirements Grill - Confirmed", ["- Interview: r1"])
        return Transition(change, {"status": "complete"})

    prog: Progress = None  # type: ignore[assignment]
    change, result = channels.relayed(step, ALICE, "bob@example.com")(prog)
    assert change.new_blocks == [("### Requirements Grill - Confirmed",
                                  ["- Interview: r1", "- Relayed by: bob@example.com"])]
    assert result == {"status": "complete", "relayed_by": "bob@example.com"}
    for person, account in ((ALICE, ALICE), (None, "bob"), (ALICE, None)):
        change, result = channels.relayed(step, person, account)(prog)
        assert change.new_blocks == [("### Requirements Grill - Confirmed",
                                      ["- Interview: r1"])], (person, account)
        assert result == {"status": "complete"}

    def no_block(prog: Progress) -> Transition:
        return Transition(Change(), {})

    assert channels.relayed(no_block, ALICE, "bob")(prog)[1] == {}
