"""An mdgrill installed as users install it, for the benches that time fresh processes.

An editable install adds a path finder that every start of its venv imports (~10 ms), and
this environment sets PYTHONDONTWRITEBYTECODE, which would make every call recompile
mdgrill from source. So the benches install this checkout (not editable) into a temporary
venv and let children cache bytecode in a temporary folder, never in the checkout.
"""

from __future__ import annotations

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

CHILD_ENV = dict(os.environ)
CHILD_ENV.pop("PYTHONDONTWRITEBYTECODE", None)


def install_fresh(tmp: str) -> tuple[str, str]:
    """(mdgrill, python) of a new venv under `tmp` holding this checkout, not editable."""
    CHILD_ENV["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
    venv = os.path.join(tmp, "venv")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    python = os.path.join(venv, "bin", "python")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps",
                    os.path.dirname(HERE)], check=True, env=CHILD_ENV)
    return os.path.join(venv, "bin", "mdgrill"), python
