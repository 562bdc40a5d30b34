"""A second opinion: the current configuration run on Oclgrind with its checks switched on.

Oclgrind (``pip install "pyopencl[oclgrind]"`` or the distribution's package with an ICD
file) simulates a device and reports data races, reads of uninitialised memory and invalid
accesses on standard error. The run happens in its own executor process, whose environment
switches the checks on; what Oclgrind printed comes back parsed into messages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from explorer.engine.records import DeviceInfo, RunRequest, RunResult

CHECK_ENV = {
    "OCLGRIND_DATA_RACES": "1",
    "OCLGRIND_UNINITIALIZED": "1",
    "OCLGRIND_MAX_ERRORS": "200",
}
_HEAD = re.compile(
    r"^(?P<kind>[A-Z][^\n]*?)(?: (?:at|from|to) (?:global|local|private|constant) memory.*)?$"
)
_LINE = re.compile(r"At line (\d+)")
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

    @property
    def verdict(self) -> str:
        if self.result.error or self.result.refused:
            return f"Oclgrind could not run it: {self.result.error or self.result.refused}"
        if not self.messages:
            return "Oclgrind found no race, uninitialised read or invalid access."
        kinds = sorted({m.kind for m in self.messages})
        return f"Oclgrind reported {len(self.messages)} problem(s): " + "; ".join(kinds)


def find_oclgrind(devices: list[DeviceInfo]) -> DeviceInfo | None:
    return next((d for d in devices if "oclgrind" in d.platform.lower()), None)


def parse(text: str) -> tuple[OclgrindMessage, ...]:
    messages = []
    # Messages are separated by empty lines; inside one, separators hold a tab.
    for block in re.split(r"\n\n+", text):
        lines = [line for line in block.strip().splitlines() if line.strip()]
        if not lines:
            continue
        head = _HEAD.match(lines[0].strip())
        if head is None or not any("Kernel:" in line for line in lines):
            continue
        line = next((int(m.group(1)) for m in map(_LINE.search, lines) if m), None)
        entity = next((m.group(1) for m in map(_ENTITY.search, lines) if m), "")
        messages.append(
            OclgrindMessage(head.group("kind").strip(), line, entity.strip(), "\n".join(lines))
        )
    return tuple(messages)


def check(request: RunRequest) -> OclgrindCheck:
    """Run in an executor process started with :data:`CHECK_ENV` (see ``Executor(env=...)``)."""
    from explorer.engine.runner import captured_fd, run_request

    quick = replace(request, repeat=1, warmup=0, keep_output=False)
    with captured_fd(2, 4 << 20) as captured:
        result = run_request(quick)
    raw = captured.text or ""
    return OclgrindCheck(result, parse(raw), raw)
