"""The list of packages, found from the tree; everything else is in pyproject.toml.

pyproject.toml names packages either as a literal list or as one ``find`` directive, and
``find`` names a package after its folder. The explorer ships two folders of the repository
inside itself under other names (``kernels/`` as ``explorer.kernels``, ``resources/`` as
``explorer.resources``): its packages are what ``find`` gives in each of the three folders,
under the name the folder ships as. Building that list is a line of code, which pyproject.toml
cannot hold. Every folder counts, with or without ``__init__.py`` (``kernels/matmul``,
``resources/exercises/01-index-map``, ``explorer/capture/bootstrap``), so a new module,
kernel, exercise or resource ships without being named here or there.
"""

from setuptools import find_namespace_packages, setup

# The package each folder ships as.
SHIPPED = {"explorer": "explorer", "explorer.kernels": "kernels", "explorer.resources": "resources"}
NOT_PACKAGES = ["__pycache__", "*.__pycache__"]


def packages() -> list[str]:
    """Each shipped folder and every folder under it, as the package it ships as."""
    found = []
    for name, folder in SHIPPED.items():
        inner = find_namespace_packages(folder, exclude=NOT_PACKAGES)
        found += [name, *(f"{name}.{package}" for package in inner)]
    return found


setup(packages=packages(), package_dir=SHIPPED)
