"""``animate``: the traced animation of a configuration as a GIF or an MP4, for slides."""

from __future__ import annotations

import argparse

from explorer.cli.command import Command, add_force, check_output_file
from explorer.engine.executor import Executor
from explorer.paths import shown
from explorer.selection import UsageError, add_selection

FORMATS = (".gif", ".mp4")
MIN_WINDOW, MAX_WINDOW = 200, 7680  # 8K wide: larger windows exhaust the painter's memory


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The selection, ``--out``, ``--group``, ``--fps``, ``--max-frames`` and ``--window``."""
    add_selection(parser)
    parser.add_argument("--out", required=True, help="FILE.gif or FILE.mp4")
    add_force(parser)
    parser.add_argument("--group", help="the work-group to animate, gx,gy (traced around it)")
    parser.add_argument("--fps", type=_fps, default=4.0, help="frames per second (default 4)")
    parser.add_argument("--max-frames", type=int, default=400, help="at most (default 400)")
    parser.add_argument(
        "--window", default="1600x1000", help="the window's size in pixels (default 1600x1000)"
    )
    parser.add_argument(
        "--frame-size",
        default="window",
        choices=("window", "1280x720", "1920x1080"),
        help="the frames: the view as in the window (default), or laid out for a slide of "
        "that size, as presenter mode shows it (values written large)",
    )


def _fps(text: str) -> float:
    """``--fps``: a finite number from 0.1 to 60."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{shown(text)!r} is not a number") from None
    if not 0.1 <= value <= 60:  # NaN fails this too
        raise argparse.ArgumentTypeError(f"{shown(text)} is not from 0.1 to 60")
    return value


def run(args: argparse.Namespace, executor: Executor) -> int:
    """Open the window offscreen (its own executor), trace, write one frame per step."""
    if not args.out.lower().endswith(FORMATS):
        raise UsageError(f"--out {shown(args.out)}: the file name must end in .gif or .mp4")
    check_output_file(args.out, "--out", args.force)
    if not 1 <= args.max_frames <= 100_000:
        raise UsageError("--max-frames from 1 to 100000")
    try:
        args.window_size = tuple(int(v) for v in args.window.lower().split("x"))
        if len(args.window_size) != 2:
            raise ValueError
    except ValueError:
        raise UsageError(f"--window {shown(args.window)!r} is not like 1600x1000") from None
    if not all(MIN_WINDOW <= v <= MAX_WINDOW for v in args.window_size):
        raise UsageError(
            f"--window {shown(args.window)}: each side from {MIN_WINDOW} to {MAX_WINDOW} "
            "pixels, e.g. 1600x1000"
        )
    args.frame_size = {"1280x720": (1280, 720), "1920x1080": (1920, 1080)}.get(args.frame_size)
    if args.group is not None:
        try:
            [int(v) for v in args.group.split(",")]
        except ValueError:
            raise UsageError(f"--group {shown(args.group)!r} is not like 3,4") from None
    if args.out.lower().endswith(".mp4"):
        try:
            import imageio  # noqa: F401
            import imageio_ffmpeg  # noqa: F401
        except ImportError as exc:
            raise UsageError(
                "MP4 needs imageio and imageio-ffmpeg: pip install imageio imageio-ffmpeg"
            ) from exc
    from explorer.gui.animate_command import animate_to_file

    return animate_to_file(args)


COMMAND = Command(
    "animate", "the traced animation as a GIF or MP4 for slides", add_arguments, run, order=47
)
