"""The executor's drivers thread picks the device a command names before the engine is
imported, and makes its context there (launch/loader.py): it must pick the device the
engine picks, read each device's name, platform and type as the engine does, and a context it
made for a device the engine did not pick is let go."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# In a new process: the drivers are started by the loader, before PyOpenCL is imported.
_SCRIPT = r"""
import json, sys
from explorer.engine.launch import loader
from explorer.engine.launch.picking import NoDeviceError

ahead, selectors = sys.argv[1], json.loads(sys.argv[2])
thread, started = loader.start_drivers(ahead, early=0xFFFFFFFF)  # a CPU device's too, here
assert started.wait(120)
from explorer.engine.launch.devices import list_devices, pick_device
from explorer.engine.serve import _context_ahead

devices = list_devices()
def key(found, selector):
    try:
        return pick_device(found, selector).key
    except NoDeviceError:
        return None
out = {
    "early": sorted(loader._ahead),
    "seen": [[d.key, d.name, d.platform, d.type] for d in loader._last_seen],
    "described": [[d.key, d.name, d.platform, d.type] for d in devices],
    "picks": [[key(loader._last_seen, s), key(devices, s)] for s in selectors],
}
thread.join(120)
_context_ahead(devices, sys.argv[3])  # what the executor does once it has described them
out["kept"] = sorted(loader._ahead)
if out["kept"]:
    from explorer.engine.launch.runtime import runtime
    made = list(loader._ahead[out["kept"][0]][1])  # the drivers thread's context
    device = pick_device(devices, sys.argv[3] or None)
    context, _ = runtime().queue(device)
    out["made_ahead_used"] = made == [context.int_ptr]
    out["context_device"] = context.devices[0].name.strip()
    out["picked_name"] = device.name
print(json.dumps(out))
"""


def run(ahead: str, engine_picks: str, selectors: list[str]) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, ahead, json.dumps(selectors), engine_picks],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_drivers_thread_reads_and_picks_every_device_as_the_engine_does():
    selectors = ["", "0", "1", "2", "0:0", "1:0", "pthread", "oclgrind", "portable", "nothing"]
    out = run("", "", selectors)
    assert out["seen"] == out["described"]
    for (early, engine), selector in zip(out["picks"], selectors, strict=True):
        assert early == engine, selector


def test_the_context_made_ahead_is_the_picked_devices_and_is_used():
    out = run("", "", [])
    assert out["early"] == out["kept"] and len(out["early"]) == 1
    assert out["made_ahead_used"]
    assert out["context_device"] == out["picked_name"]


def test_a_context_made_for_a_device_the_engine_did_not_pick_is_let_go():
    out = run("", "oclgrind", [])  # the engine picks the simulator: no context ahead for it
    assert len(out["early"]) == 1
    assert out["kept"] == []
