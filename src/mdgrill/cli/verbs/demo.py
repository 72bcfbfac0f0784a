"""`mdgrill demo [DIR]`: a complete scripted interview in a throw-away git repository."""

from __future__ import annotations

import argparse
import io
import os
import shlex
import subprocess
import sys

from mdgrill.cli.verbs import Outcome, Verb
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


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", nargs="?", help="an empty or new folder for the demo "
                   "repository (default: a new temporary folder)")
    p.add_argument("--quiet", action="store_true", help="print only the summary")


# (rule the step shows, in our words; mdgrill argv; the exit code it must give). Two more
# kinds of step act as the people around the agent: ["!reply", TEXT, *argv] runs argv with
# TEXT on stdin (the user's reply, relayed by the agent); ["!edit", FILE, OLD, NEW] is the
# user editing a file (the questionnaire) or the agent writing one (OLD empty: the whole file).
Step = tuple[str, list[str], int]


def _script() -> list[Step]:  # noqa: PLR0915 - a script reads best as one list
    """The demo, in order: the loop the plugin's skill runs (`ask`, the user's reply through
    `answer`; `questionnaire` and `collect` for a person in an editor). Each rule is what the
    interview framework asks at that step."""
    s = SPEC
    q = f"{s}/questions.md"
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
        ("`ask` opens round 1 with the whole frontier and prints it for the agent's question "
         "tool (here as text: `--format markdown`).", ["ask", s, "--format", "markdown"], 0),
        ("Facts come from the repository, never from the user.",
         ["record-fact", s, "prices are computed in src/pricing/cart.py"], 0),
        ("The user's reply goes to `answer` as it came. `proceed` only says go on: it answers "
         "nothing, and the round is asked again.",
         ["!reply", "proceed", "answer", s, "--tool-result", "-"], 0),
        ("A letter or number is the option shown there, an option's words are that option, and "
         "`skip this` leaves its question open until the user says which way.",
         ["!reply", "Q1: a\nQ2: Either, per code\nQ3: skip this",
          "answer", s, "--tool-result", "-"], 0),
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
        ("Round 2 asks the new frontier: the sub-question first, then D3, unblocked by D2. "
         "This time the user answers in an editor: `questionnaire` writes the round as a file.",
         ["questionnaire", s], 0),
        ("(the user ticks a box under D5 and writes their own words under D3, then saves)",
         ["!edit", q, "- [ ] Yes, with an end date", "- [x] Yes, with an end date"], 0),
        ("", ["!edit", q, "- [ ] After tax\n- Other:",
              "- [ ] After tax\n- Other: go with your recommendation"], 0),
        ("`collect` records the file as `answer` would; `go with your recommendation` records "
         "the recommended option, with the user's words.", ["collect", s], 0),
        ("No decision is left open: the agent presents the approach, and `ask` gives the "
         "approval question.",
         ["await-confirmation", s, "--decision-id", "C1", "--approach",
          "One code per order; percent or fixed; before tax; with expiry"], 0),
        ("", ["ask", s], 0),
        ("`looks good` is not the approval selection: `confirm` refuses it and the question is "
         "asked again.", ["confirm", s, "--decision-id", "C1", "--source",
                          "approve-and-delegate", "--reply", "looks good"], 3),
        ("The user picks `Revise decisions` and changes D2: what depends on it is reopened too.",
         ["revise", s, "--decision-id", "D2"], 0),
        ("", ["ask", s, "--format", "markdown"], 0),
        ("", ["!reply", "Q1: A percentage of the subtotal", "answer", s, "--tool-result", "-"],
         0),
        ("Round 4 asks again what D2's answer decided: D5 and D3.",
         ["ask", s, "--format", "markdown"], 0),
        ("", ["!reply", "Q1: a\nQ2: Before tax", "answer", s, "--tool-result", "-"], 0),
        ("The revised brief returns under the same confirmation ID.",
         ["await-confirmation", s, "--decision-id", "C1", "--approach",
          "One percentage code per order, before tax, with expiry"], 0),
        ("Only the explicit selection `Approve and delegate` approves; the approval is a commit.",
         ["confirm", s, "--decision-id", "C1", "--source", "approve-and-delegate", "--reply",
          "Approve and delegate (Recommended)"], 0),
        ("Before handing work on, the agent checks the gate.",
         ["check-delegation", s, "--phase", "requirements", "--interview-id", "req-1"], 0),
        ("The delegated agent writes requirements.md; its review is a separate gate.",
         ["!edit", f"{s}/requirements.md", "", REQUIREMENTS], 0),
        ("", ["await-artifact-approval", s, "--artifact", f"{s}/requirements.md"], 0),
        ("", ["resolve-approval", s, "--text", "looks good but add an expiry date"], 0),
        ("", ["request-revision", s, "--feedback", "add that a code can expire"], 0),
        ("", ["!edit", f"{s}/requirements.md", "", REQUIREMENTS + REQUIREMENTS_EXPIRY], 0),
        ("", ["await-artifact-approval", s, "--artifact", f"{s}/requirements.md"], 0),
        ("At the artifact gate a plain approval is enough.",
         ["resolve-approval", s, "--text", "Looks good, ship it!"], 0),
        ("", ["approve-artifact", s, "--source", "approve-artifact"], 0),
        ("Design phase: a new interview on the approved requirements.",
         ["begin-interview", s, "--phase", "design", "--interview-id", "design-1"], 0),
        ("", ["node", "add", s, "D6", "--title", "Where does the discount live?", "--section",
              "pricing", "--option", "A new pricing.discounts module", "--option",
              "Inside cart.py", "--recommend", "1"], 0),
        ("", ["ask", s, "--format", "markdown"], 0),
        ("The user answers a bare `skip`: it records no answer, and names the verb that takes "
         "defaults for the rest.", ["!reply", "skip", "answer", s, "--tool-result", "-"], 3),
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
            if argv[0] == "!edit":
                transcript.append(_edit(os.path.join(target, argv[1]), argv[1], *argv[2:]))
                continue
            reply = None
            if argv[0] == "!reply":
                reply, argv = argv[1], argv[2:]
                transcript.append("(the user replies)\n" + "\n".join(
                    f"  {line}" for line in reply.splitlines()))
            transcript.append("$ mdgrill " + " ".join(shlex.quote(a) for a in argv)
                              + (" < reply" if reply is not None else ""))
            code, out = _call(cli.main, argv, reply)
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


def _edit(path: str, shown: str, old: str, new: str) -> str:
    """A person's edit of a file (`old` replaced once by `new`), or a whole file written."""
    if not old:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(new)
        return f"(the agent writes {shown})"
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    if old not in text:
        return f"(could not edit {shown}: {old!r} is not in it)"
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text.replace(old, new, 1))
    return f"(edited {shown}: {new.splitlines()[-1].strip()!r})"


def _call(main: object, argv: list[str], stdin: str | None = None) -> tuple[int, str]:
    buffer = io.StringIO()
    old_out, old_err, old_in = sys.stdout, sys.stderr, sys.stdin
    sys.stdout = sys.stderr = buffer
    if stdin is not None:
        sys.stdin = io.StringIO(stdin + "\n")
    try:
        code = main(argv)  # type: ignore[operator]
    except Exception as exc:  # noqa: BLE001 - the demo reports a broken step and goes on
        buffer.write(f"internal error: {type(exc).__name__}: {exc}\n")
        code = 70
    finally:
        sys.stdout, sys.stderr, sys.stdin = old_out, old_err, old_in
    return int(code), buffer.getvalue()


VERBS = (
    Verb("demo", "Run a complete scripted interview in a throw-away git repository.",
         _arguments, run),
)
