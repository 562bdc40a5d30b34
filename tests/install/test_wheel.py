"""The wheel holds the whole tree: every module, kernel, header, exercise, lesson and icon
of explorer/, kernels/ and resources/, under the names the installed app looks for; a file
the packaging configuration leaves out is named here, not by a person's first start."""

from __future__ import annotations

import configparser
import zipfile
from pathlib import Path

from tests.install.conftest import BYTECODE, CACHES, tree_files


def _names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_the_wheel_holds_every_file_of_the_shipped_folders(wheel: Path):
    names = _names(wheel)
    expected = dict(tree_files())
    kinds = {Path(tree).suffix for tree in expected}  # the walk found each kind of file
    assert kinds >= {".py", ".cl", ".h", ".toml", ".json", ".png", ".svg", ".desktop"}
    missing = sorted(tree for tree, inside in expected.items() if inside not in names)
    assert not missing, (
        f"the wheel lacks {len(missing)} file(s) of the tree (pyproject.toml and setup.py "
        "decide what ships):\n  " + "\n  ".join(missing)
    )


def test_the_wheel_installs_one_package_and_no_bytecode(wheel: Path):
    """Only ``explorer`` lands in site-packages (no top-level ``kernels`` or ``resources``
    beside other projects' packages), and no compiled file of this machine's Python."""
    names = _names(wheel)
    info = {name.split("/")[0] for name in names if name.split("/")[0].endswith(".dist-info")}
    assert len(info) == 1
    tops = {name.split("/")[0] for name in names} - info
    assert tops == {"explorer"}
    caches = sorted(
        name
        for name in names
        if name.endswith(BYTECODE) or any(part in CACHES for part in name.split("/"))
    )
    assert not caches, "the wheel holds bytecode or caches:\n  " + "\n  ".join(caches)


def test_each_entry_point_names_a_module_the_wheel_holds(wheel: Path):
    names = _names(wheel)
    with zipfile.ZipFile(wheel) as archive:
        listing = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        text = archive.read(listing).decode("utf-8")
    points = configparser.ConfigParser()
    points.read_string(text)
    scripts = {**points["console_scripts"], **points["gui_scripts"]}
    assert set(scripts) == {"kernel-explorer", "kernel-explorer-cli"}
    for script, target in scripts.items():
        module = target.split(":")[0].strip()
        candidates = {module.replace(".", "/") + ".py", module.replace(".", "/") + "/__init__.py"}
        assert candidates & names, f"{script} runs {target}, which the wheel lacks"
