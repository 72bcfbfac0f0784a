"""Reading a reply without recording it: `classify-reply`.

Apart from `services.interview` because classifying a reply reads no state machine and
usually no spec: an agent calls it at every step, so it imports only the reply model.
"""

from __future__ import annotations

from mdgrill.services.result import Classified

# typing's import costs every verb 3 ms; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.shell import store


def classify_reply(text: str, *, spec: store.Spec | None = None,
                   decision_id: str | None = None, options: list[str] | None = None,
                   recommend: int | None = None) -> Classified:
    """What a reply is (substantive, control_only, bare_skip, stop, ...), split by question."""
    from mdgrill.model.replies import classify, overall, split_by_question

    chosen: list[str] = list(options or [])
    recommended = recommend
    if spec is not None:
        from mdgrill.core.machine import require_id
        from mdgrill.errors import InputError
        from mdgrill.shell.session import load

        if decision_id is None:
            raise InputError("USAGE", "--spec goes with --decision-id (the decision answered)")
        node = load(spec).node(require_id(decision_id))
        if node is not None:
            chosen, recommended = node.choices()
    result = classify(text, chosen, recommended).to_json()
    parts = split_by_question(text)
    if len(parts) > 1:
        classified = [(n, classify(part)) for n, part in parts]
        result["parts"] = [{"question": n, "text": part, **r.to_json()}
                           for (n, r), (_, part) in zip(classified, parts, strict=True)]
        result["classification"] = overall([r.kind for _, r in classified])
    return Classified("classify-reply", result)
