"""`mdgrill approve`: the user's own approval, read from the controlling terminal.

The decision brief (the approach, the decisions it rests on, the assumptions and defaults)
is shown on the terminal and the selection read back from it, never from stdin: the channel
`terminal` (services/channels.py). `Approve and delegate` confirms and commits as `confirm`
does; `Cancel` is recorded as `cancel` records it; `Revise decisions` approves nothing.
Without a controlling terminal nothing is shown, read or written (`NO_TERMINAL`, exit 3).
"""

from __future__ import annotations

from mdgrill.core import machine
from mdgrill.core.approval import APPROVE_AND_DELEGATE, CANCEL, REVISE, approval_choice
from mdgrill.errors import GateRefusal, MdgrillError
from mdgrill.services.result import Selected
from mdgrill.shell import store
from mdgrill.shell.session import load, spec_hint

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.formats.progress import Progress
    from mdgrill.shell.terminal import Terminal

ATTEMPTS = 3  # a selection that is none of the three options is asked again, this often


def brief_text(spec: store.Spec, prog: Progress) -> str:
    """The decision brief as the terminal shows it, ending with the three options."""
    from mdgrill.core.askround import APPROVAL_SAYS, approval_brief

    iv = machine.interview_of(prog.data)
    brief = approval_brief(prog)
    lines = [f"mdgrill approve {spec.rel_folder}: the {iv['phase']} interview {iv['id']} "
             "awaits your approval", "", f"The approach: {brief.approach}"]
    if brief.decisions:
        lines += ["", "Resolved decisions:"]
        lines += [f"  {node_id}{' ' + title if title else ''} -> {answer}"
                  for node_id, title, answer in brief.decisions]
    listed = iv.get("assumptions")
    assumptions = [str(a) for a in listed] if isinstance(listed, list) else []
    if iv.get("bypass_reason"):
        assumptions.insert(0, f"the remaining decisions take their defaults "
                              f"({iv['bypass_reason']})")
    lines += ["", "Defaults and assumptions:"]
    lines += [f"  - {a}" for a in assumptions] or ["  (none recorded)"]
    scope = next((b.first("Approval scope") for b in reversed(prog.blocks)
                  if b.kind == "awaiting"), None)
    if scope:
        lines += ["", f"Approval scope: {scope}"]
    lines.append("")
    lines += [f"  {n}) {label}: {says}"
              for n, (label, says) in enumerate(APPROVAL_SAYS.items(), 1)]
    return "\n".join(lines) + "\n"


def _read_choice(term: Terminal) -> str | None:
    """The option the user selects (label or number), asked up to ATTEMPTS times; None when
    none was given."""
    for _ in range(ATTEMPTS):
        term.write("Your selection (1, 2 or 3): ")
        line = term.readline()
        if line is None:
            term.write("\n")
            return None
        choice = approval_choice(line)
        if choice is not None:
            return choice
        term.write(f"`{line.strip()}` is none of the three options: type 1, 2 or 3.\n")
    return None


def approve(spec: store.Spec, *, sign: bool = False) -> Selected:
    """Show the brief on the controlling terminal and act on the selection typed there."""
    from mdgrill.services.channels import require_accepted
    from mdgrill.shell.people import who
    from mdgrill.shell.project import owners
    from mdgrill.shell.terminal import open_terminal

    prog = load(spec)
    iv = machine.interview_of(prog.data)
    if iv["status"] != "awaiting_confirmation":
        raise GateRefusal("ILLEGAL_TRANSITION",
                          f"approve needs an interview awaiting confirmation; interview "
                          f"{iv['id']} is {iv['status']}: nothing to approve now")
    pending = iv.get("pending")
    cid = str(pending[0]) if isinstance(pending, list) and pending else "CID"
    require_accepted(spec, "terminal", cid)
    # the owners rule before the brief is shown, so an account that may not approve is told
    # before the user types (confirm checks it again under the lock)
    own = owners(spec.root)
    own.require(f"the {iv['phase']} phase", own.phases.get(str(iv["phase"]), []),
                who(spec, None), "approve")
    term = open_terminal()
    if term is None:
        raise GateRefusal(
            "NO_TERMINAL",
            "mdgrill approve reads your selection from the controlling terminal, and this "
            "process has none (an agent's shell tool, a pipe or a CI job has none): run "
            f"`mdgrill approve {spec_hint(spec)}` yourself, in your own terminal. Nothing was "
            "shown, read or written")
    try:
        return _exchange(spec, prog, term, str(iv["id"]), cid, sign)
    except MdgrillError as exc:  # said where the user is looking, then as every refusal is
        term.write(f"not recorded: {exc.message}\n")
        raise
    finally:
        term.close()


def _exchange(spec: store.Spec, prog: Progress, term: Terminal, interview_id: str, cid: str,
              sign: bool) -> Selected:
    """Show the brief, read the selection, act on it."""
    from mdgrill.services import interview

    term.write(brief_text(spec, prog))
    choice = _read_choice(term)
    result: dict[str, object] = {"choice": choice, "approved": False}
    if choice == APPROVE_AND_DELEGATE:
        done = interview.confirm_over(spec, decision_id=cid, source="approve-and-delegate",
                                      reply="Approve and delegate", by=None, no_commit=False,
                                      sign=sign, terminal=True)
        result.update(done.data)
        result["approved"] = True
        term.write(f"approved: interview {interview_id} is {done.status}"
                   + (f", committed {done.commit[:12]}" if done.commit else "") + "\n")
    elif choice == CANCEL:
        result.update(interview.cancel(spec, reply="Cancel").data)
        result["next"] = "stop without delegating"
        term.write("cancelled: nothing is delegated\n")
    elif choice == REVISE:
        result["next"] = ("tell the agent which decisions to change; it reopens them with "
                          f"`mdgrill revise {spec_hint(spec)} --decision-id ID`")
        term.write("nothing approved: name the decisions to revise\n")
    else:
        result["next"] = "nothing was selected, nothing recorded: run approve again"
    return Selected("approve", result)
