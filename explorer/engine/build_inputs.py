"""What a build reads besides the device: its command line (the ``-D`` and ``-I`` options, those
a header may give per platform) and the files its ``#include`` lines pull in, with the digest of
it all that keys a build.

Text only, no OpenCL: the catalog checks a header's options with it, the kernel's signature
and the trace key their caches on it, and the build cache (launch/build.py) uses it to key
programs. It sits below all of them.
"""

from __future__ import annotations

import hashlib
import os
import re


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
    r"-cl-single-precision-constant",
    r"-cl-fp32-correctly-rounded-divide-sqrt",
    r"-cl-opt-disable",
    r"-cl-std=CL(?:1\.[0-2]|2\.0|3\.0)",
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


def option_words(options: tuple[str, ...]) -> list[str]:
    """Each option as one word: ``-D NAME`` and ``-I DIR`` given as two words are joined
    (``-DNAME``, ``-IDIR``), as a compiler reads them."""
    words: list[str] = []
    i = 0
    while i < len(options):
        word = options[i]
        if word in ("-D", "-I") and i + 1 < len(options):
            word, i = word + options[i + 1], i + 1
        words.append(word)
        i += 1
    return words


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
