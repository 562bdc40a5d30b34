"""The guided tour's stages and what their captions say: the idea of each rung of the matmul
ladder, and the figures of the runs and traces the tour itself made (never quoted from
elsewhere), with the work-group each stage shows.

The showcase group is (20, 18) at 768³ with 16×16 tiles: the inner corner of the O, where the
group's tiles of B and C are part text (0) and part background (0.5), so the values read.
Other sizes show the same spot of the picture; a group the person picked wins over it."""

from __future__ import annotations

from dataclasses import dataclass

from explorer.engine.records import RunResult
from explorer.gui.timing_view import figure

Group = tuple[int, int, int]


@dataclass(frozen=True)
class Stage:
    """One rung: the variant run (and traced) and the idea its caption states: ``idea`` with
    the sizes the run was built with (``{TS}``: its defines, which the device and the size
    choose), ``plain`` the same without them, while the run is not back."""

    variant: str
    title: str
    idea: str
    plain: str = ""

    def idea_of(self, run: RunResult | None) -> str:
        """The idea in the sizes ``run`` used, or without sizes where it says none."""
        if run is not None and run.defines:
            try:
                return self.idea.format(**run.defines)
            except (KeyError, IndexError, ValueError):
                pass
        return self.plain or self.idea


TOUR = (
    Stage(
        "naive",
        "naive",
        "every work-item walks its own row of A and column of B in global memory.",
    ),
    Stage(
        "tiled",
        "tiled",
        "the work-group copies {TS}×{TS} tiles of A and of B into local memory, waits at a "
        "barrier, and every work-item reads its row and column from the copy.",
        "the work-group copies a tile of A and of B into local memory, waits at a "
        "barrier, and every work-item reads its row and column from the copy.",
    ),
    Stage(
        "reg2d",
        "register-blocked",
        "each work-item computes a block of {WPTM}×{WPTN} elements of C from values held in "
        "registers, fed from {TSM}×{TSK} and {TSK}×{TSN} tiles in local memory.",
        "each work-item computes a block of C from values held in registers, fed from "
        "tiles of A and B in local memory.",
    ),
)
# The badge holds three lines of a 1280×720 projector's right column (with a tenth to spare
# for a wider font), and a keyboard cannot hover for the rest: the way out is said as the key
# strip says it.
CLOSING = "That was the ladder: each rung keeps data nearer the arithmetic. Esc: leave."
SHOWCASE_GROUP: Group = (20, 18, 0)
SHOWCASE_SIZE = 768
SHOWCASE_TILE = 16


@dataclass(frozen=True)
class Figures:
    """What one stage measured: its run, and its trace's global traffic."""

    run: RunResult | None = None
    loads_per_output: float | None = None


def size_text(sizes: dict[str, int]) -> str:
    """768³ for a cube, else M×N×K."""
    m, n, k = (sizes.get(name, 0) for name in ("M", "N", "K"))
    return f"{m}³" if m == n == k else f"{m}×{n}×{k}"


def caption(index: int, sizes: dict[str, int], figures: Figures, first: RunResult | None) -> str:
    """The stage's idea, then what this tour measured for it (or that it is measuring)."""
    stage = TOUR[index]
    run = figures.run
    head = f"{index + 1} · {stage.title}, {size_text(sizes)}: {stage.idea_of(run)}"
    if run is None:
        return f"{head}\nMeasuring: running {stage.variant} …"
    if run.timing is None:
        return f"{head}\nThis run: {run.status}"
    parts = [f"kernel {figure(run.timing.median_ms, 1)} ms"]
    if run.gflops is not None:
        parts.append(f"{figure(run.gflops, 1)} GFLOP/s")
    if first is not None and first is not run and first.timing is not None:
        ratio = first.timing.median_ms / max(run.timing.median_ms, 1e-9)
        parts.append(f"{figure(ratio, 1)}× as fast as {first.variant}")
    if figures.loads_per_output is not None:
        parts.append(f"{figures.loads_per_output:,.0f} global loads per element of C (traced)")
    elif run.status in ("verified", "wrong"):
        parts.append("tracing …")
    return f"{head}\nThis run: " + " · ".join(parts)


# The defines that say how many rows (columns) of C one work-item computes, by variant kind:
# register blocks (reg2d), work per thread (wpt), thread tiles (fast, warp), row blocks.
ROWS_PER_ITEM = ("WPTM", "WPT", "TM", "RM")
COLUMNS_PER_ITEM = ("WPTN", "TN")


def tile_of_group(result: RunResult) -> tuple[int, int] | None:
    """How many (rows, columns) of C one work-group of this run computes: its work-items
    times the elements each computes. Whole numbers: the global size is rounded up to whole
    groups, so C over the global size (100 rows over 112 items) is no tile at all."""
    shape = result.shapes.get("C")
    if not result.global_size or not result.local_size or not shape or len(shape) != 2:
        return None
    g0, g1 = result.global_size[:2]
    l0, l1 = result.local_size[:2]
    rows, cols = shape
    return (
        l1 * _per_item(rows, g1, result.defines, ROWS_PER_ITEM),
        l0 * _per_item(cols, g0, result.defines, COLUMNS_PER_ITEM),
    )


def _per_item(extent: int, items: int, defines: dict[str, int], names: tuple[str, ...]) -> int:
    """Elements of C one work-item computes along a dimension: the variant's define, else
    the fewest that ``items`` work-items can cover ``extent`` with."""
    for name in names:
        if defines.get(name, 0) > 0:
            return defines[name]
    return max(1, -(-extent // max(items, 1)))


def chosen_spot(group: Group | None, result: RunResult | None) -> tuple[float, float]:
    """Where in C (as fractions of its rows and columns) the tour looks: the centre of the
    group the person picked in ``result``'s trace, else the showcase group's."""
    if group is not None and result is not None:
        tile = tile_of_group(result)
        shape = result.shapes.get("C")
        if tile is not None and shape:
            gx, gy, _ = group
            return ((gy + 0.5) * tile[0] / shape[0], (gx + 0.5) * tile[1] / shape[1])
    gx, gy, _ = SHOWCASE_GROUP
    middle = SHOWCASE_TILE / 2
    return (
        (gy * SHOWCASE_TILE + middle) / SHOWCASE_SIZE,
        (gx * SHOWCASE_TILE + middle) / SHOWCASE_SIZE,
    )


def group_at(spot: tuple[float, float], result: RunResult) -> Group | None:
    """The work-group of this run whose tile of C holds the spot."""
    tile = tile_of_group(result)
    shape = result.shapes.get("C")
    if tile is None or not shape or not result.global_size or not result.local_size:
        return None
    row, col = spot[0] * shape[0], spot[1] * shape[1]
    groups_x = -(-result.global_size[0] // result.local_size[0])
    groups_y = -(-result.global_size[1] // result.local_size[1])
    gx = min(int(col // tile[1]), groups_x - 1)
    gy = min(int(row // tile[0]), groups_y - 1)
    return (max(gx, 0), max(gy, 0), 0)


def loads_per_output(bytes_read: int, bytes_written: int) -> float | None:
    """Global loads per element of C over the traced groups (float in, float out)."""
    return bytes_read / bytes_written if bytes_written else None
