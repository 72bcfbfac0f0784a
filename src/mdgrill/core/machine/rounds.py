"""Inside the rounds: asking the whole frontier, and recording what the user said (answers,
facts, amendments, out of scope, the stop question, domain language)."""

from __future__ import annotations

from mdgrill.core.hints import spec_arg
from mdgrill.core.machine.basics import (
    MAX_DECISIONS,
    close_open_round,
    current_round_block,
    id_list,
    interview_of,
    require_id,
    require_open_round,
    require_status,
)
from mdgrill.errors import GateRefusal, InputError
from mdgrill.formats.progress import Change, Node, Progress, Transition, block_heading, single_line
from mdgrill.formats.schema import TERMINAL
from mdgrill.model.record import int_field

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.core.machine.reports import (
        AmendReport,
        AnswerReport,
        OpenedReport,
        PendingReport,
        StopReport,
    )
    from mdgrill.model.tree import Frontier

MIN_OPTIONS, MAX_OPTIONS = 2, 4  # the framework's `options[2..4]`: the question tool's too


def without_choices(nodes: list[Node]) -> list[str]:
    """The IDs of nodes that cannot be asked as a choice: fewer than 2 or more than 4
    options (a node being drafted may wait without them, but is not asked so)."""
    return [n.id for n in nodes if not MIN_OPTIONS <= len(n.options) <= MAX_OPTIONS]


def options_refusal(ids: list[str]) -> GateRefusal:
    """`NODE_OPTIONS_REQUIRED`, naming the nodes and what to add to each."""
    each = "it" if len(ids) == 1 else "each"
    return GateRefusal("NODE_OPTIONS_REQUIRED",
                       f"{', '.join(ids)} cannot be asked: an open node is asked with 2–4 "
                       "viable options, a recommendation, a rationale and a tradeoff (the "
                       "framework's `options[2..4], recommendation, rationale, tradeoffs, "
                       f"consequences`). Under {each} node's heading in the design tree, add "
                       "`- Options:` with 2 to 4 nested `  - Label: what it means` bullets, "
                       "the recommended one first and marked `(Recommended)` (unless the "
                       "options are symmetric), then `- Rationale: why it is recommended` and "
                       "`- Tradeoffs: what choosing it costs` (`mdgrill node add SPEC ID "
                       "--title T --option A --option B --recommend 1 --rationale R "
                       "--tradeoffs T` writes a new node so); then ask. Nothing was written",
                       details={"nodes": ids})


def _askable(prog: Progress, ids: list[str]) -> tuple[Frontier, list[str]]:
    """The frontier now, and a warning for each ID the tree does not hold and for each node
    with no rationale or tradeoff; refuses an ID whose node is resolved, out of scope,
    investigating or blocked, and nodes without 2–4 options (`NODE_OPTIONS_REQUIRED`)."""
    # the design tree's state loads with the first verb that reads it (record-answer does not)
    from mdgrill.model.tree import log_settled, spec_frontier, unexplained

    frontier = spec_frontier(prog, ledger=log_settled(prog))
    warnings: list[str] = []
    nodes: list[Node] = []
    for node_id in ids:
        # the status of the IDs asked about alone (a finished tree's are not all made)
        status = frontier.status_of(node_id)
        if status is None:
            warnings.append(f"{node_id} is not a node of the design tree: asked as a decision "
                            "kept elsewhere (add it with `mdgrill node add` to track it here)")
            continue
        _refuse_unaskable(node_id, status, frontier.blocked)
        node = prog.node(node_id)
        if node is not None:
            nodes.append(node)
    # "Represent each open node as { id, dependencies, evidence, options[2..4], ... }"
    lacking = without_choices(nodes)
    if lacking:
        raise options_refusal(lacking)
    warnings.extend(message for node in nodes for _, message in unexplained(node))
    return frontier, warnings


def _refuse_unaskable(node_id: str, status: str | None, blocked: dict[str, list[str]]) -> None:
    from mdgrill.model.tree import INVESTIGATING, OUT_OF_SCOPE, RESOLVED

    if status == RESOLVED:
        raise GateRefusal("DECISION_ALREADY_RECORDED",
                          f"{node_id} is already resolved (answered, or by a recorded fact): to "
                          "ask it again, `mdgrill revise` it after await-confirmation")
    if status == OUT_OF_SCOPE:
        raise GateRefusal("DECISION_OUT_OF_SCOPE",
                          f"{node_id} was placed out of scope by the user: it is not asked "
                          "again unless a `revise` reopens it")
    if status == INVESTIGATING:
        raise GateRefusal("DECISION_INVESTIGATING",
                          f"{node_id} waits on a fact lookup (`Investigating:`): resolve the "
                          "fact first (`mdgrill record-fact`), or drop the line from the node")
    if node_id in blocked:
        raise GateRefusal("DECISION_BLOCKED",
                          f"{node_id} depends on {', '.join(blocked[node_id])}, still open: "
                          "ask that first; a round asks only unblocked decisions")


def open_frontier(data: dict[str, object], prog: Progress, round_number: int,
                  ids: list[str], spec_hint: str | None = None,
                  ) -> Transition[OpenedReport]:
    for node_id in ids:
        require_id(node_id)
    if len(set(ids)) != len(ids):
        raise InputError("INVALID_INPUT", "--decision-id names the same ID twice")
    iv = interview_of(data)
    require_status(iv, "open-frontier", "collecting", spec=spec_arg(prog.path))
    current = int_field(iv, "round", "interview")
    if round_number not in (current, current + 1):
        raise GateRefusal("INVALID_ROUND_TRANSITION",
                          f"open-frontier may stay in round {current} or open round "
                          f"{current + 1}, not {round_number}")
    asked, pending = id_list(iv, "asked"), id_list(iv, "pending")
    if round_number == current + 1 and pending:
        raise GateRefusal("DECISIONS_PENDING",
                          f"round {current} still has pending decisions {', '.join(pending)}: "
                          "record their answers (or mark them out of scope) before the next round")
    pending_set, asked_set = set(pending), set(asked)
    for node_id in ids:
        # answered in this interview: asked, and not pending (no set of the 10,000 made)
        if node_id in asked_set and node_id not in pending_set:
            raise GateRefusal("DECISION_ALREADY_RECORDED",
                              f"{node_id} was already answered in this interview: to change it, "
                              "use `mdgrill revise` after await-confirmation")
    new_ids = [i for i in ids if i not in pending_set]
    grows = sum(1 for i in new_ids if i not in asked_set)
    if len(asked) + grows > MAX_DECISIONS:
        raise InputError("TOO_MANY_DECISIONS",
                         f"interview {iv['id']} would ask {len(asked) + grows:,} decisions; "
                         f"mdgrill supports up to {MAX_DECISIONS:,} per interview: finish this "
                         "interview and begin another for the rest")
    frontier, warnings = _askable(prog, new_ids)
    status_of = frontier.status_of
    block = current_round_block(prog, iv) if round_number == current else None
    if block is None and round_number == current + 1:
        from mdgrill.core.gate import unasked, unasked_refusal

        missing = unasked(prog, iv, frontier)
        if missing:
            raise unasked_refusal(spec_hint or spec_arg(prog.path), current, missing)
    # an asked ID with no node is said so in the round: a node that was asked and then left
    # the tree is an error (ASKED_NODE_MISSING), a decision kept elsewhere is not
    outside = [i for i in new_ids if status_of(i) is None and i not in asked_set]
    for node_id in new_ids:
        if node_id not in asked_set:
            asked.append(node_id)
            asked_set.add(node_id)
        pending.append(node_id)
    iv["round"] = round_number
    change = Change()
    change.updates["interview"] = iv
    from mdgrill.model.interview import KEPT_ELSEWHERE

    kept = [f"- {KEPT_ELSEWHERE}: {', '.join(outside)}"] if outside else []
    if block is not None:
        if new_ids:
            change.append_lines.append(f"- Asked: {', '.join(new_ids)}")
            change.append_lines.extend(kept)
    else:
        old = dict(iv)
        old["round"] = current
        close_open_round(prog, old, change)
        # what this round must ask before it closes: the frontier as the round opens
        iv["round_frontier"] = list(frontier.frontier)
        change.block(block_heading(str(iv["phase"]), f"Grill - Round {round_number}"),
                     [f"- Asked: {', '.join(ids)}", *kept])
    if not change.touches_log and not new_ids:
        change.updates.pop("interview")
    wanted = iv.get("round_frontier")
    # (an ID answered in this interview was asked: `asked_set` only grew since)
    still = [i for i in wanted if i not in asked_set and status_of(i) is not None] \
        if isinstance(wanted, list) else []
    return Transition(change, {"round": round_number, "pending": pending, "warnings": warnings,
                               "frontier_not_yet_asked": still})


def _answer_text(prog: Progress, decision_id: str, answer: str) -> str:
    """What a reply records: the option it names, or the recommended option it accepts (the
    user's words beside it), or the user's own words; refused if it answers nothing."""
    # the reply classifier loads with the verbs that read a reply (open-frontier reads none)
    from mdgrill.model.replies import (
        ACCEPT_RECOMMENDATION,
        BARE_SKIP,
        CONTROL_ONLY,
        SKIP_DECISION,
        STOP,
        classify,
    )

    # node_ids() reads only headings: a decision kept outside the tree costs no node parse
    node = prog.node(decision_id)
    options, recommended = node.choices() if node is not None else ([], None)
    reply = classify(answer, options, recommended)
    words = single_line(answer, "--answer")
    spec = spec_arg(prog.path)
    if reply.kind in (CONTROL_ONLY, BARE_SKIP):
        raise GateRefusal("CONTROL_ONLY_ANSWER",
                          f"`{words}` is a {reply.kind.replace('_', ' ')} reply, not an answer "
                          f"to {decision_id}: nothing was recorded; ask the same question again"
                          + (", or `mdgrill skip` to default the rest with assumptions"
                             if reply.kind == BARE_SKIP else ""))
    if reply.kind == STOP:
        raise GateRefusal("STOP_REQUESTED",
                          f"`{words}` says the user is done, it answers nothing: nothing was "
                          f"recorded. Show what remains (`mdgrill frontier {spec}`); when it is "
                          "due, ask Ready to build? (Ship / Keep asking / Refine a section) and "
                          "record the choice with `mdgrill record-stop`")
    if reply.kind == SKIP_DECISION:
        raise GateRefusal("SKIP_DECISION_REQUESTED",
                          f"`{words}` asks to leave {decision_id} without an answer: nothing "
                          "was recorded. Ask the user which way: place it out of scope "
                          f"(`mdgrill out-of-scope {spec} --decision-id {decision_id} --reply "
                          "…`) or take a default (`mdgrill record-answer … --answer DEFAULT "
                          "--assumption …`)")
    if reply.kind == ACCEPT_RECOMMENDATION:
        if reply.option is None:
            raise GateRefusal("NO_RECOMMENDATION",
                              f"`{words}` accepts the recommendation, but {decision_id} has "
                              "none (no `(Recommended)` option): ask the user to choose")
        return f"{reply.option} (accepted recommendation: \"{words}\")"
    if reply.option is not None:
        return reply.option if reply.how == "label" else \
            f"{reply.option} (option {reply.index}: \"{words}\")"
    return words


def record_answer(data: dict[str, object], prog: Progress, decision_id: str, answer: str,
                  assumption: str | None, other: bool = False) -> Transition[AnswerReport]:
    require_id(decision_id)
    iv = interview_of(data)
    require_status(iv, "record-answer", "collecting", spec=spec_arg(prog.path))
    text = _answer_text(prog, decision_id, answer)
    pending = id_list(iv, "pending")
    if decision_id not in pending:
        raise GateRefusal("DECISION_NOT_PENDING",
                          f"{decision_id} is not pending (pending: {', '.join(pending) or 'none'})"
                          ": open it with `mdgrill open-frontier` first")
    require_open_round(prog, iv, "record-answer")
    pending.remove(decision_id)
    change = Change()
    change.append_lines.append(f"- Decisions: {decision_id} -> {text}")
    if other:
        change.append_lines.append(f"- Other: {decision_id}")
    if assumption:
        note = single_line(assumption, "--assumption")
        assumptions = id_list(iv, "assumptions")
        if note not in assumptions:
            assumptions.append(note)
        change.append_lines.append(f"- Assumptions: {note}")
    change.updates["interview"] = iv
    result: AnswerReport = {"status": "collecting", "pending": pending, "recorded": text}
    if other:
        result["next"] = (f"add the decision this `Other` answer leads to: `mdgrill node add "
                          f"{spec_arg(prog.path)} ID --title T --spawned-by {decision_id}`")
    return Transition(change, result)


def record_fact(data: dict[str, object], prog: Progress, text: str,
                decision_id: str | None) -> Transition[PendingReport]:
    iv = interview_of(data)
    require_status(iv, "record-fact", "collecting", spec=spec_arg(prog.path))
    fact = single_line(text, "the fact")
    require_open_round(prog, iv, "record-fact")
    change = Change()
    pending = id_list(iv, "pending")
    if decision_id is not None:
        require_id(decision_id)
        from mdgrill.model.tree import OUT_OF_SCOPE, RESOLVED, spec_frontier

        status = spec_frontier(prog).statuses.get(decision_id)
        if status in (RESOLVED, OUT_OF_SCOPE):
            raise GateRefusal("DECISION_ALREADY_RECORDED",
                              f"{decision_id} is already {status.lower().replace('_', ' ')}: a "
                              "fact resolves an open decision, it never replaces the user's "
                              "answer; record it without --decision-id to keep it beside")
        fact = f"{decision_id} -> {fact}"
        if decision_id in pending:
            pending.remove(decision_id)
            change.updates["interview"] = iv
    change.append_lines.append(f"- Facts resolved: {fact}")
    return Transition(change, {"pending": pending})


def _require_user_words(reply: str, what: str) -> str:
    from mdgrill.model.replies import NOT_AN_ANSWER, classify

    words = single_line(reply, "--reply")
    kind = classify(words).kind
    if kind in NOT_AN_ANSWER:
        raise GateRefusal("CONTROL_ONLY_ANSWER",
                          f"`{words}` is a {kind.replace('_', ' ')} reply: it does not {what}; "
                          "nothing was written. Ask the user")
    return words


def _answered_as_other(prog: Progress, phase: str, decision_id: str) -> bool:
    """Whether the round that last recorded the decision's answer marked it `Other` (the
    user's own words, owing a follow-up decision)."""
    from mdgrill.formats.progress.lines import split_ids
    from mdgrill.model.interview import interview_blocks

    other = False
    for block in interview_blocks(prog.blocks, phase):
        if block.kind != "round":
            continue
        if any(e.value.split(" -> ", 1)[0].strip() == decision_id
               for e in block.get("Decisions")):
            other = any(decision_id in split_ids(e.value) for e in block.get("Other"))
    return other


def _option_named(text: str, options: list[str], recommended: int | None) -> str | None:
    """The option an answer names (its label, number, the recommendation, or a bare letter
    a–d of the Markdown round), or None for the user's own words."""
    from mdgrill.model.replies import classify, option_label

    reply = classify(text, options, recommended)
    if reply.option is not None:
        return reply.option
    letter = text.strip().casefold()
    if len(letter) == 1 and letter in "abcd"[:len(options)]:
        return f"option {letter}"  # which one depends on the order shown: a choice anyway
    return next((option_label(o) for o in options
                 if text.strip().casefold().startswith(option_label(o).casefold() + " (")),
                None)


def _require_same_meaning(prog: Progress, decision_id: str, old: str, text: str,
                          other: bool) -> None:
    """`amend` corrects wording: an amendment that picks another option, or turns an option
    into the user's own words (or back), changes what was decided, which is a `revise`."""
    node = prog.node(decision_id)
    options, recommended = node.choices() if node is not None else ([], None)
    if not options:
        return  # nothing to hold the words to: any rewording stays a rewording
    was = None if other else _option_named(old, options, recommended)
    now = _option_named(text, options, recommended)
    if was == now or (was is not None and now is not None and was.casefold() == now.casefold()):
        return
    if was is None:
        what = f"`{text}` names the option `{now}`, where {decision_id} was answered in the " \
            "user's own words"
    elif now is None:
        what = f"`{text}` is not the option `{was}` that {decision_id} records: own words in " \
            "place of an option change what was decided"
    else:
        what = f"`{text}` picks `{now}`, another option than the `{was}` {decision_id} records"
    raise GateRefusal("REVISE_REQUIRED",
                      f"{what}; `amend` corrects wording only. Change a decision with `revise`: "
                      "present the brief (`mdgrill await-confirmation`), then `mdgrill revise "
                      f"{spec_arg(prog.path)} --decision-id {decision_id}` (with every affected "
                      "decision) and record the new answer; nothing was written")


def amend(data: dict[str, object], prog: Progress, decision_id: str, answer: str,
          reason: str) -> Transition[AmendReport]:
    """`amend`: correct the wording of a recorded answer without reopening anything.

    The log stays append-only: an `- Amended: ID -> words` line (in the open round, or in an
    `Amended` block when no round is open) says how the answer reads from now on, with what it
    said before and why. Only while collecting: once the brief is shown, "call one `revise`
    transition with every affected `--decision-id` before updating answers", and once the
    interview is terminal, its record was approved as it stands. Never another option or
    another meaning (REVISE_REQUIRED); an `Other` answer stays `Other`, follow-up and all.
    """
    require_id(decision_id)
    iv = interview_of(data)
    phase = str(iv["phase"])
    spec = spec_arg(prog.path)
    if iv["status"] in TERMINAL:
        raise GateRefusal("AMEND_AFTER_APPROVAL",
                          f"the {phase} interview {iv['id']} is {iv['status']}: its answers were "
                          f"approved as they read. To change what {decision_id} says, go back "
                          f"with `mdgrill reopen {spec} --phase {phase} --reason "
                          "TEXT` and ask "
                          "again (before approval, `amend` corrects wording and `revise` "
                          "reopens a decision whose substance changes)")
    if iv["status"] == "awaiting_confirmation":
        raise GateRefusal("REVISE_REQUIRED",
                          f"the brief of interview {iv['id']} awaits the user's approval: "
                          "\"call one `revise` transition with every affected `--decision-id` "
                          f"before updating answers\" (`mdgrill revise {spec} --decision-id "
                          f"{decision_id}`), then record the answer as it now reads; nothing "
                          "was written")
    from mdgrill.model.tree import DEFAULTED_ANSWER, ledger_of

    ledger = ledger_of(prog)
    was = ledger.answers.get(decision_id)
    if was is None or was == DEFAULTED_ANSWER:
        raise GateRefusal("NOT_ANSWERED",
                          f"{decision_id} has no recorded answer to amend: record one with "
                          "`record-answer`")
    from mdgrill.model.replies import NOT_AN_ANSWER, classify

    kind = classify(answer).kind
    if kind in NOT_AN_ANSWER:  # a stop or a skip is no wording of an answer either
        raise GateRefusal("CONTROL_ONLY_ANSWER",
                          f"`{answer.strip()}` is a {kind.replace('_', ' ')} reply, not a "
                          f"wording of {decision_id}'s answer: give the corrected text itself")
    text = single_line(answer, "--answer")
    why = single_line(reason, "--reason")
    old = was[len(decision_id) + 4:] if was.startswith(f"{decision_id} -> ") else was
    if text == old:
        raise InputError("NOTHING_TO_AMEND", f"{decision_id} already reads `{text}`")
    other = _answered_as_other(prog, phase, decision_id)
    _require_same_meaning(prog, decision_id, old, text, other)
    lines = [f"- Amended: {decision_id} -> {text}", f"- Was: {decision_id} -> {old}",
             f"- Reason: {decision_id} -> {why}"]
    change = Change()
    if current_round_block(prog, iv) is not None and iv["status"] == "collecting":
        change.append_lines.extend(lines)
    else:
        change.block(block_heading(phase, "Grill - Amended"), lines)
    result: AmendReport = {"decision": decision_id, "answer": text, "was": old,
                           "reason": why, "status": str(iv["status"]), "other": other}
    if other:
        result["note"] = (f"{decision_id} stays an `Other` answer (the user's own words): the "
                          "decision it leads to is still owed, or stands where it was added "
                          f"(`mdgrill node add {spec} ID --title T --spawned-by {decision_id}`)")
    return Transition(change, result)


def out_of_scope(data: dict[str, object], prog: Progress, decision_id: str,
                 reply: str) -> Transition[PendingReport]:
    """The user's words place a decision out of scope ("every branch is resolved or the user
    has explicitly placed it out of scope"): one they were asked, or a branch blocked under
    one they were asked ("drop the tax branch"), which is never asked until then."""
    require_id(decision_id)
    iv = interview_of(data)
    require_status(iv, "out-of-scope", "collecting", spec=spec_arg(prog.path))
    words = _require_user_words(reply, f"place {decision_id} out of scope")
    asked = id_list(iv, "asked")
    if decision_id not in asked and not _blocked_under_asked(prog, decision_id, set(asked)):
        raise GateRefusal("DECISION_NOT_ASKED",
                          f"{decision_id} has not been asked in this interview, nor is it a "
                          "branch blocked under a question that was: out of scope is the "
                          "user's call on a branch they saw; ask it first "
                          "(`mdgrill open-frontier`)")
    require_open_round(prog, iv, "out-of-scope")
    change = Change()
    pending = id_list(iv, "pending")
    if decision_id in pending:
        pending.remove(decision_id)
        change.updates["interview"] = iv
    change.append_lines.append(f"- Out of scope: {decision_id} -> {words}")
    return Transition(change, {"pending": pending})


def _blocked_under_asked(prog: Progress, decision_id: str, asked: set[str]) -> bool:
    """Whether the decision is a node still open behind an unresolved prerequisite, and one
    of the decisions it rests on (directly or further up) was asked in this interview."""
    from mdgrill.model.tree import OPEN, prerequisites, spec_frontier

    frontier = spec_frontier(prog)
    if frontier.statuses.get(decision_id) != OPEN or decision_id not in frontier.blocked:
        return False
    index = {n.id: n for n in prog.nodes}
    seen: set[str] = set()
    queue = [decision_id]
    while queue:
        node = index.get(queue.pop())
        for parent in prerequisites(node) if node is not None else []:
            if parent in asked:
                return True
            if parent not in seen:
                seen.add(parent)
                queue.append(parent)
    return False


def record_stop(data: dict[str, object], prog: Progress, choice: str,
                section: str | None) -> Transition[StopReport]:
    """The user's answer to "Ready to build?": ship, keep asking, or refine a section."""
    iv = interview_of(data)
    require_status(iv, "record-stop", "collecting", spec=spec_arg(prog.path))
    require_open_round(prog, iv, "record-stop")
    if choice == "refine" and not section:
        raise InputError("USAGE", "--choice refine names the section to refine: add --section S")
    line = f"- Stop: {choice}" + (f" (section: {single_line(section, '--section')})"
                                  if section else "")
    change = Change()
    change.append_lines.append(line)
    from mdgrill.model.tree import spec_frontier

    frontier = spec_frontier(prog)
    if choice == "ship":
        nxt = ("`mdgrill await-confirmation`" if not frontier.open else
               f"decisions {', '.join(frontier.open)} are still open: the user places each out "
               "of scope (`out-of-scope --reply`), or `skip` with assumptions, before "
               "await-confirmation")
    elif choice == "refine":
        nxt = (f"ask the open decisions of section {section} (`mdgrill frontier "
               f"{spec_arg(prog.path)}`)")
    else:
        nxt = f"ask the next frontier (`mdgrill frontier {spec_arg(prog.path)}`)"
    return Transition(change, {"choice": choice, "open": frontier.open, "next": nxt})


def domain_language(data: dict[str, object], prog: Progress, term: str,
                    definition: str) -> Change:
    """The `Domain language:` line a `term add --spec` adds to the open round, if one is open."""
    change = Change()
    iv = data.get("interview")
    if isinstance(iv, dict) and iv.get("status") == "collecting" and \
            current_round_block(prog, iv) is not None:
        change.append_lines.append(f"- Domain language: {single_line(term, 'term')} -> "
                                   f"{single_line(definition, '--definition')}")
    return change
