"""The Oclgrind check driven from the caller's side: :func:`run_check` runs
:func:`explorer.engine.record.oclgrind.check` in an executor started with its checks switched
on, and names a crash of Oclgrind itself as Oclgrind's, not the kernel's.

It sits above the executor, beside the other code that drives one (measure/, remote/); the
check itself, which runs inside the executor process, stays in record/ below it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable

from explorer.engine.executor import Executor, ExecutorError
from explorer.engine.record.oclgrind import (
    OCLGRIND_CRASH,
    OclgrindCheck,
    check,
    parse,
    read_log,
)
from explorer.engine.records import RunRequest, failed_result


def run_check(
    executor: Executor, request: RunRequest, function: Callable[..., OclgrindCheck] = check
) -> OclgrindCheck:
    """Run :func:`check` (or ``function``, with the same arguments) in ``executor``, which must
    have been started with ``record.oclgrind.CHECK_ENV``. A simulated kernel cannot crash its
    process: Oclgrind catches every invalid access. So when the process dies, Oclgrind itself
    (one of its plugins) crashed, and the result says so, with what it printed before it
    died."""
    with tempfile.TemporaryDirectory(prefix="oclgrind-") as folder:
        log_path = os.path.join(folder, "stderr.txt")
        try:
            return executor.call(
                function, request, log_path, timeout_s=request.timeout_s, what="Oclgrind check"
            )
        except ExecutorError as exc:
            raw = read_log(log_path)
            if exc.kind == "timeout":
                message = (
                    f"the kernel ran past {request.timeout_s:g} s on Oclgrind (a simulator is "
                    "slow: try smaller sizes)"
                )
                return OclgrindCheck(
                    failed_result(request, message, "timeout"),
                    parse(raw, request.variant.source),
                    raw,
                )
            tail = "\n".join(raw.strip().splitlines()[-5:])
            message = (
                "Oclgrind itself crashed while checking the kernel (a fault of Oclgrind or "
                "one of its plugins, not of your kernel)" + (f": {tail}" if tail else "")
            )
            return OclgrindCheck(
                failed_result(request, message, OCLGRIND_CRASH),
                parse(raw, request.variant.source),
                raw,
            )
