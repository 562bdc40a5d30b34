"""Inputs a mutation fuzzer found (valid .sim files, kernel headers, capture folders and
sessions from the tests, cut, given huge numbers, wrong types, odd text): each one ends in a
documented exit code with a message naming what is wrong, never a traceback, a warning from
numpy or a value the file never wrote."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from explorer.documents import array_file
from explorer.paths import UserFileError, load_user_array
from tests.cli.test_check import needs_oclgrind
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")

PATHS = Path(__file__).resolve().parents[1] / "trace" / "paths"
PROGRAM = """__kernel void fill(__global uchar *out, __global float *f, int n, float g)
{ int i = get_global_id(0); if (i < n) { out[i] += 1; f[i] = g; } }
"""


def _sim(folder: Path, out: str = "fill=0", n: str = "16", g: str = "1.5") -> Path:
    (folder / "fill.cl").write_text(PROGRAM)
    path = folder / "fill.sim"
    path.write_text(
        f"fill.cl\nfill\n16 1 1\n4 1 1\n<size=16 {out} dump>\n<size=64 fill=0 dump>\n"
        f"<size=4>\n{n}\n<size=4>\n{g}\n"
    )
    return path


@pytest.mark.parametrize(
    ("where", "value", "says"),
    [
        ("out", "fill=" + "9" * 400, "outside uchar's range 0 to 255"),  # was an OverflowError
        ("out", "fill=300", "300 is outside uchar's range 0 to 255"),  # was 44 in every byte
        ("out", "fill=-1", "-1 is outside uchar's range"),
        ("n", "4294967296", "4294967296 is outside int's range"),
        ("g", "1e39", "1e39 is outside float's range"),  # was infinity
    ],
)
def test_a_sim_value_its_type_cannot_hold_is_refused_naming_it(tmp_path, capfd, where, value, says):
    path = _sim(tmp_path, **{where: value})
    outcome = cli("run", "--sim", str(path), "--repeat", "1")
    said = outcome.out + outcome.err + "".join(capfd.readouterr())
    assert outcome.code == 2, said
    assert says in said and "line " in said
    assert "Traceback" not in said and len(said) < 800


def test_a_sim_value_that_fits_still_runs(tmp_path):
    outcome = cli("run", "--sim", str(_sim(tmp_path, out="hex fill=ff")), "--repeat", "1")
    assert outcome.code == 0, outcome.err


def test_a_signed_sim_value_in_hexadecimal_is_its_bits(tmp_path):
    """ff fills a char with -1, as its bits say (not 255, which a char cannot hold)."""
    from explorer.engine.header.sim import load_sim

    path = _sim(tmp_path, out="char hex fill=ff")
    assert load_sim(path).custom.params[0].value == -1
    outcome = cli("run", "--sim", str(path), "--repeat", "1")
    assert outcome.code == 0, outcome.out + outcome.err


def _header_file(folder: Path, value: str) -> Path:
    header = (PATHS / "blend_half.toml").read_text().replace("value = 60", f"value = {value}")
    assert f"value = {value}" in header
    path = folder / "blend.cl"
    path.write_text("/*---\n" + header + "---*/\n#line 1\n" + (PATHS / "program.cl").read_text())
    return path


@pytest.mark.parametrize("value", ["1e30", "nan", "inf", "4294967296", "99999999999999999999"])
@pytest.mark.parametrize("command", ["run", "trace"])
def test_a_header_scalar_its_type_cannot_hold_is_refused_naming_it(tmp_path, capfd, value, command):
    """An int parameter given 1e30 ran with -2147483648 and a numpy warning on the terminal."""
    outcome = cli(command, "--kernel-file", str(_header_file(tmp_path, value)))
    said = outcome.out + outcome.err + "".join(capfd.readouterr())
    assert outcome.code == 2, said
    assert "parameter 'n': value" in said and "does not fit int32" in said
    assert "RuntimeWarning" not in said and "Traceback" not in said


def _npy_with_header(header: str) -> bytes:
    text = header.ljust(117) + "\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text.encode() + bytes(400)


# numpy reads the header by tokenizing it as Python: an unclosed bracket is a TokenError.
UNCLOSED = _npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': ((100,), }")


def test_an_npy_header_with_an_unclosed_bracket_is_a_damaged_file(tmp_path):
    path = tmp_path / "x.npy"
    path.write_bytes(UNCLOSED)
    with pytest.raises(UserFileError, match=r"not a readable \.npy array"):
        array_file(path, "captured contents", np.float32, (100,), "args[0].before")
    with pytest.raises(UserFileError, match=r"not a readable \.npy array"):
        load_user_array(path, "array file")


def test_a_kernel_file_reading_such_an_npy_file_says_so(tmp_path):
    (tmp_path / "x.npy").write_bytes(UNCLOSED)
    (tmp_path / "k.cl").write_text(
        '/*---\nname = "d"\nfamily = "custom"\nkernel = "dbl"\nglobal = ["N"]\nlocal = ["4"]\n'
        "[sizes]\nN = 100\n"
        '[args.x]\nbuffer = "float"\ncount = "N"\ncontents = "npy"\nfile = "x.npy"\n'
        '[args.y]\nbuffer = "float"\ncount = "N"\nresult = true\n---*/\n'
        "__kernel void dbl(__global const float *x, __global float *y)\n"
        "{ int i = get_global_id(0); y[i] = 2 * x[i]; }\n"
    )
    outcome = cli("run", "--kernel-file", str(tmp_path / "k.cl"), "--repeat", "1")
    assert outcome.code == 2, outcome.err
    assert "x.npy is not a readable .npy array" in outcome.out + outcome.err
    assert "Traceback" not in outcome.out + outcome.err


def _sim_with_options(folder: Path, options: str, include: str = "") -> Path:
    """fill.sim in ``folder``/case with ``# ARGS: --build-options`` giving each of
    ``options``; its program starts with ``include``."""
    case = folder / "case"
    case.mkdir()
    path = _sim(case)
    program = case / "fill.cl"
    program.write_text(include + program.read_text())
    words = " ".join(f"--build-options {word}" for word in options.split())
    path.write_text(f"# ARGS: {words}\n" + path.read_text())
    return path


def _planted(folder: Path) -> Path:
    """A header outside the case's folder, its access time set old (before its change), so
    that a read moves it on."""
    (folder / "outside").mkdir()
    secret = folder / "outside" / "secret.h"
    secret.write_text("int leaked = SECRET_LINE;\n")
    os.utime(secret, (1_000_000, 2_000_000))
    return secret


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ("-include OUTSIDE", "gives '-include', which the explorer does not pass"),
        ("-IOUTSIDE_FOLDER", "is an absolute path"),
        ("-I../outside", "climbs out of the folder"),
        ("-Ilink", "leads out of the folder through a symbolic link"),
    ],
)
@pytest.mark.parametrize("device", [pytest.param("Oclgrind", marks=needs_oclgrind), None])
def test_a_sim_build_option_that_reads_outside_its_folder_is_refused(
    tmp_path, options, says, device
):
    """Oclgrind's compiler read and quoted the file `-include /elsewhere` named; either
    device read a header through an include folder outside the .sim file's."""
    secret = _planted(tmp_path)
    options = options.replace("OUTSIDE_FOLDER", str(secret.parent)).replace("OUTSIDE", str(secret))
    path = _sim_with_options(tmp_path, f"-DBIAS=1 {options}", '#include "secret.h"\n')
    (path.parent / "link").symlink_to(secret.parent)
    on = ["--device", device] if device else []
    outcome = cli("run", "--sim", str(path), "--repeat", "1", *on)
    said = outcome.out + outcome.err
    assert outcome.code == 2, said
    assert says in said and "# ARGS: --build-options" in said
    assert "SECRET_LINE" not in said
    assert secret.stat().st_atime == 1_000_000, "the header outside was read"


def test_a_sim_include_folder_beside_it_is_found_from_anywhere(tmp_path, monkeypatch):
    """``-Iinc`` names the folder beside the .sim file, wherever the command runs."""
    path = _sim_with_options(tmp_path, "-Iinc -cl-std=CL1.2", '#include "bias.h"\n')
    (path.parent / "inc").mkdir()
    (path.parent / "inc" / "bias.h").write_text("#define BIAS 1\n")
    monkeypatch.chdir(tmp_path)
    outcome = cli("run", "--sim", str(path), "--repeat", "1")
    assert outcome.code == 0, outcome.out + outcome.err


@pytest.mark.parametrize("command", ["run", "trace"])
def test_a_header_kernel_name_of_thousands_of_characters_is_quoted_briefly(tmp_path, command):
    name = "blend_half" + "9" * 5000
    path = _header_file(tmp_path, "60")
    path.write_text(path.read_text().replace('kernel = "blend_half"', f'kernel = "{name}"'))
    outcome = cli(command, "--kernel-file", str(path))
    said = outcome.out + outcome.err
    assert outcome.code == 2, said[:300]
    assert "has no kernel named 'blend_half999" in said and "(5010 characters)" in said
    assert max(len(line) for line in said.splitlines()) < 800


INCLUDES = {
    "absolute": ('#include "SECRET"\n', "includes SECRET, outside"),
    "climbing": ('#include "../outside/secret.h"\n', "includes ../outside/secret.h, outside"),
    "link out": ('#include "link/secret.h"\n', "includes link/secret.h, a link out of"),
    "in a header": ('#include "mine.h"\n', "mine.h line 1 includes ../outside/secret.h"),
}


@pytest.mark.parametrize("case", sorted(INCLUDES))
def test_a_sim_program_including_a_file_outside_its_folder_is_refused_until_agreed(tmp_path, case):
    """A .sim file's program that #included /elsewhere/secret.h was built, the compiler
    quoting the file's lines in its errors."""
    secret = _planted(tmp_path)
    include, says = INCLUDES[case]
    path = _sim_with_options(tmp_path, "-DBIAS=1", include.replace("SECRET", str(secret)))
    (path.parent / "link").symlink_to(secret.parent)
    (path.parent / "mine.h").write_text('#include "../outside/secret.h"\n')
    for command in ("run", "trace"):
        outcome = cli(command, "--sim", str(path))
        said = outcome.out + outcome.err
        assert outcome.code == 2, said
        assert says.replace("SECRET", str(secret)) in said and "--allow-outside" in said
        assert "SECRET_LINE" not in said
    assert secret.stat().st_atime == 1_000_000, "the header outside was read"
    agreed = cli("run", "--sim", str(path), "--repeat", "1", "--allow-outside")
    assert "unless you agree" not in agreed.out + agreed.err  # built, once agreed to
    if case == "absolute":  # the others, relative, a build without -I does not find
        assert "SECRET_LINE" in agreed.out + agreed.err


def test_a_session_kernel_including_a_file_outside_its_folder_is_named_first(tmp_path):
    secret = _planted(tmp_path)
    (tmp_path / "case").mkdir()
    header = (PATHS / "blend_half.toml").read_text()
    program = (PATHS / "program.cl").read_text()
    (tmp_path / "case" / "k.cl").write_text(f'#include "{secret}"\n' + program)
    session = tmp_path / "case" / "s.kexp.json"
    document = {"format": "kernel-explorer-session", "version": 1, "family": "custom"}
    document |= {"kernel_path": "k.cl", "header": f"/*---\n{header}---*/\n"}
    session.write_text(json.dumps(document))
    outcome = cli("run", "--session", str(session), "--repeat", "1")
    said = outcome.out + outcome.err
    assert outcome.code == 2, said
    assert f"#include: k.cl line 1 includes {secret}, outside the session's folder" in said
    assert "SECRET_LINE" not in said
    assert secret.stat().st_atime == 1_000_000, "the header outside was read"


def test_a_session_naming_a_sim_file_whose_program_includes_a_file_outside_asks_first(tmp_path):
    """A session whose kernel is a .sim file: its program's #include of a file outside the
    session's folder is named and nothing of it read, and --allow-outside lets it be used
    (the .sim file's own refusal said "give --allow-outside" whether it was given or not)."""
    secret = _planted(tmp_path)
    path = _sim_with_options(tmp_path, "-DBIAS=1", f'#include "{secret}"\n')
    session = path.parent / "s.kexp.json"
    document = {"format": "kernel-explorer-session", "version": 1, "family": "custom"}
    document |= {"kernel_path": path.name, "input": "declared"}
    session.write_text(json.dumps(document))
    asked = cli("run", "--session", str(session), "--repeat", "1")
    said = asked.out + asked.err
    assert asked.code == 2, said
    assert f"#include: fill.cl line 1 includes {secret}, outside the session's folder" in said
    assert "run it with --allow-outside" in said and "unless you agree" not in said
    assert secret.stat().st_atime == 1_000_000, "the header outside was read"
    agreed = cli("run", "--session", str(session), "--repeat", "1", "--allow-outside")
    said = agreed.out + agreed.err
    assert "unless you agree" not in said and "--allow-outside" not in said, said
    assert "SECRET_LINE" in said  # the build read it, once agreed to


@pytest.mark.parametrize(
    "switch",
    ["-cl-opt-disable", "-cl-fp32-correctly-rounded-divide-sqrt", "-w"],
)
def test_a_sim_file_may_give_the_standard_switches_that_change_only_how_it_compiles(
    tmp_path, switch
):
    """The build options OpenCL defines for how code is compiled pass a .sim file's check
    (the correctly rounded division was refused as one the explorer does not pass)."""
    path = _sim_with_options(tmp_path, f"-DBIAS=1 {switch}")
    outcome = cli("run", "--sim", str(path), "--repeat", "1")
    assert outcome.code == 0, outcome.out + outcome.err


def test_a_sim_program_including_a_header_beside_it_runs(tmp_path):
    path = _sim_with_options(tmp_path, "-I.", '#include "mine.h"\n')
    (path.parent / "mine.h").write_text("#define MINE 1\n")
    outcome = cli("run", "--sim", str(path), "--repeat", "1")
    assert outcome.code == 0, outcome.out + outcome.err


@pytest.mark.parametrize("version", ["CL2.1", "CL2.2", "CL3.2"])
def test_an_opencl_version_the_front_end_does_not_know_is_refused_before_a_trace(tmp_path, version):
    """-cl-std=CL2.1 passed the option check and the trace stopped with 'an unexpected
    TranslationUnitLoadError'."""
    path = _sim_with_options(tmp_path, f"-cl-std={version}")
    outcome = cli("trace", "--sim", str(path))
    said = outcome.out + outcome.err
    assert outcome.code == 2, said
    assert f"gives '-cl-std={version}', which the explorer does not pass" in said
    assert "unexpected" not in said


def test_the_front_end_names_a_version_it_cannot_read():
    from explorer.frontend import ParseError, parse

    with pytest.raises(ParseError, match=r"cannot read it as OpenCL C CL2\.1"):
        parse("__kernel void k(void) {}", {}, "k.cl", cl_std="CL2.1")


VECTOR_BY_VALUE = '''
import numpy as np
import pyopencl as cl

source = """
typedef struct { float a; int b; float c; } P;
__kernel void sv(__global float *out, const P p, const float4 v, const int n)
{ int i = get_global_id(0); if (i < n) out[i] = p.a * i + p.b + p.c + v.y; }
"""
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, source).build()
out = cl.Buffer(context, cl.mem_flags.READ_WRITE, 64 * 4)
p = np.zeros(1, dtype=np.dtype([("a", np.float32), ("b", np.int32), ("c", np.float32)]))
p["a"], p["b"], p["c"] = 1.5, 2, 0.25
v = np.array([1, 2, 3, 4], dtype=np.float32).view(cl.cltypes.float4)[0]
program.sv(queue, (64,), (16,), out, p, v, np.int32(60))
queue.finish()
'''


def test_a_captured_vector_of_pyopencl_s_cltypes_passed_by_value_replays(
    tmp_path, monkeypatch, device
):
    """cltypes.float4 is recorded with numpy's name of its type (88 characters); a replay
    refused it: 'args[2].dtype: expected at most 64 characters'."""
    monkeypatch.setenv("PYOPENCL_CTX", device.key)
    (tmp_path / "vector.py").write_text(VECTOR_BY_VALUE)
    folder = tmp_path / "capture"
    made = cli("capture", str(folder), "--", sys.executable, str(tmp_path / "vector.py"))
    assert made.code == 0, made.out + made.err
    for command in ("run", "trace"):
        outcome = cli(command, "--capture", str(folder), "--launch", "1")
        assert outcome.code == 0, outcome.out + outcome.err
        assert "matches the original run" in outcome.out


@pytest.mark.parametrize("command", ["run", "trace"])
def test_a_name_of_a_hundred_thousand_characters_is_refused_before_a_build(tmp_path, command):
    """The compiler looked for a correction of the undeclared name: PoCL's build took 17 s,
    past --timeout (a build is not a launch), and a 16 MiB one would take hours."""
    path = _header_file(tmp_path, "60")
    text = path.read_text().replace("out[i] = ", "out[i] = " + "x" * 100_000 + " + ", 1)
    assert "x" * 100_000 in text
    path.write_text(text)
    started = time.monotonic()
    outcome = cli(command, "--kernel-file", str(path), "--timeout", "5")
    said = outcome.out + outcome.err
    assert outcome.code == 2, said[:300]
    assert "holds a name of 100000 characters" in said and "more than 1024 is refused" in said
    assert time.monotonic() - started < 5


@pytest.mark.parametrize(
    "device",
    [
        "f" * 4000,
        {"name": "f" * 4000, "platform": "p" * 4000},
        {"name": "gpu", "host": "h" * 4000},
    ],
)
def test_a_session_device_of_thousands_of_characters_is_quoted_briefly(tmp_path, device):
    """The notice that the device is not here quoted a name of 4000 characters whole."""
    session = tmp_path / "s.kexp.json"
    document = {"format": "kernel-explorer-session", "version": 1, "family": "transpose"}
    document |= {"variant": "naive", "sizes": {"WIDTH": 16, "HEIGHT": 16}, "device": device}
    session.write_text(json.dumps(document))
    outcome = cli("run", "--session", str(session), "--repeat", "1")
    said = outcome.out + outcome.err
    assert outcome.code == 0, said[:300]
    assert "is not on this machine" in said or "add that host" in said
    assert max(len(line) for line in said.splitlines()) < 800


ROOT = Path(__file__).resolve().parents[2]


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))


def _command(*args: str) -> subprocess.CompletedProcess[str]:
    """The command line as a process of its own under a memory cap, so that a build waiting
    on a FIFO for good, or reading /dev/zero, is a failure, not a hung or killed test."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        return subprocess.run(
            [sys.executable, "-m", "explorer", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            start_new_session=True,
            preexec_fn=_capped,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{args[0]} waited for good (a build opening a FIFO)")


def test_a_sim_program_including_a_fifo_beside_it_is_refused_not_waited_on(tmp_path):
    path = _sim_with_options(tmp_path, "-I.", '#include "pipe.h"\n')
    os.mkfifo(path.parent / "pipe.h")
    done = _command("run", "--sim", str(path), "--repeat", "1")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "pipe.h is a named pipe (FIFO)" in done.stderr


@pytest.mark.parametrize("agreed", [False, True])
def test_a_capture_whose_copied_header_is_a_fifo_is_refused_not_waited_on(
    tmp_path, monkeypatch, device, agreed
):
    """A replay built the program, the compiler opening the FIFO and waiting for good."""
    monkeypatch.setenv("PYOPENCL_CTX", device.key)
    folder = tmp_path / "capture"
    program = ROOT / "tests" / "capture" / "programs" / "includes.py"
    made = cli("capture", str(folder), "--", sys.executable, str(program))
    assert made.code == 0, made.out + made.err
    header = next(folder.glob("programs/include/*/*/weights.h"))
    header.unlink()
    os.mkfifo(header)
    done = _command(
        "run", "--capture", str(folder), "--launch", "1", *(["--allow-outside"] * agreed)
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "weights.h is a named pipe (FIFO)" in done.stderr


def test_a_session_kernel_including_a_fifo_beside_it_is_refused_not_waited_on(tmp_path):
    header = (PATHS / "blend_half.toml").read_text()
    (tmp_path / "k.cl").write_text('#include "pipe.h"\n' + (PATHS / "program.cl").read_text())
    os.mkfifo(tmp_path / "pipe.h")
    session = tmp_path / "s.kexp.json"
    document = {"format": "kernel-explorer-session", "version": 1, "family": "custom"}
    document |= {"kernel_path": "k.cl", "header": f"/*---\n{header}---*/\n"}
    session.write_text(json.dumps(document))
    done = _command("run", "--session", str(session), "--repeat", "1")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "pipe.h is a named pipe (FIFO)" in done.stderr


@pytest.mark.parametrize("size", [4, 11])
def test_a_local_struct_argument_smaller_than_one_element_is_traced(tmp_path, size):
    """A __local Sample * (12 bytes an element) given 4 bytes in a .sim file: the trace
    stopped with 'an unexpected IndexError' (its local-memory pass keyed no element)."""
    for name in ("program5.cl", "swap_weigh.sim"):
        (tmp_path / name).write_text((PATHS / name).read_text())
    path = tmp_path / "swap_weigh.sim"
    path.write_text(path.read_text().replace("<size=384>", f"<size={size}>"))
    outcome = cli("trace", "--sim", str(path))
    said = outcome.out + outcome.err
    assert outcome.code == 0, said
    assert "unexpected" not in said
    assert "outside tile (0 elements)" in said


@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_an_agreed_header_link_out_to_a_device_or_a_fifo_is_refused(
    tmp_path, monkeypatch, device, target
):
    """With --allow-outside, a captured header that links to /dev/zero was read by the C
    front end in the command's own process until it was killed (memory), and a FIFO waited
    on for good."""
    monkeypatch.setenv("PYOPENCL_CTX", device.key)
    folder = tmp_path / "capture"
    program = ROOT / "tests" / "capture" / "programs" / "includes.py"
    made = cli("capture", str(folder), "--", sys.executable, str(program))
    assert made.code == 0, made.out + made.err
    if target == "fifo":
        os.mkfifo(tmp_path / "pipe.h")
        target = str(tmp_path / "pipe.h")
    header = next(folder.glob("programs/include/*/*/weights.h"))
    header.unlink()
    header.symlink_to(target)
    done = _command("run", "--capture", str(folder), "--launch", "1", "--allow-outside")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "weights.h is a device" in done.stderr or "weights.h is a named pipe" in done.stderr
    assert "Traceback" not in done.stderr
