"""``animate``: the traced animation of a configuration as a GIF or an MP4, for slides."""

from __future__ import annotations

import argparse

from explorer.cli.command import Command
from explorer.engine.executor import Executor
from explorer.selection import UsageError, add_selection

FORMATS = (".gif", ".mp4")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The selection, ``--out``, ``--group``, ``--fps``, ``--max-frames`` and ``--window``."""
    add_selection(parser)
    parser.add_argument("--out", required=True, help="FILE.gif or FILE.mp4")
    parser.add_argument("--group", help="the work-group to animate, gx,gy (traced around it)")
    parser.add_argument("--fps", type=float, default=4.0, help="frames per second (default 4)")
    parser.add_argument("--max-frames", type=int, default=400, help="at most (default 400)")
    parser.add_argument(
        "--window", default="1600x1000", help="the window's size in pixels (default 1600x1000)"
    )
    parser.add_argument(
        "--frame-size",
        default="window",
        choices=("window", "1280x720", "1920x1080"),
        help="draw the frames at the view's size in the window (default) or a slide's",
    )


def run(args: argparse.Namespace, executor: Executor) -> int:
    """Open the window offscreen (its own executor), trace, write one frame per step."""
    if not args.out.lower().endswith(FORMATS):
        raise UsageError("--out must end in .gif or .mp4")
    if args.fps <= 0 or args.max_frames < 1:
        raise UsageError("--fps must be positive and --max-frames at least 1")
    try:
        args.window_size = tuple(int(v) for v in args.window.lower().split("x"))
        if len(args.window_size) != 2 or min(args.window_size) < 200:
            raise ValueError
    except ValueError as exc:
        raise UsageError(f"--window {args.window!r} is not like 1600x1000") from exc
    args.frame_size = {"1280x720": (1280, 720), "1920x1080": (1920, 1080)}.get(args.frame_size)
    if args.group is not None:
        try:
            [int(v) for v in args.group.split(",")]
        except ValueError as exc:
            raise UsageError(f"--group {args.group!r} is not like 3,4") from exc
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
