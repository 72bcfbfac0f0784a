"""`mdgrill <verb>`: parse arguments, call one command function, print its outcome.

Only the invoked verb's module is imported and only its sub-parser is built, so a call costs
what that verb needs (the verbs an agent calls at every step import neither git, watchdog,
mistune nor PyYAML).
"""

from __future__ import annotations

import gc
import os
import sys

from mdgrill.errors import InputError, MdgrillError

# argparse and what it loads (re, enum, gettext, locale: objects that live as long as the
# process) are imported with the cycle collector paused, as main() pauses it for the verb:
# its passes over them freed nothing and cost every verb ~1% (1.5 M instructions)
_COLLECTING = gc.isenabled()
gc.disable()
try:
    import argparse
finally:
    if _COLLECTING:
        gc.enable()

# `typing` costs 3 ms a call to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

    from mdgrill.cli.verbs import Outcome, Verb

# verb -> (module under mdgrill.cli.verbs, one-line help): the lazy map start-up needs, so
# `mdgrill --help` lists every verb without importing any of them. Each verb is declared in its
# module's VERBS table (arguments and handler); tests/test_cli.py holds the two in step.
VERBS: dict[str, tuple[str, str]] = {
    "init": ("content", "Create a spec's .progress.md from the template."),
    "mode": ("interview", "Show or set the spec's mode (--quick or --interactive, exactly)."),
    "record-skill-load": ("interview",
        "Record the skill-load manifest (JSON) after checking each file's sha256."),
    "begin-interview": ("interview",
        "Begin (or resume) the phase interview; records the context digest."),
    "ask": ("rounds",
        "Open the round the gate requires and print it as AskUserQuestion's payload."),
    "answer": ("rounds",
        "Record what the question tool returned (or the user's reply) against each decision."),
    "questionnaire": ("rounds",
        "Write the open round as questions.md, to answer in an editor (ticks or own words)."),
    "collect": ("rounds", "Record the answers filled in questions.md, as `answer` records them."),
    "open-frontier": ("interview",
        "Ask decisions: open the current or next round and record its Asked line."),
    "record-answer": ("interview", "Record the user's substantive answer to one pending decision."),
    "record-fact": ("interview", "Record a fact found in the code or docs in the open round."),
    "out-of-scope": ("interview",
        "Record that the user placed an asked decision out of scope (--reply: their words)."),
    "record-stop": ("interview",
        "Record the user's answer to Ready to build? (ship, keep-asking, refine)."),
    "classify-reply": ("replies",
        "Classify a reply: substantive, control_only, bare_skip, stop, skip_decision, ..."),
    "await-confirmation": ("interview", "Close the rounds and present the approach for approval."),
    "confirm": ("interview", "Record the user's approval (approve-and-delegate) and commit it."),
    "approve": ("interview", "Show the brief on your own terminal and record your selection "
                "there (the `terminal` channel)."),
    "skip": ("interview",
        "Skip the remaining decisions with recorded assumptions (needs confirm)."),
    "revise": ("interview", "Reopen decisions (and their answered dependents) after the brief."),
    "cancel": ("interview", "Record the user's Cancel: the interview stays open, no delegation."),
    "amend": ("interview",
        "Correct a recorded answer's wording (an Amended block; the log stays append-only); "
        "another option or meaning is a `revise`."),
    "reopen": ("interview",
        "Go back to an earlier phase: set aside the approvals since, recorded and committed."),
    "check-delegation": ("interview", "Allow delegation only for an approved, current interview."),
    "digest": ("interview", "Print the context digest the spec's phase would record now."),
    "node": ("content", "Edit the design tree: `node add SPEC ID --title T ...`."),
    "frontier": ("content", "Show the open, unblocked decisions in batches of at most four."),
    "term": ("glossary", "Edit the glossary: `term add TERM --definition T ...`."),
    "validate": ("validate",
        "Check specs, glossaries and prompts; print diagnostics (exit 1 on errors)."),
    "status": ("views", "One screen on a spec: phase, interview, pending questions, frontier."),
    "tree": ("views", "Draw the design tree as text or as a Mermaid diagram."),
    "ledger": ("views",
        "List decisions as an elicitation ledger (E1 [section] question = answer)."),
    "lint": ("views", "Glossary lint: _Avoid_ words used in the design tree and the artifacts."),
    "log": ("history", "List the approved transitions of a spec from git commit trailers."),
    "review": ("history", "Print the rounds and terms added between two revisions, for a PR."),
    "report": ("history",
        "One spec's whole interview as a self-contained HTML page or a PR comment."),
    "verify": ("history", "Walk git history: fail where a recorded block or term was changed."),
    "watch": ("watching", "Revalidate specs on every save; report what broke and what healed."),
    "restore": ("watching", "Put back recorded blocks a bad edit lost, from the last good copy."),
    "merge-file": ("merging",
        "git's merge driver for the spec files: BASE OURS THEIRS PATH (see "
        "install-merge-driver)."),
    "merge": ("merging", "Merge conflicted spec files again, or seal the conflicts you "
              "resolved."),
    "install-merge-driver": ("merging",
        "Route spec files' merges to mdgrill: git config and .gitattributes."),
    "import-ralph": ("ralph", "Turn a smart-ralph spec folder (either layout) into mdgrill's "
                     "format."),
    "import-speckit": ("speckit",
        "Turn a spec-kit spec.md's clarify sessions into rounds (spec.md is not touched)."),
    "export-speckit": ("speckit",
        "Write the answered decisions into spec.md's ## Clarifications, spec-kit's shape."),
    "hook": ("hook", "Agent hooks: `hook pretooluse` gates Task calls on check-delegation."),
    "lsp": ("lsp", "Serve diagnostics, hovers and the outline to editors over LSP "
            "(needs the lsp extra)."),
    "mcp": ("mcp", "Serve the interview verbs as MCP tools over stdio (needs the mcp extra)."),
    "demo": ("demo", "Run a complete scripted interview in a throw-away git repository."),
    "bind": ("bindings", "Bind a settled decision to the code and docs that carry it out."),
    "drift": ("bindings",
        "Check bound code and docs: exit 1 when one changed in substance since its binding."),
    "reaffirm": ("bindings",
        "Record the owner's word on a drifted decision: still holds, revise, change was wrong."),
    "why": ("bindings", "Show the decisions bound to a file, symbol or section, and who "
            "approved them."),
    "await-artifact-approval": ("artifact", "Submit the phase artifact for the user's approval."),
    "approve-artifact": ("artifact", "Record the artifact's approval and advance the phase."),
    "request-revision": ("artifact",
        "Record the user's feedback on the artifact; the gate stays open."),
    "resolve-approval": ("artifact",
        "Map a free-text reply to the one live approval action, or ask."),
}

# `mdgrill --help` lists the verbs by task, the groups in the order a user meets them and the
# most used verbs first in each; every verb of VERBS is in exactly one group
# (tests/test_cli.py). A list of its own, beside VERBS, so a verb's line stays one line.
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("run an interview", ("init", "begin-interview", "ask", "status", "frontier", "demo",
                          "mode", "record-skill-load", "digest")),
    ("answering (`answer` and `collect` for people; the rest for scripts and corrections)",
     ("answer", "questionnaire", "collect", "record-fact", "out-of-scope", "record-stop",
      "amend", "classify-reply", "open-frontier", "record-answer")),
    ("approval and delegation", ("await-confirmation", "confirm", "approve",
                                 "check-delegation", "revise",
                                 "cancel", "skip", "resolve-approval", "await-artifact-approval",
                                 "request-revision", "approve-artifact", "reopen")),
    ("the design tree and the glossary", ("node", "tree", "ledger", "term", "lint")),
    ("decisions bound to the code", ("bind", "why", "drift", "reaffirm")),
    ("review and history", ("review", "report", "log", "verify")),
    ("files and checks", ("validate", "watch", "restore", "merge", "install-merge-driver",
                          "merge-file")),
    ("integrations", ("hook", "mcp", "lsp", "import-ralph", "import-speckit",
                      "export-speckit")),
)

DESCRIPTION = """\
mdgrill keeps an AI agent's requirements interview (a "grill") in Markdown: the record in
.progress.md front matter, the design tree and the append-only rounds in its body, the
glossary in CONTEXT.md. Every verb takes --json (one JSON object on stdout).

the loop: init, node add (each open decision), begin-interview, then ask / answer until
answer says await-confirmation; confirm the user's explicit `Approve and delegate`;
check-delegation before handing work on. `mdgrill demo` shows it; `mdgrill VERB --help`
explains every option.

exit codes: 0 done/allowed/valid, 1 files have errors (validate, verify, lint) or a bound
target drifted (drift), 2 bad input (nothing written), 3 refused by the gate, 70 a defect of
mdgrill (its traceback is logged)."""


class _Append(argparse.Action):
    """`action="append"` without argparse's copy of the list on every occurrence, which made
    10,000 `--decision-id` flags take seconds (quadratic)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        items = getattr(namespace, self.dest, None)
        if items is None or items is self.default:
            items = list(items or [])
            setattr(namespace, self.dest, items)
        items.append(values)


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Help laid out to the terminal's width, found without importing shutil (argparse's own
    default imports it on every run: 2 ms for a width only --help needs)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, width or _help_width())


def _help_width() -> int:
    try:
        width = int(os.environ.get("COLUMNS", "")) or os.get_terminal_size().columns
    except (ValueError, OSError):
        width = 80
    return width - 2


class Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so usage errors honour --json."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.register("action", "append", _Append)
        self.intermixed = False  # a verb's positionals may come after its options (bind)
        self._mixing = False

    def parse_known_args(  # type: ignore[override]
            self, args: list[str] | None = None,
            namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        if self.intermixed and not self._mixing:
            # `bind SPEC --decision-id D1 TARGET...`: positionals on both sides of an option,
            # which plain argparse reads as unrecognized arguments
            self._mixing = True
            try:
                return super().parse_known_intermixed_args(args, namespace)
            finally:
                self._mixing = False
        # argparse looks for the next option with a scan of every option's index, once per
        # option: quadratic in the number of flags (10,000 `--decision-id` took 8 s). Beyond a
        # few dozen, repeats of an append flag are taken out here and added after parsing.
        folded: dict[str, list[str]] = {}
        if args is not None and len(args) > 64:
            args, folded = self._fold_repeats(args)
        parsed, rest = super().parse_known_args(args, namespace)
        for dest, values in folded.items():
            getattr(parsed, dest).extend(values)
        return parsed, rest

    def _fold_repeats(self, args: list[str]) -> tuple[list[str], dict[str, list[str]]]:
        flags = {option: action.dest for action in self._actions if isinstance(action, _Append)
                 for option in action.option_strings}
        kept: list[str] = []
        folded: dict[str, list[str]] = {}
        seen: set[str] = set()
        i = 0
        while i < len(args):
            token = args[i]
            if token == "--":
                kept.extend(args[i:])
                break
            dest = flags.get(token)
            if dest is not None and i + 1 < len(args) and dest in seen:
                folded.setdefault(dest, []).append(args[i + 1])
                i += 2
                continue
            if dest is not None:
                seen.add(dest)
            kept.append(token)
            i += 1
        return kept, folded

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> object:
        # argparse drops a `--` given as an option's own value (`--answer=--`), which left a
        # one-value option holding an empty list (a crash further on): it is the text `--`
        if action.option_strings and action.nargs is None and arg_strings == ["--"]:
            value = self._get_value(action, "--")
            self._check_value(action, value)
            return value
        return super()._get_values(action, arg_strings)

    def error(self, message: str) -> None:  # type: ignore[override]
        if message.startswith("argument <command>: invalid choice: "):
            # argparse lists all fifty verbs; one close match says more
            import difflib

            word = message.split("'")[1] if "'" in message else ""
            close = difflib.get_close_matches(word, list(VERBS), n=1)
            message = f"unknown command {word!r}" + (f": did you mean `{close[0]}`?"
                                                      if close else "")
        raise InputError("USAGE", f"{self.prog}: {message} (see `{self.prog} --help`)")


def _top_parser(verbs: list[str]) -> tuple[Parser, argparse._SubParsersAction[Parser]]:
    parser = Parser(prog="mdgrill", description=DESCRIPTION, allow_abbrev=False,
                    formatter_class=_Formatter,
                    usage="mdgrill [-h] [--root DIR] [--json] [--version] <command> ...")
    parser.add_argument("--root", metavar="DIR", help="repository root (default: found from the "
                        "spec or the working directory)")
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument("--version", action="version", version=_version())
    # the verbs are listed by task in the epilog (grouped_verbs), not as argparse's one list
    sub = parser.add_subparsers(dest="verb", metavar="<command>", parser_class=Parser,
                                prog="mdgrill", help=argparse.SUPPRESS)
    for verb in verbs:
        sub.add_parser(verb, add_help=False)  # placeholders: the choices a verb is checked in
    if verbs:
        parser.epilog = grouped_verbs()
    return parser, sub


def grouped_verbs(width: int | None = None) -> str:
    """The verbs of GROUPS, one line each with its help, wrapped to the terminal's width."""
    import textwrap

    width = width or _help_width()
    column = max(len(verb) for verb in VERBS) + 4
    lines: list[str] = []
    for title, verbs in GROUPS:
        lines += ["", f"{title}:"]
        for verb in verbs:
            lines += textwrap.wrap(VERBS[verb][1], width, initial_indent=f"  {verb:<{column - 2}}",
                                   subsequent_indent=" " * column)
    return "\n".join(lines).lstrip("\n")


def _version() -> str:
    from mdgrill import __version__

    return f"mdgrill {__version__}"


def _verb_of(argv: list[str]) -> str | None:
    skip_next = False
    for token in argv:
        if skip_next:
            skip_next = False
            continue
        if token == "--root":
            skip_next = True
            continue
        if token.startswith("-"):
            continue
        return token
    return None


def build_parser(verb: str | None) -> Parser:
    """The top parser with the full sub-parser of `verb` only (all verbs listed for --help)."""
    if verb not in VERBS:
        parser, _ = _top_parser(list(VERBS))
        return parser
    parser, sub = _top_parser([])
    help_text = VERBS[verb][1]
    p = sub.add_parser(verb, help=help_text, description=help_text, allow_abbrev=False,
                       formatter_class=_Formatter)
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                   help="print one JSON object on stdout")
    p.add_argument("--root", metavar="DIR", default=argparse.SUPPRESS,
                   help="repository root (as before the verb)")
    declared(verb).arguments(p)
    return parser


def declared(verb: str) -> Verb:
    """The entry of `verb` in its module's VERBS table (importing that module only)."""
    table: tuple[Verb, ...] = _module(VERBS[verb][0]).VERBS
    return next(entry for entry in table if entry.name == verb)


def _module(name: str) -> ModuleType:
    # the builtin __import__, not importlib (its package is one more import a call pays);
    # a non-empty fromlist makes it return the verb module itself
    return __import__(f"mdgrill.cli.verbs.{name}", fromlist=("VERBS",))


# The verbs that serve for hours: they keep the cycle collector on. With it off for their
# whole life the MCP server grew 68 -> 370 MB over 1,000 calls and the LSP 50 -> 755 MB over
# 600 changes; with it on, 89 and 58 MB at the same latency.
LONG_LIVED = frozenset({"watch", "mcp", "lsp"})


def main(argv: list[str] | None = None) -> int:
    args_list = sys.argv[1:] if argv is None else list(argv)
    verb = _verb_of(args_list)
    # A short verb is one process: the cycle collector would only walk objects that are freed
    # anyway (15 ms of validating 10,000 rounds).
    pause_gc = verb not in LONG_LIVED and gc.isenabled()
    if pause_gc:
        gc.disable()
    try:
        return _main(args_list, verb)
    finally:
        if pause_gc:
            gc.enable()


# sysexits.h's EX_IOERR: the output could not be written (a full disk, a reader gone away),
# never 1, which says the files have errors (`validate | head` in a script tells them apart)
OUTPUT_FAILED = 74


def entry() -> None:
    """The console script: main(), and its exit code."""
    _closed_streams()
    args = sys.argv[1:]
    verb = _verb_of(args)
    short = verb not in LONG_LIVED
    if short:
        # a short verb's process keeps the cycle collector paused to its end: main() would
        # turn it back on after the verb, and the next allocation would then walk everything
        # the verb made, just before exit frees it
        gc.disable()
    if verb not in ("mcp", "lsp"):  # the servers speak their protocol's bytes themselves
        _speakable_stdout("--json" in args or verb == "hook")
    try:
        code = main()
        if not sys.stdout.closed:  # the LSP server closes stdout when the editor says `exit`
            sys.stdout.flush()
    except OSError as exc:  # only the output is written past main()'s own boundary
        code = _output_failed(exc)
    # the process ends here: the collector's pass at exit would only walk what exit frees
    # anyway (argparse's parsers, no finalizer among them): 2-4% of a verb's instructions
    gc.disable()
    if short:
        # and what lives now lives to the end: frozen, it is skipped by the three passes the
        # interpreter makes as it tears the modules down (5% of a short verb), which find no
        # finalizer to run (mdgrill has none; its files are closed by `with`)
        gc.freeze()
    sys.exit(code)


def _closed_streams() -> None:
    """A process started with standard output or error closed (`>&-`, `2>&-`): Python gives
    it None for the stream, and every write of it was an AttributeError (exit 1, a
    traceback). Standard error closed: what it would say goes nowhere. Standard output
    closed: no verb's answer could be read, so none runs (nothing is written) and the exit
    is OUTPUT_FAILED, as for output refused."""
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - to the end
    if sys.stdout is None:
        sys.stderr.write("mdgrill: error OUTPUT_FAILED: standard output is closed; nothing "
                         "was done (give the command somewhere to write, e.g. > /dev/null)\n")
        sys.exit(OUTPUT_FAILED)


def _speakable_stdout(json_out: bool) -> None:
    """Let standard output carry any text where its encoding is not UTF-8 (`PYTHONIOENCODING=
    ascii`, a non-UTF-8 locale): JSON is written in UTF-8 anyway (RFC 8259 asks it of JSON
    between systems, and `\\xe9` would not be JSON), text in the stream's encoding with what
    it cannot hold escaped (`Caf\\xe9`), never a UnicodeEncodeError after the work is done."""
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("_", "-")
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if encoding in ("utf-8", "utf8") or reconfigure is None:
        return
    if json_out:
        reconfigure(encoding="utf-8")
    else:
        reconfigure(errors="backslashreplace")


def _output_failed(exc: OSError, after: str | None = None) -> int:
    """Exit OUTPUT_FAILED when the output could not be written: one line on standard error
    (none for a reader that went away, `mdgrill log | head`), no traceback. `after`: what the
    line says after the reason, where a verb knows better than the common words."""
    try:
        # Python would report the failed flush of stdout again at exit: point it at nothing
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor behind it: nothing is flushed at exit
        pass
    if not isinstance(exc, BrokenPipeError):
        try:  # noqa: SIM105 - contextlib is an import a verb's start-up does without
            if after is None:
                after = ("a change the command makes to a spec was still written (`mdgrill "
                         "status SPEC` shows the state)")
            sys.stderr.write(f"mdgrill: error OUTPUT_FAILED: the output could not be written "
                             f"({exc.strerror or exc}); {after}\n")
        except OSError:
            pass
    return OUTPUT_FAILED


def _main(args_list: list[str], verb: str | None) -> int:
    want_json = "--json" in args_list
    try:
        _require_text(args_list)
        parser = build_parser(verb)
        if verb is None and not any(a in ("-h", "--help", "--version") for a in args_list):
            parser.print_help(sys.stderr)
            return 2
        args = parser.parse_args(args_list)
        want_json = bool(getattr(args, "json", False))
        if args.root is not None and not os.path.isdir(args.root):
            raise InputError("NOT_FOUND", f"--root {args.root} is not a folder")
        outcome: Outcome = declared(args.verb).run(args)
    except MdgrillError as exc:
        return _fail(exc, want_json)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # a verb writing as it goes, its reader gone: as for the result
        raise
    except Exception as exc:  # the boundary: a defect of ours is exit 70, never 1
        from mdgrill.cli.verbs import OutputFailed

        if isinstance(exc, OutputFailed):  # what a verb printed as it went was refused
            return _output_failed(exc.error, exc.after)
        return _fail(_internal(exc, args_list), want_json)
    _emit(outcome, want_json)
    return outcome.exit_code


def _internal(exc: BaseException, args_list: list[str]) -> MdgrillError:
    """An unexpected exception as the INTERNAL error (exit 70, EX_SOFTWARE): its traceback goes
    to a log file the message names, as pre-commit does, so the user has something to report
    and the agent reading --json still gets one JSON object."""
    from mdgrill.errors import InternalError

    where = _write_crash_log(exc, args_list)
    told = f"the traceback is in {where}" if where else "no log could be written"
    return InternalError(f"an unexpected {type(exc).__name__} in mdgrill ({exc}): this is a "
                         f"defect of mdgrill, not of your files; {told}. Please report it "
                         "with that file.", log=where)


def _write_crash_log(exc: BaseException, args_list: list[str]) -> str | None:
    import time
    import traceback

    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    text = (f"mdgrill {_version()} at {time.strftime('%Y-%m-%dT%H:%M:%S%z')}\n"
            f"argv: {args_list!r}\n\n"
            + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    import tempfile

    for folder in (os.path.join(base, "mdgrill"), tempfile.gettempdir()):
        try:
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, "mdgrill-crash.log")
            with open(path, "a", encoding="utf-8", errors="backslashreplace") as log:
                log.write(text + "\n")
            return path
        except OSError:
            continue
    return None


def _require_text(args: list[str]) -> None:
    """Refuse an argument that is not valid UTF-8 (Python hands such bytes over as lone
    surrogates, which no file or JSON output can hold): before anything is read or written."""
    for index, arg in enumerate(args, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError("INVALID_INPUT", f"argument {index} is not valid UTF-8 text: "
                             "pass it in UTF-8 (nothing was written)") from None


def _emit(outcome: Outcome, want_json: bool) -> None:
    if want_json:
        import json

        payload: dict[str, object] = {"ok": outcome.exit_code == 0}
        payload.update(outcome.result)
        sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
    elif outcome.text:
        sys.stdout.write(outcome.text if outcome.text.endswith("\n") else outcome.text + "\n")


def _fail(exc: MdgrillError, want_json: bool) -> int:
    if want_json:
        import json

        sys.stdout.write(json.dumps({"ok": False, "error": exc.to_json()},
                                    ensure_ascii=False) + "\n")
    else:
        sys.stderr.write(f"mdgrill: error {exc.code}: {exc.message}\n")
    return exc.exit_code


if __name__ == "__main__":  # `python -m mdgrill.cli.main` is `mdgrill`, not a silent no-op
    entry()
