"""A build that takes seconds, as a large kernel's does on a CPU device (PoCL compiles
matmul/fast for ten seconds on a quiet machine), made in a few lines: the executor's process
is asked to make its next build slower, or to start its next launch late (PoCL compiles a
kernel's code for its local size at its first launch, which waits meanwhile). A copy of a
kernel with a line of its own is never built already, in that process or in an on-disk
cache."""

from __future__ import annotations

import threading
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


@calls.allow
def late_next_launch(seconds: float) -> None:
    """In the executor's process: its next kernel launch waits ``seconds`` before it starts,
    as PoCL's first launch of a kernel waits for its code."""
    import pyopencl as cl

    original = cl.enqueue_nd_range_kernel

    def late(queue: object, kernel: object, *args: object, **kwargs: object) -> object:
        cl.enqueue_nd_range_kernel = original
        gate = cl.UserEvent(queue.context)  # type: ignore[attr-defined]
        complete = cl.command_execution_status.COMPLETE
        threading.Timer(seconds, gate.set_status, (complete,)).start()
        return original(queue, kernel, *args, wait_for=[gate], **kwargs)

    cl.enqueue_nd_range_kernel = late


def fresh_copy(folder: Path, family: str = "transpose", variant: str = "naive") -> Path:
    """A catalog kernel written to ``folder`` with a comment of its own at the end."""
    path = folder / f"{variant}-copy.cl"
    source = find_variant(family, variant).source
    path.write_text(f"{source}\n/* {uuid.uuid4().hex} */\n", encoding="utf-8")
    return path
