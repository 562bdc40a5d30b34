"""The README is a promise: its commands parse, its keys are the menus' keys, and its answer to
"where do I add a family, a finding kind, a command, a menu action?" is how the code finds them."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def readme_commands(prefix: str) -> list[list[str]]:
    """Every command line of the README that starts with ``prefix``, in code spans and blocks,
    with its optional ``[...]`` parts taken as given (``[--json|--csv]`` as ``--json``)."""
    found = []
    for line in re.findall(re.escape(prefix) + r"[^`\n]*", README):
        line = re.sub(r"\[([^\]|]+)(\|[^\]]*)?\]", r"\1", line)
        if "…" in line or line.rstrip().endswith("..."):
            continue
        found.append(shlex.split(line, comments=True)[len(prefix.split()) :])  # "# why" is no word
    return found


CLI_COMMANDS = readme_commands("python -m explorer ")


def test_the_readme_shows_cli_commands():
    assert len(CLI_COMMANDS) >= 12


@pytest.mark.parametrize("argv", CLI_COMMANDS, ids=lambda argv: " ".join(argv)[:60])
def test_every_readme_cli_command_parses(argv):
    from explorer.cli import build_parser

    build_parser().parse_args(argv)


@pytest.mark.parametrize(
    "argv", readme_commands("python main.py "), ids=lambda argv: " ".join(argv)[:60]
)
def test_every_readme_main_py_command_parses(argv):
    from explorer.app import build_parser

    build_parser().parse_args(argv)


def test_the_keys_the_readme_names_are_the_menus_keys():
    from explorer.gui.actions import commands

    keys_line = re.search(r"- Keys: (.*?)\.", README, re.S)
    assert keys_line is not None
    named = re.findall(r"([A-Z][a-z]+(?: [a-z]+)*) ((?:Ctrl\+|Shift\+|Alt\+)*\w+)", keys_line[1])
    assert len(named) >= 6
    by_text = {c.text.replace("&", "").rstrip("…").lower(): c.shortcuts for c in commands()}
    for words, key in named:
        matches = [k for text, k in by_text.items() if text.startswith(words.lower())]
        assert matches, f"README names {words!r}, which no menu command is"
        assert any(key in shortcuts for shortcuts in matches), f"{words}: {key} is not its key"


def test_a_family_module_is_all_a_family_needs():
    import explorer.families as families
    from explorer.families import FAMILIES

    modules = {p.stem for p in Path(families.__file__).parent.glob("*.py")}
    shared = {"__init__", "base", "images", "text_image"}
    assert {f.__class__.__module__.rsplit(".", 1)[1] for f in FAMILIES.values()} == (
        modules - shared
    )


def test_a_finding_kind_module_is_found_by_the_analysis():
    import explorer.trace.analysis as analysis
    from explorer.trace.analysis import DETECTORS

    folder = Path(analysis.__file__).parent
    declaring = {p.stem for p in folder.glob("*.py") if "\nDETECTOR = " in p.read_text()}
    assert len(declaring) == len(DETECTORS) >= 7


def test_a_command_module_is_found_by_the_cli():
    import explorer.cli as cli
    from explorer.cli import COMMANDS

    folder = Path(cli.__file__).parent
    declaring = {p.stem for p in folder.glob("*.py") if "\nCOMMAND = " in p.read_text()}
    assert len(declaring) == len(COMMANDS) >= 8
    shown = re.findall(r"python -m explorer ([a-z-]+)", README)
    assert set(shown) <= {c.name for c in COMMANDS}
