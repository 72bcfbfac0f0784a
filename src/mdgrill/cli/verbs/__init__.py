"""One module per verb or group of verbs; each module lists its verbs in one table, `VERBS`,
of `Verb(name, help, arguments, run)`: `arguments(parser)` adds the verb's options and
`run(args) -> Outcome` does it. cli/main.py maps each name to its module without importing it."""

from __future__ import annotations

# `typing` costs 3 ms a call to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from mdgrill.diagnostics import Diagnostic
    from mdgrill.errors import InputError
    from mdgrill.shell import store


class Outcome:
    """What a verb returns: the JSON result, the human text, and the exit code."""

    __slots__ = ("result", "text", "exit_code")

    def __init__(self, result: dict[str, object], text: str = "", exit_code: int = 0) -> None:
        self.result = result
        self.text = text
        self.exit_code = exit_code


class Verb:
    """One verb: its name, its one-line help (the same as cli/main.py's map shows), how it
    adds its arguments to its sub-parser, and its handler."""

    __slots__ = ("name", "help", "arguments", "run")

    def __init__(self, name: str, help: str,
                 arguments: Callable[[argparse.ArgumentParser], None],
                 run: Callable[[argparse.Namespace], Outcome]) -> None:
        self.name = name
        self.help = help
        self.arguments = arguments
        self.run = run


class OutputFailed(Exception):
    """Standard output refused what a verb printed as it went (a full disk, an I/O error):
    cli/main.py exits OUTPUT_FAILED for it, as for the result it prints itself, not
    INTERNAL. A reader gone away stays a BrokenPipeError, which exits so, silently."""

    def __init__(self, error: OSError, after: str | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.after = after  # what the message says after the reason (None: the common words)


def print_now(text: str) -> None:
    """Write `text` to standard output at once (a verb whose lines come before its summary)."""
    import sys

    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputFailed(exc) from None


def no_arguments(p: argparse.ArgumentParser) -> None:
    """For a verb that takes nothing beyond --json and --root."""


def spec_of(args: argparse.Namespace, must_exist: bool = True) -> store.Spec:
    """The spec named by a verb's SPEC argument (and the global --root)."""
    # imported here: a verb that names no spec (classify-reply) loads no store, no git
    # discovery and no text-file reader (4 M instructions of its 100 M)
    from mdgrill.shell import store

    return store.resolve_spec(args.spec, args.root, must_exist=must_exist)


def on_spec(handler: Callable[[store.Spec, argparse.Namespace], Outcome],
            ) -> Callable[[argparse.Namespace], Outcome]:
    """A handler of one spec as a verb's handler: the spec comes from SPEC and --root."""

    def run(args: argparse.Namespace) -> Outcome:
        return handler(spec_of(args), args)

    return run


def add_spec(p: argparse.ArgumentParser) -> None:
    """The SPEC positional most verbs take."""
    p.add_argument("spec", metavar="SPEC", help="spec folder or its .progress.md")


def add_dry_run(p: argparse.ArgumentParser, what: str) -> None:
    """--dry-run and --diff, as every importer and exporter takes them."""
    p.add_argument("--dry-run", action="store_true", help=f"print {what}; write nothing")
    p.add_argument("--diff", action="store_true", help="with --dry-run: print a unified diff "
                   "instead of the whole file")


def unified_diff(old: str, new: str, shown: str) -> str:
    """What a --dry-run --diff prints: the change to `shown` as a unified diff."""
    import difflib

    return "".join(difflib.unified_diff(old.splitlines(keepends=True),
                                        new.splitlines(keepends=True),
                                        fromfile=f"a/{shown}", tofile=f"b/{shown}"))


def refuse_invalid(data: bytes, shown: str) -> list[Diagnostic]:
    """What an import is about to write, validated as `validate` would: its warnings, or
    INTERNAL_WRITE_CHECK (nothing written) on an error, which would be a defect of ours."""
    from mdgrill.checks.spec import validate_progress_bytes
    from mdgrill.diagnostics import format_diagnostic
    from mdgrill.errors import InputError

    found = validate_progress_bytes(data, shown)
    errors = [d for d in found if d.is_error]
    if errors:
        raise InputError("INTERNAL_WRITE_CHECK", f"the imported {shown} would not validate "
                         f"({format_diagnostic(errors[0])}); nothing was written. Please "
                         "report this.")
    return found


def missing_extra(verb: str, extra: str, needs: str) -> InputError:
    """MISSING_EXTRA for a verb whose optional dependency this Python lacks: no index serves
    mdgrill, so the fix names this very interpreter and an install from the clone."""
    import sys

    from mdgrill.errors import InputError

    return InputError("MISSING_EXTRA", f"`mdgrill {verb}` needs {needs} (the `{extra}` extra), "
                      "which the Python running mdgrill lacks. From your mdgrill clone, run: "
                      f"{sys.executable} -m pip install '.[mcp,lsp]' (with pipx: pipx install "
                      "--force '.[mcp,lsp]')")
