"""The wheel that ``pip install .`` builds, built once per test session from a copy of the
tree, and the tree's files it must hold."""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Each folder of the repository that ships, and where its files are in the wheel.
SHIPPED = {"explorer": "explorer", "kernels": "explorer/kernels", "resources": "explorer/resources"}
CACHES = ("__pycache__",)
BYTECODE = (".pyc", ".pyo")


def tree_files() -> Iterator[tuple[str, str]]:
    """Each file of the shipped folders, as (its path in the tree, its path in the wheel):
    what ``git ls-files`` lists there, less caches, bytecode and hidden files."""
    for folder, inside in SHIPPED.items():
        for path in sorted((ROOT / folder).rglob("*")):
            relative = path.relative_to(ROOT / folder)
            hidden = any(part.startswith(".") or part in CACHES for part in relative.parts)
            if path.is_file() and not hidden and path.suffix not in BYTECODE:
                yield f"{folder}/{relative.as_posix()}", f"{inside}/{relative.as_posix()}"


def _copy_of_the_tree(dest: Path) -> Path:
    """What a build reads: the files at the top of the repository and the shipped folders,
    caches included, as a person's checkout has them."""
    for path in ROOT.iterdir():
        if path.is_file() and not path.name.startswith("."):
            shutil.copy2(path, dest / path.name)
    for folder in SHIPPED:
        shutil.copytree(ROOT / folder, dest / folder, symlinks=True)
    return dest


def setuptools_wheel(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """The wheel ``pip install .`` builds, with this environment's setuptools and no network,
    built once per test run: the workers of a parallel run share one build (the first to
    come makes it under a lock, in the run's own temporary folder; the others read it).

    Built from a copy: a build in the checkout would write ``build/`` and ``*.egg-info`` into
    it, and setuptools puts whatever an earlier build left in ``build/lib`` into the next
    wheel, so a module the configuration no longer ships would still be found there."""
    base = tmp_path_factory.getbasetemp()
    if worker_id != "master":  # each worker's folder is inside the run's
        base = base.parent
    folder = base / "setuptools-wheel"
    folder.mkdir(exist_ok=True)
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        out = folder / "wheel"
        if not out.is_dir():
            _build(folder / "source", folder / "building")
            (folder / "building").rename(out)
    built = sorted(out.glob("*.whl"))
    assert len(built) == 1, f"pip wheel wrote {built}, expected one wheel"
    return built[0]


def _build(source: Path, out: Path) -> None:
    for folder in (source, out):  # what a build that failed left
        shutil.rmtree(folder, ignore_errors=True)
    source.mkdir()
    out.mkdir()
    _copy_of_the_tree(source)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "--disable-pip-version-check", "--quiet", "--wheel-dir", str(out), str(source)],
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, (
        "pip wheel failed (the test extra installs the setuptools it needs):\n"
        + done.stdout[-3000:]
        + done.stderr[-3000:]
    )


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """The wheel ``pip install .`` builds (:func:`setuptools_wheel`)."""
    return setuptools_wheel(tmp_path_factory, worker_id)
