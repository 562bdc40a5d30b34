"""`python -m explorer animate`: the animation as a file for slides, one frame per step.

The commands run in this process, on the session's executor and its one QApplication
(``fast_cli``); tests/robustness runs ``animate`` as a process of its own (its Ctrl+C, its
timeout), as a person does.
"""

import pytest


def animate_here(*argv):
    """``python -m explorer animate ARGV`` in this process, on the session's executor."""
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
        "--window",  # the frames' size does not change their number: small ones are quick
        "640x400",
        "--out",
        str(out),
    )
    assert done.code == 0, done.err
    with Image.open(out) as gif:
        assert gif.n_frames == 32 + 1  # naive at 32: one step per k, then the store of C
        assert gif.info.get("loop") == 0


@pytest.mark.usefixtures("fast_cli", "qapp")
def test_animate_writes_an_mp4(tmp_path):
    iio = pytest.importorskip("imageio.v2")
    pytest.importorskip("imageio_ffmpeg")
    out = tmp_path / "tiled.mp4"
    done = animate_here(
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
    assert done.code == 0, done.err
    reader = iio.get_reader(str(out))
    assert reader.count_frames() == 10 and reader.get_meta_data()["fps"] == 5


@pytest.mark.usefixtures("fast_cli", "qapp")
def test_animate_refuses_another_suffix(tmp_path):
    done = animate_here("--family", "matmul", "--out", str(tmp_path / "x.avi"))
    assert done.code == 2 and ".gif or .mp4" in done.err
