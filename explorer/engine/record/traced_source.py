"""What a trace build of a run is made from: the kernel's source as instrumented, its
defines, language standard and include folders (one place, for the trace build and for the
index anatomy read from the same text)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explorer.engine.build_inputs import include_dirs, option_defines, platform_options
from explorer.engine.launch.devices import NoDeviceError, pick_device
from explorer.engine.launch.nonuniform import emulated_source
from explorer.engine.launch.plan import exact_ndrange, resolve_defines
from explorer.engine.launch.runtime import runtime
from explorer.engine.records import RunRequest
from explorer.frontend import language_standard


@dataclass(frozen=True)
class TracedSource:
    """What a trace build of a run is made from: its kernel's source and name, its defines,
    language standard and include folders, and the exact NDRange the local size does not
    divide (``partial``), which the source is rewritten for first so that the trace runtime
    sees whole groups."""

    original: str
    kernel: str
    defines: dict[str, int | str]
    cl_std: str
    include_dirs: tuple[str, ...]
    partial: Any

    def source(self) -> str:
        """The source as instrumented."""
        if self.partial is None:
            return self.original
        ndrange, group = self.partial
        return emulated_source(
            self.original, self.kernel, ndrange, group, self.defines, self.cl_std, ""
        )


def traced_source(run: RunRequest) -> TracedSource:
    """What a trace of ``run`` instruments (ValueError: the launch cannot be made)."""
    variant = run.variant
    defines: dict[str, int | str] = {
        **option_defines(variant.build_options),
        **resolve_defines(variant, run.defines, run.sizes, device_type(run.device_key)),
    }
    return TracedSource(
        variant.source,
        variant.kernel,
        defines,
        # The standard a header's options for every platform ask for (read_write images
        # need CL2.0), or a .sim file's build options.
        language_standard((*platform_options(variant.options, ""), *variant.build_options)),
        include_dirs(variant.build_options),
        exact_ndrange(variant, run.sizes, run.local, run.defines),
    )


def device_type(key: str | None) -> str | None:
    """The type of the device ``key`` names (its ``[[by_size]]`` rules may name it: the trace
    builds what the run built), or None where there is none (preparing the run says why)."""
    try:
        return pick_device(runtime().devices, key).type
    except NoDeviceError:
        return None
