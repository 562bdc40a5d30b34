"""Measure the two candidate front ends on the corpus (a script, not a test: no timings in tests).

    PYTHONPATH=. python tests/frontend/measure_frontends.py

libclang: the explorer's `parse` (clang parse + the site walk). tree-sitter-c: pcpp to
preprocess with the same defines, then tree-sitter; it has no types, so it can only say
whether the text parses. Needs `pip install tree-sitter tree-sitter-c pcpp` for the second.
"""

from __future__ import annotations

import io
import re
import statistics
import time
from pathlib import Path

import tomllib

from explorer.frontend import ParseError, parse

CORPUS = Path(__file__).parent / "corpus"
DEFINES: dict[str, int | str] = {"UNROLL": 2, "N": 64}
REPEATS = 20


def median_ms(action: object) -> float:
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        action()  # type: ignore[operator]  # a zero-argument callable
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def tree_sitter_runner():  # type: ignore[no-untyped-def]  # optional, third-party, untyped
    import pcpp  # type: ignore[import-untyped]  # optional, measured only here
    import tree_sitter
    import tree_sitter_c

    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_c.language()))

    def run(text: str, erase_qualifiers: bool = False) -> tuple[int, str]:
        pre = pcpp.Preprocessor()
        if erase_qualifiers:
            for word in ("__kernel", "__global", "__local", "__constant", "__private"):
                pre.define(f"{word} ")
        pre.line_directive = "#line"
        for name, value in DEFINES.items():
            pre.define(f"{name} {value}")
        pre.define("CLK_LOCAL_MEM_FENCE 1")
        pre.define("CLK_GLOBAL_MEM_FENCE 2")
        pre.parse(text, "k.cl")
        out = io.StringIO()
        pre.write(out)
        tree = parser.parse(out.getvalue().encode())
        errors = sum(1 for n in _walk(tree.root_node) if n.type == "ERROR" or n.is_missing)
        return errors, out.getvalue()

    return run


def _walk(node):  # type: ignore[no-untyped-def]
    yield node
    for child in node.children:
        yield from _walk(child)


def main() -> None:
    try:
        ts = tree_sitter_runner()
    except ImportError:
        ts = None
    header = f"{'kernel':28} {'clang ms':>8} {'sites':>5} {'uncl':>4}"
    print(f"{header} {'ts ms':>6} {'ts errs':>7} {'erased':>6}")
    clang_times, ts_times, ts_failed, ts_failed_erased = [], [], 0, 0
    for path in sorted(CORPUS.glob("*.cl")):
        text = path.read_text()
        parsed = parse(text, DEFINES, path.name)
        c_ms = median_ms(lambda text=text, name=path.name: parse(text, DEFINES, name))
        clang_times.append(c_ms)
        row = f"{path.name:28} {c_ms:8.1f} {len(parsed.accesses):5} {len(parsed.unclassified):4}"
        if ts is not None:
            errors, _ = ts(text)
            t_ms = median_ms(lambda text=text: ts(text))
            ts_times.append(t_ms)
            ts_failed += errors > 0
            erased, _ = ts(text, True)
            ts_failed_erased += erased > 0
            row += f" {t_ms:6.1f} {errors:7} {erased:6}"
        print(row)
    median, worst = statistics.median(clang_times), max(clang_times)
    print(f"libclang parse: median {median:.1f} ms, max {worst:.1f}")
    if ts_times:
        print(
            f"pcpp+tree-sitter: median {statistics.median(ts_times):.1f} ms, "
            f"max {max(ts_times):.1f}, kernels with ERROR nodes: {ts_failed}, "
            f"with address-space words erased: {ts_failed_erased}"
        )


def shipped_kernels() -> None:
    """The app's own kernels, with the defaults of their catalog header's [defines]."""
    times, refused, names = [], [], []
    for path in sorted((CORPUS.parents[2] / "kernels").glob("*/*.cl")):
        text = path.read_text()
        header = re.match(r"\s*/\*(.*?)\*/", text, re.S)
        try:
            defines = tomllib.loads(header.group(1)).get("defines", {}) if header else {}
        except tomllib.TOMLDecodeError:
            defines = {}
        try:
            parse(text, defines, path.name)
        except ParseError:
            refused.append(path.name)
            continue
        times.append(median_ms(lambda text=text, d=defines, n=path.name: parse(text, d, n)))
        names.append(f"{path.parent.name}/{path.name}")
    print(
        f"shipped kernels: {len(times)} parsed, median {statistics.median(times):.1f} ms, "
        f"max {max(times):.1f} ({names[times.index(max(times))]}); "
        f"need defines set at build time: {refused}"
    )


if __name__ == "__main__":
    main()
    shipped_kernels()
