"""Where the shipped kernels and resources live, for regular and editable installs alike."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

_REPO_ROOT = Path(__file__).resolve().parent.parent


def _package_dir(package: str, repo_folder: str) -> Path:
    try:
        candidate = Path(str(resources.files(package)))
        if candidate.is_dir() and any(candidate.iterdir()):
            return candidate
    except (ModuleNotFoundError, TypeError):
        pass
    # Running from a source checkout (``python main.py`` beside ``kernels/``).
    return _REPO_ROOT / repo_folder


def kernels_dir() -> Path:
    """The folder holding ``<family>/<variant>.cl``."""
    return _package_dir("explorer.kernels", "kernels")


def resources_dir() -> Path:
    """The folder holding icons, the desktop entry and sample images."""
    return _package_dir("explorer.resources", "resources")
