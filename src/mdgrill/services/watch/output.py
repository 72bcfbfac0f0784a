"""Reports as text: one line (or a few) per report, in the diagnostic format where it has one."""

from __future__ import annotations

from collections.abc import Callable

from mdgrill.diagnostics import Diagnostic, format_diagnostic

Report = dict[str, object]  # one line of `watch --json`
Sink = Callable[[Report], None]  # where the engine sends its reports


# --------------------------------------------------------------------------- output


def format_report(report: Report) -> str:
    """One report as human text (the diagnostic format where it has a place)."""
    kind = report.get("kind")
    path = report.get("path", "")
    where = f"{path}:{report.get('line', 1)}:{report.get('col', 1)}"
    if kind == "problem":
        return format_diagnostic(Diagnostic(str(path), int(report["line"]),  # type: ignore[call-overload]
                                            int(report["col"]), str(report["severity"]),  # type: ignore[call-overload]
                                            str(report["code"]), str(report["message"])))
    if kind == "fixed":
        return f"{where}: fixed {report['code']}: {report['message']}"
    if kind == "stale":
        return f"{where}: stale INTERVIEW_STALE: {report['message']}"
    if kind == "lost":
        return f"{where}: lost {report['code']}: {report['message']}"
    if kind == "edited":
        what = "deleted" if report.get("deleted") else "edited"
        label = "term" if "term" in report else "recorded block"
        head = f"{where}: {what} {label} \"{report['block']}\"; it had:"
        old = str(report.get("old_text") or "").splitlines()
        shown = old[:20] + ([f"... ({len(old) - 20} more lines)"] if len(old) > 20 else [])
        return "\n".join([head, *(f"    | {line}" for line in shown)])
    if kind == "ready":
        return f"{where}: ready: {report['message']}"
    if kind == "recorded":
        answers = report.get("recorded")
        done = ", ".join(f"{d} -> {a}" for d, a in answers.items()) \
            if isinstance(answers, dict) else ""
        still = report.get("open")
        left = ", ".join(str(i) for i in still) if isinstance(still, list) else ""
        return (f"{path}: recorded {done or 'nothing'}"
                + (f"; still open: {left}" if left else "")
                + f"; next: mdgrill {report.get('next')}")
    if kind == "error":
        return f"{path}: error {report['code']}: {report['message']}"
    if kind == "started":
        bound = f", {report['bound']} bindings" if report.get("bound") else ""
        return (f"watching {report['dir']} ({report['specs']} specs, {report['glossaries']} "
                f"glossaries{bound}); Ctrl-C stops")
    if kind == "stopped":
        return "stopped"
    return str(report)
