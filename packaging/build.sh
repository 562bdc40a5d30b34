#!/usr/bin/env bash
# Build the one-folder bundle dist/kernel-explorer/ with PyInstaller.
#
#   packaging/build.sh              a fresh virtual environment in build/venv: the app's own
#                                   dependencies and PyInstaller, nothing else
#   packaging/build.sh --current    the Python on PATH, or $PYTHON (an activated virtual
#                                   environment that already holds the app's dependencies)
#
# Either way the explorer's code comes from this checkout, even where the environment holds an
# installed copy of it (the spec checks). The bundle: dist/kernel-explorer/kernel-explorer (the
# window) and dist/kernel-explorer/kernel-explorer-cli (`python -m explorer`) on Linux;
# kernel-explorer.exe and kernel-explorer-cli.exe on Windows under Git Bash; dist/Kernel
# Explorer.app on macOS. Slow: a few minutes. Check it with packaging/check_bundle.py.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if [[ "${1:-}" == "--current" ]]; then
    PY="${PYTHON:-python}"
elif [[ -n "${1:-}" ]]; then
    echo "usage: packaging/build.sh [--current]" >&2
    exit 2
else
    VENV="$ROOT/build/venv"
    if [[ ! -x "$VENV/bin/python" && ! -x "$VENV/Scripts/python.exe" ]]; then
        echo "creating $VENV"
        "${PYTHON:-python3}" -m venv "$VENV"
    fi
    if [[ -x "$VENV/bin/python" ]]; then PY="$VENV/bin/python"; else PY="$VENV/Scripts/python.exe"; fi
    "$PY" -m pip install --quiet --upgrade pip
    # The app's dependencies as pyproject.toml lists them (pip evaluates their markers), not
    # the app itself: the spec takes the explorer's code from this checkout.
    "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        || "$PY" -m pip install --quiet "tomli>=1.1"
    "$PY" "$ROOT/packaging/requirements.py" "$ROOT/pyproject.toml" > "$ROOT/build/requirements.txt"
    "$PY" -m pip install --quiet -r "$ROOT/build/requirements.txt"
fi

"$PY" -m pip install --quiet "pyinstaller>=6.3"
"$PY" -m PyInstaller --noconfirm --clean \
    --distpath "$ROOT/dist" --workpath "$ROOT/build/pyinstaller" \
    "$ROOT/packaging/kernel-explorer.spec"

echo "built $ROOT/dist/kernel-explorer/"
