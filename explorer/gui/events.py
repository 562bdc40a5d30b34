"""Change events for plain Python objects: what :class:`~explorer.gui.state.AppState` uses to
tell the views that show a field, and the actions whose enablement reads it.

Pure Python rather than Qt signals: the state is used without Qt (the memory benchmark and
Qt-free tests build one), a callback's argument is type-checked (a Qt ``Signal`` is not
generic), and delivery is synchronous and in connection order, like a direct Qt connection.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class Event(Generic[T]):
    """Callbacks told a value, in the order they connected."""

    __slots__ = ("_callbacks",)

    def __init__(self) -> None:
        self._callbacks: list[Callable[[T], object]] = []

    def connect(self, callback: Callable[[T], object]) -> None:
        self._callbacks.append(callback)

    def disconnect(self, callback: Callable[[T], object]) -> None:
        self._callbacks.remove(callback)

    def emit(self, value: T) -> None:
        for callback in list(self._callbacks):
            callback(value)


class Observed(Generic[T]):
    """A field whose every value set is told to its event (``owner.events.<name>``), then to
    ``owner.events.changed`` with the field's name: setting a field again (an empty
    comparison when it is empty) still tells the views that show it."""

    def __init__(self, default: T) -> None:
        self.default = default
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type) -> Observed[T]: ...

    @overload
    def __get__(self, obj: Evented, owner: type) -> T: ...

    def __get__(self, obj: Evented | None, owner: type) -> Observed[T] | T:
        if obj is None:
            return self
        value: T = obj.__dict__.get(self.name, self.default)
        return value

    def __set__(self, obj: Evented, value: T) -> None:
        obj.__dict__[self.name] = value
        event: Event[T] = getattr(obj.events, self.name)
        event.emit(value)
        obj.events.changed.emit(self.name)


class Events:
    """One :class:`Event` per observed field of the owner (declared by annotation in a
    subclass, so that each is typed), and ``changed`` for any of them."""

    changed: Event[str]

    def __init__(self, names: tuple[str, ...]) -> None:
        declared = {
            n for klass in type(self).__mro__ for n in getattr(klass, "__annotations__", {})
        }
        missing = set(names) - declared
        if missing:
            raise TypeError(f"{type(self).__name__} declares no event for {sorted(missing)}")
        for name in (*names, "changed"):
            setattr(self, name, Event())


class Evented:
    """Base of an object with :class:`Observed` fields and an ``events`` holder for them."""

    events: Any

    @classmethod
    def observed(cls) -> tuple[str, ...]:
        """The names of the observed fields, in declaration order."""
        return tuple(
            name
            for klass in reversed(cls.__mro__)
            for name, value in vars(klass).items()
            if isinstance(value, Observed)
        )
