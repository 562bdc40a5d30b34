"""Large replies cross from the executor through shared memory, whole, and leave nothing."""

import glob
import os

import numpy as np

from explorer.engine import reply as reply_module


def large_reply(n: int) -> dict:
    return {"records": np.arange(n, dtype=np.int64), "small": np.ones(3), "text": "kept"}


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
    packed = reply_module.pack(reply)
    assert packed[0] == "shared" and os.path.exists(packed[2])
    status, value = reply_module.unpack(packed)
    assert status == "ok" and np.array_equal(value["records"], reply[1]["records"])
    assert not os.path.exists(packed[2])
    small = ("ok", large_reply(10))
    assert reply_module.pack(small) is small  # small replies take the pipe as before
