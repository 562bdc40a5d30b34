"""The one build cache: programs per (device, source, options), kernels fetched once."""

from __future__ import annotations

import hashlib
import os
import re
import warnings
from dataclasses import dataclass, field
from typing import Any


class BuildError(RuntimeError):
    """The compiler refused the source; ``log`` holds its messages with the user's line numbers."""

    def __init__(self, message: str, log: str, options: tuple[str, ...]) -> None:
        super().__init__(message)
        self.log = log
        self.options = options


def build_options(defines: dict[str, int], extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The compiler's command line: one ``-D`` per define, then the variant's own options."""
    return tuple(f"-D{key}={value}" for key, value in sorted(defines.items())) + extra


# The options a header's [options] table may give. Each changes how the code is compiled, never
# what it means to the explorer (no -D: defines have their own table; no -I: kernels are one
# file). NVIDIA's own: -cl-nv-verbose puts the register count of each kernel in the build log.
OPTION_PATTERNS = (
    r"-cl-nv-maxrregcount=\d+",
    r"-cl-nv-opt-level=[0-3]",
    r"-cl-nv-verbose",
    r"-cl-mad-enable",
    r"-cl-fast-relaxed-math",
    r"-cl-no-signed-zeros",
    r"-cl-unsafe-math-optimizations",
    r"-cl-finite-math-only",
    r"-cl-denorms-are-zero",
    r"-cl-strict-aliasing",
    r"-cl-std=CL[123]\.[0-2]",
)
_OPTION = re.compile("|".join(f"(?:{p})" for p in OPTION_PATTERNS))

# The keys of the [options] table, and the platform names each one matches (case-insensitive).
# By platform, not by device vendor: PoCL on an AMD processor reports the vendor AuthenticAMD.
OPTION_PLATFORMS = {
    "all": ("",),
    "nvidia": ("nvidia",),
    "amd": ("amd",),
    "intel": ("intel",),
    "pocl": ("portable computing language",),
    "apple": ("apple",),
}


def check_option(option: str) -> bool:
    """Whether a header may give ``option`` (see :data:`OPTION_PATTERNS`)."""
    return _OPTION.fullmatch(option) is not None


def platform_options(
    options: tuple[tuple[str, tuple[str, ...]], ...], platform: str
) -> tuple[str, ...]:
    """A variant's options for a device of ``platform``: those for every platform first, then
    those of the keys whose names the platform's name holds, in the header's order."""
    name = platform.lower()
    chosen: list[str] = []
    for key, values in sorted(options, key=lambda item: item[0] != "all"):
        if any(part in name for part in OPTION_PLATFORMS.get(key, ())):
            chosen.extend(v for v in values if v not in chosen)
    return tuple(chosen)


def option_defines(options: tuple[str, ...]) -> dict[str, str]:
    """The macros ``-DNAME[=VALUE]`` (or ``-D NAME[=VALUE]``) options define, for a front end
    that must see the source as the build does; ``-DNAME`` alone defines it as 1."""
    found: dict[str, str] = {}
    for i, option in enumerate(options):
        if option == "-D" and i + 1 < len(options):
            option = "-D" + options[i + 1]
        if option.startswith("-D") and len(option) > 2:
            name, _, value = option[2:].partition("=")
            found[name] = value or "1"
    return found


def include_dirs(options: tuple[str, ...]) -> tuple[str, ...]:
    """The folders ``-I DIR`` (or ``-IDIR``) options name, in order: where ``#include "..."``
    looks, for a front end that must read the source as the build does."""
    found: list[str] = []
    for i, option in enumerate(options):
        if option == "-I" and i + 1 < len(options):
            found.append(options[i + 1])
        elif option.startswith("-I") and len(option) > 2:
            found.append(option[2:])
    return tuple(found)


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)', re.M)


def included_files(source: str, options: tuple[str, ...]) -> list[str]:
    """The files ``source``'s ``#include`` lines read, found as a build with ``options``
    finds them: a ``"..."`` one beside the file that includes it, then in the ``-I``
    folders; a ``<...>`` one in the ``-I`` folders; the headers' own includes too. An include
    inside an ``#if`` is listed whether or not the build reads it; none without an ``-I``
    folder (the kernel file's own folder is one)."""
    folders = list(include_dirs(options))
    found: list[str] = []
    pending: list[tuple[str, str | None]] = [(source, None)] if folders else []
    while pending:
        text, beside = pending.pop()
        for quoted, angled in _INCLUDE.findall(text):
            near = [beside] if quoted and beside else []
            for folder in near + folders:
                candidate = os.path.normpath(os.path.join(folder, quoted or angled))
                if not os.path.isfile(candidate):
                    continue
                if candidate not in found:
                    found.append(candidate)
                    try:
                        with open(candidate, encoding="utf-8", errors="replace") as f:
                            header = f.read()
                    except OSError:
                        header = ""
                    pending.append((header, os.path.dirname(candidate)))
                break
    return found


def build_digest(source: str, options: tuple[str, ...]) -> str:
    """What a build depends on besides its options: the source and every header it reads
    (an edited header builds again)."""
    digest = hashlib.sha256(source.encode())
    for path in included_files(source, options):
        digest.update(b"\0" + path.encode(errors="replace") + b"\0")
        try:
            with open(path, "rb") as f:
                digest.update(f.read())
        except OSError:
            digest.update(b"unreadable")
    return digest.hexdigest()


def _clean_log(log: str, display_name: str) -> str:
    """Compiler logs name a temporary file; name the user's file instead."""
    log = re.sub(r"(?m)^[^\s:]*?(?:tempfile|input)[^\s:]*\.cl(?=:\d+)", display_name, log)
    log = re.sub(r"/[^\s:]*?/(?:tempfile_\w+|input)\.cl(?=:\d+)", display_name, log)
    return log.strip()


@dataclass
class BuildCache:
    """Built programs and fetched kernels, kept for the life of the executor process."""

    _programs: dict[tuple[str, str, tuple[str, ...]], Any] = field(default_factory=dict)
    _kernels: dict[tuple[int, str], Any] = field(default_factory=dict)

    def kernel(
        self,
        cl: Any,
        context: Any,
        device_key: str,
        source: str,
        options: tuple[str, ...],
        name: str,
        display_name: str,
    ) -> Any:
        key = (device_key, build_digest(source, options), options)
        program = self._programs.get(key)
        if program is None:
            try:
                with warnings.catch_warnings():
                    # A successful build with compiler output (NVIDIA's driver prints one for
                    # most kernels) is not a failure: never let a warnings filter make it one.
                    warnings.simplefilter("ignore", cl.CompilerWarning)
                    program = _source_build(cl, context, source, options)
            except cl.RuntimeError as exc:
                log = _build_log(cl, exc, context) or str(exc)
                raise BuildError(
                    f"{display_name} failed to build with options {' '.join(options) or '(none)'}",
                    _clean_log(log, display_name),
                    options,
                ) from None
            self._programs[key] = program
        kernel_key = (id(program), name)
        kernel = self._kernels.get(kernel_key)
        if kernel is None:
            try:
                kernel = cl.Kernel(program, name)
            except cl.Error as exc:
                renamed = _renamed(source, name)
                if renamed is None:
                    raise BuildError(
                        f"{display_name} has no kernel named {name!r}",
                        str(exc),
                        options,
                    ) from None
                # A kernel named like a built-in (``shuffle``) is lost to some runtimes'
                # own library (PoCL's): build it under a name of its own, on the same line.
                kernel = self.kernel(
                    cl, context, device_key, renamed, options, name + _SUFFIX, display_name
                )
            self._kernels[kernel_key] = kernel
        return kernel


_SUFFIX = "__explorer_kernel"


def _renamed(source: str, name: str) -> str | None:
    """``source`` with the ``__kernel`` named ``name`` renamed (its name and nothing else, so
    every line stays where it was); None where no such kernel is declared or it already was."""
    if name.endswith(_SUFFIX):
        return None
    pattern = re.compile(
        rf"(\b(?:__kernel|kernel)\b[^;{{}}()]*?\b){re.escape(name)}(\s*\()", re.DOTALL
    )
    renamed, count = pattern.subn(rf"\g<1>{name}{_SUFFIX}\g<2>", source, count=1)
    return renamed if count else None


def binary_cache_wanted(cl: Any, context: Any, options: tuple[str, ...]) -> bool:
    """Whether builds for ``context`` go through PyOpenCL's on-disk binary cache (keyed by
    platform, device, driver, source and options) although PyOpenCL itself skips it: on
    NVIDIA's platform, which PyOpenCL counts as caching builds from source, yet each new
    process compiled every program again (a tiled matmul 80 ms, its trace build 0.3–0.7 s on
    an H100; from the cache 0.1 ms). Not where PyOpenCL's cache is off or a folder of headers
    is named (the cache would not see them change)."""
    if os.environ.get("PYOPENCL_NO_CACHE") or include_dirs(options):
        return False
    return any("nvidia" in d.platform.name.lower() for d in context.devices)


def _source_build(cl: Any, context: Any, source: str, options: tuple[str, ...]) -> Any:
    """``source`` built for ``context``'s devices, from the binary cache where it is wanted;
    a build the cached path cannot make (a compile error, an unreadable cache) is made the
    usual way, which reports it with its log."""
    if binary_cache_wanted(cl, context, options):
        from pyopencl.cache import create_built_program_from_source_cached

        os.environ.setdefault("PYOPENCL_CACHE_FAILURE_FATAL", "")  # read without a default
        try:
            built, _ = create_built_program_from_source_cached(
                context, source, " ".join(options).encode(), context.devices
            )
            return cl.Program(built)
        except Exception:  # built again below, where a failure says why
            pass
    return cl.Program(context, source).build(options=list(options))


def _build_log(cl: Any, exc: Exception, context: Any) -> str:
    text = str(exc)
    # PyOpenCL puts the per-device build logs after "Build on <device>:".
    if "Build on" in text:
        parts = text.split("Build on", 1)[1]
        return parts.split(":", 1)[1] if ":" in parts else parts
    return text
