"""`mdgrill demo [DIR]`: a complete scripted interview in a throw-away git repository."""

from __future__ import annotations

import argparse
import io
import os
import shlex
import subprocess
import sys

from mdgrill.cli.verbs import Outcome
from mdgrill.errors import InputError

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


# (rule the step shows, in our words; mdgrill argv; the exit code it must give)
Step = tuple[str, list[str], int]


def _script() -> list[Step]:  # noqa: PLR0915 - a script reads best as one list
    """The demo, in order. Each rule is what the interview framework asks at that step."""
    s = SPEC
    return [
        ("A spec is a folder; its .progress.md keeps the whole interview.",
         ["init", s, "--goal", "Let customers apply one promo code at checkout.",
          "--required-section", "pricing", "--required-section", "scope"], 0),
        ("The agent turns the open questions into a design tree: each decision has an ID, its "
         "dependencies, 2-4 options and a recommended first option.",
         ["node", "add", s, "D1", "--title", "Who can use a promo code?", "--section", "scope",
          "--option", "Every customer: simplest", "--option", "Signed-in customers only",
          "--recommend", "1", "--rationale", "guest checkout is half of all orders"], 0),
        ("", ["node", "add", s, "D2", "--title", "What does a code take off?", "--section",
              "pricing", "--option", "A percentage of the subtotal", "--option",
              "A fixed amount", "--option", "Either, per code", "--recommend", "3"], 0),
        ("", ["node", "add", s, "D3", "--title", "Before or after tax?", "--section", "pricing",
              "--depends-on", "D2", "--option", "Before tax: matches the law here",
              "--option", "After tax", "--recommend", "1"], 0),
        ("", ["node", "add", s, "D4", "--title", "Stack with other offers?", "--section",
              "pricing", "--option", "No", "--option", "Yes"], 0),
        ("The frontier is every open decision whose dependencies are settled: D1, D2 and D4 "
         "(D3 waits for D2).", ["frontier", s], 0),
        ("Each phase's interview begins by recording the context it is asked on (a digest of "
         "the goal and research.md).",
         ["begin-interview", s, "--phase", "requirements", "--interview-id", "req-1"], 0),
        ("Round 1 asks the whole frontier at once (a question call holds up to four).",
         ["open-frontier", s, "--round", "1", "--decision-id", "D1", "--decision-id", "D2",
          "--decision-id", "D4"], 0),
        ("Facts come from the repository, never from the user.",
         ["record-fact", s, "prices are computed in src/pricing/cart.py"], 0),
        ("A reply that only says go on (`proceed`) answers nothing: refused, the round is "
         "asked again.", ["record-answer", s, "--decision-id", "D1", "--answer", "proceed"], 3),
        ("An option's number is that option: `1` records `Every customer`.",
         ["record-answer", s, "--decision-id", "D1", "--answer", "1"], 0),
        ("", ["record-answer", s, "--decision-id", "D2", "--answer", "Either, per code"], 0),
        ("`skip this` leaves one decision: nothing is recorded until the user says which way.",
         ["record-answer", s, "--decision-id", "D4", "--answer", "skip this"], 3),
        ("The user places D4 out of scope, in their own words.",
         ["out-of-scope", s, "--decision-id", "D4", "--reply",
          "Leave stacking out of this release"], 0),
        ("A term settled during the round goes into the owning context's glossary.",
         ["term", "add", "Promo Code", "--definition", "A short code a customer enters at "
          "checkout to get a discount.", "--avoid", "coupon", "--avoid", "voucher",
          "--context", "Ordering", "--spec", s], 0),
        ("An answer can raise a sub-question: it joins the tree at once, spawned by D2.",
         ["node", "add", s, "D5", "--title", "Can a code expire?", "--section", "pricing",
          "--spawned-by", "D2", "--option", "Yes, with an end date", "--option", "No",
          "--recommend", "1"], 0),
        ("Round 2 asks the new frontier: the sub-question first, then D3, unblocked by D2.",
         ["frontier", s], 0),
        ("", ["open-frontier", s, "--round", "2", "--decision-id", "D5", "--decision-id", "D3"],
         0),
        ("`go with your recommendation` records the recommended option, with the user's words.",
         ["record-answer", s, "--decision-id", "D3", "--answer", "go with your recommendation"],
         0),
        ("", ["record-answer", s, "--decision-id", "D5", "--answer", "Yes, with an end date"], 0),
        ("No decision is left open: the agent presents the decision brief.",
         ["await-confirmation", s, "--decision-id", "C1", "--approach",
          "One code per order; percent or fixed; before tax; with expiry"], 0),
        ("`looks good` is not the approval selection: the question is asked again.",
         ["resolve-approval", s, "--text", "looks good"], 0),
        ("The user picks `Revise decisions` and changes D2: what depends on it is reopened too.",
         ["resolve-approval", s, "--text", "Revise decisions"], 0),
        ("", ["revise", s, "--decision-id", "D2"], 0),
        ("", ["record-answer", s, "--decision-id", "D2", "--answer",
              "A percentage of the subtotal"], 0),
        ("Round 4 asks again what D2's answer decided: D5 and D3.",
         ["open-frontier", s, "--round", "4", "--decision-id", "D5", "--decision-id", "D3"], 0),
        ("", ["record-answer", s, "--decision-id", "D5", "--answer", "Yes, with an end date"], 0),
        ("", ["record-answer", s, "--decision-id", "D3", "--answer", "Before tax"], 0),
        ("", ["await-confirmation", s, "--decision-id", "C2", "--approach",
              "One percentage code per order, before tax, with expiry"], 0),
        ("Only the explicit selection `Approve and delegate` approves; the approval is a commit.",
         ["confirm", s, "--decision-id", "C2", "--source", "approve-and-delegate", "--reply",
          "Approve and delegate (Recommended)"], 0),
        ("Before handing work on, the agent checks the gate.",
         ["check-delegation", s, "--phase", "requirements", "--interview-id", "req-1"], 0),
        ("The delegated agent writes requirements.md; its review is a separate gate.",
         ["!write", f"{s}/requirements.md", REQUIREMENTS], 0),
        ("", ["await-artifact-approval", s, "--artifact", f"{s}/requirements.md"], 0),
        ("", ["resolve-approval", s, "--text", "looks good but add an expiry date"], 0),
        ("", ["request-revision", s, "--feedback", "add that a code can expire"], 0),
        ("", ["!write", f"{s}/requirements.md", REQUIREMENTS + REQUIREMENTS_EXPIRY], 0),
        ("", ["await-artifact-approval", s, "--artifact", f"{s}/requirements.md"], 0),
        ("At the artifact gate a plain approval is enough.",
         ["resolve-approval", s, "--text", "Looks good, ship it!"], 0),
        ("", ["approve-artifact", s, "--source", "approve-artifact"], 0),
        ("Design phase: a new interview on the approved requirements.",
         ["begin-interview", s, "--phase", "design", "--interview-id", "design-1"], 0),
        ("", ["node", "add", s, "D6", "--title", "Where does the discount live?", "--section",
              "pricing", "--option", "A new pricing.discounts module", "--option",
              "Inside cart.py", "--recommend", "1"], 0),
        ("", ["open-frontier", s, "--round", "1", "--decision-id", "D6"], 0),
        ("The user answers a bare `skip`: the rest of the interview takes defaults.",
         ["classify-reply", "--text", "skip"], 0),
        ("A skip records its assumptions and still needs the explicit approval.",
         ["skip", s, "--reason", "the user wants a first design now", "--assumption",
          "the discount lives in a new pricing.discounts module", "--decision-id", "S1"], 0),
        ("", ["confirm", s, "--decision-id", "S1", "--source", "approve-and-delegate",
              "--reply", "Approve and delegate"], 0),
        ("", ["check-delegation", s, "--phase", "design", "--interview-id", "design-1"], 0),
        ("The spec, checked as CI checks it.", ["validate"], 0),
        ("", ["status", s], 0),
        ("", ["tree", s, "--format", "mermaid"], 0),
        ("History: the approvals, read from commit trailers.", ["log", s], 0),
        ("Pull request text of the rounds.", ["review", "{first}..HEAD"], 0),
        ("", ["verify"], 0),
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
    from mdgrill.cli import main as cli

    target = _prepare(args.dir)
    first = _git(target, "rev-parse", "HEAD")
    transcript: list[str] = []
    steps: list[dict[str, object]] = []
    old_cwd = os.getcwd()
    os.chdir(target)
    try:
        for what, argv, want in _script():
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
                transcript.append(f"(exit {code}{', as the rule says' if code == want else ''})")
            steps.append({"command": argv, "exit": code, "expected": want})
    finally:
        os.chdir(old_cwd)
    refused = [s for s in steps if s["exit"] != 0]
    ok = all(s["exit"] == s["expected"] for s in steps)
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
