#!/usr/bin/env bash
# Build the one-folder bundle dist/kernel-explorer/ with PyInstaller.
#
#   packaging/build.sh              a fresh virtual environment in build/venv: the app's own
#                                   dependencies and PyInstaller, nothing else
#   packaging/build.sh --current    the Python on PATH (an activated virtual environment
#                                   that already holds the app's dependencies)
#
# The bundle: dist/kernel-explorer/kernel-explorer (Linux; kernel-explorer.exe on Windows
# under Git Bash; dist/Kernel Explorer.app on macOS). Slow: a few minutes.
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
    "$PY" -m pip install --quiet "$ROOT"
fi

"$PY" -m pip install --quiet "pyinstaller>=6.3"
"$PY" -m PyInstaller --noconfirm --clean \
    --distpath "$ROOT/dist" --workpath "$ROOT/build/pyinstaller" \
    "$ROOT/packaging/kernel-explorer.spec"

echo "built $ROOT/dist/kernel-explorer/"
