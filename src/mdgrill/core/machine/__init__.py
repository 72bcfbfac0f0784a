"""The interview state machine: old record + command -> new record + lines to append, or a refusal.

Pure: no files, no git. The semantics are smart-ralph's `phase_gate.py` (docs/contract.md) with the
state kept in `.progress.md`; each transition also says what the log gains.
"""

from __future__ import annotations

from mdgrill.lazy import lazy_names

# `from mdgrill.core import machine` (or `from mdgrill.core.machine import X`) loads the
# module of each name on first use, not all four: begin-interview does not pay for the
# rounds' reply classifier, nor record-answer for the closing transitions. Type checkers
# treat this name as true and read the names from the imports below.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.core.machine.basics import (
        MAX_DECISIONS,
        ROUND_KEYS,
        close_round_lines,
        interview_of,
        next_confirmation_id,
        next_interview_id,
        require_fresh,
        require_id,
        require_phase,
        stale_context,
    )
    from mdgrill.core.machine.begin import (
        begin_interview,
        check_skills,
        record_skill_load,
        set_mode,
    )
    from mdgrill.core.machine.closing import (
        APPROVAL_OPTIONS,
        APPROVE_LABEL,
        answered_dependents,
        await_confirmation,
        cancel,
        check_delegation,
        confirm,
        revise,
        skip,
    )
    from mdgrill.core.machine.rounds import (
        amend,
        domain_language,
        open_frontier,
        out_of_scope,
        record_answer,
        record_fact,
        record_stop,
    )

__all__ = [
    "APPROVAL_OPTIONS",
    "APPROVE_LABEL",
    "MAX_DECISIONS",
    "ROUND_KEYS",
    "answered_dependents",
    "amend",
    "await_confirmation",
    "begin_interview",
    "cancel",
    "check_delegation",
    "check_skills",
    "close_round_lines",
    "confirm",
    "domain_language",
    "interview_of",
    "next_confirmation_id",
    "next_interview_id",
    "open_frontier",
    "out_of_scope",
    "record_answer",
    "record_fact",
    "record_skill_load",
    "record_stop",
    "require_fresh",
    "require_id",
    "require_phase",
    "revise",
    "set_mode",
    "skip",
    "stale_context",
]

_LAZY = {
    "MAX_DECISIONS": "basics",
    "ROUND_KEYS": "basics",
    "close_round_lines": "basics",
    "interview_of": "basics",
    "next_confirmation_id": "basics",
    "next_interview_id": "basics",
    "require_id": "basics",
    "require_phase": "basics",
    "begin_interview": "begin",
    "check_skills": "begin",
    "record_skill_load": "begin",
    "require_fresh": "basics",
    "set_mode": "begin",
    "stale_context": "basics",
    "APPROVAL_OPTIONS": "closing",
    "APPROVE_LABEL": "closing",
    "answered_dependents": "closing",
    "await_confirmation": "closing",
    "cancel": "closing",
    "check_delegation": "closing",
    "confirm": "closing",
    "revise": "closing",
    "skip": "closing",
    "amend": "rounds",
    "domain_language": "rounds",
    "open_frontier": "rounds",
    "out_of_scope": "rounds",
    "record_answer": "rounds",
    "record_fact": "rounds",
    "record_stop": "rounds",
}


__getattr__, __dir__ = lazy_names(__name__, {name: f"{__name__}.{module}" for name, module
                                                 in _LAZY.items()}, __all__)
