"""``run``: one configuration, or the one a saved session holds; verified and timed."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import TYPE_CHECKING

from explorer.cli.command import (
    USAGE_ERROR,
    Command,
    add_force,
    available_devices,
    check_output_file,
)
from explorer.engine.executor import Executor
from explorer.engine.launch.devices import pick_device
from explorer.engine.records import EXIT_CODES, RunRequest, RunResult, result_record
from explorer.selection import (
    UsageError,
    add_selection,
    request_from_args,
    selected_variant,
    session_conflicts,
)

if TYPE_CHECKING:
    from explorer.session import Session


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The selection, ``--session``, ``--save-image`` and ``--json``."""
    add_selection(parser)
    parser.add_argument(
        "--session",
        metavar="PATH",
        help="run the configuration saved in a .kexp.json session (--device overrides its device)",
    )
    parser.add_argument("--save-image", metavar="PATH", help="write the result as a PNG")
    add_force(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    add_anyway(parser)


def add_anyway(parser: argparse.ArgumentParser) -> None:
    """``--anyway``: show a seed kernel's bug at the sizes its own constraints refuse."""
    parser.add_argument(
        "--anyway",
        action="store_true",
        help="launch even when the kernel's own size constraints refuse the configuration "
        "(the result is marked as outside them); the device's limits still hold",
    )


def anyway_hint(result: RunResult) -> str | None:
    """The line that tells a person a refusal can be overridden, or None."""
    if result.refused is not None and result.refused.overridable:
        return "Only the kernel's own constraints refuse it: --anyway runs it outside them."
    return None


def session_request(executor: Executor, args: argparse.Namespace) -> RunRequest:
    """The run a ``--session`` file holds; the selection options it holds are refused beside
    it, ``--device`` overrides its device, and a device it names but this machine lacks is
    replaced by the default with a note."""
    from explorer.session import check_files, load_session, session_to_request

    conflicts = session_conflicts(args)
    if conflicts:
        raise UsageError(f"--session holds the configuration; drop {', '.join(conflicts)}")
    if args.repeat < 1:
        raise UsageError("--repeat must be at least 1")
    session = load_session(args.session)  # SessionError is a ValueError: exit 2
    if print_outside(session, args.session) and not args.allow_outside:
        raise UsageError(
            "the session uses files outside its folder (named above); run it with "
            "--allow-outside to use them"
        )
    check_files(session, args.session)
    devices = available_devices(executor)
    request, notice = session_to_request(
        session,
        devices,
        repeat=args.repeat,
        timeout_s=args.timeout,
        keep_output=bool(args.save_image),
    )
    if args.device:
        return dataclasses.replace(request, device_key=pick_device(devices, args.device).key)
    if notice:
        print(f"note: {notice}", file=sys.stderr)
    return request


def print_outside(session: Session, path: str) -> bool:
    """Name every file the session uses from outside its own folder, before any of them is
    read; whether there is one."""
    from explorer.session import files_outside

    outside = files_outside(session, path)
    for line in outside:
        print(f"note: the session uses a file outside its folder: {line}", file=sys.stderr)
    return bool(outside)


def run(args: argparse.Namespace, executor: Executor) -> int:
    """Run, print the verdict (or one JSON line), save the image if asked; the exit code is
    the verdict's."""
    if args.save_image:  # refused before anything runs
        check_output_file(args.save_image, "--save-image", args.force)
    if args.session:
        request = session_request(executor, args)
    else:
        selected_variant(args)  # usage errors before any OpenCL work
        device = pick_device(available_devices(executor), args.device)
        request = request_from_args(args, device.key, keep_output=bool(args.save_image))
    if args.anyway:
        request = dataclasses.replace(request, anyway=True)
    result = executor.run(request)
    if args.json:
        print(json.dumps(result_record(result)))
    else:
        print(result.summary())
        hint = anyway_hint(result)
        if hint:
            print(hint)
        if result.build_log:
            print(result.build_log)
        if result.output_text:
            print("--- kernel output ---")
            print(result.output_text)
    if args.save_image and result.output is not None:
        from explorer.description.images import save_png
        from explorer.file_writes import PNG, WriteFailed, write_output

        output = result.output
        try:
            write_output(
                args.save_image, lambda path: save_png(output, path), PNG, force=args.force
            )
        except WriteFailed as exc:
            print(f"error: {exc}", file=sys.stderr)
            return USAGE_ERROR
        except ValueError as exc:
            print(f"error: cannot write the image {args.save_image}: {exc}", file=sys.stderr)
            return USAGE_ERROR
    if result.status == "error" and result.error_kind in ("build", "input", "environment"):
        return USAGE_ERROR
    if result.verdict is not None and result.verdict.unreferenced:
        return USAGE_ERROR  # it ran and was timed; the header's reference needs fixing
    return EXIT_CODES.get(result.status, USAGE_ERROR)


COMMAND = Command("run", "run one configuration", add_arguments, run, order=30)
