"""`classify-reply`: what a reply is, read by `services.replies` (no spec is written, and
the interview's state machine is not imported)."""

from __future__ import annotations

import argparse

from mdgrill.cli.verbs import Outcome, Verb
from mdgrill.services.replies import classify_reply


def _classify_reply_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--text", required=True, metavar="T", help="the user's reply, verbatim")
    p.add_argument("--spec", metavar="SPEC", help="with --decision-id: read the decision's "
                   "options, so a label or number is recognised as that option")
    p.add_argument("--decision-id", metavar="ID", help="with --spec: the decision the "
                   "reply answers")
    p.add_argument("--option", action="append", default=[], metavar="T",
                   help="an option of the decision (instead of --spec); --recommend N marks "
                   "the recommended one")
    p.add_argument("--recommend", type=int, metavar="N", help="with --option: the number "
                   "of the recommended option (1 for the first)")


def _classify_reply(args: argparse.Namespace) -> Outcome:
    spec = None
    if args.spec is not None:  # a reply is classified without a spec as a rule: no store then
        from mdgrill.shell import store

        spec = store.resolve_spec(args.spec, args.root)
    done = classify_reply(args.text, spec=spec, decision_id=args.decision_id,
                          options=args.option, recommend=args.recommend)
    return Outcome(done.data, done.classification)


VERBS = (
    Verb("classify-reply", "Classify a reply: substantive, control_only, bare_skip, stop, "
         "skip_decision, ...",
         _classify_reply_arguments, _classify_reply),
)
