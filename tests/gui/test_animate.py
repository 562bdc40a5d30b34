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
