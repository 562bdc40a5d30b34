"""Check a built bundle (dist/kernel-explorer/) from outside the checkout, as a person who
copied the folder would use it: the folder is copied into a scratch folder (links kept), and
each step runs the copy's executables from there with a clean environment (PATH=/usr/bin:/bin,
a fresh HOME, so no cache, setting, virtual environment or PYTHONPATH of this machine helps),
and prints PASS or FAIL with the reason.

Steps: the files only found at run time are in the folder; the command line lists a PoCL device;
runs and verifies a kernel on it; traces one (the libclang front end and the trace runtime) and
finds its uncoalesced write; captures a small PyOpenCL program run by the person's own Python
(``--python``) and replays its launch; the window renders itself offscreen after a run
(``--screenshot``), which starts the window's own executor; ``animate`` writes an MP4 through
the bundled ffmpeg; ``install-desktop`` writes a menu entry that starts the window; no process
of the bundle is left running. Then the figures: the folder's size and the start times.

Usage (Linux; the standard library only)::

    python packaging/check_bundle.py [--bundle dist/kernel-explorer] [--python PYTHON]
                                     [--runs 5] [--keep] [--in-place]

``--python``: a Python with numpy and pyopencl that a person would run their program with
(default: the one running this script). Exit code: 0 when every step passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GUI = "kernel-explorer"
CLI = "kernel-explorer-cli"
POCL_PLATFORM = "Portable Computing Language"
TIMEOUT_S = 300

# Files the bundle only ever opens at run time (PyInstaller's analysis cannot see them).
RUN_TIME_FILES = {
    "libclang (the OpenCL C front end)": "_internal/clang/native/libclang.so",
    "PoCL's ICD file": "_internal/pyopencl/.libs/pocl.icd",
    "PoCL's headers and bitcode": "_internal/pocl_binary_distribution/.libs/share",
    "a shipped kernel": "_internal/kernels/matmul/tiled.cl",
    "the icon": "_internal/resources/icon.svg",
    "the trace runtime": "_internal/explorer/trace/instrument/runtime.cl",
    "the parser's declarations": "_internal/explorer/frontend/opencl_prelude.h",
    "the capture bootstrap": "_internal/explorer/capture/bootstrap/sitecustomize.py",
    "the package it imports": "_internal/explorer/capture/bootstrap/__init__.py",
    "the recorder it imports by name": "_internal/explorer/capture/bootstrap/recorder.py",
    "the CPU naming the recorder imports": "_internal/explorer/capture/bootstrap/host_cpu.py",
}

# The person's own program for the capture step: plain PyOpenCL, PoCL's platform when there is
# one. It prints the library path it was started with and the variables that name the bundle
# (its first argument) besides PYTHONPATH (where capture puts its bootstrap), so the check can
# tell that the bundle's environment did not leak in.
HOST_PROGRAM = '''
import os
import sys
import numpy as np
import pyopencl as cl

platforms = cl.get_platforms()
platform = next((p for p in platforms if "Portable" in p.name), platforms[0])
ctx = cl.Context(platform.get_devices()[:1])
queue = cl.CommandQueue(ctx)
prg = cl.Program(ctx, """
__kernel void scale_add(__global const float *x, __global float *y, const float a, const int n)
{
    int i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}
""").build()
n = 1000
x = np.arange(n, dtype=np.float32)
y = np.ones(n, dtype=np.float32)
mf = cl.mem_flags
xb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
yb = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=y)
prg.scale_add(queue, (1024,), (64,), xb, yb, np.float32(2.0), np.int32(n))
out = np.empty_like(y)
cl.enqueue_copy(queue, out, yb)
assert np.array_equal(out, 2 * x + 1), "wrong result"
print("LD_LIBRARY_PATH=" + os.environ.get("LD_LIBRARY_PATH", "<unset>"))
leaked = [
    k for k, v in os.environ.items()
    if (k.startswith("_PYI_") or sys.argv[1] in v) and k != "PYTHONPATH"  # capture's bootstrap
]
print("NAMING THE BUNDLE=" + ",".join(sorted(leaked)))
'''


class Failed(Exception):
    """A step's failure; the message says why."""


class Checker:
    def __init__(self, bundle: Path, python: str, scratch: Path) -> None:
        self.bundle = bundle
        self.python = python
        self.scratch = scratch
        self.home = scratch / "home"
        self.home.mkdir()
        self.env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "TMPDIR": str(scratch),
        }
        self.device = ""
        self.failures: list[str] = []

    def step(self, name: str, body: Callable[[], str]) -> None:
        try:
            detail = body()
        except Failed as exc:
            self.failures.append(name)
            print(f"FAIL {name}: {exc}", flush=True)
        else:
            print(f"PASS {name}: {detail}", flush=True)

    def run(
        self, argv: list[str], extra: dict[str, str] | None = None, timeout: float = TIMEOUT_S
    ) -> subprocess.CompletedProcess[str]:
        env = {**self.env, **(extra or {})}
        try:
            return subprocess.run(
                argv,
                cwd=self.scratch,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise Failed(f"{' '.join(argv[:3])} ... gave no answer in {timeout:.0f} s") from None
        except OSError as exc:
            raise Failed(f"cannot start {argv[0]}: {exc.strerror or exc}") from None

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run([str(self.bundle / CLI), *args])

    @staticmethod
    def answer(done: subprocess.CompletedProcess[str], what: str) -> dict | list:
        if done.returncode != 0:
            raise Failed(f"{what} exited {done.returncode}: {tail(done.stderr or done.stdout)}")
        try:
            return json.loads(done.stdout)
        except ValueError:
            raise Failed(f"{what} printed no JSON: {tail(done.stdout + done.stderr)}") from None

    # -- the steps -----------------------------------------------------------------------

    def layout(self) -> str:
        missing = [
            f"{what} ({path})"
            for what, path in RUN_TIME_FILES.items()
            if not (self.bundle / path).exists()
        ]
        for name in (GUI, CLI):
            if not os.access(self.bundle / name, os.X_OK):
                missing.insert(0, f"the executable {name}")
        if not any((self.bundle / "_internal/pyopencl/.libs").glob("libpocl*")):
            missing.append("libpocl (_internal/pyopencl/.libs/libpocl*)")
        if missing:
            raise Failed("missing: " + "; ".join(missing))
        return f"both executables and {len(RUN_TIME_FILES) + 1} files found at run time"

    def devices(self) -> str:
        listed = self.answer(self.cli("devices", "--json"), "devices --json")
        assert isinstance(listed, list)
        pocl = [d for d in listed if d.get("platform") == POCL_PLATFORM]
        if not pocl:
            names = ", ".join(d.get("platform", "?") for d in listed) or "none"
            raise Failed(f"no PoCL device among the devices listed (platforms: {names})")
        self.device = pocl[0]["index"]
        return f"{len(listed)} device(s); PoCL is {self.device}: {pocl[0]['name']}"

    def need_device(self) -> None:
        if not self.device:
            raise Failed("no PoCL device (see the devices step)")

    def run_kernel(self) -> str:
        self.need_device()
        args = ["--family", "matmul", "--variant", "tiled", "--size", "128"]
        result = self.answer(
            self.cli("run", *args, "--device", self.device, "--json"), "run --family matmul"
        )
        assert isinstance(result, dict)
        if result.get("status") != "verified" or result.get("platform") != POCL_PLATFORM:
            raise Failed(
                f"expected a verified result on PoCL, got status {result.get('status')!r} on "
                f"{result.get('platform')!r}: {result.get('error') or result.get('refused')}"
            )
        return f"matmul tiled 128 verified on PoCL, kernel {result['kernel_ms_median']:.2f} ms"

    def trace(self) -> str:
        self.need_device()
        args = ["--family", "transpose", "--variant", "naive", "--width", "64", "--height", "64"]
        result = self.answer(
            self.cli("trace", *args, "--device", self.device, "--json"), "trace --family transpose"
        )
        assert isinstance(result, dict)
        kinds = sorted({f.get("kind") for f in result.get("findings", [])})
        if not result.get("complete") or not result.get("records"):
            raise Failed(f"the trace is incomplete or empty: {tail(json.dumps(result)[:400])}")
        if "uncoalesced" not in kinds:
            raise Failed(f"the naive transpose's uncoalesced write was not found (found: {kinds})")
        return f"transpose naive 64x64: {result['records']} records, complete, findings {kinds}"

    def capture(self) -> str:
        self.need_device()
        probe = self.run([self.python, "-c", "import numpy, pyopencl"])
        if probe.returncode != 0:
            raise Failed(
                f"{self.python} cannot import numpy and pyopencl (give --python a Python that "
                f"can, as a person's own would): {tail(probe.stderr, 1)}"
            )
        program = self.scratch / "host.py"
        program.write_text(HOST_PROGRAM, encoding="utf-8")
        folder = self.scratch / "cap"
        # The person's own library path, which the bootloader moves aside for the bundle's.
        own = self.scratch / "own-libraries"
        own.mkdir()
        done = self.run(
            [
                str(self.bundle / CLI),
                "capture",
                str(folder),
                "--",
                self.python,
                "host.py",
                str(self.bundle),
            ],
            {"LD_LIBRARY_PATH": str(own)},
        )
        if done.returncode != 0:
            raise Failed(f"capture exited {done.returncode}: {tail(done.stderr or done.stdout)}")
        if "1 launches recorded" not in done.stderr:
            raise Failed(f"expected one launch recorded, capture said: {tail(done.stderr)}")
        said = dict(ln.split("=", 1) for ln in done.stdout.splitlines() if "=" in ln)
        if said.get("LD_LIBRARY_PATH") != str(own):
            raise Failed(
                f"the program's LD_LIBRARY_PATH was {said.get('LD_LIBRARY_PATH')!r}, not the "
                f"person's own {str(own)!r}"
            )
        if said.get("NAMING THE BUNDLE", "?"):
            raise Failed(
                "the program inherited the bundle's own variables: "
                f"{said.get('NAMING THE BUNDLE', '(it printed nothing)')}"
            )
        replay = self.answer(
            self.cli(
                "run", "--capture", str(folder), "--launch", "1", "--device", self.device, "--json"
            ),
            "run --capture",
        )
        assert isinstance(replay, dict)
        if replay.get("status") != "verified":
            raise Failed(
                f"the replay of the captured launch was {replay.get('status')!r}: "
                f"{replay.get('error') or replay.get('refused')}"
            )
        return (
            f"{self.python} host.py recorded scale_add, run with the person's environment "
            "(its own LD_LIBRARY_PATH, nothing of the bundle's); its replay verified on PoCL"
        )

    def screenshot(self) -> str:
        self.need_device()
        shot = self.scratch / "window.png"
        args = ["--family", "matmul", "--variant", "tiled", "--size", "256", "--input", "iou"]
        done = self.run(
            [
                str(self.bundle / GUI),
                "--screenshot",
                str(shot),
                *args,
                "--device",
                self.device,
                "--run",
            ],
            {"QT_QPA_PLATFORM": "offscreen"},
        )
        if done.returncode != 0:
            raise Failed(f"--screenshot --run exited {done.returncode}: {tail(done.stderr)}")
        width, height, rows = png_rows(shot)
        if rows < height // 10:
            raise Failed(f"the picture looks blank: {rows} different rows of {height}")
        return (
            f"{width}x{height} PNG after a verified run, {rows} different rows of {height}, "
            f"{shot.stat().st_size // 1024} KiB"
        )

    def animation(self) -> str:
        """``animate --out FILE.mp4``: the work-group animation through the bundled ffmpeg."""
        self.need_device()
        movie = self.scratch / "tiled.mp4"
        args = ["--family", "matmul", "--variant", "tiled", "--size", "32", "--out", str(movie)]
        done = self.cli("animate", *args, "--device", self.device)
        if done.returncode != 0:
            raise Failed(f"animate exited {done.returncode}: {tail(done.stderr)}")
        try:
            head = movie.read_bytes()[:12]
        except OSError:
            raise Failed(f"animate wrote no {movie.name}: {tail(done.stderr)}") from None
        if head[4:8] != b"ftyp":
            raise Failed(f"{movie.name} is not an MP4 file (it starts {head!r})")
        return f"{tail(done.stdout, 1)} ({movie.stat().st_size // 1024} KiB)"

    def desktop_entry(self) -> str:
        """The README's ``kernel-explorer install-desktop``, from either executable: a menu entry
        whose Exec starts the window (under a scratch prefix, never the person's menu)."""
        window = self.bundle / GUI
        for name in (GUI, CLI):
            prefix = self.scratch / f"menu-{name}"
            done = self.run([str(self.bundle / name), "install-desktop", "--prefix", str(prefix)])
            if done.returncode != 0:
                raise Failed(
                    f"{name} install-desktop exited {done.returncode}: {tail(done.stderr)}"
                )
            entry = prefix / "share" / "applications" / "kernel-explorer.desktop"
            try:
                lines = entry.read_text(encoding="utf-8").splitlines()
            except OSError:
                raise Failed(f"{name} install-desktop wrote no {entry.name}") from None
            if f"Exec={window}" not in lines:
                exec_line = next((ln for ln in lines if ln.startswith("Exec=")), "no Exec line")
                raise Failed(f"{name} install-desktop: {exec_line}, expected Exec={window}")
        return f"from both executables, the menu entry starts {GUI}"

    def nothing_left(self) -> str:
        deadline = time.monotonic() + 5  # an executor ends when its parent does: let it go
        left = bundle_processes(self.bundle)
        while left and time.monotonic() < deadline:
            time.sleep(0.2)
            left = bundle_processes(self.bundle)
        if left:
            raise Failed(f"processes of the bundle still running: {left}")
        return "no process of the bundle is running"

    # -- the figures ---------------------------------------------------------------------

    def timings(self, runs: int) -> None:
        cli = self.timed(runs, [str(self.bundle / CLI), "devices"], {})
        gui = self.timed(
            runs,
            [str(self.bundle / GUI), "--screenshot", str(self.scratch / "start.png")],
            {"QT_QPA_PLATFORM": "offscreen"},
        )
        for what, times in (("CLI `devices` answered", cli), ("window rendered (PNG)", gui)):
            if times:
                print(
                    f"time from launch to {what}: median {statistics.median(times):.2f} s, "
                    f"min {min(times):.2f}, max {max(times):.2f} ({len(times)} runs)"
                )

    def timed(self, runs: int, argv: list[str], extra: dict[str, str]) -> list[float]:
        times: list[float] = []
        for _ in range(runs):
            start = time.perf_counter()
            try:
                done = self.run(argv, extra)
            except Failed as exc:
                print(f"FAIL timing {argv[0]}: {exc}")
                self.failures.append("timing")
                return times
            if done.returncode != 0:
                print(f"FAIL timing {' '.join(argv[-2:])}: exit {done.returncode}")
                self.failures.append("timing")
                return times
            times.append(time.perf_counter() - start)
        return times


def tail(text: str, lines: int = 3) -> str:
    return " | ".join(text.strip().splitlines()[-lines:]) or "(no output)"


def png_rows(path: Path) -> tuple[int, int, int]:
    """Width, height and the number of different rows of a PNG (a blank picture has one or
    two); standard library only, so the scanlines are compared as stored (filter byte and all)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise Failed(f"no picture at {path}: {exc.strerror}") from None
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise Failed(f"{path} is not a PNG")
    pos, width, height, channels, idat = 8, 0, 0, 4, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour] * max(depth // 8, 1)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = 1 + width * channels
    rows = {raw[i : i + stride] for i in range(0, len(raw), stride)}
    return width, height, len(rows)


def bundle_processes(bundle: Path) -> list[str]:
    """``pid exe`` of every running process whose executable lies in ``bundle`` (Linux)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            exe = os.readlink(entry / "exe")
        except OSError:
            continue
        if exe.startswith(str(bundle) + os.sep):
            found.append(f"{entry.name} {exe}")
    return found


def size_of(folder: Path) -> str:
    du = shutil.which("du")
    if du:
        done = subprocess.run([du, "-sh", str(folder)], capture_output=True, text=True, check=False)
        if done.returncode == 0:
            return done.stdout.split()[0]
    total = sum(p.lstat().st_size for p in folder.rglob("*") if not p.is_symlink())
    return f"{total / (1 << 20):.0f}M"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", default=str(REPO / "dist" / "kernel-explorer"))
    parser.add_argument("--python", default=sys.executable, help="the person's own Python")
    parser.add_argument("--runs", type=int, default=5, help="runs per start time (0: none)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument(
        "--in-place", action="store_true", help="run the bundle where it is, not a copy of it"
    )
    args = parser.parse_args(argv)
    bundle = Path(args.bundle).resolve()
    if not (bundle / CLI).exists() and not (bundle / GUI).exists():
        print(f"FAIL bundle: no {GUI} or {CLI} in {bundle}; build it with packaging/build.sh")
        return 1
    python = shutil.which(args.python) or args.python
    scratch = Path(tempfile.mkdtemp(prefix="kernel-explorer-check-"))
    print(f"bundle {bundle}\nscratch folder {scratch} (the working folder of every step)")
    if not args.in_place:  # as a person would: the folder copied elsewhere, links kept
        copy = scratch / "copied" / bundle.name
        print(f"copying the bundle to {copy}")
        try:
            shutil.copytree(bundle, copy, symlinks=True)
        except (OSError, shutil.Error) as exc:
            print(f"FAIL copy: cannot copy the bundle to {copy}: {exc}")
            shutil.rmtree(scratch, ignore_errors=True)
            return 1
        bundle = copy
    checker = Checker(bundle, os.path.abspath(python), scratch)
    try:
        checker.step("files found only at run time", checker.layout)
        checker.step("CLI devices (PoCL)", checker.devices)
        checker.step("CLI run, verified on PoCL", checker.run_kernel)
        checker.step("CLI trace (libclang front end)", checker.trace)
        checker.step("capture of a PyOpenCL program", checker.capture)
        checker.step("window screenshot after a run (offscreen)", checker.screenshot)
        checker.step("animation as MP4 (the bundled ffmpeg)", checker.animation)
        checker.step("install-desktop (a menu entry that opens the window)", checker.desktop_entry)
        checker.step("no process left behind", checker.nothing_left)
        print(f"size of {bundle.name}/: {size_of(bundle)}")
        if args.runs > 0:
            checker.timings(args.runs)
    finally:
        if args.keep:
            print(f"kept {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    if checker.failures:
        print(f"{len(checker.failures)} step(s) failed: {', '.join(checker.failures)}")
        return 1
    print("every step passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
