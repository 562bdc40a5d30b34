"""A build on a host says so as one here does: the window's progress hears "building ...
(first time; cached after)" while a kernel compiles on the server, and the kernel's clock
there stops meanwhile, so a long first compile is not the kernel's time."""

from __future__ import annotations

import shlex

from explorer.engine.executor import Executor
from explorer.engine.header.catalog import load_variant_file
from explorer.engine.records import RunRequest
from explorer.engine.remote.hosts import Host
from explorer.engine.remote.router import HostRouter
from tests.engine.remote_helpers import PYTHON, SEARCH_PATH
from tests.engine.slow_build import fresh_copy

# executor-serve there, able to make its next build or launch slow (tests/engine/slow_build.py).
SERVE_SLOW = (
    "env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 "
    f"PYTHONPATH={shlex.quote(SEARCH_PATH)} {PYTHON} -c "
    + shlex.quote(
        "import tests.engine.slow_build; from explorer.cli import main; main(['executor-serve'])"
    )
)
SIZES = {"WIDTH": 37, "HEIGHT": 21}


def _router(told: list[str]) -> HostRouter:
    router = HostRouter(Executor(on_build=told.append))
    router.add(Host.parse("pipe", SERVE_SLOW))
    return router


def _far_device(router: HostRouter, local_key: str) -> str:
    return next(d.key for d in router.devices() if d.key == f"pipe/{local_key}")


def test_a_slow_build_there_is_said_here_and_is_not_the_kernels_time(device, tmp_path):
    from tests.engine.slow_build import slow_next_build

    told: list[str] = []
    router = _router(told)
    try:
        key = _far_device(router, device.key)
        variant = load_variant_file(fresh_copy(tmp_path))
        router.executor_for(key).call(slow_next_build, 2.5, what="a slow build")
        result = router.run(RunRequest(variant, SIZES, device_key=key, timeout_s=1))
        assert result.status == "verified", result.summary()
        assert result.device.startswith("pipe: ")
        name = f"{variant.qualified_id} (WIDTH=37, HEIGHT=21)"
        said = f"building {name} (first time; cached after)"
        # PoCL's own compile at the first launch, when slow on a busy machine, is told too.
        assert told[0] == said and told[-1] == "" and set(told) == {said, ""}, told
    finally:
        router.local.close()
        for host in router.hosts:
            router.remove(host.label)


def test_a_launch_waiting_for_its_code_there_is_said_here(device, tmp_path):
    from tests.engine.slow_build import late_next_launch

    told: list[str] = []
    router = _router(told)
    try:
        key = _far_device(router, device.key)
        variant = load_variant_file(fresh_copy(tmp_path))
        router.executor_for(key).call(late_next_launch, 2.5, what="a late launch")
        result = router.run(RunRequest(variant, SIZES, device_key=key, timeout_s=1))
        assert result.status == "verified", result.summary()
        assert told[0].startswith(f"building {variant.qualified_id}")
        assert told[-1] == ""
    finally:
        router.local.close()
        for host in router.hosts:
            router.remove(host.label)
