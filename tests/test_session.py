"""Sessions: what is saved comes back; every bad file is refused naming the file and field."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from explorer.engine.header.catalog import find_variant
from explorer.engine.records import DeviceInfo, RunRequest
from explorer.session import (
    FORMAT,
    FORMAT_VERSION,
    Session,
    SessionError,
    check_files,
    files_outside,
    load_session,
    save_session,
    session_from_request,
    session_to_request,
)
from tests.conftest import TEST_KERNELS

USER_KERNEL = TEST_KERNELS / "tiled_off_by_one.cl"  # a matmul kernel with a catalog header


def _device(name: str, kind: str, platform_index: int) -> DeviceInfo:
    return DeviceInfo(
        platform_index=platform_index,
        device_index=0,
        name=name,
        vendor="test",
        platform=f"{name} platform",
        type=kind,
        opencl_version="OpenCL 3.0",
        driver_version="1",
        compute_units=8,
        max_work_group_size=1024,
        max_work_item_sizes=(1024, 1024, 1024),
        local_mem_bytes=65536,
        global_mem_bytes=2**32,
        max_alloc_bytes=2**30,
        clock_mhz=1000,
        preferred_multiple=32,
    )


DEVICES = [_device("Big CPU", "CPU", 0), _device("Fast GPU", "GPU", 1)]


def _full_session() -> Session:
    return Session(
        family="matmul",
        variant="tiled",
        sizes={"M": 96, "N": 64, "K": 80},
        local=(16, 16),
        defines={"TS": 16},
        input="iou",
        text="HI",
        device="Big CPU",
        view={"tab": "result", "phase": 2, "group": [3, 1]},
    )


def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


_DROP = object()  # a field left out of the file


def _valid(**changes: object) -> dict:
    data = {"format": FORMAT, "version": FORMAT_VERSION, "family": "matmul", "variant": "tiled"}
    data.update(changes)
    return {k: v for k, v in data.items() if v is not _DROP}


# -- round trips ------------------------------------------------------------------------


def test_a_saved_session_loads_back_equal(tmp_path):
    session = _full_session()
    path = save_session(session, tmp_path / "tiled.kexp.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == FORMAT and data["version"] == FORMAT_VERSION
    assert data["variant"] == "tiled" and data["kernel_path"] is None
    assert load_session(path) == session


def test_paths_inside_the_folder_are_stored_relative_and_follow_a_move(tmp_path):
    folder = tmp_path / "lesson"
    (folder / "kernels").mkdir(parents=True)
    kernel = folder / "kernels" / "mine.cl"
    shutil.copy(USER_KERNEL, kernel)
    image = folder / "picture.npy"
    np.save(image, np.eye(8))
    session = Session(
        family="matmul", kernel_path=str(kernel), input="image", image_path=str(image)
    )
    save_session(session, folder / "s.kexp.json")
    data = json.loads((folder / "s.kexp.json").read_text(encoding="utf-8"))
    assert data["kernel_path"] == "kernels/mine.cl"
    assert data["image_path"] == "picture.npy"

    moved = tmp_path / "elsewhere"
    shutil.move(folder, moved)
    loaded = load_session(moved / "s.kexp.json")
    assert Path(loaded.kernel_path) == moved / "kernels" / "mine.cl"
    assert Path(loaded.image_path) == moved / "picture.npy"


def test_paths_outside_the_folder_stay_absolute(tmp_path):
    (tmp_path / "a").mkdir()
    session = Session(family="matmul", kernel_path=str(USER_KERNEL.resolve()))
    save_session(session, tmp_path / "a" / "s.kexp.json")
    data = json.loads((tmp_path / "a" / "s.kexp.json").read_text(encoding="utf-8"))
    assert data["kernel_path"] == str(USER_KERNEL.resolve())


def test_a_request_becomes_a_session_and_back(tmp_path):
    request = RunRequest(
        variant=find_variant("transpose", "tiled"),
        sizes={"WIDTH": 300, "HEIGHT": 100},
        local=(16, 16),
        defines={},
        device_key="1:0",
        input="random",
        text="IOU",
    )
    session = session_from_request(request, DEVICES[1], {"tab": "timing"})
    assert session.variant == "tiled" and session.kernel_path is None
    loaded = load_session(save_session(session, tmp_path / "t.kexp.json"))
    again, notice = session_to_request(loaded, DEVICES)
    assert notice is None
    assert again == request


def test_a_users_kernel_is_saved_by_its_path(tmp_path):
    from explorer.engine.header.catalog import load_variant_file

    request = RunRequest(variant=load_variant_file(USER_KERNEL), sizes={"M": 64})
    session = session_from_request(request, None)
    assert session.variant is None
    assert Path(session.kernel_path) == USER_KERNEL.resolve()
    again, _ = session_to_request(
        load_session(save_session(session, tmp_path / "u.kexp.json")), DEVICES
    )
    assert again.variant.path == str(USER_KERNEL.resolve())


# -- bad files --------------------------------------------------------------------------

BAD = [
    # (file content, the field the message names or None, words in the message)
    ("{not json", None, "invalid JSON"),
    ("[1, 2]", None, "a JSON object expected"),
    ({"family": "matmul", "variant": "tiled"}, None, "not a session file"),
    (_valid(format="something-else"), "format", "kernel-explorer-session"),
    (_valid(version=FORMAT_VERSION + 1), "version", "newer Kernel Explorer"),
    (_valid(version=0), "version", "positive integer"),
    (_valid(version=True), "version", "positive integer"),
    (_valid(version="1"), "version", "positive integer"),
    (_valid(zoom=2), "zoom", "unknown field"),
    (_valid(family="fft"), "family", "matmul"),
    (_valid(family=3), "family", "matmul"),
    (_valid(variant="no-such-variant"), "variant", "no variant 'no-such-variant'"),
    (_valid(variant=7), "variant", "string"),
    (_valid(variant=_DROP), "variant", "either"),
    (_valid(kernel_path="missing.cl"), "variant", "not both"),
    (_valid(variant=None, kernel_path="missing.cl"), "kernel_path", "does not exist"),
    (_valid(sizes={"M": 0}), "sizes", "from 1"),
    (_valid(sizes={"M": -5}), "sizes", "from 1"),
    (_valid(sizes={"M": "128"}), "sizes", "'128'"),
    (_valid(sizes={"M": 1.5}), "sizes", "1.5"),
    (_valid(sizes={"M": True}), "sizes", "True"),
    (_valid(sizes={"M": 2**31}), "sizes", "2147483647"),
    (_valid(sizes={"WIDTH": 64}), "sizes", "no size 'WIDTH'"),
    (_valid(sizes=[64, 64, 64]), "sizes", "an object expected"),
    (_valid(local=[0, 16]), "local", "positive"),
    (_valid(local=[1, 2, 3, 4]), "local", "1 to 3"),
    (_valid(local="16x16"), "local", "16x16"),
    (_valid(defines={"TS": "16"}), "defines", "integer"),
    (_valid(defines={"1TS": 16}), "defines", "1TS"),
    (_valid(input="noise"), "input", "iou, random, identity, image"),
    (_valid(input="image"), "image_path", "needs an image file"),
    (_valid(input="image", image_path="nowhere.png"), "image_path", "nowhere.png"),
    (_valid(text=5), "text", "string"),
    (_valid(device=1), "device", "string"),
    (_valid(view=[1]), "view", "an object expected"),
    (_valid(view={"zoom": 2}), "view.zoom", "unknown field"),
    (_valid(view={"phase": -1}), "view.phase", "phase number"),
    (_valid(view={"group": [1, -1]}), "view.group", "work-group"),
    (_valid(view={"tab": ""}), "view.tab", "tab name"),
    (_valid(view={"tab": "nope"}), "view.tab", "(result, timing, source, findings, grid;"),
    (_valid(view={"tab": ["grid"]}), "view.tab", "tab name"),
    ('{"format": "kernel-explorer-session", "version": 1, "version": 1}', "version", "twice"),
    (
        '{"format": "kernel-explorer-session", "version": 1, "family": "matmul", '
        '"variant": "tiled", "sizes": {"M": NaN}}',
        None,
        "NaN",
    ),
]


@pytest.mark.parametrize(("content", "field", "words"), BAD)
def test_a_bad_file_is_refused_naming_the_file_and_the_field(tmp_path, content, field, words):
    path = _write(tmp_path / "bad.kexp.json", content)
    with pytest.raises(SessionError) as caught:
        load_session(path)
    message = str(caught.value)
    assert str(path) in message
    assert caught.value.field == field
    if field:
        assert f"field '{field}'" in message
    assert words in message


def test_a_kernel_of_another_family_is_refused(tmp_path):
    shutil.copy(USER_KERNEL, tmp_path / "mine.cl")
    path = _write(
        tmp_path / "k.kexp.json",
        _valid(family="transpose", variant=None, kernel_path="mine.cl"),
    )
    with pytest.raises(SessionError, match=r"kernel_path.*matmul kernel, not transpose"):
        load_session(path)


def test_a_kernel_outside_the_folder_is_not_read_until_the_person_agrees(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    kernel = elsewhere / "mine.cl"
    shutil.copy(USER_KERNEL, kernel)
    long_ago = 1_000_000_000
    os.utime(kernel, (long_ago, long_ago))
    (tmp_path / "a").mkdir()
    path = _write(
        tmp_path / "a" / "k.kexp.json",
        _valid(family="transpose", variant=None, kernel_path=str(kernel)),
    )
    session = load_session(path)  # its checks of the kernel wait for the person's yes
    assert files_outside(session, path) == [f"kernel file: {kernel}"]
    assert kernel.stat().st_atime == long_ago  # not read, not even opened
    with pytest.raises(SessionError, match=r"kernel_path.*matmul kernel, not transpose"):
        check_files(session, str(path))


def test_a_kernel_file_without_a_header_is_refused(tmp_path):
    (tmp_path / "plain.cl").write_text("__kernel void k(__global float* a) { a[0] = 1; }\n")
    path = _write(tmp_path / "k.kexp.json", _valid(variant=None, kernel_path="plain.cl"))
    with pytest.raises(SessionError, match=r"field 'kernel_path'.*no catalog header"):
        load_session(path)


def test_a_file_that_is_not_text_or_not_there_is_refused(tmp_path):
    binary = tmp_path / "binary.kexp.json"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(SessionError, match="not a session file"):
        load_session(binary)
    with pytest.raises(SessionError, match="cannot read"):
        load_session(tmp_path / "absent.kexp.json")


def test_an_invalid_session_is_never_written(tmp_path):
    target = tmp_path / "never.kexp.json"
    with pytest.raises(SessionError, match="field 'variant'"):
        save_session(Session(family="matmul", variant="no-such-variant"), target)
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []


# -- devices ----------------------------------------------------------------------------


def test_the_saved_device_is_used_when_present(monkeypatch):
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    request, notice = session_to_request(_full_session(), DEVICES)
    assert request.device_key == DEVICES[0].key  # "Big CPU", not the default GPU
    assert notice is None
    assert request.sizes == {"M": 96, "N": 64, "K": 80}
    assert request.local == (16, 16) and request.defines == {"TS": 16}
    assert (request.input, request.text) == ("iou", "HI")


def test_a_missing_device_falls_back_to_the_default_with_a_notice(monkeypatch):
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    session = Session(family="matmul", variant="naive", device="GeForce 9000")
    request, notice = session_to_request(session, DEVICES)
    assert request.device_key == DEVICES[1].key  # the default: the first GPU
    assert notice is not None
    assert "GeForce 9000" in notice and "Fast GPU" in notice


def test_no_saved_device_means_the_default_and_no_notice(monkeypatch):
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    request, notice = session_to_request(Session(family="rowdot", variant="fast"), DEVICES)
    assert request.device_key == DEVICES[1].key
    assert notice is None
    assert request.input == "random"  # rowdot's only input


def test_a_loaded_session_runs_and_verifies(tmp_path, executor, device):
    session = Session(
        family="matmul", variant="tiled", sizes={"M": 48, "N": 40, "K": 56}, device=device.name
    )
    loaded = load_session(save_session(session, tmp_path / "run.kexp.json"))
    request, notice = session_to_request(loaded, executor.devices(), repeat=2)
    assert notice is None
    result = executor.run(request)
    assert result.status == "verified", result.summary()


def test_sessions_and_the_desktop_entry_need_no_qt():
    code = (
        "import sys\n"
        "sys.modules['PySide6'] = None\n"
        "sys.modules['pyqtgraph'] = None\n"
        "import explorer.session, explorer.desktop\n"
        "print('ok')\n"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
