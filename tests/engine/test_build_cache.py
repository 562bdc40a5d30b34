"""A process builds a source once per device and options: the same kernel launched again (the
window's second run of an unchanged file) is not compiled again, while an edit or another
option is; the cache keeps a bounded number of programs, the least recently used dropped."""

import numpy as np

import explorer.engine.launch.build as build
from explorer.engine.launch.build import BuildCache
from explorer.engine.launch.runtime import runtime

SOURCE = "__kernel void scale(__global float* x) { x[get_global_id(0)] *= FACTOR; }\n"


def _counting(monkeypatch) -> list[tuple[str, tuple[str, ...]]]:
    """Every compile of the runtime, (source, options), from now on."""
    compiled: list[tuple[str, tuple[str, ...]]] = []
    original = build._source_build

    def counted(cl, context, source, options):
        compiled.append((source, options))
        return original(cl, context, source, options)

    monkeypatch.setattr(build, "_source_build", counted)
    return compiled


def _scaled(kernel, device, values: list[float]) -> list[float]:
    cl = runtime().cl
    context, queue = runtime().queue(device)
    host = np.array(values, dtype=np.float32)
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    buffer = cl.Buffer(context, flags, hostbuf=host)
    kernel(queue, host.shape, None, buffer)
    cl.enqueue_copy(queue, host, buffer).wait()
    return host.tolist()


def test_the_same_build_is_compiled_once_and_a_change_compiles_again(device, monkeypatch):
    compiled = _counting(monkeypatch)
    cl = runtime().cl
    context, _ = runtime().queue(device)
    cache = BuildCache()

    def kernel(source, options):
        return cache.kernel(cl, context, device.key, source, options, "scale", "scale.cl")

    first = kernel(SOURCE, ("-DFACTOR=2.0f",))
    assert _scaled(first, device, [1, 2, 3]) == [2, 4, 6]
    again = kernel(SOURCE, ("-DFACTOR=2.0f",))
    assert again is first and len(compiled) == 1  # nothing compiled for the second launch
    assert _scaled(again, device, [5, 6]) == [10, 12]  # its arguments set anew
    tripled = kernel(SOURCE, ("-DFACTOR=3.0f",))  # another option
    edited = kernel(SOURCE.replace("*=", "+="), ("-DFACTOR=2.0f",))  # an edit
    assert len(compiled) == 3
    assert _scaled(tripled, device, [1, 2]) == [3, 6]
    assert _scaled(edited, device, [1, 2]) == [3, 4]


def test_the_least_recently_used_program_is_dropped_beyond_the_bound(device, monkeypatch):
    compiled = _counting(monkeypatch)
    monkeypatch.setattr(build, "MAX_PROGRAMS", 2)
    cl = runtime().cl
    context, _ = runtime().queue(device)
    cache = BuildCache()

    def kernel(factor):
        options = (f"-DFACTOR={factor}.0f",)
        return cache.kernel(cl, context, device.key, SOURCE, options, "scale", "scale.cl")

    kernel(2)
    kernel(3)
    kernel(2)  # used again: 3 is now the least recent
    kernel(4)  # a third program: 3 is dropped
    assert len(compiled) == 3
    kernel(2)
    assert len(compiled) == 3  # kept
    dropped = kernel(3)
    assert len(compiled) == 4  # built again, and right
    assert _scaled(dropped, device, [1, 2]) == [3, 6]
    assert len(cache._programs) == 2
    assert {key for key, _ in cache._kernels} <= {id(p) for p in cache._programs.values()}
