"""The mutation benchmark: every catalog kernel changed by one small mistake, and what the
explorer makes of each mistake. A test of the tool, not a tuning target.

    python benchmarks/mutations.py                          # every variant, 3 sites per operator
    python benchmarks/mutations.py --sample 20 --family transpose
    python benchmarks/mutations.py --variant matmul/tiled --operator swap-tile --all-sites
    python benchmarks/mutations.py --list                   # the mutants, nothing run
    python benchmarks/mutations.py --json out.jsonl --keep mutants/

Each mutant is one change on one line of a catalog kernel's source, made at the source level
from its tokens (comments, strings and preprocessor lines are left alone), by one operator:

  off-by-one      an index off by one: ``a[e]`` becomes ``a[(e) + 1]``
  swap-dims       ``get_local_id``, ``get_global_id`` or ``get_group_id`` of dimension 0 reads
                  dimension 1, or 1 reads 0
  swap-tile       the two subscripts of a ``__local`` 2-D tile swapped: ``t[a][b]`` → ``t[b][a]``
  no-barrier      a ``barrier(...)`` removed (the call becomes ``(void)0``)
  lt-to-le        a ``<`` made ``<=``
  swap-sizes      one size parameter for another (M for N, N for K, K for M; WIDTH for HEIGHT…)

Every variant runs at a non-square odd size where its own constraints allow one (the first
of its family's ``SIZES`` that it accepts otherwise), on the default device (PoCL in CI),
its input the one the window shows (the IOU text where the family has it, else random).
For each mutant:

- the run's verdict, as the user gets it: the shown input and the random probe;
- whether the mutant changes the result: its outputs on the family's random input against
  the unmutated kernel's (NaN-aware, bit for bit; a difference no larger than rounding,
  1e-5 of the largest value, is reported apart and not counted as a change). A run that
  crashes or times out changes the result; a mutant that does not build is reported apart;
- where the explorer places it, for a mutant that changes the result: its trace on the shown
  input, against the unmutated kernel (``trace --against``). Each ``PLACERS`` entry says
  whether it points at the changed line: a finding at the line (not one the unmutated
  kernel's trace has there too; ``differs`` findings are the diff's), the trace diff's first
  difference at the line, the line in the index anatomy of a new finding (``--anatomy
  findings``), and in that of the accesses that brought a wrong element's first offending
  input in (``--explain``). A placer with nothing to read says None (not measured).

The scores: the share of result-changing mutants that are not VERIFIED (the target: all of
them), and the share placed at their changed line (the target: 90 %), by operator and by
family; then every result-changing mutant that read VERIFIED, and every unplaced one.
"""

from __future__ import annotations

import argparse
import bisect
import json
import random
import re
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.append(str(HERE.parent))  # the repository's code, unless PYTHONPATH names another

OPERATORS = ("off-by-one", "swap-dims", "swap-tile", "no-barrier", "lt-to-le", "swap-sizes")
# Non-square, odd sizes first; then sizes that tiles of 16 and 32 divide, for the kernels whose
# own constraints ask for them (the seeds); rowdot's only size is its matrices' side. K is
# past two tiles of 32 (wpt's), so that what a loop over the tiles carries from one pass to
# the next (the second barrier) matters.
SIZES: dict[str, tuple[dict[str, int], ...]] = {
    "matmul": ({"M": 45, "N": 37, "K": 67}, {"M": 48, "N": 32, "K": 64}),
    "transpose": ({"WIDTH": 45, "HEIGHT": 37}, {"WIDTH": 96, "HEIGHT": 64}),
    "matvec": ({"WIDTH": 45, "HEIGHT": 37}, {"WIDTH": 96, "HEIGHT": 64}),
    "rowdot": ({"D": 45}, {"D": 1000}),
    "stencil": ({"WIDTH": 45, "HEIGHT": 37}, {"WIDTH": 96, "HEIGHT": 64}),
    "histogram": ({"VALUES": 1001, "BINS": 37}, {"VALUES": 1024, "BINS": 64}),
}
ROUNDING = 1e-5  # a difference at most this share of the largest value is rounding
TIMEOUT_S = 60.0  # a loop a mutant made endless; generous, the machine may be busy


# -- tokens -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int


_HIDDEN = re.compile(
    r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"
    r"|^[ \t]*#(?:[^\n\\]|\\.|\\\n)*",
    re.S | re.M,
)
_TOKEN = re.compile(
    r"[A-Za-z_]\w*"
    r"|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[A-Za-z]*"
    r"|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]="
    r"|[\[\](){}.,;:?~!<>=+\-*/%&|^]"
)
TYPE_WORD = re.compile(
    r"^(?:(?:u?(?:char|short|int|long)|float|double|half)(?:2|3|4|8|16)?|uint|ulong|ushort"
    r"|uchar|bool|size_t|void|const|volatile|restrict|unsigned|signed|static"
    r"|(?:__)?(?:local|private|global|constant))$"
)
SPACE_WORDS = {"__local", "local"}
ID_CALLS = {"get_local_id", "get_global_id", "get_group_id"}
BARRIER_CALLS = {"barrier", "work_group_barrier"}
DIMENSIONS = {("(", "0", ")"), ("(", "1", ")")}


def code_tokens(source: str) -> list[Token]:
    """The tokens of ``source`` outside comments, string literals and preprocessor lines."""
    hidden = _HIDDEN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), source)
    return [Token(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(hidden)]


def _closing(tokens: Sequence[Token], at: int) -> int | None:
    """The index of the bracket that closes the one at ``at``."""
    opening = tokens[at].text
    close = {"[": "]", "(": ")", "{": "}"}[opening]
    depth = 0
    for i in range(at, len(tokens)):
        if tokens[i].text == opening:
            depth += 1
        elif tokens[i].text == close:
            depth -= 1
            if depth == 0:
                return i
    return None


# -- mutants ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Site:
    """One change: ``source[start:end]`` becomes ``after``."""

    operator: str
    start: int
    end: int
    after: str


@dataclass(frozen=True)
class Mutant:
    variant: str  # family/variant
    operator: str
    line: int  # the changed line, 1-based, of the kernel file
    column: int
    before: str
    after: str
    source: str

    @property
    def name(self) -> str:
        return f"{self.variant}:{self.operator}:{self.line}:{self.column}"


class Lines:
    def __init__(self, source: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", source)]

    def at(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


def _chain_start(tokens: Sequence[Token], at: int) -> int:
    """The first token of the postfix chain whose ``[`` is at ``at`` (``a`` of ``a[i][j]``)."""
    i = at - 1
    while i >= 0 and tokens[i].text == "]":
        depth = 0
        while i >= 0:
            if tokens[i].text == "]":
                depth += 1
            elif tokens[i].text == "[":
                depth -= 1
                if depth == 0:
                    break
            i -= 1
        i -= 1
    return max(i, 0)


def _declares(tokens: Sequence[Token], name_at: int) -> bool:
    """Whether the name at ``name_at`` is being declared (``float acc[4]``, ``a[2], b[2]``):
    a type word before it, or a comma at the top level of a statement that starts with one."""
    before = tokens[name_at - 1].text if name_at > 0 else ";"
    if TYPE_WORD.match(before):
        return True
    if before != ",":
        return False
    depth = 0
    i = name_at - 1
    while i >= 0 and tokens[i].text not in (";", "{", "}"):
        if tokens[i].text in (")", "]"):
            depth += 1
        elif tokens[i].text in ("(", "["):
            depth -= 1
            if depth < 0:
                return False
        i -= 1
    return bool(TYPE_WORD.match(tokens[i + 1].text))


def _subscripts(tokens: Sequence[Token], lines: Lines) -> list[tuple[int, int, int]]:
    """(name index, ``[`` index, ``]`` index) of every subscript in an expression, on one
    line; declarations left out."""
    found = []
    for at, tok in enumerate(tokens):
        if tok.text != "[" or at == 0:
            continue
        name_at = _chain_start(tokens, at)
        if not re.match(r"[A-Za-z_]", tokens[name_at].text) or _declares(tokens, name_at):
            continue
        close = _closing(tokens, at)
        if close is None or close == at + 1:
            continue
        if lines.at(tok.start)[0] != lines.at(tokens[close].start)[0]:
            continue
        found.append((name_at, at, close))
    return found


def off_by_one(source: str, tokens: Sequence[Token], context: dict[str, Any]) -> list[Site]:
    lines = Lines(source)
    sites = []
    for _, at, close in _subscripts(tokens, lines):
        inner = source[tokens[at].end : tokens[close].start].strip()
        sites.append(Site("off-by-one", tokens[at].start, tokens[close].end, f"[({inner}) + 1]"))
    return sites


def swap_dims(source: str, tokens: Sequence[Token], context: dict[str, Any]) -> list[Site]:
    sites = []
    for at in range(len(tokens) - 3):
        call, paren, dim, close = tokens[at : at + 4]
        if call.text in ID_CALLS and (paren.text, dim.text, close.text) in DIMENSIONS:
            other = "1" if dim.text == "0" else "0"
            sites.append(Site("swap-dims", dim.start, dim.end, other))
    return sites


def _local_tiles(tokens: Sequence[Token]) -> set[str]:
    """The names of ``__local`` arrays declared with two subscripts."""
    names = set()
    for at, tok in enumerate(tokens):
        if tok.text not in SPACE_WORDS:
            continue
        i = at + 1
        while i < len(tokens) and TYPE_WORD.match(tokens[i].text):
            i += 1
        if i + 1 < len(tokens) and tokens[i + 1].text == "[":
            first = _closing(tokens, i + 1)
            if first is not None and first + 1 < len(tokens) and tokens[first + 1].text == "[":
                names.add(tokens[i].text)
    return names


def swap_tile(source: str, tokens: Sequence[Token], context: dict[str, Any]) -> list[Site]:
    tiles = _local_tiles(tokens)
    lines = Lines(source)
    sites = []
    for name_at, at, close in _subscripts(tokens, lines):
        if tokens[name_at].text not in tiles or name_at != at - 1:
            continue
        if close + 1 >= len(tokens) or tokens[close + 1].text != "[":
            continue
        second = _closing(tokens, close + 1)
        if second is None or lines.at(tokens[second].start)[0] != lines.at(tokens[at].start)[0]:
            continue
        a = source[tokens[at].end : tokens[close].start].strip()
        b = source[tokens[close + 1].end : tokens[second].start].strip()
        if a != b:
            sites.append(Site("swap-tile", tokens[at].start, tokens[second].end, f"[{b}][{a}]"))
    return sites


def no_barrier(source: str, tokens: Sequence[Token], context: dict[str, Any]) -> list[Site]:
    sites = []
    for at, tok in enumerate(tokens[:-1]):
        if tok.text in BARRIER_CALLS and tokens[at + 1].text == "(":
            close = _closing(tokens, at + 1)
            if close is not None:
                sites.append(Site("no-barrier", tok.start, tokens[close].end, "(void)0"))
    return sites


def lt_to_le(source: str, tokens: Sequence[Token], context: dict[str, Any]) -> list[Site]:
    return [Site("lt-to-le", t.start, t.end, "<=") for t in tokens if t.text == "<"]


def swap_sizes(source: str, tokens: Sequence[Token], context: dict[str, Any]) -> list[Site]:
    """Each use of a size parameter in a function body becomes the next size parameter of
    the family's order (M → N → K → M, WIDTH ↔ HEIGHT, VALUES ↔ BINS)."""
    names: list[str] = context.get("size_parameters", [])
    if len(names) < 2:
        return []
    following = {name: names[(i + 1) % len(names)] for i, name in enumerate(names)}
    sites = []
    depth = 0
    for tok in tokens:
        if tok.text == "{":
            depth += 1
        elif tok.text == "}":
            depth -= 1
        elif depth > 0 and tok.text in following:
            sites.append(Site("swap-sizes", tok.start, tok.end, following[tok.text]))
    return sites


MUTATORS: dict[str, Callable[[str, Sequence[Token], dict[str, Any]], list[Site]]] = {
    "off-by-one": off_by_one,
    "swap-dims": swap_dims,
    "swap-tile": swap_tile,
    "no-barrier": no_barrier,
    "lt-to-le": lt_to_le,
    "swap-sizes": swap_sizes,
}


def mutants_of(
    variant_name: str,
    source: str,
    context: dict[str, Any],
    operators: Iterable[str] = OPERATORS,
    per_operator: int | None = 3,
) -> list[Mutant]:
    """The mutants of one kernel source: per operator every site, or ``per_operator`` of
    them spread evenly over the file (the first, the last and between)."""
    tokens = code_tokens(source)
    lines = Lines(source)
    found = []
    for operator in operators:
        sites = sorted(MUTATORS[operator](source, tokens, context), key=lambda s: s.start)
        for site in _spread(sites, per_operator):
            line, column = lines.at(site.start)
            mutated = source[: site.start] + site.after + source[site.end :]
            before = source[site.start : site.end]
            found.append(Mutant(variant_name, operator, line, column, before, site.after, mutated))
    return found


def _spread(sites: list[Site], count: int | None) -> list[Site]:
    if count is None or len(sites) <= count:
        return sites
    if count <= 1:
        return sites[:count]
    chosen = sorted({round(i * (len(sites) - 1) / (count - 1)) for i in range(count)})
    return [sites[i] for i in chosen]


def size_parameters(variant: Any) -> list[str]:
    """The kernel's own names of its family's sizes, in the family's order, where the
    kernel takes them as parameters (a seed names them its own way: ``wA``, ``width``)."""
    from explorer.engine.header.signature import kernel_signature

    sizes = variant.model.size_names
    try:
        params = kernel_signature(variant.source, variant.kernel, dict(variant.defines))
    except Exception:  # a kernel the front end cannot read has no size parameters to swap
        return []
    names = []
    for role in sizes:
        if role in variant.args and variant.args.index(role) < len(params):
            names.append(params[variant.args.index(role)].name)
    return names


# -- running ------------------------------------------------------------------------------


@dataclass
class Baseline:
    """The unmutated kernel at the benchmark's configuration."""

    variant: Any
    sizes: dict[str, int]
    shown: str
    status: str  # its verdict
    outputs: dict[str, np.ndarray] | None  # on random input
    deterministic: bool
    findings: set[tuple[str, int]] = field(default_factory=set)  # (kind, line)


@dataclass
class Outcome:
    mutant: str
    variant: str
    family: str
    operator: str
    line: int
    before: str
    after: str
    status: str = ""  # the run's verdict: verified, wrong, error, crashed, timeout, refused
    change: str = ""  # changed, same, rounding, crashed, not-built, not-run
    max_difference: float | None = None
    placed_by: list[str] = field(default_factory=list)
    not_measured: list[str] = field(default_factory=list)
    first_difference_line: int | None = None
    first_difference_barrier: int | None = None  # the barrier one kernel passes there
    finding_lines: list[int] = field(default_factory=list)
    new_findings: list[str] = field(default_factory=list)  # kind:line, not the unmutated's
    # The lines the index anatomy of the new findings names, and that of the wrong element's
    # first offending input ("why is this element wrong"): how many lines each points at.
    anatomy_lines: list[int] = field(default_factory=list)
    explain_lines: list[int] = field(default_factory=list)
    # The lines of the narrowest single chain (one access's anatomy) that holds the changed
    # line: what the user reads there.
    placing_chain: int | None = None
    trace_status: str = ""
    # The input traced: the shown one, or the random one where the shown input's run is
    # right and the random probe's wrong (the verdict says the shown input cannot show it).
    traced_input: str = ""
    retraced: bool = False  # traced on the random input, the shown one having shown nothing
    summary: str = ""
    seconds: float = 0.0
    baseline_status: str = ""  # the unmutated kernel's verdict: a seed's known bug reads WRONG
    baseline_deterministic: bool = True  # two runs of it on random input agreed

    @property
    def changes_result(self) -> bool:
        return self.change in ("changed", "crashed")

    @property
    def detected(self) -> bool:
        return self.status != "verified"

    @property
    def placed(self) -> bool:
        return bool([p for p in self.placed_by if p in STRICT_PLACERS])


@dataclass
class PlacementInput:
    """What a placer reads: the mutant, the unmutated kernel's findings, the traced run."""

    mutant: Mutant
    baseline: Baseline
    traced: Any  # TracedRun
    wrong_element: str | None  # 'C[i,j]' of a wrong element, for "why is this element wrong"
    # ``trace --explain`` of that element: the JSON ``explain`` list (None: nothing wrong).
    explained: list[dict[str, Any]] | None = None
    # (kind, line) of the unmutated kernel's findings on the input traced (None: the
    # baseline's, on the shown input).
    traced_known: set[tuple[str, int]] | None = None

    @property
    def known(self) -> set[tuple[str, int]]:
        if self.traced_known is not None:
            return self.traced_known
        return self.baseline.findings if self.baseline is not None else set()


def place_by_finding(p: PlacementInput) -> bool | None:
    """A finding at the changed line that the unmutated kernel's trace has not there."""
    analysis = p.traced.analysis
    if analysis is None:
        return False
    for f in analysis.findings:
        if f.kind == "differs" or (f.kind, f.line) in p.known:
            continue
        if p.mutant.line == f.line or p.mutant.line in f.other_lines:
            return True
    return False


def place_by_diff(p: PlacementInput) -> bool | None:
    """The trace diff against the unmutated kernel first differs at the changed line: its
    first difference's access is there, or, where the two part by a barrier one passes and
    the other does not, that barrier is."""
    return p.mutant.line in (first_difference_line(p.traced), first_difference_barrier(p.traced))


def place_by_race_brackets(p: PlacementInput) -> bool | None:
    """A removed barrier: a race finding between two lines around the line it stood on,
    where the finding's advice puts the barrier. Reported apart (``STRICT_PLACERS``)."""
    analysis = p.traced.analysis
    if p.mutant.operator != "no-barrier" or analysis is None:
        return False
    for f in analysis.findings:
        lines = [f.line, *f.other_lines] if f.line else []
        new = (f.kind, f.line) not in p.known
        if f.kind == "race" and new and lines and min(lines) < p.mutant.line < max(lines):
            return True
    return False


def chain_lines(access: Any) -> set[int]:
    """The lines of an index anatomy in the trace's JSON (an access's ``line``, ``terms``,
    each term's ``definitions`` with their ``line`` and own ``terms``; its ``conditions``,
    each with its ``line`` and ``terms``): the access line, every definition line its chains
    name, and the line of each condition it ran under (an ``if``, a loop, an earlier ``if``
    that returns) with its terms' definitions. Where the records say which definitions of a
    term ran, those; otherwise every one that can reach (the static chain shows them all)."""
    if not isinstance(access, dict) or not isinstance(access.get("line"), int):
        return set()
    lines = {access["line"]}
    _term_lines(access.get("terms"), lines, 0)
    for condition in access.get("conditions") or []:
        if isinstance(condition, dict) and isinstance(condition.get("line"), int):
            lines.add(condition["line"])
            _term_lines(condition.get("terms"), lines, 0)
    # The JSON's tree stops some levels down (``cut``); its ``chain``, the text the user
    # reads, goes on to the end: the lines it names are the same chain's.
    for text in access.get("chain") or []:
        if isinstance(text, str):
            lines.update(int(n) for n in re.findall(r"\bline (\d+)", text))
    return lines


def _term_lines(terms: Any, lines: set[int], depth: int) -> None:
    if not isinstance(terms, list) or depth > 32:
        return
    for term in terms:
        definitions = term.get("definitions") if isinstance(term, dict) else None
        if not isinstance(definitions, list):
            continue
        chosen = [d for d in definitions if isinstance(d, dict)]
        ran = [d for d in chosen if d.get("ran") is True]
        for d in ran or chosen:
            if isinstance(d.get("line"), int):
                lines.add(d["line"])
            _term_lines(d.get("terms"), lines, depth + 1)


def anatomy_chains(p: PlacementInput) -> list[set[int]]:
    """The lines of each index anatomy the trace's JSON gives a finding the unmutated
    kernel's trace has not (``trace --anatomy findings``: each finding's ``anatomy``)."""
    report = p.traced.report_json or {}
    chains = []
    for f in report.get("findings", []):
        if not isinstance(f, dict) or not isinstance(f.get("anatomy"), dict):
            continue
        if (f.get("kind"), f.get("line")) in p.known:
            continue
        chains.append(chain_lines(f["anatomy"]))
    return chains


def place_by_anatomy(p: PlacementInput) -> bool | None:
    """The changed line is in the index anatomy (the access line and the definition lines of
    its chains) of a finding the unmutated kernel's trace has not. None where no finding
    carries one."""
    chains = anatomy_chains(p)
    if not chains:
        return None
    return any(p.mutant.line in chain for chain in chains)


def explain_chains(p: PlacementInput) -> list[set[int]]:
    """The lines of the index anatomy of each access the explanation of the wrong element
    shows: those that brought its first offending input in (``first_offending.anatomy``:
    ``load``, ``stored``, ``entry``); where none should not be there but needed ones never
    arrived, those that brought the last needed one that did (``last_arrived.anatomy``);
    for an element no work-item wrote, the store of the nearest one written
    (``nearest_written.anatomy``: ``written``)."""
    chains = []
    for item in p.explained or []:
        if not isinstance(item, dict):
            continue
        for key in ("first_offending", "last_arrived", "nearest_written"):
            shown = item.get(key)
            anatomy = shown.get("anatomy") if isinstance(shown, dict) else None
            if not isinstance(anatomy, dict):
                continue
            for role in ("load", "stored", "entry", "written"):
                if isinstance(anatomy.get(role), dict):
                    chains.append(chain_lines(anatomy[role]))
    return chains


def place_by_explain(p: PlacementInput) -> bool | None:
    """'Why is this element wrong' (``trace --explain 'C[i,j]'``) on a wrong element of the
    shown input: the changed line is in the index anatomy of an access that brought its
    first offending input in. None where no element is wrong there, or none has a first
    offending input with an anatomy."""
    chains = explain_chains(p)
    if not chains:
        return None
    return any(p.mutant.line in chain for chain in chains)


PLACERS: dict[str, Callable[[PlacementInput], bool | None]] = {
    "finding": place_by_finding,
    "trace-diff": place_by_diff,
    "anatomy": place_by_anatomy,
    "explain": place_by_explain,
    "race-brackets": place_by_race_brackets,
}
# The placers the issue counts; race-brackets is reported beside them, not in the rate.
STRICT_PLACERS = ("finding", "trace-diff", "anatomy", "explain")


def first_difference_line(traced: Any) -> int | None:
    """The line of the trace diff's first difference: this kernel's access there, or where
    this kernel makes none, the reference's."""
    report = getattr(traced, "report_json", None) or {}
    first = ((report.get("against") or {}).get("diff") or {}).get("first")
    if not isinstance(first, dict):
        return None
    line = first.get("line")
    if line is None and isinstance(first.get("reference"), dict):
        line = first["reference"].get("line")
    return line if isinstance(line, int) else None


def first_difference_barrier(traced: Any) -> int | None:
    """The line of the barrier the trace diff's first difference names (one kernel passes
    it before that access, the other does not), or None."""
    report = getattr(traced, "report_json", None) or {}
    first = ((report.get("against") or {}).get("diff") or {}).get("first")
    line = first.get("barrier_line") if isinstance(first, dict) else None
    return line if isinstance(line, int) else None


def compare(
    mine: dict[str, np.ndarray] | None, theirs: dict[str, np.ndarray] | None
) -> tuple[str, float | None]:
    """``same``, ``rounding`` or ``changed``, and the largest difference."""
    if mine is None or theirs is None:
        return "not-run", None
    largest = 0.0
    rounding_only = True
    for name, reference in theirs.items():
        got = mine.get(name)
        if got is None or got.shape != reference.shape:
            return "changed", None
        if np.array_equal(got, reference, equal_nan=got.dtype.kind in "fc"):
            continue
        a = got.astype(np.float64)
        b = reference.astype(np.float64)
        nan_mismatch = np.isnan(a) != np.isnan(b)
        both = ~(np.isnan(a) | np.isnan(b))
        diff = float(np.max(np.abs(a[both] - b[both]), initial=0.0))
        if not np.isfinite(diff):
            diff = float("inf")
        largest = max(largest, diff)
        scale = float(np.max(np.abs(b[both]), initial=0.0))
        if (
            nan_mismatch.any()
            or reference.dtype.kind not in "fc"
            or diff > ROUNDING * max(scale, 1.0)
        ):
            rounding_only = False
    if largest == 0.0 and rounding_only:
        return "same", 0.0
    return ("rounding" if rounding_only else "changed"), largest


class Bench:
    """One executor, the baselines, and each mutant run, judged, traced and placed."""

    def __init__(
        self, executor: Any, device_key: str, keep: Path | None = None, compute_units: int = 1
    ) -> None:
        self.executor = executor
        self.device_key = device_key
        self.compute_units = compute_units
        self.keep = keep
        self.baselines: dict[str, Baseline | str] = {}
        self.other_findings: dict[str, set[tuple[str, int]]] = {}  # on another input

    def request(self, variant: Any, sizes: dict[str, int], shown: str, probe: bool) -> Any:
        from explorer.engine.records import RunRequest

        return RunRequest(
            variant,
            dict(sizes),
            device_key=self.device_key,
            input=shown,
            repeat=1,
            warmup=0,
            timeout_s=TIMEOUT_S,
            probe_seed=RunRequest.probe_seed if probe else None,
        )

    def baseline(self, variant: Any) -> Baseline | str:
        """The unmutated kernel at the first of its family's sizes it accepts, or why none."""
        key = f"{variant.family}/{variant.id}"
        if key in self.baselines:
            return self.baselines[key]
        from explorer.engine.record.trace_launch import TraceRequest

        presets = variant.model.input_presets
        shown = "iou" if "iou" in presets else "random"
        why = "no size of SIZES is accepted"
        for sizes in SIZES[variant.family]:
            result = self.executor.run(self.request(variant, sizes, shown, True))
            if result.status == "refused":
                why = f"refused: {result.refused}"
                continue
            first = self.executor.run(self.request(variant, sizes, "random", False))
            second = self.executor.run(self.request(variant, sizes, "random", False))
            same, _ = compare(first.outputs, second.outputs)
            traced = self.executor.trace(TraceRequest(self.request(variant, sizes, shown, False)))
            findings = set()
            if traced.analysis is not None:
                findings = {(f.kind, f.line) for f in traced.analysis.findings}
            made = Baseline(
                variant, dict(sizes), shown, result.status, first.outputs, same == "same", findings
            )
            self.baselines[key] = made
            return made
        self.baselines[key] = why
        return why

    def run(self, mutant: Mutant, variant: Any, baseline: Baseline) -> Outcome:
        from explorer.engine.record.trace_launch import TraceRequest

        started = time.perf_counter()
        outcome = Outcome(
            mutant.name, mutant.variant, variant.family, mutant.operator, mutant.line,
            mutant.before, mutant.after,
        )  # fmt: skip
        outcome.baseline_status = baseline.status
        outcome.baseline_deterministic = baseline.deterministic
        mutated = replace(variant, source=mutant.source)
        result = self.executor.run(self.request(mutated, baseline.sizes, baseline.shown, True))
        outcome.status = result.status
        outcome.summary = result.summary()
        if result.status == "error" and result.error_kind == "build":
            outcome.change = "not-built"
        elif result.status in ("crashed", "timeout"):
            outcome.change = "crashed"
        else:
            if baseline.shown == "random" and result.outputs is not None:
                random_run = result
            else:
                random_run = self.executor.run(
                    self.request(mutated, baseline.sizes, "random", False)
                )
            if random_run.status in ("crashed", "timeout"):
                outcome.change = "crashed"
            else:
                outcome.change, outcome.max_difference = compare(
                    random_run.outputs, baseline.outputs
                )
        # A barrier removed that this device runs right all the same (PoCL runs a group's
        # work-items in an order that can hide it) is traced too: does the trace see it?
        hidden_barrier = mutant.operator == "no-barrier" and outcome.change == "same"
        if outcome.changes_result or hidden_barrier:

            def traced_on(shown: str) -> tuple[Any, Any]:
                request = TraceRequest(
                    self.request(mutated, baseline.sizes, shown, False),
                    against=variant,
                    against_called="the unmutated kernel",
                    anatomy_findings=True,  # each finding's anatomy (``--anatomy findings``)
                )
                return request, self.executor.trace(request, keep_trace=True)

            request, traced = traced_on(baseline.shown)
            outcome.traced_input = baseline.shown
            if (
                baseline.shown != "random"
                and outcome.status == "wrong"
                and wrong_element(traced) is None
            ):
                # Right on the shown input, wrong on the random probe: the verdict says this
                # input cannot show the bug, so the user traces the random input next.
                request, traced = traced_on("random")
                outcome.traced_input, outcome.retraced = "random", True
            known = self.baseline_findings(variant, baseline, outcome.traced_input)
            outcome.trace_status = traced.result.status
            outcome.first_difference_line = first_difference_line(traced)
            outcome.first_difference_barrier = first_difference_barrier(traced)
            if traced.analysis is not None:
                mine = [f for f in traced.analysis.findings if f.kind != "differs"]
                outcome.finding_lines = sorted({f.line for f in mine if f.line})
                outcome.new_findings = sorted(
                    {f"{f.kind}:{f.line}" for f in mine if (f.kind, f.line) not in known}
                )
            self.written(mutant)
            element = wrong_element(traced)
            placing = PlacementInput(
                mutant,
                baseline,
                traced,
                element,
                self.explain(traced, mutated, request, element),
                known,
            )
            chains = anatomy_chains(placing)
            explained = explain_chains(placing)
            outcome.anatomy_lines = sorted(set().union(*chains))
            outcome.explain_lines = sorted(set().union(*explained))
            holding = [len(c) for c in chains + explained if mutant.line in c]
            outcome.placing_chain = min(holding) if holding else None
            for name, placer in PLACERS.items():
                answer = placer(placing)
                if answer is None:
                    outcome.not_measured.append(name)
                elif answer:
                    outcome.placed_by.append(name)
        outcome.seconds = time.perf_counter() - started
        return outcome

    def baseline_findings(
        self, variant: Any, baseline: Baseline, shown: str
    ) -> set[tuple[str, int]]:
        """(kind, line) of the unmutated kernel's findings on the input ``shown``."""
        if shown == baseline.shown:
            return baseline.findings
        from explorer.engine.record.trace_launch import TraceRequest

        key = f"{variant.family}/{variant.id}:{shown}"
        if key not in self.other_findings:
            traced = self.executor.trace(
                TraceRequest(self.request(variant, baseline.sizes, shown, False))
            )
            found = traced.analysis.findings if traced.analysis is not None else []
            self.other_findings[key] = {(f.kind, f.line) for f in found}
        return self.other_findings[key]

    def explain(
        self, traced: Any, variant: Any, request: Any, element: str | None
    ) -> list[dict[str, Any]] | None:
        """``trace --explain ELEMENT --json``'s ``explain`` list for the traced run, made by the
        command's own code on this executor; None where no element is wrong."""
        if element is None or traced.trace is None:
            return None
        from explorer.cli.trace import _explain

        explained, _ = _explain(
            [element], traced, variant, self.compute_units, self.executor, request
        )
        return explained

    def written(self, mutant: Mutant) -> Path | None:
        """The mutant as a kernel file in ``--keep``'s folder."""
        if self.keep is None:
            return None
        name = re.sub(r"[^\w.-]+", "_", mutant.name) + ".cl"
        path = self.keep / name
        path.write_text(mutant.source, encoding="utf-8")
        return path


def wrong_element(traced: Any) -> str | None:
    """``NAME[i,j]`` of the first element of the traced run's first result that differs from
    its reference, or None."""
    result = traced.result
    outputs, references = result.outputs or {}, result.references or {}
    for name, got in outputs.items():
        reference = references.get(name)
        if reference is None or reference.shape != got.shape:
            continue
        a, b = got.astype(np.float64), reference.astype(np.float64)
        bad = np.argwhere(~np.isclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True))
        if len(bad):
            return f"{name}[{','.join(str(int(i)) for i in bad[0])}]"
    return None


# -- scores -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rates:
    mutants: int
    changing: int
    detected: int
    placed: int
    placed_with_brackets: int

    @property
    def detection(self) -> float | None:
        return self.detected / self.changing if self.changing else None

    @property
    def placement(self) -> float | None:
        return self.placed / self.changing if self.changing else None


def rates(outcomes: Iterable[Outcome]) -> Rates:
    """Of the mutants that change the result: how many are not VERIFIED, how many placed."""
    chosen = list(outcomes)
    changing = [o for o in chosen if o.changes_result]
    return Rates(
        len(chosen),
        len(changing),
        sum(o.detected for o in changing),
        sum(o.placed for o in changing),
        sum(o.placed or "race-brackets" in o.placed_by for o in changing),
    )


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f} %"


def _summary(r: Rates) -> str:
    return (
        f"{r.changing} of {r.mutants} change the result, {r.detected} not VERIFIED "
        f"({_percent(r.detection)}), {r.placed} placed ({_percent(r.placement)})."
    )


def _spread_of(what: str, values: list[int]) -> str:
    if not values:
        return f"{what}: none"
    v = sorted(values)
    q = [v[(len(v) - 1) * k // 4] for k in (1, 2, 3)]
    return f"{what}: {v[0]} to {v[-1]}, quartiles {q[0]}, {q[1]}, {q[2]}"


def report(outcomes: list[Outcome]) -> str:
    """The tables of docs/mutations.md: by operator, by family, then the lists."""
    out = []
    kinds: dict[str, int] = {}
    for o in outcomes:
        kinds[o.change] = kinds.get(o.change, 0) + 1
    total = rates(outcomes)
    out.append(
        f"{total.mutants} mutants: "
        + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
        + f". Of the {total.changing} that change the result: {total.detected} not VERIFIED "
        f"({_percent(total.detection)}), {total.placed} placed at the changed line "
        f"({_percent(total.placement)}; {total.placed_with_brackets} counting a race "
        "around a removed barrier)."
    )
    for title, key in (("operator", "operator"), ("family", "family")):
        out.append("")
        out.append(
            f"| {title} | mutants | change the result | not VERIFIED | placed "
            "| placed, races around a barrier counted |"
        )
        out.append("|---|---:|---:|---:|---:|---:|")
        for value in sorted({getattr(o, key) for o in outcomes}):
            r = rates(o for o in outcomes if getattr(o, key) == value)
            out.append(
                f"| {value} | {r.mutants} | {r.changing} | {r.detected} ({_percent(r.detection)}) "
                f"| {r.placed} ({_percent(r.placement)}) | {r.placed_with_brackets} |"
            )
    out.append("")
    out.append("| operator | placed | " + " | ".join(STRICT_PLACERS) + " | by the chains alone |")
    out.append("|---|---:|" + "---:|" * (len(STRICT_PLACERS) + 1))
    for value in sorted({o.operator for o in outcomes}):
        mine = [o for o in outcomes if o.operator == value and o.changes_result]
        counts = [sum(name in o.placed_by for o in mine) for name in STRICT_PLACERS]
        alone = sum(o.placed and not {"finding", "trace-diff"} & set(o.placed_by) for o in mine)
        out.append(
            f"| {value} | {sum(o.placed for o in mine)} | "
            + " | ".join(str(c) for c in counts)
            + f" | {alone} |"
        )
    by_placer: dict[str, int] = {}
    unmeasured: set[str] = set()
    for o in outcomes:
        if o.changes_result:
            for name in o.placed_by:
                by_placer[name] = by_placer.get(name, 0) + 1
            unmeasured.update(o.not_measured)
    out.append("")
    out.append(
        "Placed by: "
        + ", ".join(f"{name} {by_placer.get(name, 0)}" for name in PLACERS)
        + (f"; not measured: {', '.join(sorted(unmeasured))}" if unmeasured else "")
    )
    loose = [
        o
        for o in outcomes
        if o.changes_result and o.placed and not {"finding", "trace-diff"} & set(o.placed_by)
    ]
    if loose:
        out.append("")
        out.append(
            f"Placed by the index anatomy or 'why is this element wrong' alone: {len(loose)}; "
            "the lines shown, "
            + _spread_of(
                "in the narrowest chain that holds the changed line",
                [o.placing_chain for o in loose if o.placing_chain is not None],
            )
            + "; "
            + _spread_of(
                "in all the chains read",
                [len(set(o.anatomy_lines) | set(o.explain_lines)) for o in loose],
            )
        )
    wrong_already = rates(o for o in outcomes if o.baseline_status != "verified")
    if wrong_already.mutants:
        out.append("")
        out.append(
            f"{wrong_already.mutants} mutants are of kernels not VERIFIED unmutated (the seeds' "
            f"known bugs); without them: "
            + _summary(rates(o for o in outcomes if o.baseline_status == "verified"))
        )
    unsteady = sorted({o.variant for o in outcomes if not o.baseline_deterministic})
    if unsteady:
        out.append("")
        out.append(
            f"Unmutated kernels whose two runs on random input differ: {', '.join(unsteady)}"
        )
    kept = [o for o in outcomes if o.change == "same" and o.detected]
    if kept:
        out.append("")
        out.append(
            f"Mutants that leave the result as it was and still do not read VERIFIED: "
            f"{len(kept)} (" + "; ".join(f"{o.mutant} {o.status}" for o in kept) + ")"
        )
    hidden = [o for o in outcomes if o.operator == "no-barrier" and o.change == "same"]
    if hidden:
        seen = [o for o in hidden if o.new_findings]
        out.append("")
        out.append(
            f"Barriers removed that this device runs right all the same: {len(hidden)}; the "
            f"trace has a new finding for {len(seen)} of them, at the barrier's line for "
            f"{sum(o.placed for o in hidden)}, a race around it for "
            f"{sum('race-brackets' in o.placed_by for o in hidden)}."
        )
        out += [f"- {o.mutant}: {', '.join(o.new_findings) or 'no new finding'}" for o in hidden]
    missed = [o for o in outcomes if o.changes_result and not o.detected]
    out.append("")
    out.append(f"Result-changing mutants that read VERIFIED: {len(missed)}")
    out += [
        f"- {o.mutant} `{o.before}` → `{o.after}` (largest difference {o.max_difference})"
        for o in missed
    ]
    unplaced = [o for o in outcomes if o.changes_result and not o.placed]
    out.append("")
    out.append(f"Result-changing mutants not placed at their line: {len(unplaced)}")
    out += [
        f"- {o.mutant} `{o.before}` → `{o.after}`: trace diff first at line "
        f"{o.first_difference_line}"
        + (
            f" (a barrier at line {o.first_difference_barrier})"
            if o.first_difference_barrier
            else ""
        )
        + f", findings at {o.finding_lines or 'no line'}"
        + f", anatomy lines {o.anatomy_lines or '-'}, explain lines {o.explain_lines or '-'}"
        + (" (traced on the random input)" if o.retraced else "")
        + (" (a race around it)" if "race-brackets" in o.placed_by else "")
        + (f" [trace: {o.trace_status}]" if o.trace_status not in ("verified", "wrong") else "")
        for o in unplaced
    ]
    return "\n".join(out)


# -- the command --------------------------------------------------------------------------


def selected_variants(families: Sequence[str], variants: Sequence[str]) -> list[Any]:
    from explorer.engine.header.catalog import catalog

    chosen = []
    for v in catalog():
        if v.family not in SIZES:
            continue
        if families and v.family not in families:
            continue
        if variants and f"{v.family}/{v.id}" not in variants:
            continue
        chosen.append(v)
    return chosen


def all_mutants(
    variants: Sequence[Any], operators: Sequence[str], per_operator: int | None
) -> list[tuple[Any, Mutant]]:
    found = []
    for v in variants:
        context = {"size_parameters": size_parameters(v)}
        for m in mutants_of(f"{v.family}/{v.id}", v.source, context, operators, per_operator):
            found.append((v, m))
    return found


def sample(items: list[Any], count: int | None, seed: int) -> list[Any]:
    if count is None or count >= len(items):
        return items
    picked = sorted(random.Random(seed).sample(range(len(items)), count))
    return [items[i] for i in picked]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", action="append", default=[], help="only this family")
    parser.add_argument("--variant", action="append", default=[], help="only this FAMILY/VARIANT")
    parser.add_argument(
        "--operator", action="append", default=[], choices=OPERATORS, help="only this operator"
    )
    parser.add_argument(
        "--per-operator", type=int, default=3, help="sites per operator and kernel (default 3)"
    )
    parser.add_argument("--all-sites", action="store_true", help="every site of each operator")
    parser.add_argument("--sample", type=int, help="this many mutants, drawn with --seed")
    parser.add_argument("--seed", type=int, default=39, help="the sample's seed (default 39)")
    parser.add_argument("--device", help="device: key, index or name substring")
    parser.add_argument("--json", metavar="FILE", help="write one JSON object per mutant")
    parser.add_argument("--keep", metavar="DIR", help="write each mutant's source there")
    parser.add_argument("--list", action="store_true", help="print the mutants, run nothing")
    args = parser.parse_args(argv)
    if args.per_operator < 1 or (args.sample is not None and args.sample < 1):
        parser.error("--per-operator and --sample must be positive")
    variants = selected_variants(args.family, args.variant)
    if not variants:
        parser.error("no catalog variant matches --family/--variant")
    operators = args.operator or list(OPERATORS)
    chosen = sample(
        all_mutants(variants, operators, None if args.all_sites else args.per_operator),
        args.sample,
        args.seed,
    )
    if args.list:
        for _, m in chosen:
            print(f"{m.name}  {m.before!r} -> {m.after!r}")
        print(f"{len(chosen)} mutants")
        return 0
    keep = Path(args.keep) if args.keep else None
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
    outcomes = run_all(chosen, args.device, keep, args.json)
    print()
    print(report(outcomes))
    return 0


def run_all(
    chosen: Sequence[tuple[Any, Mutant]],
    device: str | None = None,
    keep: Path | None = None,
    json_path: str | None = None,
    executor: Any = None,
) -> list[Outcome]:
    """Run, judge, trace and place every mutant; one line each as it goes."""
    from explorer.engine.executor import Executor
    from explorer.engine.launch.devices import default_device, pick_device

    own = executor is None
    ex = Executor() if own else executor
    outcomes: list[Outcome] = []
    sink = open(json_path, "w", encoding="utf-8") if json_path else None  # noqa: SIM115
    started = time.perf_counter()
    try:
        devices = ex.devices()
        chosen_device = pick_device(devices, device) if device else default_device(devices)
        bench = Bench(ex, chosen_device.key, keep, chosen_device.compute_units)
        for number, (variant, mutant) in enumerate(chosen, 1):
            baseline = bench.baseline(variant)
            if isinstance(baseline, str):
                print(f"[{number}/{len(chosen)}] {mutant.name}: skipped, {baseline}", flush=True)
                continue
            outcome = bench.run(mutant, variant, baseline)
            outcomes.append(outcome)
            if sink is not None:
                sink.write(json.dumps(asdict(outcome)) + "\n")
                sink.flush()
            placed = ",".join(outcome.placed_by) or "-"
            print(
                f"[{number}/{len(chosen)}] {mutant.name}: {outcome.status}, {outcome.change}, "
                f"placed by {placed} ({outcome.seconds:.1f} s)",
                flush=True,
            )
    finally:
        if sink is not None:
            sink.close()
        if own:
            ex.close()
    print(f"{len(outcomes)} mutants in {time.perf_counter() - started:.0f} s", flush=True)
    return outcomes


if __name__ == "__main__":
    sys.exit(main())
