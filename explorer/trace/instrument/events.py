"""Which event each async copy returns and which events each ``wait_group_events`` names.

Event values are opaque (alike for every copy on some devices), and their variables' addresses
do not compare alike on every device, so the trace follows the variables by name instead.
Each ``event_t`` variable (or array) the traced kernel declares gets a private shadow of the
same shape, ``__tr_evs_<name>``, holding the number of the copy whose event it holds (0: none
known). A copy's event is a fresh number, or the one the variable given as its last argument
holds (OpenCL returns that same event); where its result is stored in a variable, that
variable's shadow takes the number. The copy records the number (a FENCE record of role
``ROLE_COPY_EVENT``), and a wait records, just before its barrier record, the number of each
event it names (``ROLE_WAIT_EVENT``), read from the shadows.

Only a kernel that copies pays for this: the shadows and the counter of fresh numbers are
declared where the kernel declares event variables, and nothing else changes. What the
trace cannot follow it says: a copy given an event that is not a plain variable or element
gets number 0 (any wait ends it), and a wait whose list is not one is taken to end every
copy, and its line is "not traced".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from explorer.trace.instrument.shadows import without_comments

SHADOW = "__tr_evs_"  # not "__tr_ev_": the runtime's __tr_ev_wait and __tr_ev_note begin so
NEXT = "__tr_evn"  # the last fresh event number of this work-item (no shadow's name: `next`)

# A plain variable or array element, its index free of calls and side effects (it is
# evaluated once more, on the shadow).
_INDEX = r"(?:[\w\s*/%]|\+(?!\+)|-(?!-))*"
_LVALUE = re.compile(rf"(?P<name>[A-Za-z_]\w*)\s*(?P<index>\[{_INDEX}\])?")
_STORED_IN = re.compile(rf"(?P<lvalue>[A-Za-z_]\w*\s*(?:\[{_INDEX}\])?)\s*=\s*$")
_OPENINGS = re.compile(r"(?:\(\s*(?:event_t\s*\))?\s*)+$")  # `(`, `(event_t)` before a copy
# One variable set from another: `w = e` (`==`, `<=` and compound assignments are not).
_ASSIGNED = re.compile(r"\b(?P<target>[A-Za-z_]\w*)\s*=(?!=)\s*(?P<value>[A-Za-z_]\w*)(?=\s*[;,)])")
_NO_EVENT = re.compile(r"(\(\s*event_t\s*\))?\s*0[uUlL]*")
# The list a wait names: &e, e (an array), &e[i], e + i.
_LIST = re.compile(
    rf"&\s*(?P<a>[A-Za-z_]\w*)\s*(?P<ai>\[{_INDEX}\])?|(?P<b>[A-Za-z_]\w*)(?P<bo>\s*\+{_INDEX})?"
)
_NAME_IN_PARENTHESES = re.compile(r"\(\s*([A-Za-z_]\w*)\s*\)(?!\s*[\w(])")  # not a cast
_DECLARATION = re.compile(r"\bevent_t\s+")
_COPY = re.compile(r"\basync_work_group_(?:strided_)?copy\s*\(")
_DECLARATOR = re.compile(r"\s*([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)")


@dataclass
class EventShadows:
    """The event variables of one kernel body and how their shadows are named."""

    shapes: dict[str, str] = field(default_factory=dict)  # name -> "[3]" or ""
    copies: bool = False  # the body calls a copy (whose fresh number needs the counter)

    @classmethod
    def of(cls, body: str) -> EventShadows:
        """The ``event_t`` variables declared in ``body`` (the kernel's text), its comments
        and strings read as blanks (``// one event_t per tile`` declares nothing)."""
        body = without_comments(body)
        shapes: dict[str, str] = {}
        for m in _DECLARATION.finditer(body):
            for name, dims in _declarators(body, m.end()):
                shapes.setdefault(name, dims)
        return cls(shapes, _COPY.search(body) is not None)

    def declarations(self) -> str:
        """The shadows and the counter, for the top of the kernel's body ("" where the
        kernel neither declares an event nor copies)."""
        if not self.shapes:
            return f" uint {NEXT} = 0u;" if self.copies else ""
        parts = [
            f"{SHADOW}{name}{dims}" + (" = {0}" if dims else " = 0u")
            for name, dims in self.shapes.items()
        ]
        return f" uint {NEXT} = 0u, {', '.join(parts)};"

    def assignments(self, body: str) -> list[tuple[int, int, str]]:
        """Where ``body`` sets one event variable from another (``event_t w = e;``,
        ``w = e``): the stretch of the value and the assignment of the shadows that goes in
        front of it, so the variable holds that copy's number too."""
        found = []
        for m in _ASSIGNED.finditer(without_comments(body)):
            target, value = m.group("target"), m.group("value")
            if self.shapes.get(target) != "" or self.shapes.get(value) != "":
                continue
            if body[: m.start("target")].rstrip().endswith((".", ">")):  # a field
                continue
            found.append(
                (m.start("value"), m.end("value"), f"{SHADOW}{target} = {SHADOW}{value}, ")
            )
        return found

    def shadow(self, lvalue: str) -> str | None:
        """The shadow of an event variable or element (``e``, ``evs[i]``), or None."""
        m = _LVALUE.fullmatch(lvalue.strip())
        if m is None or m.group("name") not in self.shapes:
            return None
        dims, index = self.shapes[m.group("name")], m.group("index") or ""
        if bool(dims) != bool(index):
            return None
        return f"{SHADOW}{m.group('name')}{index}"

    def event_number(self, given: str) -> str:
        """The number of the event a copy given ``given`` (its last argument) returns: the
        one its variable holds, or a fresh one where it holds none yet (``event_t e = 0;``
        then ``e = async_work_group_copy(..., e)``: OpenCL returns a new event for 0)."""
        given = _unwrapped(given)  # `(e)`, `(0)`: as a macro passes them on
        if _NO_EVENT.fullmatch(given):
            return f"++{NEXT}"
        shadow = self.shadow(given)
        return f"({shadow} ? {shadow} : ++{NEXT})" if shadow else "0u"

    def stored_in(self, before: str) -> str | None:
        """The shadow of the variable the copy's result is stored in, from the text just
        before the call (``e = ``, ``evs[1] = ``, ``event_t e = ``, and so through the
        parentheses or the cast a macro puts around a copy: ``e = (``, ``e = (event_t)``),
        or None."""
        before = _OPENINGS.sub("", before)
        m = _STORED_IN.search(before)
        if m is None:
            return None
        if before[: m.start()].rstrip().endswith((".", ">", "*")):  # a field, through a pointer
            return None
        return self.shadow(m.group("lvalue"))

    def wait_list(self, events: str) -> str | None:
        """The arguments ``ids, first, count`` of ``__tr_ev_wait`` for a wait's list
        (``&e``, ``evs``, ``&evs[i]``, ``evs + i``), or None where the trace does not follow
        it."""
        m = _LIST.fullmatch(_unwrapped(events))
        if m is None:
            return None
        if m.group("a"):
            name, index = m.group("a"), m.group("ai")
            dims = self.shapes.get(name)
            if dims is None or bool(dims) != bool(index):
                return None
            if not dims:
                return f"&{SHADOW}{name}, 0u, 1u"
            first = index[1:-1]
        else:
            name, offset = m.group("b"), m.group("bo")
            if not self.shapes.get(name):
                return None
            first = offset.strip()[1:] if offset else "0"
        count = f"(uint)(sizeof({SHADOW}{name}) / sizeof(uint))"
        return f"{SHADOW}{name}, (uint)({first}), {count}"


def _unwrapped(events: str) -> str:
    """A wait's list without the parentheses a macro puts around a name or the whole:
    ``&(e)``, ``(evs) + 1``, ``(&evs[1])``."""
    text = events.strip()
    while True:
        before = text
        text = _NAME_IN_PARENTHESES.sub(r"\1", text).strip()
        if text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
            text = text[1:-1].strip()
        if text == before:
            return text


def _balanced(text: str) -> bool:
    depth = 0
    for c in text:
        depth += (c == "(") - (c == ")")
        if depth < 0:
            return False
    return depth == 0


def _declarators(text: str, at: int) -> list[tuple[str, str]]:
    """The (name, dimensions) of the declarators of a declaration from ``at`` (just after
    its type) to its ``;``: initialisers, with their calls and commas, are skipped."""
    found = []
    i, n = at, len(text)
    while i < n:
        m = _DECLARATOR.match(text, i)
        if m is None:
            break
        found.append((m.group(1), re.sub(r"\s+", "", m.group(2))))
        i, depth = m.end(), 0
        while i < n:  # to the next declarator, or the end of the declaration
            c = text[i]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
            elif depth == 0 and c in ",;":
                break
            i += 1
        if i >= n or text[i] == ";":
            break
        i += 1
    return found
