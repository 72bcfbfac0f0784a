"""`mdgrill demo [DIR]`: a complete scripted interview in a throw-away git repository."""

from __future__ import annotations

import argparse
import io
import os
import shlex
import subprocess
import sys

from ..errors import InputError
from . import Outcome

RESEARCH = """# Research: checkout discounts

- Prices are computed in `src/pricing/cart.py`; there is no discount model yet.
- The payment provider accepts a negative line item for discounts.
"""
REQUIREMENTS = """# Requirements: checkout discounts

1. A customer can enter one promo code at checkout.
2. The discount applies to the order subtotal before tax.
"""
REQUIREMENTS_EXPIRY = """3. A code can carry an end date; after it the code is refused.
"""
CONTEXT_MAP = """# Context map

## Contexts

- [Ordering](contexts/ordering/CONTEXT.md): carts, orders and checkout
- [Billing](contexts/billing/CONTEXT.md): invoices, payments and refunds
"""

SPEC = "specs/checkout-discounts"


def configure(verb: str, p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", nargs="?", help="an empty or new folder for the demo "
                   "repository (default: a new temporary folder)")
    p.add_argument("--quiet", action="store_true", help="print only the summary")


def _script() -> list[tuple[str, list[str]]]:
    """(what is happening, mdgrill argv) in order."""
    s = SPEC
    return [
        ("Start a spec", ["init", s, "--goal", "Let customers apply one promo code at checkout.",
                          "--required-section", "pricing", "--required-section", "scope"]),
        ("The agent plans the design tree", ["node", "add", s, "D1", "--title", "Who can use a "
                                             "promo code?", "--section", "scope", "--option",
                                             "Every customer: simplest", "--option",
                                             "Signed-in customers only", "--recommend", "1"]),
        ("", ["node", "add", s, "D2", "--title", "What does a code take off?", "--section",
              "pricing", "--option", "A percentage of the subtotal", "--option",
              "A fixed amount", "--option", "Either, per code", "--recommend", "3"]),
        ("", ["node", "add", s, "D3", "--title", "Before or after tax?", "--section", "pricing",
              "--depends-on", "D2", "--option", "Before tax: matches the law here",
              "--option", "After tax", "--recommend", "1"]),
        ("", ["node", "add", s, "D4", "--title", "Stack with other offers?", "--section",
              "pricing", "--option", "No", "--option", "Yes"]),
        ("", ["frontier", s]),
        ("Requirements interview: round 1",
         ["begin-interview", s, "--phase", "requirements", "--interview-id", "req-1"]),
        ("", ["open-frontier", s, "--round", "1", "--decision-id", "D1", "--decision-id", "D2"]),
        ("", ["record-fact", s, "prices are computed in src/pricing/cart.py"]),
        ("A control-only reply is refused", ["record-answer", s, "--decision-id", "D1",
                                             "--answer", "ok"]),
        ("", ["record-answer", s, "--decision-id", "D1", "--answer", "Every customer"]),
        ("", ["record-answer", s, "--decision-id", "D2", "--answer", "Either, per code"]),
        ("Domain language goes to the owning context",
         ["term", "add", "Promo Code", "--definition", "A short code a customer enters at "
          "checkout to get a discount.", "--avoid", "coupon", "--avoid", "voucher",
          "--context", "Ordering", "--spec", s]),
        ("An answer spawns a sub-question",
         ["node", "add", s, "D5", "--title", "Can a code expire?", "--section", "pricing",
          "--spawned-by", "D2", "--option", "Yes, with an end date", "--option", "No",
          "--recommend", "1"]),
        ("Round 2", ["open-frontier", s, "--round", "2", "--decision-id", "D3",
                     "--decision-id", "D5"]),
        ("", ["record-answer", s, "--decision-id", "D3", "--answer", "Before tax"]),
        ("", ["record-answer", s, "--decision-id", "D5", "--answer", "Yes, with an end date"]),
        ("", ["out-of-scope", s, "--decision-id", "D4"]),
        ("The decision brief", ["await-confirmation", s, "--decision-id", "C1", "--approach",
                                "One code per order; percent or fixed; before tax; expiry"]),
        ("The user changes their mind on D2: revise",
         ["revise", s, "--decision-id", "D2"]),
        ("", ["record-answer", s, "--decision-id", "D2", "--answer",
              "A percentage of the subtotal only"]),
        ("", ["await-confirmation", s, "--decision-id", "C2", "--approach",
              "One percentage code per order, before tax, with expiry"]),
        ("The user approves: the approval is a commit",
         ["confirm", s, "--decision-id", "C2", "--source", "approve-and-delegate"]),
        ("", ["check-delegation", s, "--phase", "requirements", "--interview-id", "req-1"]),
        ("The delegated agent writes requirements.md; the user reviews it",
         ["!write", f"{s}/requirements.md", REQUIREMENTS]),
        ("", ["await-artifact-approval", s, "--artifact", f"{s}/requirements.md"]),
        ("", ["resolve-approval", s, "--text", "looks good but add an expiry date"]),
        ("", ["request-revision", s, "--feedback", "add that a code can expire"]),
        ("", ["!write", f"{s}/requirements.md", REQUIREMENTS + REQUIREMENTS_EXPIRY]),
        ("", ["await-artifact-approval", s, "--artifact", f"{s}/requirements.md"]),
        ("", ["resolve-approval", s, "--text", "Looks good, ship it!"]),
        ("", ["approve-artifact", s, "--source", "approve-artifact"]),
        ("Design phase: the user skips the interview with assumptions",
         ["begin-interview", s, "--phase", "design", "--interview-id", "design-1"]),
        ("", ["skip", s, "--reason", "the user wants a first design now", "--assumption",
              "reuse the existing pricing module", "--decision-id", "S1"]),
        ("", ["confirm", s, "--decision-id", "S1", "--source", "approve-and-delegate"]),
        ("", ["check-delegation", s, "--phase", "design", "--interview-id", "design-1"]),
        ("The spec, checked", ["validate"]),
        ("", ["status", s]),
        ("", ["tree", s, "--format", "mermaid"]),
        ("History: approvals from commit trailers", ["log", s]),
        ("Pull request text", ["review", "{first}..HEAD"]),
        ("", ["verify"]),
    ]


def _git(cwd: str, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


def _prepare(target: str | None) -> str:
    if target is None:
        import tempfile

        target = tempfile.mkdtemp(prefix="mdgrill-demo-")
    target = os.path.abspath(target)
    if os.path.exists(target) and os.listdir(target):
        raise InputError("NOT_EMPTY", f"{target} is not empty: the demo needs an empty or new "
                         "folder")
    os.makedirs(target, exist_ok=True)
    _git(target, "init", "-q")
    _git(target, "config", "user.name", "mdgrill demo")
    _git(target, "config", "user.email", "demo@example.invalid")
    _git(target, "config", "commit.gpgsign", "false")
    os.makedirs(os.path.join(target, SPEC), exist_ok=True)
    with open(os.path.join(target, "CONTEXT-MAP.md"), "w", encoding="utf-8") as handle:
        handle.write(CONTEXT_MAP)
    with open(os.path.join(target, SPEC, "research.md"), "w", encoding="utf-8") as handle:
        handle.write(RESEARCH)
    _git(target, "add", "-A")
    _git(target, "commit", "-q", "-m", "Start the checkout-discounts spec")
    return target


def run(args: argparse.Namespace) -> Outcome:
    from .. import cli

    target = _prepare(args.dir)
    first = _git(target, "rev-parse", "HEAD")
    transcript: list[str] = []
    steps: list[dict[str, object]] = []
    old_cwd = os.getcwd()
    os.chdir(target)
    try:
        for what, argv in _script():
            argv = [a.replace("{first}", first) for a in argv]
            if what:
                transcript.append(f"\n# {what}")
            if argv[0] == "!write":
                with open(os.path.join(target, argv[1]), "w", encoding="utf-8") as handle:
                    handle.write(argv[2])
                transcript.append(f"(the agent writes {argv[1]})")
                continue
            transcript.append("$ mdgrill " + " ".join(shlex.quote(a) for a in argv))
            code, out = _call(cli.main, argv)
            transcript.append(out.rstrip() if out.strip() else "")
            if code != 0:
                transcript.append(f"(exit {code})")
            steps.append({"command": argv, "exit": code})
    finally:
        os.chdir(old_cwd)
    refused = [s for s in steps if s["exit"] != 0]
    expected_refusals = 1  # the control-only answer
    ok = len(refused) == expected_refusals
    approvals = _git(target, "log", "--format=%h %s", "--grep=^Mdgrill-Transition:")
    summary = (f"\nDemo repository: {target}\n"
               f"{len(steps)} commands, {len(refused)} refused as scripted"
               f"{'' if ok else ' (UNEXPECTED failures above)'}.\n"
               f"{'The spec validates and' if ok else 'The spec'} carries "
               f"{len(approvals.splitlines())} approval commits:\n{approvals}\n"
               f"Read it: {os.path.join(target, SPEC, '.progress.md')}")
    text = summary if args.quiet else "\n".join(transcript) + "\n" + summary
    return Outcome({"repository": target, "steps": steps}, text, 0 if ok else 1)


def _call(main: object, argv: list[str]) -> tuple[int, str]:
    buffer = io.StringIO()
    old_out, old_err = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = buffer
    try:
        code = main(argv)  # type: ignore[operator]
    except Exception as exc:  # noqa: BLE001 - the demo reports a broken step and goes on
        buffer.write(f"internal error: {type(exc).__name__}: {exc}\n")
        code = 70
    finally:
        sys.stdout, sys.stderr = old_out, old_err
    return int(code), buffer.getvalue()
