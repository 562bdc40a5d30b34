"""The kernel catalog: one ``.cl`` file per variant, metadata in a leading TOML comment.

A file starts with a block comment::

    /*---
    name = "Tiled, local memory"
    family = "matmul"
    kernel = "matmul_tiled"
    args = ["M", "N", "K", "A", "B", "C"]
    global = ["N", "M"]
    local = ["TS", "TS"]
    [defines]
    TS = 16
    [options]
    nvidia = "-cl-nv-verbose"
    [about]
    source = "seed 003"
    text = "..."
    ---*/

The file is compiled exactly as it is, header included, so compiler line numbers
are the line numbers the user sees.
"""

from __future__ import annotations

import difflib
import importlib
import re
import sys
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from explorer.description.expressions import ExpressionError, names_in
from explorer.description.launch import role_layout as role_layout
from explorer.engine.build_inputs import OPTION_PATTERNS, OPTION_PLATFORMS, check_option
from explorer.engine.header import toml_writer
from explorer.engine.records import CPU_NAME, Counterpart, SizeRule, Variant
from explorer.families import FAMILIES, KernelModel
from explorer.frontend.line_directives import HEADER
from explorer.paths import UserFileError, kernels_dir, read_user_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, published as tomli
    tomllib: Any = importlib.import_module("tomli")

_LAYOUTS = ("row-major", "column-major")
# Every key a header may hold at its top level (each family reads those it needs): any other
# is a misspelling that would otherwise be ignored (``gloabl``, ``exact_range``).
HEADER_KEYS = (
    "name", "family", "kernel", "args", "global", "local", "sizes", "constraints", "dtype",
    "layout", "defines", "allowed", "options", "by_size", "exact", "counterpart", "reference",
    "about",
)  # fmt: skip
_LOCAL_NAMES = ("L0", "L1", "L2")


class CatalogError(ValueError):
    """A kernel file whose header is missing or wrong; the message names the file."""


def parse_variant(
    source: str, path: str | Path, variant_id: str | None = None, *, own_header: bool = False
) -> Variant:
    """Read one kernel file's header into a :class:`Variant`. ``own_header``: the header is
    the file's own text, so a message about one of its keys names the key's line in it."""
    path = Path(path)
    where = str(path)
    meta = _header_table(source, where)
    _check_keys(meta, source, where, own_header)
    h = _Header(meta, where)
    family = str(h.need("family", str))
    if family not in FAMILIES:
        raise CatalogError(f"{where}: unknown family {family!r}; one of {', '.join(FAMILIES)}")
    try:  # the parameters as the family maps them, or as the header declares them
        declarations = FAMILIES[family].read_declarations(meta, where, path.parent)
        model = FAMILIES[family].for_header(declarations)
        args = model.header_args(meta, where)
        dtype = model.header_dtype(meta, where)
    except ValueError as exc:
        raise CatalogError(_with_key_line(str(exc), source) if own_header else str(exc)) from None
    _check_roles(args, model, where)
    global_size, local_size, constraints = _ndrange(h, model.constraints_key)
    defines, allowed = _defines(meta, where)
    about = meta.get("about", {})
    if not isinstance(about, dict):
        raise CatalogError(
            f"{where}: [about] must be a table (source, bug, text), not {about!r}; write it as "
            '[about] with text = "..." under it'
        )
    _check_names((*global_size, *local_size, *constraints), model, defines, where)
    size_names = set(model.size_names) | set(defines) | {CPU_NAME}
    return Variant(
        id=variant_id or path.stem,
        family=family,
        name=str(meta.get("name", path.stem)),
        kernel=str(h.need("kernel", str)),
        args=args,
        global_size=global_size,
        local_size=local_size,
        constraints=constraints,
        dtype=dtype,
        layout=_layout(meta.get("layout", "row-major"), where, model.matrix_roles),
        defines=tuple((k, int(v)) for k, v in defines.items()),
        allowed=tuple((k, tuple(int(x) for x in v)) for k, v in allowed.items()),
        source_ref=str(about.get("source", "")),
        bug=str(about.get("bug", "")),
        text=" ".join(str(about.get("text", "")).split()),
        path=str(path),
        source=source,
        custom=declarations,
        counterpart=_counterpart(meta.get("counterpart"), set(defines), where),
        options=_options(meta.get("options", {}), where),
        build_options=_includes(meta.get("options", {}), path, source, where),
        by_size=_by_size(meta.get("by_size", []), defines, allowed, size_names, where),
        exact_range=_exact(meta.get("exact", False), where),
    )


def _check_keys(meta: dict[str, Any], source: str, where: str, own_header: bool) -> None:
    """Refuse a top-level key no header has, naming it, its line (of the file with
    ``own_header``, else of the header) and the known key nearest its spelling."""
    unknown = [key for key in meta if key not in HEADER_KEYS]
    if not unknown:
        return
    messages = []
    for key in unknown[:_KEYS_NAMED]:
        line = _top_level_line(source, key)
        if line is None:
            at = f"{where}: "
        elif own_header:
            at = f"{where}:{line}: "
        else:
            at = f"{where}: line {line} of the header: "
        nearest = difflib.get_close_matches(key.lower(), HEADER_KEYS, n=1, cutoff=0.6)
        hint = (
            f"did you mean {nearest[0]!r}?"
            if nearest
            else f"a header's keys are {', '.join(HEADER_KEYS)}"
        )
        messages.append(f"{at}unknown header key {key!r}: {hint}")
    if len(unknown) > _KEYS_NAMED:
        messages.append(f"{where}: and {len(unknown) - _KEYS_NAMED} more unknown header keys")
    raise CatalogError("\n".join(messages))


_KEYS_NAMED = 5  # unknown keys named one by one, at most


# A line of TOML that starts a top-level key: ``key =``, ``key.sub =``, ``[key]``,
# ``[key.sub]`` or ``[[key]]``, the key bare or quoted.
_TOP_LEVEL = re.compile(
    r"""\s*(?P<table>\[\[?)?\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[A-Za-z0-9_-]+))"""
    r"""\s*(?(table)[.\]]|[.=])"""
)


def _top_level_line(source: str, key: str) -> int | None:
    """The line of ``source`` where its header first writes the top-level ``key``, or None."""
    header = HEADER.match(source)
    if header is None:
        return None
    first = source[: header.start("toml")].count("\n") + 1
    in_table = False
    for number, text in enumerate(header.group("toml").split("\n"), first):
        found = _TOP_LEVEL.match(text)
        if found is None:
            continue
        name = found.group("dq") or found.group("sq") or found.group("bare")
        if found.group("table"):
            in_table = True
        elif in_table:
            continue  # a key of the table opened above
        if name == key:
            return number
    return None


_PARAMETER_KEY = re.compile(r"parameter '(\w+)': key '(\w+)'")


def _with_key_line(message: str, source: str) -> str:
    """A message about a parameter's key (``k.cl: parameter 'cols': key 'step': ...``) with
    the line of the file where the header writes that key, where it can be found
    (``k.cl:15: parameter 'cols': key 'step': ...``)."""
    found = _PARAMETER_KEY.search(message)
    if found is None:
        return message
    param, key = found.groups()
    table = ""
    header = HEADER.match(source)
    lines = source[: header.end() if header else 0].split("\n")
    for number, text in enumerate(lines, 1):
        opened = re.match(r"\s*\[\s*([\w.\"' ]+?)\s*\]", text)
        if opened:
            table = re.sub(r"[\"'\s]", "", opened.group(1))
            continue
        written = re.match(r"\s*([\w.\"]+)\s*=", text)
        if written is None:
            continue
        name = f"{table}.{written.group(1)}" if table else written.group(1)
        if re.sub(r"[\"\s]", "", name) == f"args.{param}.{key}":
            before = message[: found.start()]
            if before.endswith(": "):  # ``file: parameter ...``: as a compiler names a place
                return f"{before[:-2]}:{number}: {message[found.start() :]}"
            return f"{message} (line {number} of the file)"
    return message


def _exact(value: object, where: str) -> bool:
    """The header's ``exact``: launch the NDRange as given (a captured launch), in non-uniform
    work-groups where the local size does not divide it, instead of rounding it up."""
    if not isinstance(value, bool):
        raise CatalogError(f"{where}: 'exact' must be true or false")
    return value


def _header_table(source: str, where: str) -> dict[str, Any]:
    """The TOML of the leading ``/*--- ... ---*/`` comment."""
    match = HEADER.match(source)
    if match is None:
        first = source.lstrip().partition("\n")[0]
        one_line = first.startswith("/*---") and "---*/" in first
        raise CatalogError(
            f"{where}: no catalog header. A kernel file starts with a /*--- ... ---*/ "
            "comment holding TOML (name, family, kernel, args, global, local)"
            + (
                ", /*--- and ---*/ each on a line of their own (a comment on one line is "
                "not a header: TOML takes one key a line)"
                if one_line
                else ""
            )
            + "; see the README's 'The catalog, and writing your own kernel'."
        )
    try:
        return tomllib.loads(match.group("toml"))
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{where}: header is not valid TOML: {exc}") from None
    except RecursionError:
        raise CatalogError(f"{where}: header is nested too deeply to be a catalog header") from None


def header_table(header: str, where: str) -> dict[str, Any]:
    """The TOML of a catalog header given alone (one declared for a file without one);
    CatalogError naming ``where`` when it is no header or its TOML is not valid."""
    return _header_table(header, where)


class _Header:
    """A header's table and where it came from, for keys that must be there."""

    def __init__(self, meta: dict[str, Any], where: str) -> None:
        self.meta, self.where = meta, where

    def need(self, key: str, kind: type) -> object:
        if key not in self.meta:
            raise CatalogError(f"{self.where}: header lacks {key!r}")
        value = self.meta[key]
        if not isinstance(value, kind):
            raise CatalogError(f"{self.where}: {key!r} must be a {kind.__name__}")
        return value

    def need_list(self, key: str) -> list[object]:
        value = self.need(key, list)
        assert isinstance(value, list)
        return value


def _check_roles(args: tuple[str, ...], model: KernelModel, where: str) -> None:
    unknown = [a for a in args if a not in model.roles]
    if unknown:
        raise CatalogError(
            f"{where}: args {unknown} are not roles of {model.family} "
            f"(roles: {', '.join(model.roles)})"
        )
    missing = [r for r in model.required_roles if r not in args]
    if missing:
        raise CatalogError(f"{where}: args lack the roles {missing} that {model.family} needs")


def _ndrange(
    h: _Header, constraints_key: str
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The global and local size expressions, and the kernel's own constraints."""
    global_size = tuple(str(g) for g in h.need_list("global"))
    local_size = tuple(str(v) for v in h.need_list("local"))
    if not 1 <= len(global_size) <= 3 or len(local_size) != len(global_size):
        raise CatalogError(f"{h.where}: 'global' and 'local' need the same 1 to 3 dimensions")
    raw_constraints = h.meta.get(constraints_key, [])
    if not isinstance(raw_constraints, list):
        raise CatalogError(
            f"{h.where}: '{constraints_key}' must be a list of conditions, e.g. [\"N % TS == 0\"]"
        )
    return global_size, local_size, tuple(str(c) for c in raw_constraints)


def _defines(meta: dict[str, Any], where: str) -> tuple[dict[str, int], dict[str, list[int]]]:
    """The ``[defines]`` with their defaults and the ``[allowed]`` values of some."""
    defines = meta.get("defines", {})
    if not isinstance(defines, dict):
        raise CatalogError(f"{where}: [defines] must be a table of NAME = integer")
    for key, value in defines.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise CatalogError(
                f"{where}: [defines] {key} = {value!r}: a define's value must be an integer "
                f"(e.g. {key} = 16)"
            )
    allowed = meta.get("allowed", {})
    if not isinstance(allowed, dict):
        raise CatalogError(f"{where}: [allowed] must be a table of NAME = [values]")
    for key, values in allowed.items():
        if (
            key not in defines
            or not isinstance(values, list)
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in values)
        ):
            raise CatalogError(f"{where}: [allowed] {key} must list values of a define")
    return defines, allowed


def _check_names(
    expressions: tuple[str, ...], model: KernelModel, defines: dict[str, int], where: str
) -> None:
    """Every name the size expressions use is a size, a define, COMPUTE_UNITS or L0-L2."""
    known = set(model.size_names) | set(defines) | {"COMPUTE_UNITS", *_LOCAL_NAMES}
    for expression in expressions:
        try:
            unknown_names = names_in(expression) - known
        except ExpressionError as exc:
            raise CatalogError(f"{where}: {exc}") from None
        if unknown_names:
            raise CatalogError(
                f"{where}: {expression!r} uses {sorted(unknown_names)}; known names are "
                f"the sizes {list(model.size_names)}, the defines, COMPUTE_UNITS, L0-L2"
            )


def _by_size(
    raw: object,
    defines: dict[str, int],
    allowed: dict[str, list[int]],
    known: set[str],
    where: str,
) -> tuple[SizeRule, ...]:
    """The header's ``[[by_size]]`` rules: each a ``when`` condition on the sizes and defines
    and the defines it sets, checked when the file is read."""
    if not isinstance(raw, list) or not all(isinstance(r, dict) for r in raw):
        raise CatalogError(
            f'{where}: by_size must be [[by_size]] tables, each with when = "..." and defines'
        )
    rules = []
    for number, rule in enumerate(raw, 1):
        when = rule.get("when")
        if not isinstance(when, str):
            raise CatalogError(f'{where}: [[by_size]] rule {number} lacks when = "condition"')
        try:
            unknown = names_in(when) - known
        except ExpressionError as exc:
            raise CatalogError(f"{where}: [[by_size]] rule {number}: {exc}") from None
        if unknown:
            raise CatalogError(
                f"{where}: [[by_size]] rule {number} uses {sorted(unknown)}; its condition may "
                f"use the sizes, the defines and {CPU_NAME} (1 on a CPU device)"
            )
        values = {k: v for k, v in rule.items() if k != "when"}
        for key, value in values.items():
            if key not in defines or not isinstance(value, int) or isinstance(value, bool):
                raise CatalogError(
                    f"{where}: [[by_size]] rule {number}: {key} must be a define with an "
                    "integer value"
                )
            if key in allowed and value not in allowed[key]:
                raise CatalogError(
                    f"{where}: [[by_size]] rule {number}: {key}={value} is not in [allowed]"
                )
        if not values:
            raise CatalogError(f"{where}: [[by_size]] rule {number} sets no define")
        rules.append(SizeRule(when, tuple(values.items())))
    return tuple(rules)


def _options(raw: object, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The header's ``[options]``: compiler options per platform (``nvidia =
    "-cl-nv-verbose"``), checked here so a typo is an error when the file is read rather than a
    build failure on one vendor's device only."""
    if not isinstance(raw, dict):
        raise CatalogError(f'{where}: [options] must be a table of platform = "options"')
    options = []
    for key, value in raw.items():
        if key not in OPTION_PLATFORMS:
            raise CatalogError(
                f"{where}: [options] {key!r} is no platform; one of {', '.join(OPTION_PLATFORMS)}"
            )
        if not isinstance(value, str):
            raise CatalogError(f'{where}: [options] {key} must be a string, e.g. "-cl-mad-enable"')
        words = _without_includes(value.split())
        bad = [option for option in words if not check_option(option)]
        if bad:
            raise CatalogError(
                f"{where}: [options] {key} gives {' '.join(bad)}, which the explorer does not "
                f"pass to a compiler; allowed: {', '.join(OPTION_PATTERNS)}"
            )
        options.append((str(key), tuple(words)))
    return tuple(options)


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*["<]', re.M)


def _include_words(words: list[str]) -> list[str]:
    """The folders of the ``-I DIR`` and ``-IDIR`` among ``words``."""
    found = []
    for i, word in enumerate(words):
        if word == "-I" and i + 1 < len(words):
            found.append(words[i + 1])
        elif word.startswith("-I") and len(word) > 2:
            found.append(word[2:])
    return found


def _without_includes(words: list[str]) -> list[str]:
    kept, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word == "-I":
            skip = True
        elif not word.startswith("-I"):
            kept.append(word)
    return kept


def _includes(raw: object, path: Path, source: str, where: str) -> tuple[str, ...]:
    """Where the kernel's ``#include "..."`` and ``<...>`` files are: the kernel file's own
    folder, then the folders ``-I`` names in ``[options]`` (for every device), each beside
    the kernel file: inside its folder. None for a kernel that includes nothing (its build
    is the same as before, and compiler caches keep serving it)."""
    base = path.parent.resolve()
    folders = [base]
    values = raw.values() if isinstance(raw, dict) else ()
    for value in values:
        for named in _include_words(str(value).split()):
            folder = (base / named).resolve()
            if folder != base and base not in folder.parents:
                raise CatalogError(
                    f"{where}: [options] -I {named}: an include folder must be beside the "
                    f"kernel file, inside {base}"
                )
            if not folder.is_dir():
                raise CatalogError(f"{where}: [options] -I {named}: no folder {folder}")
            if folder not in folders:
                folders.append(folder)
    if not _INCLUDE.search(source):
        return ()
    return tuple(f"-I{folder}" for folder in folders)


def _counterpart(raw: object, defines: set[str], where: str) -> Counterpart | None:
    """The header's ``counterpart``: a variant id (``counterpart = "tiled-padded"``) or a
    table with ``variant``, ``defines``, ``local`` and ``why``, each optional."""
    if raw is None:
        return None
    if isinstance(raw, str):
        return Counterpart(raw.strip())
    if not isinstance(raw, dict):
        raise CatalogError(f"{where}: counterpart must be a variant id or a table")
    variant = raw.get("variant", "")
    why = raw.get("why", "")
    new_defines = raw.get("defines", {})
    local = raw.get("local")
    if not isinstance(variant, str) or not isinstance(why, str):
        raise CatalogError(f"{where}: counterpart variant and why must be strings")
    if not isinstance(new_defines, dict) or not all(
        isinstance(v, int) for v in new_defines.values()
    ):
        raise CatalogError(f"{where}: counterpart defines must be a table of NAME = integer")
    if not variant and set(new_defines) - defines:
        raise CatalogError(
            f"{where}: counterpart defines {sorted(set(new_defines) - defines)} are not "
            "defines of this kernel"
        )
    if local is not None and not (
        isinstance(local, list) and local and all(isinstance(v, int) and v > 0 for v in local)
    ):
        raise CatalogError(f"{where}: counterpart local must be a list of positive integers")
    if not variant and not new_defines and local is None:
        raise CatalogError(f"{where}: counterpart names no variant, define or local size")
    return Counterpart(
        variant.strip(),
        tuple((k, int(v)) for k, v in new_defines.items()),
        tuple(local) if local is not None else None,
        why,
    )


def _layout(value: object, where: str, matrices: tuple[str, ...]) -> str:
    """``layout = "column-major"`` for every matrix, or a table per matrix (``B =
    "transposed"``: the host passes Bᵀ, i.e. B in the other order than the rest), kept as
    ``"A:row-major,B:column-major,C:row-major"``; see :func:`role_layout`."""
    if isinstance(value, str):
        if value not in _LAYOUTS:
            raise CatalogError(f"{where}: layout must be one of {_LAYOUTS} or a table per matrix")
        return value
    if not isinstance(value, dict):
        raise CatalogError(f"{where}: layout must be a string or a table per matrix")
    default = value.get("default", "row-major")
    if default not in _LAYOUTS:
        raise CatalogError(f"{where}: layout.default must be one of {_LAYOUTS}")
    other = _LAYOUTS[1 - _LAYOUTS.index(default)]
    parts = []
    for role in matrices:
        given = value.get(role, default)
        if given not in (*_LAYOUTS, "transposed"):
            raise CatalogError(
                f"{where}: layout.{role} must be row-major, column-major or transposed"
            )
        parts.append(f"{role}:{other if given == 'transposed' else given}")
    unknown = set(value) - {"default", *matrices}
    if unknown:
        raise CatalogError(f"{where}: layout names {sorted(unknown)}; matrices: {matrices}")
    return ",".join(parts)


def load_variant_file(path: str | Path, allow_outside: bool = False) -> Variant:
    """A user's own ``.cl`` file with a catalog header, or an Oclgrind ``.sim`` file (whose
    program may ``#include`` files outside its folder only with ``allow_outside``)."""
    path = Path(path)
    if path.suffix.lower() == ".sim":
        from explorer.engine.header.sim import SimError, load_sim  # the reader needs the signature

        try:
            return load_sim(path, allow_outside)
        except SimError as exc:
            raise CatalogError(str(exc)) from None
    try:
        source = read_user_text(path, "kernel file")
    except UserFileError as exc:
        raise CatalogError(str(exc)) from None
    return parse_variant(source, path, own_header=True)


@lru_cache(maxsize=1)
def _load_catalog(root: str) -> tuple[Variant, ...]:
    variants = []
    for family in FAMILIES:
        folder = Path(root) / family
        for path in sorted(folder.glob("*.cl")):
            variant = load_variant_file(path)
            if variant.family != family:
                raise CatalogError(f"{path}: family {variant.family!r} but lies in {family}/")
            variants.append(variant)
    return tuple(variants)


def catalog() -> tuple[Variant, ...]:
    """Every shipped variant, by family in catalog order (the ladder order)."""
    variants = _load_catalog(str(kernels_dir()))
    return tuple(sorted(variants, key=lambda v: (list(FAMILIES).index(v.family), _rank(v))))


def _rank(variant: Variant) -> tuple[int, str]:
    order = FAMILIES[variant.family].ladder
    return (order.index(variant.id) if variant.id in order else len(order), variant.id)


def variants_of(family: str) -> tuple[Variant, ...]:
    return tuple(v for v in catalog() if v.family == family)


def find_variant(family: str, variant_id: str) -> Variant:
    for variant in variants_of(family):
        if variant.id == variant_id:
            return variant
    ids = ", ".join(v.id for v in variants_of(family)) or "none"
    raise CatalogError(f"no variant {variant_id!r} in family {family!r} (variants: {ids})")


def header_text(
    name: str,
    family: str,
    kernel: str,
    args: list[str],
    global_size: list[str],
    local_size: list[str],
    text: str = "",
) -> str:
    """A catalog header for a user's kernel (the block comment that starts the file)."""
    return toml_writer.header(
        {
            "name": name,
            "family": family,
            "kernel": kernel,
            "args": args,
            "global": global_size,
            "local": local_size,
            "about": {
                "source": "your own kernel",
                "text": text or "A kernel opened in the explorer.",
            },
        }
    )


def with_header(source: str, header: str, path: str | Path) -> Variant:
    """A variant for a header-less source: the header is kept in memory and the kernel's
    text is the file's alone, so every line number on screen (the compiler's, the trace's,
    Oclgrind's quoted lines, the source view's) counts lines of the user's file."""
    return replace(parse_variant(header + "#line 1\n" + source, path), source=source)
