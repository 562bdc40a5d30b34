import numpy as np

from explorer.description.images import load_grey, save_png
from explorer.description.text_image import text_mask
from explorer.families import FAMILIES


def test_text_mask_draws_each_letter_apart():
    mask = text_mask("IOU", 96, 96)
    columns = mask.any(axis=0)
    # Three letters: three runs of inked columns separated by blank ones.
    runs = np.diff(np.concatenate([[0], columns.astype(int), [0]]))
    assert (runs == 1).sum() == 3


def test_text_changes_the_picture():
    assert not np.array_equal(text_mask("IOU", 64, 64), text_mask("GPU", 64, 64))


def test_iou_reference_is_grey_with_dark_text():
    problem = FAMILIES["matmul"]
    sizes = {"M": 128, "N": 128, "K": 128}
    inputs = problem.make_inputs(sizes, np.dtype("float32"), "iou", "IOU")
    c = problem.reference(inputs, sizes).value
    assert set(np.unique(c)) == {0.0, 0.75}
    assert np.array_equal(c == 0, text_mask("IOU", 128, 128))


def test_png_round_trip_keeps_the_picture(tmp_path):
    picture = np.where(text_mask("HI", 40, 60), 0.0, 1.0)
    path = tmp_path / "hi.png"
    save_png(picture, path)
    back = load_grey(path)
    assert back.shape == (40, 60)
    assert np.array_equal(back < 0.5, picture < 0.5)


def test_image_input_becomes_b(tmp_path):
    picture = np.where(text_mask("X", 32, 32), 0.0, 1.0)
    path = tmp_path / "x.png"
    save_png(picture, path)
    problem = FAMILIES["matmul"]
    sizes = {"M": 64, "N": 64, "K": 64}
    inputs = problem.make_inputs(sizes, np.dtype("float32"), "image", image_path=str(path))
    assert inputs["B"].shape == (64, 64)
    assert inputs["B"].min() == 0.0 and inputs["B"].max() == 0.5


def test_every_png_variant_reads_as_grey(tmp_path):
    from PIL import Image

    ramp = np.tile(np.arange(0, 256, 4, dtype=np.uint8), (16, 1))  # 16 × 64, left dark
    variants = {
        "grey8.png": (Image.fromarray(ramp), {}),
        "grey16.png": (Image.fromarray(ramp.astype(np.uint16) * 257), {}),
        "palette.png": (
            Image.fromarray(np.dstack([ramp] * 3)).convert("P", palette=Image.Palette.ADAPTIVE),
            {},
        ),
        "interlaced.png": (Image.fromarray(np.dstack([ramp] * 3 + [ramp])), {"interlace": 1}),
        "grey.pgm": (Image.fromarray(ramp), {}),
    }
    for name, (image, options) in variants.items():
        image.save(tmp_path / name, **options)
        grey = load_grey(tmp_path / name)
        assert grey.shape == (16, 64), name
        assert grey[:, 0].max() < 0.05 and grey[:, -1].min() > 0.9, name
        assert np.all(np.diff(grey[0]) >= -0.02), name


def test_a_bad_image_file_is_named_in_the_error(tmp_path):
    import pytest

    from explorer.description.images import ImageError

    broken = tmp_path / "holiday.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 20)
    text = tmp_path / "notes.png"
    text.write_text("not a picture")
    for path in (broken, text, tmp_path / "missing.png"):
        with pytest.raises(ImageError, match=path.name):
            load_grey(path)
