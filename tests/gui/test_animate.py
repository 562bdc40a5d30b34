"""`python -m explorer animate`: the animation as a file for slides, one frame per step."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def animate(*argv):
    """``python -m explorer animate ARGV`` as a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "explorer", "animate", *argv],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )


def animate_here(*argv):
    """The same command in this process, on the session's executor (``fast_cli``)."""
    from tests.robustness.helpers import cli

    return cli("animate", *argv)


@pytest.mark.usefixtures("fast_cli", "qapp")
def test_animate_writes_one_gif_frame_per_step(tmp_path):
    from PIL import Image

    out = tmp_path / "naive.gif"
    done = animate_here(
        "--family",
        "matmul",
        "--variant",
        "naive",
        "--size",
        "32",
        "--local",
        "16x16",
        "--out",
        str(out),
    )
    assert done.code == 0, done.err
    with Image.open(out) as gif:
        assert gif.n_frames == 32 + 1  # naive at 32: one step per k, then the store of C
        assert gif.info.get("loop") == 0


def test_animate_writes_an_mp4(tmp_path):
    iio = pytest.importorskip("imageio.v2")
    pytest.importorskip("imageio_ffmpeg")
    out = tmp_path / "tiled.mp4"
    done = animate(
        "--family",
        "matmul",
        "--variant",
        "tiled",
        "--size",
        "32",
        "--out",
        str(out),
        "--max-frames",
        "10",
        "--fps",
        "5",
    )
    assert done.returncode == 0, done.stderr
    reader = iio.get_reader(str(out))
    assert reader.count_frames() == 10 and reader.get_meta_data()["fps"] == 5


@pytest.mark.usefixtures("fast_cli", "qapp")
def test_animate_refuses_another_suffix(tmp_path):
    done = animate_here("--family", "matmul", "--out", str(tmp_path / "x.avi"))
    assert done.code == 2 and ".gif or .mp4" in done.err


def test_the_file_menu_exports_the_animation_as_mp4(window, qtbot, tmp_path, monkeypatch):
    iio = pytest.importorskip("imageio.v2")
    pytest.importorskip("imageio_ffmpeg")
    from tests.gui.conftest import answer_file_dialogs, trigger
    from tests.gui.test_execution import trace_in_window

    view = trace_in_window(window, qtbot, "matmul", "naive", {"M": 16, "N": 16, "K": 16})
    answer_file_dialogs(monkeypatch, tmp_path / "anim.mp4")
    trigger(window, "Export animation as MP4…")
    assert iio.get_reader(str(tmp_path / "anim.mp4")).count_frames() == view.steps


@pytest.mark.usefixtures("fast_cli", "qapp")
def test_animate_streams_its_frames_to_the_encoder(tmp_path, monkeypatch):
    """Each frame is drawn as the encoder asks for it and dropped once written: at most one is
    alive at a time, so 400 frames at 1920×1080 never sit in memory (2.5 GB) together."""
    import weakref

    from explorer.gui import animation_file

    alive_at_most = []

    def encoder(frames, path, fps):
        kept = []
        for frame in frames:
            kept.append(weakref.ref(frame))
            alive_at_most.append(sum(ref() is not None for ref in kept))  # this one included
            del frame
        with open(path, "wb") as handle:
            handle.write(b"\0\0\0\x18" + animation_file.MP4 + b"isom")

    monkeypatch.setattr(animation_file, "_write_mp4", encoder)
    out = tmp_path / "naive.mp4"
    done = animate_here(
        "--family", "matmul", "--variant", "naive", "--size", "16", "--local", "8x8",
        "--max-frames", "12", "--out", str(out),
    )  # fmt: skip
    assert done.code == 0, done.err
    assert "wrote 12 frames" in done.out
    assert len(alive_at_most) == 12
    assert max(alive_at_most) == 1
