"""A notebook of our own, executed as a person runs one unattended (``jupyter nbconvert
--execute --to notebook``): a ``with explorer.capture("out")`` block and the cell magic
``%%explorer_capture`` each record the launches made in them, into folders the command line
replays."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.capture.folder import load_capture
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")
ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = Path(__file__).parent / "notebooks" / "capture_in_a_notebook.ipynb"
MISSING = [m for m in ("nbconvert", "ipykernel") if importlib.util.find_spec(m) is None]


@pytest.mark.skipif(
    bool(MISSING),
    reason=f"{' and '.join(MISSING)} not installed (they come with the test extra: "
    "pip install '.[test]')",
)
def test_a_notebook_executed_by_nbconvert_records_its_block_and_its_magic_cell(on_device, tmp_path):
    shutil.copy(NOTEBOOK, tmp_path / NOTEBOOK.name)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--execute", "--to", "notebook",
         "--output", "executed.ipynb", NOTEBOOK.name],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    executed = json.loads((tmp_path / "executed.ipynb").read_text())
    printed = "".join(
        "".join(output["text"])
        for cell in executed["cells"]
        for output in cell.get("outputs", [])
        if output.get("name") in ("stdout", "stderr")
    )
    assert printed == (
        "block [1.0, 4.0, 7.0, 10.0]\n"
        "magic [1.0, 1.5, 2.0, 2.5]\n"
        "explorer: 1 launches recorded into magic_out\n"
    )

    block = load_capture(tmp_path / "out")
    assert [(launch.kernel, launch.args[2].value) for launch in block.launches] == [
        ("scale", 2.0),
        ("scale", 3.0),
    ]
    magic = load_capture(tmp_path / "magic_out")
    assert [(launch.kernel, launch.local_size) for launch in magic.launches] == [("scale", (8,))]
    for folder, launch in ((tmp_path / "out", "scale#2"), (tmp_path / "magic_out", "1")):
        replayed = cli("run", "--capture", str(folder), "--launch", launch, "--json")
        record = json.loads(replayed.out)
        assert (replayed.code, record["status"]) == (0, "verified"), replayed.err
