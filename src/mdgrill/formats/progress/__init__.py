"""`.progress.md`: read its layout (front matter, sections, design tree, log blocks) and write it.

Reading is in two depths. `read_progress` scans headings only (cheap: what every command
needs); nodes and block entries are parsed when asked for. Writing appends blocks and lines
at the end of `## Interview Responses` and splices front matter values, so every other byte
of the file stays as it was.
"""

from __future__ import annotations

from mdgrill.formats.progress.blocks import (
    _BLOCK_FLUSH as _BLOCK_FLUSH,
)
from mdgrill.formats.progress.blocks import (
    _CR_RUN_LF as _CR_RUN_LF,
)
from mdgrill.formats.progress.blocks import (
    _H3 as _H3,
)
from mdgrill.formats.progress.blocks import (
    _H3_ANY as _H3_ANY,
)
from mdgrill.formats.progress.blocks import (
    _H3_FLUSH as _H3_FLUSH,
)
from mdgrill.formats.progress.blocks import (
    _H3_INDENTED as _H3_INDENTED,
)
from mdgrill.formats.progress.blocks import (
    _PHASES_SEEN as _PHASES_SEEN,
)

# The package's names, as `mdgrill.formats.progress` has always offered them.
from mdgrill.formats.progress.blocks import (
    ROUND_EDITED_HINT as ROUND_EDITED_HINT,
)
from mdgrill.formats.progress.blocks import (
    _heading_text as _heading_text,
)
from mdgrill.formats.progress.blocks import (
    _last_h3 as _last_h3,
)
from mdgrill.formats.progress.blocks import (
    _phase_of as _phase_of,
)
from mdgrill.formats.progress.blocks import (
    block_heading as block_heading,
)
from mdgrill.formats.progress.blocks import (
    classify_block as classify_block,
)
from mdgrill.formats.progress.blocks import (
    lf_line_ends as lf_line_ends,
)
from mdgrill.formats.progress.blocks import (
    log_digest as log_digest,
)
from mdgrill.formats.progress.blocks import (
    normalize_log as normalize_log,
)
from mdgrill.formats.progress.blocks import (
    parse_bullets as parse_bullets,
)
from mdgrill.formats.progress.lines import (
    _NODE_ID_H3 as _NODE_ID_H3,
)
from mdgrill.formats.progress.lines import (
    _NODE_TUPLES as _NODE_TUPLES,
)
from mdgrill.formats.progress.lines import (
    ARTIFACT_WORDS as ARTIFACT_WORDS,
)
from mdgrill.formats.progress.lines import (
    BLOCK_HEADING as BLOCK_HEADING,
)
from mdgrill.formats.progress.lines import (
    BULLET as BULLET,
)
from mdgrill.formats.progress.lines import (
    GOAL as GOAL,
)
from mdgrill.formats.progress.lines import (
    KNOWN_SECTIONS as KNOWN_SECTIONS,
)
from mdgrill.formats.progress.lines import (
    LEGACY_HEADING as LEGACY_HEADING,
)
from mdgrill.formats.progress.lines import (
    LOG as LOG,
)
from mdgrill.formats.progress.lines import (
    NODE_HEADING as NODE_HEADING,
)
from mdgrill.formats.progress.lines import (
    SECTION_ALIASES as SECTION_ALIASES,
)
from mdgrill.formats.progress.lines import (
    SUB_BULLET as SUB_BULLET,
)
from mdgrill.formats.progress.lines import (
    TRANSITION_WORDS as TRANSITION_WORDS,
)
from mdgrill.formats.progress.lines import (
    TREE as TREE,
)
from mdgrill.formats.progress.lines import (
    Block as Block,
)
from mdgrill.formats.progress.lines import (
    Entry as Entry,
)
from mdgrill.formats.progress.lines import (
    Node as Node,
)
from mdgrill.formats.progress.lines import (
    NodeInfo as NodeInfo,
)
from mdgrill.formats.progress.lines import (
    Option as Option,
)
from mdgrill.formats.progress.lines import (
    section_key as section_key,
)
from mdgrill.formats.progress.lines import (
    split_ids as split_ids,
)
from mdgrill.formats.progress.reader import (
    Progress as Progress,
)
from mdgrill.formats.progress.reader import (
    read_progress as read_progress,
)
from mdgrill.formats.progress.writer import (
    Change as Change,
)
from mdgrill.formats.progress.writer import (
    _block_count as _block_count,
)
from mdgrill.formats.progress.writer import (
    _drop_leading_blank as _drop_leading_blank,
)
from mdgrill.formats.progress.writer import (
    _end_of_content as _end_of_content,
)
from mdgrill.formats.progress.writer import (
    _shift_span as _shift_span,
)
from mdgrill.formats.progress.writer import (
    _tree_insertion as _tree_insertion,
)
from mdgrill.formats.progress.writer import (
    apply_change as apply_change,
)
from mdgrill.formats.progress.writer import (
    single_line as single_line,
)
