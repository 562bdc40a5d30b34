"""The selection grammar: the options that choose a kernel (``--family`` and ``--variant``,
``--kernel-file``, ``--sim``, or a captured launch: ``--capture`` and ``--launch``), its
sizes, local size, defines, matrix layout, input and device, and their parsing into a
variant, sizes and a run request.

``python -m explorer`` (:mod:`explorer.cli`) and the app's own command line (``main.py``:
:mod:`explorer.app`, :mod:`explorer.gui.command_line`) both speak it, so it sits below both
and imports no Qt. The size flags (``--m``, ``--width``, ...) come from the families
registry: a family that adds a size adds its flag here, with no change to this file.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from explorer.engine.header.catalog import (
    CatalogError,
    find_variant,
    load_variant_file,
    role_layout,
)
from explorer.engine.records import RunRequest, Variant, check_timeout
from explorer.families import FAMILIES
from explorer.paths import shown


class UsageError(Exception):
    """A command line that cannot be run as given; the message says what to change."""


@dataclass(frozen=True)
class SizeFlag:
    """One size option shared by the families that have a size of that name."""

    dest: str  # the attribute argparse stores it in
    size: str  # the size it sets, e.g. ``WIDTH``
    help: str
    families: tuple[str, ...]


def size_flags() -> dict[str, SizeFlag]:
    """Every family's size options (``--m`` sets ``M``), by option, in the registry's order."""
    flags: dict[str, SizeFlag] = {}
    for family, model in FAMILIES.items():
        for name, flag in model.size_flags().items():
            known = flags.get(flag)
            families = (*known.families, family) if known else (family,)
            # A size several families share is described by its name: each means another thing.
            help_text = f"size {name}" if known else model.size_description(name)
            dest = flag.removeprefix("--").replace("-", "_")
            flags[flag] = SizeFlag(dest, name, help_text, families)
    return flags


def add_selection(parser: argparse.ArgumentParser) -> None:
    """The options that choose a kernel, its sizes, local size, defines, input and device."""
    parser.add_argument("--family", choices=list(FAMILIES), help="problem family")
    parser.add_argument("--variant", help="variant id within the family (see `variants`)")
    parser.add_argument("--kernel-file", help="your own .cl file with a catalog header")
    parser.add_argument(
        "--sim", metavar="FILE", help="an Oclgrind .sim file (kernel, NDRange, args)"
    )
    parser.add_argument(
        "--capture", metavar="OUT", help="a folder written by capture: replay one of its launches"
    )
    parser.add_argument(
        "--launch",
        metavar="N|KERNEL#k",
        help="with --capture: launch N (from 1), KERNEL (its first) or KERNEL#k (its k-th)",
    )
    parser.add_argument(
        "--allow-outside",
        "--allow-outside-includes",
        dest="allow_outside",
        action="store_true",
        help="use the files a session or a capture names outside its own folder (a session's "
        "kernels, arrays or image; a captured program's #include folders and files): without "
        "it they are refused, naming them, since a document may come from anyone",
    )
    parser.add_argument("--device", help="device: platform:device key, index or name substring")
    parser.add_argument("--size", type=int, help="square size: sets every size of the family")
    for flag, size in size_flags().items():
        parser.add_argument(
            flag, dest=size.dest, type=int, help=f"{size.help} ({', '.join(size.families)})"
        )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a named size of a custom kernel (repeatable)",
    )
    parser.add_argument("--local", help="local size, e.g. 16x16")
    parser.add_argument(
        "--define", action="append", default=[], metavar="NAME=VALUE", help="-D define (repeatable)"
    )
    add_layout(parser)
    parser.add_argument("--input", help="input preset: iou, random, identity or image")
    parser.add_argument("--image", help="image file for --input image (PNG, PGM or .npy)")
    parser.add_argument("--text", default="IOU", help="text drawn into the iou input")
    parser.add_argument("--repeat", type=int, default=10, help="timed launches (default 10)")
    parser.add_argument(
        "--timeout", type=_timeout, default=60.0, help="seconds, positive (default 60)"
    )


_ORDERS = {
    "row-major": "row-major", "row": "row-major",
    "column-major": "column-major", "col": "column-major",
    "transposed": "T", "T": "T",
}  # fmt: skip


def add_layout(parser: argparse.ArgumentParser) -> None:
    """``--layout``: how the host stores a family's matrices (the app's Matrix layout box)."""
    parser.add_argument(
        "--layout",
        metavar="SPEC",
        help="matrix orders: row-major, column-major, or per matrix, e.g. A=col,B=T "
        "(row, col, T: in the other order than A, as the app's 'B transposed')",
    )


def with_layout(variant: Variant, spec: str | None) -> Variant:
    """``variant`` with the matrix layout ``--layout`` names (unchanged without one): one
    order for every matrix, or ``MATRIX=ORDER`` pairs, the others keeping the variant's own.
    ``T`` (``transposed``) is the other order than A's; A=T the other than the header's A."""
    if not spec:
        return variant
    roles = variant.model.matrix_roles
    if not roles:
        raise UsageError(f"--layout: {variant.family} kernels have no matrices to lay out")
    if "=" not in spec:
        order = _ORDERS.get(spec.strip())
        if order is None or order == "T":
            raise UsageError(f"--layout {spec!r}: give row-major, column-major or MATRIX=ORDER")
        return replace(variant, layout=order)
    chosen = {role: role_layout(variant.layout, role) for role in roles}
    given: dict[str, str] = {}
    for part in spec.split(","):
        role, sep, order = (text.strip() for text in part.partition("="))
        if not sep or role not in roles or order not in _ORDERS:
            raise UsageError(
                f"--layout {part.strip()!r}: give MATRIX=ORDER with MATRIX one of "
                f"{', '.join(roles)} and ORDER row, col or T"
            )
        given[role] = _ORDERS[order]
    base = roles[0]
    other = {"row-major": "column-major", "column-major": "row-major"}
    if given.get(base) == "T":
        given[base] = other[chosen[base]]
    chosen.update({r: o for r, o in given.items() if o != "T"})
    chosen.update({r: other[chosen[base]] for r, o in given.items() if o == "T"})
    return replace(variant, layout=",".join(f"{r}:{chosen[r]}" for r in roles))


def _timeout(text: str) -> float:
    """``--timeout``: a finite, positive number of seconds (argparse turns the error into a
    usage message and exit 2)."""
    try:
        return check_timeout(float(text), "--timeout")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def selected_variant(args: argparse.Namespace) -> Variant:
    """The variant the options name: ``--kernel-file``, ``--sim``, ``--capture`` with
    ``--launch``, or ``--family`` with ``--variant``."""
    if getattr(args, "capture", None) or getattr(args, "launch", None):
        return _captured_launch(args)
    if getattr(args, "sim", None):
        if args.kernel_file:
            raise UsageError("give --sim or --kernel-file, not both")
        return load_variant_file(args.sim, bool(getattr(args, "allow_outside", False)))
    if args.kernel_file:
        variant = load_variant_file(args.kernel_file)
        if args.family and args.family != variant.family:
            raise UsageError(f"{args.kernel_file} is a {variant.family} kernel, not {args.family}")
        return variant
    if not args.family or not args.variant:
        raise UsageError("give --family and --variant, or --kernel-file")
    return find_variant(args.family, args.variant)


def reference_variant(text: str, mine: Variant) -> Variant:
    """The reference kernel ``--against`` names for a trace diff with ``mine``: a kernel file
    with a catalog header (or an Oclgrind ``.sim``), ``FAMILY/VARIANT`` of the catalog, or a
    variant of ``mine``'s family. It must describe the same launch: a kernel of another
    family has other sizes and buffers, and is refused."""
    text = text.strip()
    try:
        if Path(text).is_file():
            reference = load_variant_file(text)
        elif "/" in text:
            family, _, variant_id = text.partition("/")
            if family not in FAMILIES:
                raise UsageError(
                    f"--against {shown(text)!r}: no file of that name and no family "
                    f"{shown(family)!r} (families: {', '.join(FAMILIES)})"
                )
            reference = find_variant(family, variant_id)
        else:
            reference = find_variant(mine.family, text)
    except CatalogError as exc:
        raise UsageError(f"--against {shown(text)!r}: {exc}") from None
    if reference.family != mine.family:
        raise UsageError(
            f"--against {shown(text)!r} is a {reference.family} kernel and this one a "
            f"{mine.family} kernel: a trace diff compares two kernels of the same launch"
        )
    return reference


def _captured_launch(args: argparse.Namespace) -> Variant:
    """A launch of a capture, as the kernel that replays it (``--capture`` and ``--launch``)."""
    if not args.capture or not args.launch:
        raise UsageError(
            "give --capture OUT and --launch N (or KERNEL, KERNEL#k) together; "
            "python -m explorer capture OUT lists the launches of OUT"
        )
    others = [f for f in ("family", "variant", "kernel_file", "sim") if getattr(args, f, None)]
    if others:
        given = ", ".join(f"--{f.replace('_', '-')}" for f in others)
        raise UsageError(f"--capture names the kernel; drop {given}")
    known = getattr(args, "_replayed", None)  # read once: notes said once
    if known is not None:
        return known
    from explorer.capture.folder import CaptureError, load_capture
    from explorer.capture.replay import replay

    try:
        replayed = replay(
            load_capture(args.capture),
            args.launch,
            allow_outside=bool(getattr(args, "allow_outside", False)),
        )
    except CaptureError as exc:
        raise UsageError(str(exc)) from None
    for note in replayed.notes:
        print(f"note: {note}", file=sys.stderr)
    args._replayed = replayed.variant
    return replayed.variant


def sizes_from_args(family: str, args: argparse.Namespace) -> dict[str, int]:
    """The sizes given for ``family``: ``--size`` sets all of them, a size flag one; a flag of
    another family's size is refused."""
    names = FAMILIES[family].size_names
    sizes: dict[str, int] = {}
    if family == "custom":
        return _named_sizes(args)
    if args.size is not None:
        sizes = dict.fromkeys(names, args.size)
    for flag, size in size_flags().items():
        value = getattr(args, size.dest)
        if value is None:
            continue
        if size.size not in names:
            raise UsageError(f"{flag} is not a size of {family} (sizes: {', '.join(names)})")
        sizes[size.size] = value
    return sizes


def _named_sizes(args: argparse.Namespace) -> dict[str, int]:
    """A custom kernel's sizes: ``--set NAME=VALUE`` each; ``--size`` and the family size flags
    do not apply (its sizes are named in its header)."""
    given = [f for f, size in size_flags().items() if getattr(args, size.dest) is not None]
    if args.size is not None or given:
        flags = ", ".join(given or ["--size"])
        raise UsageError(f"{flags}: a custom kernel's sizes are set with --set NAME=VALUE")
    sizes = {}
    for item in getattr(args, "set", []):
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip().isdigit():
            raise UsageError(f"--set {item!r} is not NAME=POSITIVE_INTEGER")
        sizes[name.strip()] = int(value)
    return sizes


def parse_local(text: str | None) -> tuple[int, ...] | None:
    """``16x16`` (or ``16×16``) as a tuple; none given is None, the variant's default."""
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
    """``NAME=INTEGER`` items of repeated ``--define`` options, as a dict."""
    defines = {}
    for item in items:
        name, sep, value = item.partition("=")
        digits = value.strip().removeprefix("-")
        if not sep or not name.strip() or not (digits.isascii() and digits.isdigit()):
            raise UsageError(f"--define {shown(item)!r} is not NAME=INTEGER (e.g. TS=16)")
        if len(digits) > 18:
            raise UsageError(f"--define {shown(item)!r}: the value has more than 18 digits")
        defines[name.strip()] = int(value)
    return defines


def session_conflicts(args: argparse.Namespace) -> list[str]:
    """The selection options given beside ``--session``, which holds the whole selection."""
    sizes = (size.dest for size in size_flags().values())
    holds = ("family", "variant", "kernel_file", "sim", "capture", "launch", "size", *sizes)
    holds += ("local", "input", "image")
    given = [f"--{n.replace('_', '-')}" for n in holds if getattr(args, n, None) is not None]
    if args.define:
        given.append("--define")
    if getattr(args, "set", []):
        given.append("--set")
    if args.text != "IOU":
        given.append("--text")
    return given


def request_from_args(
    args: argparse.Namespace, device_key: str | None, keep_output: bool = False
) -> RunRequest:
    """The run the selection options describe, on ``device_key``; usage errors name the
    option to change. ``keep_output`` brings the result's output array back (to save it)."""
    variant = selected_variant(args)
    model = variant.model
    presets = model.input_presets
    preset = args.input or ("iou" if "iou" in presets else "random")
    if presets == ("declared",):
        if args.input is not None:
            raise UsageError("a custom kernel's inputs are declared in its header; drop --input")
        preset = presets[0]
    if preset not in model.input_presets:
        raise UsageError(
            f"{variant.family} inputs are {', '.join(model.input_presets)}; not {preset!r}"
        )
    if args.repeat < 1:
        raise UsageError("--repeat must be at least 1")
    return RunRequest(
        variant=with_layout(variant, getattr(args, "layout", None)),
        sizes=sizes_from_args(variant.family, args),
        local=parse_local(args.local),
        defines=parse_defines(args.define),
        device_key=device_key,
        input=preset,
        text=args.text,
        image_path=args.image,
        repeat=args.repeat,
        timeout_s=args.timeout,
        keep_output=keep_output,
    )
