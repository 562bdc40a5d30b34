"""What the app's command line sets up: the selection into the model, and a session saved
without any window (``python main.py --save-session PATH`` without ``--screenshot``)."""

from __future__ import annotations

import argparse
import sys

from explorer.engine.executor import ExecutorError
from explorer.engine.header.catalog import CatalogError
from explorer.engine.launch.devices import NoDeviceError
from explorer.gui.model import ConfigModel
from explorer.selection import (
    UsageError,
    parse_defines,
    parse_local,
    selected_variant,
    sizes_from_args,
)
from explorer.session import Session, SessionError, save_session, session_from_request


def apply_selection(model: ConfigModel, args: argparse.Namespace) -> None:
    """Family, variant or kernel file, sizes, local size, defines and input from the
    selection options every command shares; raises UsageError or CatalogError."""
    own_file = args.kernel_file or getattr(args, "sim", None) or getattr(args, "capture", None)
    if own_file or args.variant:
        variant = selected_variant(args)
        if own_file:
            model.add_user_variant(variant)
        else:
            model.set_family(variant.family)
            model.set_variant(variant)
    elif args.family:
        model.set_family(args.family)
    for name, value in sizes_from_args(model.family, args).items():
        model.set_size(name, value)
    model.set_local(parse_local(args.local))
    for name, value in parse_defines(args.define).items():
        model.set_define(name, value)
    if getattr(args, "timeout", None) is not None:
        model.timeout_s = float(args.timeout)
    if args.input or args.text != "IOU" or args.image:
        model.set_input(
            args.input or ("image" if args.image else model.input), args.text, args.image
        )


def save_session_without_window(args: argparse.Namespace, session: Session | None) -> int:
    """Write the session the command line describes: ``--session``'s, or the selection's.

    No window opens and no OpenCL device is asked for: the device is the session's, the one
    ``--device`` names, or none (the default device wherever the session is opened).
    Exit status: 0 when written, 2 for a selection or a session that cannot be saved.
    """
    try:
        if session is None:
            model = ConfigModel()
            apply_selection(model, args)
            session = session_from_request(model.request(), None)
        if args.device:
            session = _with_device(session, args.device)
        save_session(session, args.save_session, force=bool(getattr(args, "force", False)))
    except (
        UsageError,
        CatalogError,
        SessionError,
        NoDeviceError,
        ExecutorError,
        ValueError,
    ) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"Saved {args.save_session}")
    return 0


def _with_device(session: Session, device: str) -> Session:
    """The session on the device ``--device`` picks, stored by its name."""
    from dataclasses import replace

    from explorer.engine.executor import Executor
    from explorer.engine.launch.device_names import DeviceName
    from explorer.engine.launch.devices import pick_device

    with Executor() as executor:
        picked = pick_device(executor.devices(), device)
    return replace(session, device=DeviceName.of(picked))
