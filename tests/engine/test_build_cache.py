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
    # Kernels are kept with their program, and dropped with it.
    assert [len(kernels) for _, kernels in cache._programs.values()] == [1, 1]


def test_a_kernel_in_use_when_its_program_is_dropped_still_launches(device, monkeypatch):
    """A caller holding a kernel (a launch under way) when the cache drops its program: the
    kernel keeps its program (OpenCL's kernel holds it), and launches as built."""
    import gc

    monkeypatch.setattr(build, "MAX_PROGRAMS", 1)
    cl = runtime().cl
    context, _ = runtime().queue(device)
    cache = BuildCache()

    def kernel(factor):
        options = (f"-DFACTOR={factor}.0f",)
        return cache.kernel(cl, context, device.key, SOURCE, options, "scale", "scale.cl")

    held = kernel(2)
    newer = kernel(3)  # 2's program dropped
    gc.collect()
    assert len(cache._programs) == 1
    assert _scaled(held, device, [1, 2]) == [2, 4]
    assert _scaled(newer, device, [1, 2]) == [3, 6]


class _Built:
    """What a build of ``_source_build`` gives back here: the options it was built with."""

    __slots__ = ("options",)

    def __init__(self, options: tuple[str, ...]) -> None:
        self.options = options


class _Driver:
    """A runtime whose kernel says which build it came from and, as pyopencl's, holds no
    reference to the Python object of its program."""

    CompilerWarning = UserWarning
    RuntimeError = RuntimeError
    Error = OSError

    @staticmethod
    def Kernel(program: _Built, name: str) -> tuple[str, tuple[str, ...]]:
        return name, program.options


def test_two_threads_building_one_source_leave_no_kernel_of_a_program_not_kept(monkeypatch):
    """Two threads that miss the same build at once (a window's plain build beside its trace's)
    both build it, and the cache keeps one program. The other's kernel must not stay behind,
    keyed by the id of a program object that is gone: a later program given that id (CPython
    hands a freed object's place to the next of its size) would be handed the kernel of another
    build."""
    import threading

    both = threading.Barrier(2)

    def together(cl, context, source, options):
        if options == ("-DFACTOR=2.0f",):
            both.wait(10)  # each thread builds it before either keeps it
        return _Built(options)

    monkeypatch.setattr(build, "_source_build", together)
    cache = BuildCache()

    def kernel(factor):
        options = (f"-DFACTOR={factor}.0f",)
        return cache.kernel(_Driver, None, "device", SOURCE, options, "scale", "scale.cl")

    threads = [threading.Thread(target=kernel, args=(2,)) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert kernel(2) == ("scale", ("-DFACTOR=2.0f",))
    for factor in range(3, 40):  # new programs, one of them where the program not kept was
        assert kernel(factor) == ("scale", (f"-DFACTOR={factor}.0f",))
