"""Large replies cross from the executor through shared memory, whole, and leave nothing."""

import glob
import os

import numpy as np

from explorer.engine import calls
from explorer.engine import reply as reply_module


def large_reply(n: int) -> dict:
    return {"records": np.arange(n, dtype=np.int64), "small": np.ones(3), "text": "kept"}


calls.allow(os.getpid)
calls.allow(large_reply)


def _reply_files(pid: int) -> set[str]:
    """The reply files process ``pid`` has left (another test's executor may be replying)."""
    pattern = os.path.join(reply_module.shared_dir(), f"{reply_module.SHARED_PREFIX}{pid}-*")
    return set(glob.glob(pattern))


def test_a_large_reply_arrives_whole_and_leaves_no_file(executor):
    pid = executor.call(os.getpid)  # the executor's process, which writes the reply
    got = executor.call(large_reply, 1 << 20)  # 8 MiB of records
    assert np.array_equal(got["records"], np.arange(1 << 20, dtype=np.int64))
    assert got["small"].tolist() == [1.0, 1.0, 1.0] and got["text"] == "kept"
    got["records"][0] = -1  # the caller's own copy to change
    assert executor.call(os.getpid) == pid
    assert _reply_files(pid) == set()


def test_a_reply_through_shared_memory_is_the_reply_that_was_sent():
    reply = ("ok", large_reply(1 << 18))
    before = _reply_files(os.getpid())
    packed = reply_module.pack(reply)
    (written,) = _reply_files(os.getpid()) - before
    assert written.encode() in packed and len(packed) < 4096  # the records are in the file
    status, value = reply_module.unpack(packed, os.getpid())
    assert status == "ok" and np.array_equal(value["records"], reply[1]["records"])
    assert value["text"] == "kept" and value["small"].tolist() == [1.0, 1.0, 1.0]
    assert not os.path.exists(written)
    small = ("ok", large_reply(10))
    assert _reply_files(os.getpid()) == before
    packed = reply_module.pack(small)  # small replies take the pipe as before
    assert _reply_files(os.getpid()) == before
    status, value = reply_module.unpack(packed, os.getpid())
    assert np.array_equal(value["records"], np.arange(10))
