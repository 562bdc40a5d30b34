"""``python -m explorer``: the command-line interface."""

import os
import sys

from explorer.engine import stage_times  # the standard library only

if sys.argv[1:2] == ["executor-serve"]:
    # Before numpy loads, which reads these once: a multi-threaded BLAS would fight a CPU
    # device's threads (explorer.engine.executor.SINGLE_THREADED; the server checks them).
    for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_name] = "1"
elif __name__ == "__main__" and sys.argv[1:2] == ["capture"]:
    # The program first: capture needs nothing of the engine (it exits here, unless --help).
    from explorer.capture.command_line import early

    early(sys.argv[2:])
elif __name__ == "__main__":
    stage_times.mark("interpreter started")
    # The executor's process first: it starts while the command imports the engine.
    from explorer.engine.early import start_for

    start_for(sys.argv[1:])
    stage_times.mark("executor started")

from explorer.cli import end_at_once, main

if __name__ == "__main__":
    stage_times.mark("command line imported")
    code = main()
    end_at_once(code)
    sys.exit(code)
