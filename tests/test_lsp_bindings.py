"""`mdgrill lsp` hovers on bound code and docs (issue 36: "an LSP hover on a bound Python
symbol or Markdown section shows the decisions bound to it, their answers and who approved
them"), through a real LSP client over stdio on a repository bound with `mdgrill bind`."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest
from conftest import Run, mdgrill_command
from test_watch_bound import SPEC, bind_repo

pytest.importorskip("pygls", reason="the LSP server is the `lsp` extra (pip install -e "
                    "'.[dev]' installs it)")
from lsprotocol import types  # noqa: E402
from pygls.lsp.client import BaseLanguageClient  # noqa: E402

CART = '''import math


class Cart:
    @property
    def total(self):
        return math.fsum(self.prices)

    def count(self):
        return len(self.prices)
'''


async def _hovers(files: list[tuple[Path, list[int]]]) -> list[str | None]:
    """Open each file and hover at the start of each 0-based line: the hover's text."""
    client = BaseLanguageClient("mdgrill-tests", "1")
    command = mdgrill_command()
    await client.start_io(command[0], *command[1:], "lsp", "--stdio")
    await client.initialize_async(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=files[0][0].parent.as_uri()))
    client.initialized(types.InitializedParams())
    out: list[str | None] = []
    for path, lines in files:
        uri = path.as_uri()
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1,
                                                 text=path.read_text(encoding="utf-8"))))
        for line in lines:
            hover = await client.text_document_hover_async(types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line, 2)))
            out.append(hover.contents.value if isinstance(hover, types.Hover)  # type: ignore[union-attr]
                       else None)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return out


def test_hovers_show_the_decisions_bound_there(repo: Path, mdgrill: Run) -> None:
    bind_repo(repo, mdgrill)
    (repo / "src" / "cart.py").write_text(CART)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "cart"], cwd=repo, check=True)
    code, out, err = mdgrill("bind", SPEC, "--decision-id", "D1", "src/cart.py::Cart.total",
                             cwd=repo)
    assert code == 0, out + err
    got = asyncio.run(_hovers([
        (repo / "src" / "cart.py", [4, 5, 3, 8]),  # decorator, def line, class, neighbour
        (repo / "docs" / "policy.md", [2, 6, 0]),  # Refunds, Shipping, the first line
        (repo / "src" / "pricing.py", [5]),  # `tax`: unbound
    ]))
    decorator, total, cart, count, refunds, shipping, first, tax = got
    assert total is not None and total == decorator
    assert total.startswith("**Decisions bound to** `src/cart.py::Cart.total`")
    assert "**D1** (specs/pricing): Ten percent off; bound as `src/cart.py::Cart.total`" in total
    assert "approved by Test User <test@example.com>" in total
    assert cart is None and count is None and shipping is None and tax is None
    assert refunds is not None and "`docs/policy.md#Refunds`" in refunds
    assert "**D1** (specs/pricing): Ten percent off" in refunds
    # the first line speaks for the whole file: every decision bound in it
    assert first is not None and first.startswith("**Decisions bound to** `docs/policy.md`")
    assert "bound as `docs/policy.md#Refunds`" in first


def test_a_heading_is_matched_by_its_anchor_and_any_case(repo: Path, mdgrill: Run) -> None:
    """`why` (and so the hover) finds a section bound by its anchor from its heading."""
    bind_repo(repo, mdgrill)
    code, out, err = mdgrill("bind", SPEC, "--decision-id", "D1", "docs/policy.md#shipping",
                             cwd=repo)
    assert code == 0, out + err
    code, out, _ = mdgrill("why", "docs/policy.md#Shipping", cwd=repo)
    assert code == 0 and "bound: docs/policy.md#shipping" in out
    assert "docs/policy.md#Refunds" not in out
