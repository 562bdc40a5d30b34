"""The selection options every command shares, public so the app's command line uses them too."""

from __future__ import annotations

import argparse

from explorer.engine.catalog import find_variant, load_variant_file
from explorer.engine.records import Variant
from explorer.families import FAMILIES


class UsageError(Exception):
    pass


def add_selection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--family", choices=list(FAMILIES), help="problem family")
    parser.add_argument("--variant", help="variant id within the family (see `variants`)")
    parser.add_argument("--kernel-file", help="your own .cl file with a catalog header")
    parser.add_argument("--device", help="device: platform:device key, index or name substring")
    parser.add_argument("--size", type=int, help="square size: sets every size of the family")
    for name in ("m", "n", "k", "width", "height", "d"):
        parser.add_argument(f"--{name}", type=int, help=f"size {name.upper()}")
    parser.add_argument("--local", help="local size, e.g. 16x16")
    parser.add_argument(
        "--define", action="append", default=[], metavar="NAME=VALUE", help="-D define (repeatable)"
    )
    parser.add_argument("--input", help="input preset: iou, random, identity or image")
    parser.add_argument("--image", help="image file for --input image (PNG, PGM or .npy)")
    parser.add_argument("--text", default="IOU", help="text drawn into the iou input")
    parser.add_argument("--repeat", type=int, default=10, help="timed launches (default 10)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds (default 60)")


def selected_variant(args: argparse.Namespace) -> Variant:
    if args.kernel_file:
        variant = load_variant_file(args.kernel_file)
        if args.family and args.family != variant.family:
            raise UsageError(f"{args.kernel_file} is a {variant.family} kernel, not {args.family}")
        return variant
    if not args.family or not args.variant:
        raise UsageError("give --family and --variant, or --kernel-file")
    return find_variant(args.family, args.variant)


def sizes_from_args(family: str, args: argparse.Namespace) -> dict[str, int]:
    names = FAMILIES[family].size_names
    sizes: dict[str, int] = {}
    if args.size is not None:
        sizes = dict.fromkeys(names, args.size)
    for name in ("m", "n", "k", "width", "height", "d"):
        value = getattr(args, name)
        if value is None:
            continue
        if name.upper() not in names:
            raise UsageError(f"--{name} is not a size of {family} (sizes: {', '.join(names)})")
        sizes[name.upper()] = value
    return sizes


def parse_local(text: str | None) -> tuple[int, ...] | None:
    if not text:
        return None
    try:
        values = tuple(int(p) for p in text.lower().replace("×", "x").split("x"))
    except ValueError:
        raise UsageError(f"--local {text!r} is not like 16x16") from None
    if not values or any(v < 1 for v in values):
        raise UsageError(f"--local {text!r} needs positive numbers")
    return values


def parse_defines(items: list[str]) -> dict[str, int]:
    defines = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip().lstrip("-").isdigit():
            raise UsageError(f"--define {item!r} is not NAME=INTEGER")
        defines[name.strip()] = int(value)
    return defines


_SESSION_HOLDS = (
    "family",
    "variant",
    "kernel_file",
    "size",
    "m",
    "n",
    "k",
    "width",
    "height",
    "d",
    "local",
    "input",
    "image",
)


def session_conflicts(args: argparse.Namespace) -> list[str]:
    """The selection options given beside ``--session``, which holds the whole selection."""
    given = [f"--{n.replace('_', '-')}" for n in _SESSION_HOLDS if getattr(args, n) is not None]
    if args.define:
        given.append("--define")
    if args.text != "IOU":
        given.append("--text")
    return given
