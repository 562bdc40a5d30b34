"""The header files of the kernels in ``paths/``, as a user writes one: a kernel's header
(``paths/NAME.toml``) between ``/*---`` and ``---*/``, ``#line 1``, then its whole program
(``paths/programN.cl``) unchanged, so the header file, the .sim files and the host programs
all build the one text the repository holds. Written into a folder at test time."""

from __future__ import annotations

import sys
from pathlib import Path

PATHS = Path(__file__).parent / "paths"

# The program each kernel's header file holds.
PROGRAMS = {
    "move3": "program.cl",
    "copy_points": "program.cl",
    "weigh": "program.cl",
    "weigh_tagged": "program.cl",
    "blend_half": "program.cl",
    "shift_right": "program.cl",
    "neighbour_dots": "program2.cl",
    "group_sums3": "program2.cl",
    "scale_half4": "program2.cl",
    "private_pairs": "program3.cl",
    "reverse3": "program3.cl",
    "reverse3_packed": "program3.cl",
    "half3": "program4.cl",
    "dpoints": "program4.cl",
    "swap_weigh": "program5.cl",
    "swap_weigh_tagged": "program5.cl",
    "blur_rows": "program6.cl",
    "threshold_pairs": "program6.cl",
    "tile_pairs": "program6.cl",
    "tile_pairs_early": "program6.cl",
    "histogram": "program6.cl",
    "histogram_racy": "program6.cl",
    "neighbour_energy": "program7.cl",
    "flagged_neighbours": "program7.cl",
}


def header_file_text(name: str) -> bytes:
    """The header file of kernel NAME: its header, `#line 1`, then its program."""
    header = (PATHS / f"{name}.toml").read_bytes()
    program = (PATHS / PROGRAMS[name]).read_bytes()
    return b"/*---\n" + header + b"---*/\n#line 1\n" + program


def write_header_files(folder: Path) -> Path:
    """NAME.cl in FOLDER for every kernel of PROGRAMS; FOLDER."""
    for name in PROGRAMS:
        (folder / f"{name}.cl").write_bytes(header_file_text(name))
    return folder


def capture_host(device_key: str, host: str, folder: Path) -> Path:
    """FOLDER written by ``capture`` of the host program paths/HOST on device DEVICE_KEY."""
    import pytest

    from tests.test_cli import cli

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYOPENCL_CTX", device_key)
        ran = cli("capture", str(folder), "--", sys.executable, str(PATHS / host))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return folder
