"""A build that takes seconds, as a large kernel's does on a CPU device (PoCL compiles
matmul/fast for ten seconds on a quiet machine), made in a few lines: the executor's process
is asked to make its next build slower. A copy of a kernel with a line of its own is never
built already, in that process or in an on-disk cache."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

from explorer.engine import calls
from explorer.engine.header.catalog import find_variant


@calls.allow
def slow_next_build(seconds: float) -> None:
    """In the executor's process: its next build takes ``seconds`` more, the ones after it
    as long as they did."""
    from explorer.engine.launch import build

    original = build._source_build

    def slow(*args: object) -> object:
        build._source_build = original
        time.sleep(seconds)
        return original(*args)

    build._source_build = slow


def fresh_copy(folder: Path, family: str = "transpose", variant: str = "naive") -> Path:
    """A catalog kernel written to ``folder`` with a comment of its own at the end."""
    path = folder / f"{variant}-copy.cl"
    source = find_variant(family, variant).source
    path.write_text(f"{source}\n/* {uuid.uuid4().hex} */\n", encoding="utf-8")
    return path
