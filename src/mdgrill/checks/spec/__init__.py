"""What `validate` checks in a `.progress.md` and a glossary: parsed model -> diagnostics.

Pure: no files. Each check walks what `progress.Progress` already found (headings, blocks,
nodes) once, so the cost stays linear in the file's size. A file that cannot be read at all
(bad YAML, binary, too large) is one error diagnostic, never an exception.
"""

from __future__ import annotations

from mdgrill.lazy import lazy_names

# `from mdgrill.checks.spec import X` loads X's module on first use, not all five: a verb
# that checks the front matter alone does not pay for the tree's and the glossary's checks.
# Type checkers treat this name as true and read the names from the imports below.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.checks.spec.blocks import (
        check_blocks,
        next_round,
    )
    from mdgrill.checks.spec.entry import (
        check_phase_approval,
        check_progress,
        check_record_against_log,
        from_input_error,
        validate_progress_bytes,
        validate_progress_parsed,
    )
    from mdgrill.checks.spec.front import (
        check_front_matter,
        check_log_digest,
        check_sections,
        key_line,
    )
    from mdgrill.checks.spec.glossaries import (
        check_context_map_model,
        check_glossary_model,
        validate_glossary_bytes,
    )
    from mdgrill.checks.spec.keys import (
        BLOCK_KEYS,
        CLOSING_KEYS,
        MAX_OPTIONS,
        MIN_OPTIONS,
        NODE_KEYS,
        ROUND_KEYS,
    )
    from mdgrill.checks.spec.tree import (
        NodeChecks,
        check_ledger,
        check_nodes,
        ledger_ids,
    )

__all__ = [
    "BLOCK_KEYS",
    "CLOSING_KEYS",
    "MAX_OPTIONS",
    "MIN_OPTIONS",
    "NODE_KEYS",
    "ROUND_KEYS",
    "NodeChecks",
    "check_blocks",
    "check_context_map_model",
    "check_front_matter",
    "check_glossary_model",
    "check_ledger",
    "check_log_digest",
    "check_nodes",
    "check_phase_approval",
    "check_progress",
    "check_record_against_log",
    "check_sections",
    "next_round",
    "from_input_error",
    "key_line",
    "ledger_ids",
    "validate_glossary_bytes",
    "validate_progress_bytes",
    "validate_progress_parsed",
]

_LAZY = {
    "check_blocks": "blocks",
    "next_round": "blocks",
    "check_phase_approval": "entry",
    "check_progress": "entry",
    "check_record_against_log": "entry",
    "from_input_error": "entry",
    "validate_progress_bytes": "entry",
    "validate_progress_parsed": "entry",
    "check_front_matter": "front",
    "check_log_digest": "front",
    "check_sections": "front",
    "key_line": "front",
    "check_context_map_model": "glossaries",
    "check_glossary_model": "glossaries",
    "validate_glossary_bytes": "glossaries",
    "BLOCK_KEYS": "keys",
    "CLOSING_KEYS": "keys",
    "MAX_OPTIONS": "keys",
    "MIN_OPTIONS": "keys",
    "NODE_KEYS": "keys",
    "ROUND_KEYS": "keys",
    "NodeChecks": "tree",
    "check_ledger": "tree",
    "check_nodes": "tree",
    "ledger_ids": "tree",
}


__getattr__, __dir__ = lazy_names(__name__, {name: f"{__name__}.{module}" for name, module
                                                 in _LAZY.items()}, __all__)
