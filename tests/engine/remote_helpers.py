"""A host reached through a local command instead of ssh: the same executor protocol over a
real pipe, without a network; and the processes' life, read from /proc."""

from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = shlex.quote(sys.executable)
# ``env`` puts this checkout first, as an installed copy would be on a server.
SEARCH_PATH = os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH", ""))))
SERVE = f"env PYTHONPATH={shlex.quote(SEARCH_PATH)} {PYTHON} -m explorer executor-serve"
RELAY = f"{PYTHON} {shlex.quote(str(Path(__file__).with_name('relay.py')))} {SERVE}"
# The executor there letting the window call os.urandom too (explorer.engine.calls.allow); its
# environment is the one executor-serve would start itself again with.
SERVE_URANDOM = (
    "env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 "
    f"PYTHONPATH={shlex.quote(SEARCH_PATH)} {PYTHON} -c "
    + shlex.quote(
        "import os; from explorer.engine import calls; calls.allow(os.urandom); "
        "from explorer.cli import main; main(['executor-serve'])"
    )
)


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def children(pid: int) -> list[int]:
    """The processes ``pid`` started (every thread's)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def wait_for(predicate, seconds: float = 15.0) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()
