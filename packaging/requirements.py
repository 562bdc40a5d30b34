"""Print the ``[project] dependencies`` of a pyproject.toml, one a line, as pip reads a
requirements file (the markers stay: pip evaluates them). packaging/build.sh installs these
into its fresh environment instead of the app itself: the bundle takes the app's code from
the checkout.

Usage: ``python packaging/requirements.py pyproject.toml > requirements.txt``
"""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: build.sh installs tomli first
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python packaging/requirements.py PYPROJECT", file=sys.stderr)
        return 2
    with open(argv[0], "rb") as handle:
        dependencies = tomllib.load(handle).get("project", {}).get("dependencies", [])
    print("\n".join(dependencies))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
