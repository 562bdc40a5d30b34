"""A second opinion: the current configuration run on Oclgrind with its checks switched on.

Oclgrind (``pip install "pyopencl[oclgrind]"`` or the distribution's package with an ICD
file) simulates a device and reports data races, reads of uninitialised memory and invalid
accesses on standard error. The run happens in its own executor process, whose environment
switches the checks on; what Oclgrind printed comes back parsed into messages.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace

from explorer.engine.records import DeviceInfo, RunRequest, RunResult
from explorer.frontend.line_directives import OWN, line_numbering, split_lines

CHECK_ENV = {
    "OCLGRIND_DATA_RACES": "1",
    "OCLGRIND_UNINITIALIZED": "1",
    "OCLGRIND_MAX_ERRORS": "200",
    # Built from source every time: from pyopencl's cached binary, Oclgrind has no source to
    # quote the reported lines from ("(source not available)").
    "PYOPENCL_NO_CACHE": "1",
}
LOG_LIMIT = 4 << 20  # bytes of Oclgrind's output kept
OCLGRIND_CRASH = "oclgrind"  # the error kind of a result whose check Oclgrind itself crashed
_HEAD = re.compile(
    r"^(?P<kind>[A-Z][^\n]*?)(?: (?:at|from|to) (?:global|local|private|constant) memory.*)?$"
)
_LINE = re.compile(r"At line (\d+)")
_QUOTED_FROM = re.compile(r"At line (\d+)(?: \(column \d+\))? of (.*):\s*$")
# Oclgrind's own failures: a fatal error of the simulator or of one of its plugins (an LLVM
# intrinsic it does not implement, say), printed with the C++ file that raised it.
_FATAL = re.compile(r"OCLGRIND FATAL ERROR\s*\(([^)\n]*)\)[ \t]*\n\s*([^\n]*)")
_FATAL_HEAD = "OCLGRIND FATAL ERROR"
_ENTITY = re.compile(r"(?i)entity:\s*(.*)")


@dataclass(frozen=True)
class OclgrindMessage:
    kind: str  # e.g. "Read-write data race", "Uninitialized value read"
    line: int | None
    entity: str  # the work-item(s), as Oclgrind names them
    text: str  # the whole block


@dataclass(frozen=True, eq=False)
class OclgrindCheck:
    result: RunResult
    messages: tuple[OclgrindMessage, ...]
    raw: str
    # The same configuration's result on the device the user ran it on (``against``).
    device_result: RunResult | None = None

    @property
    def device_disagrees(self) -> bool:
        """Oclgrind verifies the result and reports nothing, where the device's was wrong:
        the device (its compiler or runtime) is at fault, not the kernel."""
        other = self.device_result
        return (
            other is not None
            and other.status == "wrong"
            and self.result.status == "verified"
            and not self.messages
        )

    @property
    def crashed(self) -> bool:
        """Oclgrind itself (not the kernel) crashed during the check."""
        return self.result.error_kind == OCLGRIND_CRASH

    def problems(self) -> list[tuple[str, int | None, int]]:
        """(kind, line, messages) for each kind of problem at each line, in line order:
        Oclgrind reports every address of one bug apart."""
        counts: dict[tuple[str, int | None], int] = {}
        for m in self.messages:
            counts[(m.kind, m.line)] = counts.get((m.kind, m.line), 0) + 1
        ordered = sorted(counts.items(), key=lambda kv: (kv[0][1] or 0, kv[0][0]))
        return [(kind, line, n) for (kind, line), n in ordered]

    @property
    def verdict(self) -> str:
        if self.crashed:
            return str(self.result.error)
        if self.result.error or self.result.refused:
            return f"Oclgrind could not run it: {self.result.error or self.result.refused}"
        if self.device_disagrees:
            assert self.device_result is not None
            return (
                "Oclgrind verifies the result and found no race, uninitialised read or invalid "
                f"access, where {self.device_result.device} computed a wrong one: the device "
                "disagrees (its compiler or runtime is at fault here), not the kernel."
            )
        if not self.messages:
            return "Oclgrind found no race, uninitialised read or invalid access."
        kinds = sorted({m.kind for m in self.messages})
        return f"Oclgrind reported {len(self.messages)} problem(s): " + "; ".join(kinds)


def find_oclgrind(devices: list[DeviceInfo]) -> DeviceInfo | None:
    return next((d for d in devices if "oclgrind" in d.platform.lower()), None)


def against(outcome: OclgrindCheck, device_result: RunResult) -> OclgrindCheck:
    """``outcome`` compared with the same configuration's result on another device."""
    return replace(outcome, device_result=device_result)


def fatal_error(text: str) -> str | None:
    """Oclgrind's own fatal error in what it printed (the first), in words; None if none."""
    found = _FATAL.search(text)
    if found is None:
        return None
    where, what = found.group(1).strip(), found.group(2).strip()
    return f"{what or 'a fatal error'} (raised in Oclgrind's {where})"


def parse(text: str, source: str | None = None) -> tuple[OclgrindMessage, ...]:
    """The problems Oclgrind reported in the kernel (its own fatal errors are not among
    them: see :func:`fatal_error`). With the kernel's ``source``, each message quotes the
    line it names from it (see :func:`_quote_from`)."""
    messages = []
    # Messages are separated by empty lines; inside one, separators hold a tab.
    for block in re.split(r"\n\n+", text):
        lines = [line for line in block.strip().splitlines() if line.strip()]
        if not lines:
            continue
        head = _HEAD.match(lines[0].strip())
        if head is None or not any("Kernel:" in line for line in lines):
            continue
        if lines[0].strip().startswith(_FATAL_HEAD):
            continue
        line = next((int(m.group(1)) for m in map(_LINE.search, lines) if m), None)
        entity = next((m.group(1) for m in map(_ENTITY.search, lines) if m), "")
        if source is not None:
            lines = _quote_from(lines, source)
        messages.append(
            OclgrindMessage(head.group("kind").strip(), line, entity.strip(), "\n".join(lines))
        )
    return tuple(messages)


def _quote_from(lines: list[str], source: str) -> list[str]:
    """A message's lines with the source line it quotes taken from ``source``. Oclgrind
    names the line as ``#line`` gives it but quotes the line of that number in the text it
    compiled: after a header and ``#line 1`` (or a prefix ending in one) that is another
    line."""
    numbering, text = line_numbering(source), split_lines(source)
    for index, line in enumerate(lines[:-1]):
        found = _QUOTED_FROM.search(line)
        if found is None:
            continue
        physical = numbering.physical(int(found.group(1)), found.group(2).strip() or OWN)
        if physical is not None:
            indent = re.match(r"\s*", lines[index + 1])
            lines = [*lines]
            lines[index + 1] = (indent.group(0) if indent else "") + text[physical - 1].strip()
        break
    return lines


def check(request: RunRequest, log_path: str | None = None) -> OclgrindCheck:
    """Run in an executor process started with :data:`CHECK_ENV` (see ``Executor(env=...)``):
    one launch, so each problem is reported once. With ``log_path``, what Oclgrind prints goes
    to that file as it prints it, so the caller still has it if Oclgrind crashes the process
    (see :func:`explorer.engine.second_opinion.run_check`)."""
    from explorer.engine.launch.run import captured_fd

    quick = replace(request, repeat=1, warmup=0, keep_output=False)
    if log_path is None:
        with captured_fd(2, LOG_LIMIT) as captured:
            result = _launch_once(quick)
        raw = captured.text or ""
    else:
        with _to_file(2, log_path):
            result = _launch_once(quick)
        raw = read_log(log_path)
    messages = parse(raw, request.variant.source)
    return OclgrindCheck(_own_failure(request, result, raw), messages, raw)


def _own_failure(request: RunRequest, result: RunResult, raw: str) -> RunResult:
    """The result, or where Oclgrind itself failed (it then drops the kernel, which reads as
    "no kernel named", or stops simulating it, which reads as a wrong result), that failure,
    named as Oclgrind's."""
    from explorer.engine.records import failed_result

    fatal = fatal_error(raw)
    if fatal is None:
        return result
    message = (
        f"Oclgrind itself failed: {fatal}. A limit or fault of the simulator, not of your "
        "kernel: its verdict says nothing about the kernel"
    )
    return failed_result(request, message, OCLGRIND_CRASH)


def read_log(path: str) -> str:
    """What Oclgrind wrote to ``path``, at most :data:`LOG_LIMIT` bytes of it."""
    try:
        with open(path, "rb") as f:
            data = f.read(LOG_LIMIT + 1)
    except OSError:
        return ""
    text = data[:LOG_LIMIT].decode("utf-8", errors="replace")
    if len(data) > LOG_LIMIT:
        text += f"\n[... Oclgrind's output truncated: the first {LOG_LIMIT} bytes shown]"
    return text


@contextlib.contextmanager
def _to_file(fd: int, path: str) -> Iterator[None]:
    """Send what is written to ``fd`` into the file ``path`` while the block runs."""
    (sys.stdout if fd == 1 else sys.stderr).flush()
    with open(path, "wb") as sink:
        saved = os.dup(fd)
        os.dup2(sink.fileno(), fd)
        try:
            yield
        finally:
            os.dup2(saved, fd)
            os.close(saved)


def _launch_once(request: RunRequest) -> RunResult:
    """Build, bind, launch once and verify: the run's own path launches at least twice (a
    verified launch and a timed one), which made Oclgrind report every problem twice. Local
    memory is not poisoned first: Oclgrind tracks which bytes were written by itself. The
    random probe launches once more, its reports set aside (they repeat the first's)."""
    from explorer.engine.launch.bind import bind, read_results
    from explorer.engine.launch.judge import judge
    from explorer.engine.launch.prepare import prepare
    from explorer.engine.launch.run import probe_launch, probed_verdict, silenced

    p = prepare(request)
    if isinstance(p, RunResult):
        return p
    cl = p.runtime.cl
    try:
        bound = bind(p)
        p.kernel.set_args(*bound.args)
        launch = p.launch
        event = cl.enqueue_nd_range_kernel(p.queue, p.kernel, launch.global_size, launch.local_size)
        event.wait()
        p.queue.finish()
        results, _ = read_results(p, bound)
        # The random probe's launch: what Oclgrind says of it is the first launch's again.
        with silenced(2):
            probe = probe_launch(p, bound, poison=False)
    except cl.Error as exc:
        return p.head.runtime_failed(exc)
    judged = judge(p.description, results, p.inputs, p.references)
    return p.head.judged(
        verdict=probed_verdict(judged.verdict, probe, p),
        flops=p.description.flops,
        bytes_moved=p.description.bytes_moved,
    )
