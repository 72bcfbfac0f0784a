"""The channel that carried an approval's selection, and whether the project accepts it.

`confirm` names the channel in the `Confirmed` block (`- Channel:`) and in the approval
commit (`Mdgrill-Channel`): `hook` (a reply the plugin's hooks captured in the journal),
`elicitation` (the MCP form), `terminal` (`mdgrill approve` on the controlling terminal),
`signed` (a signed approval commit), `agent` (the agent's own `--reply`, nothing captured).
`.mdgrill.yaml` `approval:` lists the channels the project accepts
(`shell.project.accepted_channels`); `check-delegation` holds the approval to that list, and
`signed` to a good signature by a key git ties to the approver (and to an owner of the phase
when the owners map names one). What each channel proves is in docs/guarantees.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from mdgrill.errors import GateRefusal
from mdgrill.shell import store

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    from mdgrill.core.machine.reports import Carried, Written
    from mdgrill.diagnostics import Diagnostic
    from mdgrill.formats.progress import Block, Progress, Transition
    from mdgrill.git.vcs import TransitionCommit

    W = TypeVar("W", bound=Written)
    Step = Callable[[Progress], Transition[W]]

CHANNEL_KEY = "Channel"
RELAYED_KEY = "Relayed by"
TRAILER_CHANNEL = "Mdgrill-Channel"
TRAILER_RELAYED = "Mdgrill-Relayed-By"
ELICITATION_SOURCE = "MCPElicitation"  # the journal's source for the MCP form's reply

# How a user approves over each channel: said by every refusal that names accepted channels.
HOW = {
    "hook": "answer the approval question in the agent host with the mdgrill plugin's hooks "
            "installed, then the agent runs `mdgrill confirm {spec} --decision-id {cid} "
            "--source approve-and-delegate`",
    "elicitation": "answer the form the MCP tool `ask_approval` shows",
    "terminal": "run `mdgrill approve {spec}` yourself, in your own terminal",
    "signed": "run `mdgrill confirm {spec} --decision-id {cid} --source approve-and-delegate "
              "--sign` as yourself, with git set to sign with your key (`gpg.format ssh`, "
              "`user.signingkey`, `gpg.ssh.allowedSignersFile`)",
    "agent": "the agent runs `mdgrill confirm {spec} --decision-id {cid} --source "
             "approve-and-delegate --reply 'Approve and delegate'`",
}
_SIGNATURE_STATUS = {"N": "no signature", "B": "a bad signature", "E": "a signature git "
                     "cannot check (no allowed-signers file, or the key is missing)",
                     "U": "a signature of unknown validity", "X": "an expired signature",
                     "Y": "a signature by an expired key", "R": "a signature by a revoked key"}


def how_to(channels: tuple[str, ...], spec: str, cid: str) -> str:
    """One line per channel: the command a user approves over it with."""
    return "; ".join(f"{c}: {HOW[c].format(spec=spec, cid=cid)}" for c in channels)


def require_accepted(spec: store.Spec, channel: str, cid: str) -> None:
    """Refuse (`APPROVAL_CHANNEL_NOT_ACCEPTED`, nothing written) a channel the project does
    not list in `.mdgrill.yaml` `approval:`."""
    from mdgrill.shell.project import accepted_channels

    accepted = accepted_channels(spec.root)
    if channel in accepted:
        return
    raise GateRefusal(
        "APPROVAL_CHANNEL_NOT_ACCEPTED",
        f"this approval would come over the `{channel}` channel, which the project does not "
        f"accept (`approval: [{', '.join(accepted)}]` in .mdgrill.yaml); nothing was written. "
        f"Approve over an accepted channel: {how_to(accepted, spec.rel_folder, cid)}",
        details={"channel": channel, "accepted": list(accepted)})


class Carrier(NamedTuple):
    """How a confirm's selection arrived: the channel, and the journal's (words, sha256) when
    the reply was captured there."""

    channel: str
    evidence: tuple[str, str] | None


def confirm_carrier(spec: store.Spec, reply: str | None, *, signing: bool, terminal: bool,
                    evidence_of: Callable[[store.Spec, str | None], tuple[str, str] | None],
                    ) -> Carrier:
    """The channel of a confirm about to be written, its journal evidence, or a refusal.

    The terminal's own reading is its evidence; a signed commit is, where the project names
    `signed` itself; else the journal decides, as `evidence_of` (the interview's
    `approval_evidence`) finds the reply."""
    from mdgrill.shell.project import CHANNELS, accepted_channels

    accepted = accepted_channels(spec.root)
    if terminal:
        return Carrier("terminal", None)
    if signing and "signed" in accepted and accepted != CHANNELS:
        return Carrier("signed", None)
    if "hook" in accepted or "elicitation" in accepted:
        evidence = evidence_of(spec, reply)
        if evidence is not None:
            from mdgrill.shell.journal import source_of

            source = source_of(spec.root, evidence[1])
            return Carrier("elicitation" if source == ELICITATION_SOURCE else "hook", evidence)
    return Carrier("signed" if signing else "agent", None)


def recorded_channel(block: Block) -> str:
    """The channel a Confirmed block names; for a block written before channels were named,
    `hook` when it names a captured reply, else `agent`."""
    named = block.first(CHANNEL_KEY)
    if named:
        return named
    return "hook" if block.first("Reply sha256") else "agent"


def _person_keys(person: str) -> set[str]:
    name, _, email = person.partition("<")
    return {name.strip().casefold(), email.rstrip(">").strip().casefold()} - {""}


class SignatureCheck(NamedTuple):
    """A signed approval checked: whether it holds, the signer, and why not."""

    good: bool
    signer: str
    why: str


def check_signed(root: str, sha: str, approver: str | None, phase: str) -> SignatureCheck:
    """Whether approval commit `sha` carries a good signature by a key git ties to the
    approver (the `By` of the approval) and, when the owners map names owners of `phase`, to
    one of them."""
    from mdgrill.git import vcs
    from mdgrill.shell.project import owners

    sig = vcs.commit_signature(root, sha)
    if not sig.good:
        return SignatureCheck(False, sig.signer, f"approval commit {sha[:12]} carries "
                              f"{_SIGNATURE_STATUS.get(sig.status, 'no good signature')}")
    if approver and not (_person_keys(approver) & _person_keys(sig.signer)):
        return SignatureCheck(False, sig.signer, f"approval commit {sha[:12]} is signed by "
                              f"`{sig.signer}`, but the approval names `{approver}`: a "
                              "signature counts for the person it names")
    own = owners(root)
    names = own.phases.get(phase, [])
    if names and not own.allows(names, sig.signer):
        return SignatureCheck(False, sig.signer, f"approval commit {sha[:12]} is signed by "
                              f"`{sig.signer}`, who is not an owner of the {phase} phase "
                              f"({', '.join(names)}, in .mdgrill.yaml)")
    return SignatureCheck(True, sig.signer, "")


def require_accepted_approval(spec: store.Spec, prog: Progress, interview_id: str, phase: str,
                              approval_commit: str | None) -> Carried:
    """`check-delegation`: the interview's approval came over a channel the project accepts;
    a `signed` one (claimed, or the only way the project accepts) is checked in git."""
    from mdgrill.core.artifact_gate import log_blocks
    from mdgrill.shell.project import accepted_channels

    confirmed = [b for b in log_blocks(prog, frozenset({"confirmed"}))
                 if b.first("Interview") == interview_id]
    if not confirmed:
        return {}  # a quick-mode bypass: no selection to carry
    block = confirmed[-1]
    accepted = accepted_channels(spec.root)
    channel = recorded_channel(block)
    if channel in ("hook", "elicitation") and not block.first("Reply sha256"):
        channel = "agent"  # a captured reply it does not name is no captured reply
    cid = block.first("Confirmation ID") or "CID"
    if channel == "signed" and approval_commit is None:
        channel = "agent"  # no commit (outside git): no signature to check
    if approval_commit is not None and (channel == "signed" or (
            "signed" in accepted and channel not in accepted)):
        check = check_signed(spec.root, approval_commit, block.first("By"), phase)
        if check.good:
            return {"channel": channel, "signed_by": check.signer}
        # the signature is the refusal's reason when the approval claims one, or when it is
        # the only way the project accepts; otherwise the channel's own refusal follows
        if "agent" not in accepted and (channel == "signed" or accepted == ("signed",)):
            raise GateRefusal(
                "APPROVAL_NOT_SIGNED",
                f"{check.why}; this project accepts an approval only over "
                f"{', '.join(accepted)} (.mdgrill.yaml `approval:`). Approve again "
                f"(`mdgrill reopen` the phase): {how_to(accepted, spec.rel_folder, cid)}",
                details={"approval_commit": approval_commit, "signer": check.signer,
                         "accepted": list(accepted)})
        if channel == "signed":
            channel = "agent"  # an unchecked signature proves what the agent's word does
    if channel not in accepted:
        # the agent's word where a captured reply is wanted: the older code says just that
        code = "APPROVAL_NOT_EVIDENCED" if channel == "agent" and (
            "hook" in accepted or "elicitation" in accepted) else "APPROVAL_CHANNEL_NOT_ACCEPTED"
        raise GateRefusal(
            code,
            f"interview {interview_id} was approved over the `{channel}` channel, which this "
            f"project does not accept (`approval: [{', '.join(accepted)}]` in .mdgrill.yaml): "
            f"approve it again (`mdgrill reopen` the phase) over an accepted channel: "
            f"{how_to(accepted, spec.rel_folder, cid)}",
            details={"channel": channel, "accepted": list(accepted)})
    return {"channel": channel}


def relayed(step: Step[W], person: str | None, account: str | None) -> Step[W]:
    """`step`, with `- Relayed by: <account>` added to the block it opens when `--by` named
    someone other than the account that runs it: the approval is that account's report of
    another's word, and is recorded (and committed, authored by the account) as such."""
    def run(prog: Progress) -> Transition[W]:
        done = step(prog)
        change = done.change
        if person and account and person != account and change.new_blocks:
            heading, lines = change.new_blocks[-1]
            change.new_blocks[-1] = (heading, [*lines, f"- {RELAYED_KEY}: {account}"])
            done.report["relayed_by"] = account
        return done
    return run


class Stamp(NamedTuple):
    """What an approval commit says of its channel: the channel and the relaying account."""

    channel: str | None
    relayed_by: str | None


def stamp_of(prog: Progress, interview_id: str) -> Stamp:
    """The channel and relaying account the interview's last Confirmed block records."""
    from mdgrill.core.artifact_gate import log_blocks

    for block in reversed(log_blocks(prog, frozenset({"confirmed"}))):
        if block.first("Interview") == interview_id:
            return Stamp(block.first(CHANNEL_KEY), block.first(RELAYED_KEY))
    return Stamp(None, None)


def signature_diagnostics(root: str, spec_rel: str | None,
                          transitions: list[TransitionCommit]) -> list[Diagnostic]:
    """`verify`: each interview approval commit that claims the `signed` channel and does not
    hold it is an error; under an `approval:` list that names `signed`, one over a channel the
    list leaves out is held to a signature too, a warning (history cannot be re-approved)."""
    from mdgrill.diagnostics import error, warning
    from mdgrill.shell.project import CHANNELS, accepted_channels

    accepted = accepted_channels(root)
    required = "signed" in accepted and accepted != CHANNELS
    out = []
    for commit in transitions:
        trailers = commit.trailers
        folder = trailers.get("Mdgrill-Spec", "")
        if trailers.get("Mdgrill-Transition") not in ("approve", "skip") or \
                (spec_rel is not None and folder != spec_rel):
            continue
        channel = trailers.get(TRAILER_CHANNEL) or \
            ("hook" if trailers.get("Mdgrill-Reply-Sha256") else "agent")
        if channel != "signed" and not (required and channel not in accepted):
            continue
        check = check_signed(root, commit.sha, trailers.get("Mdgrill-By"),
                             trailers.get("Mdgrill-Phase", ""))
        if check.good:
            continue
        path = f"{folder.strip('/')}/{store.PROGRESS}" if folder.strip("/ .") else \
            store.PROGRESS
        report = error if channel == "signed" else warning
        out.append(report(path, 1, "APPROVAL_NOT_SIGNED",
                          f"{check.why} ({commit.subject}; channel `{channel}`): the project "
                          f"accepts {', '.join(accepted)} (.mdgrill.yaml `approval:`)"))
    return out
