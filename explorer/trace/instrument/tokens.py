"""The lexical layer of instrumentation: OpenCL C split into tokens (with ``#line`` honoured,
so each token carries the line of the user's file) and the names the rewriter recognises."""

from __future__ import annotations

import re
from dataclasses import dataclass

from explorer.trace.records import GLOBAL, LOCAL

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<pp>\#(?:[^\n\\]|\\.)*)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<number>0[xX][0-9a-fA-F]+[a-zA-Z]*|(?:\d+\.?\d*|\.\d+)(?:[eEpP][+-]?\d+)?[a-zA-Z]*)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<punct><<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!=<>]=
               |[-+*/%&|^!~=<>?:;,.(){}\[\]])
    """,
    re.VERBOSE | re.DOTALL,
)
SPACES: dict[str, int | str] = {
    "__global": GLOBAL,
    "global": GLOBAL,
    "__local": LOCAL,
    "local": LOCAL,
    "__constant": "constant",
    "constant": "constant",
}
COMPOUND = {"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}
OPERAND_END = {"ident", "number", "string"}
_LINE_DIRECTIVE = re.compile(r"#\s*line\s+(\d+)")
VLOAD = re.compile(r"^v(load|store)(2|3|4|8|16)$")
ATOMIC_CALL = re.compile(r"^(atomic|atom)_\w+$")
BARRIERS = {"barrier", "work_group_barrier"}
FENCES = {"mem_fence", "read_mem_fence", "write_mem_fence", "atomic_work_item_fence"}


@dataclass
class Token:
    """One token: its kind (a group of the token pattern), text, offset and line."""

    kind: str
    text: str
    start: int
    line: int


def tokenize(source: str) -> list[Token]:
    """Every token of ``source``, blanks and comments included (the rewrite keeps them)."""
    tokens = []
    pos, line = 0, 1
    while pos < len(source):
        m = _TOKEN.match(source, pos)
        if m is None:  # a stray character: keep it as punctuation
            tokens.append(Token("punct", source[pos], pos, line))
            line += source[pos] == "\n"
            pos += 1
            continue
        kind = m.lastgroup or "punct"
        text = m.group(0)
        tokens.append(Token(kind, text, pos, line))
        line += text.count("\n")
        directive = _LINE_DIRECTIVE.match(text) if kind == "pp" else None
        if directive:  # "#line N": the next line is line N of the user's file
            line = int(directive.group(1)) - 1
        pos = m.end()
    return tokens
