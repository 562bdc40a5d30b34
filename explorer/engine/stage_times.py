"""Where a command's wall time goes: with ``EXPLORER_TIMINGS=1`` in the environment, each stage
a command and its executor pass prints one line on standard error, timed from the start of
the command's own process (its interpreter's start included, where ``/proc`` tells it), so
the two processes' lines read as one timeline:

    timings   0.412 s  cpu 0.31 s  executor  devices described

Nothing is printed, and next to nothing is paid, without the variable. Standard library
only: the first lines come before anything else is imported.
"""

from __future__ import annotations

import os
import sys
import time

ENV = "EXPLORER_TIMINGS"
# The command's start (``time.time()``), handed to the processes it starts.
_ORIGIN = "EXPLORER_TIMINGS_ORIGIN"

# Which process prints: the executor's loop sets its own.
role = "command"


def on() -> bool:
    """Whether stage times are asked for."""
    return bool(os.environ.get(ENV))


def _process_start() -> float:
    """This process's start as ``time.time()``: from ``/proc/self/stat`` (clock ticks after
    boot), else now."""
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            fields = stat.read().rpartition(")")[2].split()
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / os.sysconf("SC_CLK_TCK")
        return time.time() - max(0.0, age)
    except (OSError, ValueError, IndexError, AttributeError):
        return time.time()


def _origin() -> float:
    given = os.environ.get(_ORIGIN)
    if given:
        try:
            return float(given)
        except ValueError:
            pass
    origin = _process_start()
    os.environ[_ORIGIN] = repr(origin)  # the processes this one starts inherit it
    return origin


def mark(what: str, who: str = "") -> None:
    """Say that ``what`` is done, with the time since the command started and this process's
    CPU time (user + system) so far. ``who``: the name the line gives instead of the
    process's role, for a thread of it with lines of its own (the executor's ``drivers``)."""
    if not os.environ.get(ENV):
        return
    elapsed = time.time() - _origin()
    times = os.times()
    cpu = times.user + times.system
    print(
        f"timings {elapsed:7.3f} s  cpu {cpu:5.2f} s  {who or role:8}  {what}",
        file=sys.stderr,
        flush=True,
    )
