"""Captures of the host programs in ``programs/``: each program runs once per test session,
through the ``capture`` command in this process (the program itself in a child, as always),
on the session's OpenCL device."""

from __future__ import annotations

import io
import json
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from explorer.capture.bootstrap import PACK
from explorer.capture.folder import Capture, load_capture
from tests.robustness.helpers import Outcome, cli

PROGRAMS = Path(__file__).parent / "programs"
HAND = Path(__file__).parent / "hand"


def run_capture(folder: Path, program: str, *options: str) -> Outcome:
    """``capture FOLDER [OPTIONS] -- python programs/PROGRAM``, in this process."""
    return cli("capture", str(folder), *options, "--", sys.executable, str(PROGRAMS / program))


@pytest.fixture(scope="session")
def on_device(device) -> Iterator[None]:
    """The host programs (which call ``create_some_context``) pick the session's device."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYOPENCL_CTX", device.key)
        yield


@pytest.fixture(scope="session")
def captured(on_device, tmp_path_factory) -> Callable[[str], Capture]:
    """The capture of a program, made the first time a test asks for it."""
    made: dict[str, Capture] = {}

    def get(program: str) -> Capture:
        if program not in made:
            folder = tmp_path_factory.mktemp(program.removesuffix(".py"))
            outcome = run_capture(folder, program)
            assert outcome.code == 0, outcome.err
            made[program] = load_capture(folder)
        return made[program]

    return get


def without_headers(capture: Capture, folder: Path) -> Path:
    """A copy of ``capture`` in ``folder`` as a capture made before the headers its programs'
    builds read were copied into it (its programs name their own folders only)."""
    shutil.copytree(capture.folder, folder)
    shutil.rmtree(folder / "programs" / "include", ignore_errors=True)
    document = json.loads((folder / "capture.json").read_text())
    for program in document["programs"]:
        program.pop("include", None)
    (folder / "capture.json").write_text(json.dumps(document))
    return folder


def replace_contents(capture: Capture, name: str, values: np.ndarray) -> None:
    """Give the contents ``name`` of ``capture`` other ``values`` (of their type and shape):
    in their own ``.npy`` file, or where they lie in the pack."""
    if name not in capture.packed:
        np.save(capture.folder / name, values)
        return
    data = io.BytesIO()
    np.save(data, values, allow_pickle=False)
    offset, length = capture.packed[name]
    assert len(data.getvalue()) == length
    with open(capture.folder / PACK, "r+b") as pack:
        pack.seek(offset)
        pack.write(data.getvalue())
