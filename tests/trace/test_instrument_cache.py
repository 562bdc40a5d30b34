"""The instrumented source kept on disk: a second trace of the same kernel reads it back, a
changed kernel, define or option is instrumented again, and a damaged or unwritable cache
is never more than a miss."""

import os

import pytest

import explorer.engine.record.trace_launch as tracing
from explorer.engine.header.catalog import find_variant, load_variant_file
from explorer.engine.record.trace_launch import TraceRequest, trace_and_analyse
from explorer.engine.records import RunRequest
from explorer.trace.instrument import cache

SOURCE = "__kernel void k(__global float* a) { a[get_global_id(0)] *= 2.0f; }"


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    tracing.instrumented.cache_clear()  # the executor's own memory of earlier traces
    yield tmp_path / "opencl-kernel-explorer" / cache.FOLDER
    tracing.instrumented.cache_clear()


def test_the_cache_folder_follows_xdg_cache_home(cache_home):
    assert cache.cache_folder() == cache_home


def test_the_explorer_cache_override_wins(cache_home, tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "mine"))
    assert cache.cache_folder() == tmp_path / "mine" / cache.FOLDER


def test_a_changed_source_define_option_or_value_plane_gets_a_new_key():
    base = (SOURCE, "k", (("N", 16),), True, "CL1.2")
    key = cache.cache_key(*base)
    assert cache.cache_key(*base) == key
    assert cache.cache_key(SOURCE.replace("2.0f", "3.0f"), *base[1:]) != key
    assert cache.cache_key(SOURCE, "k", (("N", 32),), True, "CL1.2") != key
    assert cache.cache_key(SOURCE, "k", (("N", 16), ("TILE", 4)), True, "CL1.2") != key
    assert cache.cache_key(SOURCE, "k", (("N", 16),), False, "CL1.2") != key
    assert cache.cache_key(SOURCE, "k", (("N", 16),), True, "CL2.0") != key
    assert cache.cache_key(*base, ("(64, 16)",)) != key


def _trace(device, sizes=None, name="naive"):
    variant = find_variant("transpose", name)
    run = RunRequest(variant, sizes or {"WIDTH": 16, "HEIGHT": 16}, device_key=device.key)
    return trace_and_analyse(TraceRequest(run))


def _no_instrumenting(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("instrumented again although the cache holds it")

    monkeypatch.setattr(tracing, "instrument", refuse)


def test_a_second_trace_reads_the_cache_and_finds_the_same(device, cache_home, monkeypatch):
    first = _trace(device)
    assert first.result.status == "verified"
    assert len(list(cache_home.glob("*.json"))) == 1
    tracing.instrumented.cache_clear()  # as a new executor process would start
    _no_instrumenting(monkeypatch)
    second = _trace(device)
    assert second.result.status == first.result.status == "verified"
    assert second.report_json["findings"] == first.report_json["findings"]
    assert second.report_text == first.report_text


def test_another_kernel_is_instrumented_again(device, cache_home):
    assert _trace(device).result.status == "verified"
    # Another size of the same kernel: its sizes are arguments, one instrumentation serves
    assert _trace(device, {"WIDTH": 32, "HEIGHT": 16}).result.status == "verified"
    assert len(list(cache_home.glob("*.json"))) == 1
    assert _trace(device, name="tiled").result.status == "verified"
    assert len(list(cache_home.glob("*.json"))) == 2


def test_each_kernel_of_one_program_keeps_its_own_judgement(
    device, cache_home, monkeypatch, header_files
):
    """program7.cl: two kernels read particles back through one helper returning them whole;
    only flagged_neighbours reads their flags, which nothing loads. Each kernel's kept
    instrumentation holds its own judgement of that copy, and reads back with it."""

    def found(name: str) -> list[tuple]:
        run = RunRequest(load_variant_file(header_files / f"{name}.cl"), {}, device_key=device.key)
        traced = trace_and_analyse(TraceRequest(run))
        assert traced.analysis is not None, traced.result.summary()
        return [(f.kind, f.line, f.buffer, f.count) for f in traced.analysis.findings]

    expected = {"neighbour_energy": [], "flagged_neighbours": [("uninitialized", 12, "cache", 64)]}
    assert {name: found(name) for name in expected} == expected
    assert len(list(cache_home.glob("*.json"))) == 2
    tracing.instrumented.cache_clear()  # as a new executor process would start
    _no_instrumenting(monkeypatch)
    assert {name: found(name) for name in reversed(list(expected))} == expected


def test_a_corrupt_cache_file_is_a_miss(device, cache_home):
    first = _trace(device)
    assert first.result.status == "verified"
    (kept,) = cache_home.glob("*.json")
    kept.write_bytes(b"not a cache entry at all")
    tracing.instrumented.cache_clear()
    second = _trace(device)
    assert second.result.status == "verified"
    assert second.report_json["findings"] == first.report_json["findings"]
    assert cache.load(kept.stem) is not None  # written again, whole


def test_a_cache_file_of_another_kind_is_a_miss(cache_home):
    from explorer.frontend import disk_cache

    key = "ab" * 32
    disk_cache.store("instrumented", key, 7)  # an int where an instrumentation belongs
    assert (cache_home / f"{key}.json").is_file()
    assert cache.load(key) is None


def test_the_cache_keeps_a_bounded_number_of_results(cache_home, monkeypatch):
    from explorer.frontend import disk_cache

    monkeypatch.setattr(disk_cache, "MAX_ENTRIES", 8)
    monkeypatch.setattr(disk_cache, "PRUNE_EVERY", 1)  # the folder scanned at every store
    keys = [f"{n:064x}" for n in range(9)]
    for n, key in enumerate(keys):
        disk_cache.store("parsed", key, n)
        path = cache_home.parent / "parsed" / f"{key}.json"
        os.utime(path, ns=(n * 10**9, n * 10**9))
    kept = sorted(p.stem for p in (cache_home.parent / "parsed").glob("*.json"))
    assert kept == keys[3:]  # the three oldest went


def test_the_cache_keeps_a_bounded_number_of_bytes(cache_home, monkeypatch):
    from explorer.frontend import disk_cache

    keys = [f"{n:064x}" for n in range(6)]
    for n, key in enumerate(keys):
        disk_cache.store("parsed", key, "x" * 1000)
        os.utime(cache_home.parent / "parsed" / f"{key}.json", ns=(n * 10**9, n * 10**9))
    size = (cache_home.parent / "parsed" / f"{keys[0]}.json").stat().st_size
    monkeypatch.setattr(disk_cache, "MAX_BYTES", 5 * size)  # one entry too many
    disk_cache.prune()
    kept = sorted(p.stem for p in (cache_home.parent / "parsed").glob("*.json"))
    assert kept == keys[3:]  # down to three quarters of the bound: the oldest went
    assert disk_cache.load("parsed", keys[5], str) == "x" * 1000


def test_the_folder_is_scanned_every_few_stores_not_at_each(cache_home, monkeypatch):
    from explorer.frontend import disk_cache

    scans = []
    monkeypatch.setattr(disk_cache, "prune", lambda: scans.append(1))
    monkeypatch.setattr(disk_cache, "_written", [0, 0])  # as a new process starts
    for n in range(disk_cache.PRUNE_EVERY + 1):
        disk_cache.store("parsed", f"{n:064x}", n)
    assert len(scans) == 2  # the process's first store, then after PRUNE_EVERY more
