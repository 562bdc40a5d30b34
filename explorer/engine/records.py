"""Frozen records that cross layers. No ``pyopencl`` object ever appears in one."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np

from explorer.description.declarations import CustomSpec
from explorer.families import FAMILIES, KernelModel
from explorer.families.base import PROBE_SEED


@dataclass(frozen=True)
class DeviceInfo:
    """The facts of one OpenCL device, enough to pick it again in another process."""

    platform_index: int
    device_index: int
    name: str
    vendor: str
    platform: str
    type: str  # "GPU", "CPU", "ACCELERATOR", ...
    opencl_version: str
    driver_version: str
    compute_units: int
    max_work_group_size: int
    max_work_item_sizes: tuple[int, ...]
    local_mem_bytes: int
    global_mem_bytes: int
    max_alloc_bytes: int
    clock_mhz: int
    preferred_multiple: int
    # The machine it is on, as the window names it ("server"); "" for this machine's own.
    host: str = ""

    @property
    def shown_name(self) -> str:
        """Its name, after its host's where it is another machine's: ``server: NVIDIA H100``."""
        return f"{self.host}: {self.name}" if self.host else self.name

    @property
    def label(self) -> str:
        return f"{self.shown_name} ({self.type}, {self.platform})"

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.key,
            "name": self.name,
            "vendor": self.vendor,
            "platform": self.platform,
            "type": self.type,
            "opencl_version": self.opencl_version,
            "driver_version": self.driver_version,
            "compute_units": self.compute_units,
            "max_work_group_size": self.max_work_group_size,
            "max_work_item_sizes": list(self.max_work_item_sizes),
            "local_mem_bytes": self.local_mem_bytes,
            "global_mem_bytes": self.global_mem_bytes,
            "max_alloc_bytes": self.max_alloc_bytes,
            "clock_mhz": self.clock_mhz,
            "preferred_work_group_multiple": self.preferred_multiple,
            **({"host": self.host} if self.host else {}),
        }

    @property
    def key(self) -> str:
        """``platform:device``, the way ``PYOPENCL_CTX`` names a device; ``host/platform:device``
        for another machine's (its executor is told the part after the slash)."""
        where = f"{self.platform_index}:{self.device_index}"
        return f"{self.host}/{where}" if self.host else where


@dataclass(frozen=True)
class Counterpart:
    """What a variant's cost findings are measured against (the header's ``[counterpart]``):
    another variant of the family, or this one with other defines or another local size.
    ``why`` names the change in a few words ("padding the tile")."""

    variant: str  # a variant id of the same family; "" for this variant itself
    defines: tuple[tuple[str, int], ...] = ()
    local: tuple[int, ...] | None = None
    why: str = ""


# The name a ``[[by_size]]`` condition gives the device: 1 on a CPU device, 0 on another.
CPU_NAME = "CPU"


@dataclass(frozen=True)
class SizeRule:
    """One ``[[by_size]]`` rule of a header: where ``when`` (sizes, defines and
    :data:`CPU_NAME`) holds, these defines replace the defaults."""

    when: str
    defines: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Variant:
    """One kernel variant: a ``.cl`` file and the metadata from its header."""

    id: str
    family: str
    name: str
    kernel: str
    args: tuple[str, ...]
    global_size: tuple[str, ...]
    local_size: tuple[str, ...]
    constraints: tuple[str, ...]
    dtype: str
    layout: str
    defines: tuple[tuple[str, int], ...]
    allowed: tuple[tuple[str, tuple[int, ...]], ...]
    source_ref: str
    bug: str
    text: str
    path: str
    source: str
    # A custom kernel's own declarations (family "custom"); None for the fixed families.
    custom: CustomSpec | None = None
    counterpart: Counterpart | None = None  # what a cost finding is measured against
    # Compiler options per platform, from the header's [options] table: (platform key, options).
    options: tuple[tuple[str, tuple[str, ...]], ...] = ()
    build_options: tuple[str, ...] = ()  # for every platform (an Oclgrind .sim's "# ARGS:")
    # Defaults chosen by size ([[by_size]]): the first rule that holds applies.
    by_size: tuple[SizeRule, ...] = ()
    # The NDRange is launched as given (an Oclgrind .sim): where the local size does not
    # divide it, the last work-group of a dimension is smaller (OpenCL 2.0 non-uniform groups).
    exact_range: bool = False

    @cached_property
    def model(self) -> KernelModel:
        """What describes this kernel's launches: its family, or its header's declarations."""
        return FAMILIES[self.family].for_header(self.custom)

    @property
    def element(self) -> np.dtype:
        """The element type of the family's buffers (a header's ``dtype``)."""
        return np.dtype(self.dtype)

    @property
    def default_defines(self) -> dict[str, int]:
        return dict(self.defines)

    @property
    def allowed_values(self) -> dict[str, tuple[int, ...]]:
        return dict(self.allowed)

    @property
    def qualified_id(self) -> str:
        return f"{self.family}/{self.id}"

    @property
    def log_name(self) -> str:
        """The name a build log gives the kernel's own file (the compiler's own name for the
        text it was given is replaced by it): the file's name, or the variant's id where the
        kernel has no file. A message naming any other file is an included file's."""
        return os.path.basename(self.path) or self.id


@dataclass(frozen=True)
class RunRequest:
    """Everything needed to run one configuration, from any process."""

    variant: Variant
    sizes: dict[str, int]
    local: tuple[int, ...] | None = None
    defines: dict[str, int] = field(default_factory=dict)
    device_key: str | None = None
    input: str = "random"
    text: str = "IOU"
    image_path: str | None = None
    repeat: int = 10
    warmup: int = 1
    timeout_s: float = 60.0
    keep_output: bool = True
    # Time a float4 copy of the problem's minimum bytes right after each timed launch
    # (``bench --baseline copy``): the two rates side by side, launch by launch.
    pair_copy: bool = False
    # Launch even when the kernel's own constraints (its header's ``sizes``) refuse the
    # configuration, to show what its bug does; the device's limits still hold.
    anyway: bool = False
    # The seed of the random probe: the kernel launched again on random contents of the same
    # shapes, where the input shown can hide a bug; None launches on the input shown only.
    probe_seed: int | None = PROBE_SEED


@dataclass(frozen=True)
class Refusal:
    """Why a configuration will not be launched, and what to change. ``overridable``: only
    the kernel's own constraints refuse it, so it may be run anyway (``RunRequest.anyway``)."""

    reason: str
    fix: str
    overridable: bool = False

    def __str__(self) -> str:
        return f"{self.reason} {self.fix}".strip()


@dataclass(frozen=True)
class Timing:
    """Every sample is kept; the median is the figure quoted."""

    kernel_ms: tuple[float, ...]
    upload_ms: float
    download_ms: float
    reference_ms: float
    paired_copy_ms: tuple[float, ...] = ()  # the copy timed after each launch (pair_copy)

    @property
    def median_ms(self) -> float:
        return float(np.median(self.kernel_ms)) if self.kernel_ms else float("nan")

    @property
    def min_ms(self) -> float:
        return min(self.kernel_ms) if self.kernel_ms else float("nan")

    @property
    def max_ms(self) -> float:
        return max(self.kernel_ms) if self.kernel_ms else float("nan")


@dataclass(frozen=True)
class Verdict:
    verified: bool
    max_abs_error: float
    max_rel_error: float
    mismatches: int
    tolerance: str
    not_a_number: int = 0  # NaN elements: never written, or computed from unwritten memory
    checked: bool = True  # False: a custom kernel with no reference ran, nothing was compared
    unchanged: tuple[str, ...] = ()  # results still equal to their initial contents
    # Where every answer came from when the results were compared with given arrays ("the
    # original run" of a captured launch); empty for a computed reference.
    compared_with: str = ""
    # Results with no answer to compare with, where others have one: not part of the verdict.
    not_checked: tuple[str, ...] = ()
    # (result, how many elements, the first few flat indices) its inputs do not decide: two
    # launches from the very same inputs left them different (local memory filled with other
    # bytes before each), so memory the kernel never wrote, a race or the order of atomics
    # decides them. Where the answer was recorded from a run (a captured launch), they are
    # left out of the comparison.
    undetermined: tuple[tuple[str, int, tuple[int, ...]], ...] = ()
    # The random probe: the same kernel launched again on random contents of the same shapes
    # (drawn with ``probe_seed``), where the input shown can hide a bug (A = 1.5·I is
    # symmetric). ``verified`` holds only where both launches are right; the other figures
    # above are the input shown's. ``probe_seed`` None: no probe ran (``probe_note`` says
    # why, or that this launch was judged on the input shown alone).
    probe_seed: int | None = None
    probe_verified: bool = True
    probe_mismatches: int = 0
    probe_max_abs_error: float = 0.0
    probe_not_a_number: int = 0
    shown_input: str = ""  # the input shown, in words: "the IOU input"
    hides: str = ""  # why it can hide a bug: "A = 1.5·I is symmetric and diagonal"
    probe_note: str = ""
    # Why nothing was compared although the launch declares a reference: the reference
    # cannot be computed for this launch (one sentence naming it); empty otherwise.
    unreferenced: str = ""

    @property
    def probed(self) -> bool:
        """Whether the random probe ran."""
        return self.probe_seed is not None

    @property
    def unprobed(self) -> bool:
        """Judged on an input that can hide a bug, without the random probe (a trace build:
        a run of the same launch probes it)."""
        return self.checked and not self.probed and bool(self.shown_input)

    @property
    def on_shown_input(self) -> bool:
        """Whether the results of the input shown match their answers (the probe aside)."""
        return self.checked and self.mismatches == 0

    @property
    def wrong_on_probe_only(self) -> bool:
        """Right on the input shown, wrong on random data: a bug the input shown hides."""
        return self.probed and not self.probe_verified and self.on_shown_input

    @property
    def probe_sentence(self) -> str:
        """What the random probe found, in words; empty where none ran."""
        if not self.probed or not self.checked:
            return ""
        if self.probe_verified:
            return f"also verified on random data (seed {self.probe_seed})"
        found = f"{self.probe_mismatches} wrong elements"
        if self.probe_not_a_number:
            found += f" ({self.probe_not_a_number} NaN)"
        found += f", max abs error {self.probe_max_abs_error:.3g}"
        if not self.on_shown_input:
            return f"also wrong on random data (seed {self.probe_seed}: {found})"
        shown = self.shown_input or "the input shown"
        why = f" ({self.hides})" if self.hides else ""
        return (
            f"WRONG on random data (seed {self.probe_seed}: {found}); {shown} cannot show "
            f"this bug{why}"
        )

    @property
    def undetermined_sentence(self) -> str:
        """Which elements were not judged and why, in words; empty where all were."""
        if not self.undetermined:
            return ""
        parts = ", ".join(
            f"{count} element{'s' if count != 1 else ''} of {name} (at "
            f"{', '.join(map(str, first))}{', ...' if count > len(first) else ''})"
            for name, count, first in self.undetermined
        )
        return (
            f"not judged: {parts}, which two launches from the same inputs left different "
            "(local memory, and the memory around each buffer, filled with other bytes before "
            "each): memory the kernel never wrote (an unassigned struct field, an "
            "uninitialised local read), a read past a buffer's end, a race or the order of "
            "atomics decides them, not the inputs the capture holds; the trace names the "
            "races, uninitialised local reads and out-of-bounds reads it sees"
        )

    @property
    def comparison(self) -> str:
        """What a comparison with given arrays found, in words ("matches the original run",
        "differs from the original run at 12 elements"); empty for a computed reference."""
        if not self.compared_with or not self.checked:
            return ""
        if self.verified:
            return f"matches {self.compared_with}"
        return f"differs from {self.compared_with} at {self.mismatches} elements"


@dataclass(frozen=True, eq=False)
class RunResult:
    """The outcome of one run. Exactly one of (verdict, refused, error) describes it."""

    family: str
    variant: str
    device: str
    platform: str
    sizes: dict[str, int]
    global_size: tuple[int, ...] | None
    local_size: tuple[int, ...] | None
    defines: dict[str, int]
    verdict: Verdict | None = None
    timing: Timing | None = None
    flops: float = 0.0
    bytes_moved: float = 0.0
    refused: Refusal | None = None
    error: str | None = None
    error_kind: str | None = None  # "build", "crash", "timeout", "runtime", "input"
    build_log: str | None = None
    output_text: str | None = None
    # Every result as the run left it and its answer, by buffer name, in their shown shapes;
    # the first result is the one shown first (``output``, ``reference``).
    outputs: dict[str, np.ndarray] | None = None
    references: dict[str, np.ndarray] | None = None
    inputs: dict[str, np.ndarray] | None = None
    note: str | None = None  # what the driver said that the run did not trust, e.g. a limit
    # The kernel's own constraints this run broke (it was run anyway), each with its values.
    outside_constraints: tuple[str, ...] = ()
    # How each buffer is shown (rows first), by name, and those stored column by column:
    # what the window draws, as the launch description said.
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    column_major: tuple[str, ...] = ()
    # A traced run's wrong result: the kinds of bug its trace found that can make a result
    # wrong (race, uninitialized, ...). They explain it, so no other cause is suggested.
    explained_by: tuple[str, ...] = ()

    @property
    def output(self) -> np.ndarray | None:
        """The first result, as shown."""
        return next(iter(self.outputs.values()), None) if self.outputs else None

    @property
    def reference(self) -> np.ndarray | None:
        """The first result's answer, where it has one."""
        if not self.outputs or not self.references:
            return None
        return self.references.get(next(iter(self.outputs)))

    @property
    def outside_label(self) -> str:
        """What every view and report says of a run outside the kernel's constraints;
        empty for a run within them."""
        if not self.outside_constraints:
            return ""
        return f"outside the kernel's constraints: {'; '.join(self.outside_constraints)}"

    @property
    def explanation(self) -> str:
        """What the trace's bugs say of a wrong result ("the trace's race and uninitialized
        findings can explain it"), as the command line and the window give it; "" where
        the result is not wrong or its trace found none."""
        if self.status != "wrong" or not self.explained_by:
            return ""
        return f"the trace's {_listed(self.explained_by)} findings can explain it"

    @property
    def second_opinion(self) -> str:
        """What to do before blaming the kernel for a wrong result on a device whose compiler
        is known to miscompile valid kernels (PoCL 3.0 did, with Rodinia's and SHOC's); empty
        elsewhere, and where the kernel's own trace found bugs that explain the result."""
        if self.status != "wrong" or self.explained_by or not on_pocl(self.platform, self.device):
            return ""
        return CHECK_ON_OCLGRIND

    @property
    def status(self) -> str:
        """One word: verified, wrong, unchecked, refused, crashed, timeout or error."""
        if self.refused is not None:
            return "refused"
        if self.error is not None:
            return {"crash": "crashed", "timeout": "timeout"}.get(self.error_kind or "", "error")
        if self.verdict is not None and not self.verdict.checked:
            return "unchecked"
        if self.verdict is not None and self.verdict.verified:
            return "verified"
        return "wrong"

    def without_arrays(self) -> RunResult:
        """The same result without its output, reference and inputs: the figures a history
        keeps (768³ arrays are megabytes a run)."""
        if self.outputs is None and self.references is None and self.inputs is None:
            return self
        return replace(self, outputs=None, references=None, inputs=None)

    @property
    def gflops(self) -> float | None:
        if self.timing is None or not self.flops:
            return None
        return self.flops / (self.timing.median_ms * 1e-3) / 1e9

    @property
    def gbps(self) -> float | None:
        if self.timing is None or not self.bytes_moved:
            return None
        return self.bytes_moved / (self.timing.median_ms * 1e-3) / 1e9

    def summary(self) -> str:
        """One line a person reads: the verdict and the time."""
        where = f"{self.family}/{self.variant} on {self.device}"
        if self.outside_constraints:
            where += f" ({self.outside_label})"
        if self.refused is not None:
            return f"REFUSED  {where}: {self.refused}"
        if self.error is not None:
            return f"{self.status.upper()}  {where}: {self.error}"
        assert self.verdict is not None
        head = "VERIFIED" if self.verdict.verified else "WRONG"
        err = f"max abs error {self.verdict.max_abs_error:.3g}"
        if self.verdict.wrong_on_probe_only:
            shown = self.verdict.shown_input or "the input shown"
            err = f"right on {shown} (max abs error {self.verdict.max_abs_error:.3g})"
        if not self.verdict.checked:
            head, err = "RAN, NOT CHECKED", "no reference to compare with"
            if self.verdict.unreferenced:
                err = f"not checked: {self.verdict.unreferenced}"
        if self.verdict.unchanged:
            err += (
                f"; the kernel wrote nothing new into {', '.join(self.verdict.unchanged)} "
                "(equal to the initial contents)"
            )
        if self.verdict.checked and not self.verdict.on_shown_input:
            err += f", {self.verdict.mismatches} wrong elements"
        if self.verdict.compared_with:
            err = f"{self.verdict.comparison}; {err}"
        if self.verdict.undetermined:
            err += f"; {self.verdict.undetermined_sentence}"
        if self.verdict.not_checked:
            err += (
                f"; not checked: {', '.join(self.verdict.not_checked)} (no reference given for "
                f"{'it' if len(self.verdict.not_checked) == 1 else 'them'})"
            )
        if self.verdict.not_a_number:
            err += (
                f", {self.verdict.not_a_number} NaN (never written, or computed from "
                "memory the kernel never wrote)"
            )
        if self.verdict.probe_sentence:
            err += f"; {self.verdict.probe_sentence}"
        elif self.verdict.unprobed:
            why = self.verdict.probe_note
            why = "a run also checks random data" if why in ("", NOT_PROBED) else why
            err += f"; judged on {self.verdict.shown_input} only ({why})"
        if self.note:
            err += f". Note: {self.note}"
        if self.explanation:
            err += f"; {self.explanation}"
        if self.second_opinion:
            err += f". {SECOND_OPINION_TEXT}"
        if self.timing is None:
            return f"{head}  {where}: {err}"
        rate = []
        if self.gflops is not None:
            rate.append(f"{figure_text(self.gflops, 1)} GFLOP/s")
        if self.gbps is not None:
            rate.append(f"{figure_text(self.gbps, 1)} GB/s")
        t = self.timing
        return (
            f"{head}  {where}: kernel {figure_text(t.median_ms, 3)} ms "
            f"(min {figure_text(t.min_ms, 3)}, max {figure_text(t.max_ms, 3)}), "
            f"{', '.join(rate)}; {err}"
        )


def figure_text(value: float, decimals: int, significant: int = 3) -> str:
    """A measured figure as printed: ``decimals`` places, or more where those would leave
    fewer than ``significant`` significant digits, so that a small figure still reads as
    itself (a 1.88 µs kernel is "0.00188" ms, not "0.002"; 0.0764 GB/s is not "0.1")."""
    if value != value or value in (math.inf, -math.inf) or value == 0:
        return f"{value:.{decimals}f}"
    places = max(decimals, significant - 1 - math.floor(math.log10(abs(value))))
    return f"{value:.{places}f}"


# Why a launch whose input can hide a bug had no random probe (a trace build).
NOT_PROBED = "judged on the input shown only; a run also checks random data"
CHECK_ON_OCLGRIND = "check on Oclgrind"
SECOND_OPINION_TEXT = (
    "PoCL can miscompile a valid kernel: check on Oclgrind (the check command, or Check with "
    "Oclgrind) before taking this for a bug in the kernel"
)


def _listed(words: tuple[str, ...]) -> str:
    """``("race",)`` as "race", two as "race and uninitialized", more with commas."""
    if len(words) < 3:
        return " and ".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def on_pocl(platform: str, device: str = "") -> bool:
    """Whether a result came from PoCL (its platform, or the device name PoCL gives)."""
    words = f"{platform} {device}".lower()
    return "portable computing language" in words or "pocl" in words or "pthread-" in words


@dataclass(frozen=True)
class RunHead:
    """What every result of one configuration shares: which kernel ran where, at what sizes
    and NDRange. Its methods build the :class:`RunResult` of each outcome."""

    family: str
    variant: str
    device: str
    platform: str
    sizes: dict[str, int]
    global_size: tuple[int, ...] | None
    local_size: tuple[int, ...] | None
    defines: dict[str, int]
    note: str | None = None
    outside_constraints: tuple[str, ...] = ()
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    column_major: tuple[str, ...] = ()
    # What a verdict says of the random probe where the launch that gives it ran none: the
    # input shown and why it can hide a bug, and why no probe ran.
    shown_input: str = ""
    hides: str = ""
    probe_note: str = ""
    # The compiler's warnings on the kernel as written (``compiler_warnings``): a judged
    # result carries them, so a kernel that builds with a warning shows it.
    build_log: str | None = None
    # Why the declared reference cannot be computed for this launch: its verdicts say
    # "not checked" with this sentence (the kernel still runs, is timed and traced).
    unreferenced: str = ""

    def runtime_failed(self, exc: BaseException) -> RunResult:
        """The runtime stopped the launch. Error -9999 (NVIDIA) and CL_OUT_OF_RESOURCES (-5)
        after a launch mean the kernel faulted on the device, most often by an access outside
        its memory; the device's context is unusable after that, so the executor that ran it
        is restarted (see :func:`explorer.engine.executor`)."""
        message = f"the OpenCL runtime reported: {exc}"
        code = getattr(exc, "code", None)
        if code in (-9999, -5) or "-9999" in message:
            message += (
                ". The kernel faulted on the device, most often by reading or writing outside "
                "its buffers or its local memory: trace it (Ctrl+T) to find the access"
            )
        return self.failed(message, "runtime")

    def failed(self, message: str, kind: str, build_log: str | None = None) -> RunResult:
        """A run that stopped before a verdict: ``kind`` is build, runtime, input, trace..."""
        return RunResult(
            family=self.family,
            variant=self.variant,
            device=self.device,
            platform=self.platform,
            sizes=self.sizes,
            global_size=self.global_size,
            local_size=self.local_size,
            defines=self.defines,
            error=message,
            error_kind=kind,
            build_log=build_log,  # the failure's own log: the window shows it instead of the error
            note=self.note,
            outside_constraints=self.outside_constraints,
            shapes=self.shapes,
            column_major=self.column_major,
        )

    def refused(self, refusal: Refusal) -> RunResult:
        """A configuration that was not launched, and why."""
        return RunResult(
            family=self.family,
            variant=self.variant,
            device=self.device,
            platform=self.platform,
            sizes=self.sizes,
            global_size=self.global_size,
            local_size=self.local_size,
            defines=self.defines,
            refused=refusal,
            note=self.note,
            outside_constraints=self.outside_constraints,
            shapes=self.shapes,
            column_major=self.column_major,
        )

    def judged(
        self,
        verdict: Verdict,
        flops: float,
        bytes_moved: float,
        timing: Timing | None = None,
        output_text: str | None = None,
        outputs: dict[str, np.ndarray] | None = None,
        references: dict[str, np.ndarray] | None = None,
        inputs: dict[str, np.ndarray] | None = None,
    ) -> RunResult:
        """A run that produced output, with its verdict (which says what the input shown is
        and, where no probe ran, why)."""
        if not verdict.shown_input and not verdict.probe_note:
            verdict = replace(
                verdict,
                shown_input=self.shown_input,
                hides=self.hides,
                probe_note="" if verdict.probed else self.probe_note,
            )
        if self.unreferenced and not verdict.checked:
            verdict = replace(verdict, unreferenced=self.unreferenced)
        return RunResult(
            family=self.family,
            variant=self.variant,
            device=self.device,
            platform=self.platform,
            sizes=self.sizes,
            global_size=self.global_size,
            local_size=self.local_size,
            defines=self.defines,
            verdict=verdict,
            timing=timing,
            flops=flops,
            bytes_moved=bytes_moved,
            output_text=output_text,
            outputs=outputs,
            references=references,
            inputs=inputs,
            build_log=self.build_log,
            note=self.note,
            outside_constraints=self.outside_constraints,
            shapes=self.shapes,
            column_major=self.column_major,
        )


def failed_result(
    request: RunRequest, message: str, kind: str, device: DeviceInfo | None = None
) -> RunResult:
    """A run that produced no verdict: what went wrong, in ``error`` and ``error_kind``."""
    return RunResult(
        family=request.variant.family,
        variant=request.variant.id,
        device=device.name if device else (request.device_key or ""),
        platform=device.platform if device else "",
        sizes=dict(request.sizes),
        global_size=None,
        local_size=request.local,
        defines=dict(request.defines),
        error=message,
        error_kind=kind,
        outside_constraints=(_UNENFORCED,) if request.anyway else (),
    )


# What a run anyway that stopped before its plan was known says of its constraints.
_UNENFORCED = "run anyway, its own constraints not enforced"


def result_record(result: RunResult) -> dict[str, Any]:
    """The flat record printed by ``run --json`` and ``bench``."""
    timing = result.timing

    def num(value: float | None) -> float | None:
        if value is None or not math.isfinite(value):  # JSON has no NaN or infinity
            return None
        return float(value)

    verdict = result.verdict if result.verdict is not None and result.verdict.checked else None

    return {
        "family": result.family,
        "variant": result.variant,
        "device": result.device,
        "platform": result.platform,
        "size": dict(result.sizes),
        "local_size": list(result.local_size) if result.local_size else None,
        "global_size": list(result.global_size) if result.global_size else None,
        "defines": dict(result.defines),
        "status": result.status,
        "verified": bool(result.verdict.verified) if result.verdict else False,
        # null where an element is not a number (never written): no error can be given,
        # and JSON has no infinity; ``not_a_number`` counts those elements
        "max_abs_error": num(result.verdict.max_abs_error) if result.verdict else None,
        "max_rel_error": num(result.verdict.max_rel_error) if result.verdict else None,
        "mismatches": verdict.mismatches if verdict else None,
        "not_a_number": verdict.not_a_number if verdict else None,
        "kernel_ms_median": num(timing.median_ms) if timing else None,
        "kernel_ms_min": num(timing.min_ms) if timing else None,
        "kernel_ms_max": num(timing.max_ms) if timing else None,
        "samples_ms": [num(s) for s in timing.kernel_ms] if timing else [],
        "upload_ms": num(timing.upload_ms) if timing else None,
        "download_ms": num(timing.download_ms) if timing else None,
        "reference_ms": num(timing.reference_ms) if timing else None,
        "paired_copy_ms": [num(s) for s in timing.paired_copy_ms] if timing else [],
        "gflops": num(result.gflops),
        "gbps": num(result.gbps),
        # What the rates divide by the median time: the family's arithmetic and the bytes the
        # problem must move at least (each input read once, each result written once).
        "flops": num(result.flops) if result.flops else None,
        "bytes_moved": num(result.bytes_moved) if result.bytes_moved else None,
        "refused": str(result.refused) if result.refused else None,
        "error": result.error,
        "output": result.output_text,
        "build_log": result.build_log,
        "note": result.note,
        "checked": bool(result.verdict.checked) if result.verdict else False,
        "unchanged": list(result.verdict.unchanged) if result.verdict else [],
        "compared_with": result.verdict.compared_with if result.verdict else "",
        "not_checked": list(result.verdict.not_checked) if result.verdict else [],
        "not_checked_reason": (result.verdict.unreferenced or None) if result.verdict else None,
        "undetermined": {
            name: {"count": n, "first": list(first)}
            for name, n, first in (result.verdict.undetermined if result.verdict else ())
        },
        "outside_constraints": list(result.outside_constraints),
        "second_opinion": result.second_opinion or None,
        "explained_by": list(result.explained_by),
        **_probe_record(result.verdict),
    }


def _probe_record(verdict: Verdict | None) -> dict[str, Any]:
    """The random probe's part of a record: its seed (null where none ran), whether it
    verified, its wrong elements and largest error, and what it found or why none ran."""
    probed = verdict is not None and verdict.probed
    return {
        "probe_seed": verdict.probe_seed if verdict is not None else None,
        "probe_verified": bool(verdict.probe_verified) if probed and verdict else None,
        "probe_mismatches": verdict.probe_mismatches if probed and verdict else None,
        "probe_max_abs_error": (
            _finite(verdict.probe_max_abs_error) if probed and verdict else None
        ),
        "probe": (verdict.probe_sentence or verdict.probe_note) if verdict else None,
    }


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


EXIT_CODES = {
    "verified": 0,
    "wrong": 1,
    "unchecked": 0,  # a custom kernel without a reference ran without an error
    "error": 2,
    "refused": 3,
    "crashed": 4,
    "timeout": 4,
}


MAX_TIMEOUT_S = 7 * 24 * 3600.0


def check_timeout(seconds: float, what: str = "timeout") -> float:
    """A timeout in seconds that a deadline can use: finite and positive (NaN never expires,
    zero or less expires before anything starts). Raises ValueError naming ``what``."""
    try:
        value = float(seconds)
    except (TypeError, ValueError):
        raise ValueError(f"{what} {seconds!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0 or value > MAX_TIMEOUT_S:
        raise ValueError(
            f"{what} {seconds!r} must be a positive number of seconds, at most a week "
            f"({MAX_TIMEOUT_S:g})"
        )
    return value
