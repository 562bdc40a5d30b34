"""Menu commands as data: an :class:`Action` is its text, menu, shortcuts and tip, the
callable it runs and the predicate that says when it is enabled, so the menu, the key and the
enabled state cannot drift apart.

Each controller module declares the actions it handles beside the methods they call, as
``ACTIONS = Actions(TheController, Action(...), ...)``; :func:`declared` finds them by walking
``PACKAGES`` (a package of one's own appended to it adds its actions the same way), and
:func:`build_actions` makes the window's QActions and menus from them, binds each handler to
the window's controller of that class and re-reads every predicate on :meth:`ActionSet.refresh`
(the window calls it whenever the state or the configuration changes). Adding a menu command
is adding one ``Action`` in the module of the controller that handles it.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

from explorer.gui.model import ConfigModel
from explorer.gui.state import AppState

C = TypeVar("C")

MENUS = ("&File", "&Run", "D&evices", "&View", "&Step", "E&xercises", "&Help")
PACKAGES: tuple[str, ...] = ("explorer.gui.controllers",)


@dataclass(frozen=True)
class AppContext:
    """What an enablement predicate reads: the session's state and the configuration."""

    state: AppState
    model: ConfigModel


Predicate = Callable[[AppContext], bool]


@dataclass(frozen=True)
class Action(Generic[C]):
    """One menu command, run by ``handler`` on the window's controller of its class.

    A new ``section`` within a menu starts after a separator; ``order`` places it within its
    section (lower first; equal ones keep the order they were found in, module by module).
    ``enabled_when`` is None for a command that can always act. ``keys`` are stepping keys
    (Space, the arrows, Page Up/Down …): shown in the menu beside the text but never window
    shortcuts: :mod:`explorer.gui.stage_keys` takes them where the execution view is visible
    and no text field has the focus, so they never step an animation nobody sees nor take a
    key from a field being typed in."""

    key: str
    text: str
    menu: str
    handler: Callable[[C], object]
    shortcuts: tuple[str, ...] = ()
    tip: str = ""
    section: int = 0
    order: int = 100
    toolbar: bool = False
    enabled_when: Predicate | None = None
    keys: tuple[str, ...] = ()
    # A switch: a check mark beside the item says whether it is on (read from the
    # controller, where the switch lives, each time the menu opens or the state changes).
    checked: Callable[[C], bool] | None = None

    def enabled(self, context: AppContext) -> bool:
        return self.enabled_when is None or bool(self.enabled_when(context))


class Actions(Generic[C]):
    """The actions a controller class handles, as its module declares them in ``ACTIONS``."""

    def __init__(self, owner: type[C], *actions: Action[C]) -> None:
        self.owner = owner
        self.actions = actions


def discover(package: str) -> tuple[Actions[Any], ...]:
    """The ``ACTIONS`` of every module of ``package`` (an importable package's name)."""
    found = []
    modules = pkgutil.iter_modules(importlib.import_module(package).__path__)
    for info in sorted(modules, key=lambda m: m.name):
        module = importlib.import_module(f"{package}.{info.name}")
        actions = getattr(module, "ACTIONS", None)
        if isinstance(actions, Actions):
            found.append(actions)
    return tuple(found)


@functools.lru_cache(maxsize=4)
def _declared(packages: tuple[str, ...]) -> tuple[tuple[type, Action[Any]], ...]:
    found = [(group.owner, a) for p in packages for group in discover(p) for a in group.actions]
    keys = [action.key for _, action in found]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise ValueError(f"action(s) declared twice: {', '.join(twice)}")
    unknown = sorted({a.menu for _, a in found} - set(MENUS))
    if unknown:
        raise ValueError(f"no such menu {', '.join(unknown)}: the menus are {', '.join(MENUS)}")
    return tuple(
        sorted(found, key=lambda pair: (MENUS.index(pair[1].menu), pair[1].section, pair[1].order))
    )


def declared() -> tuple[tuple[type, Action[Any]], ...]:
    """Every action of ``PACKAGES`` with the controller class that handles it, in menu
    order."""
    return _declared(PACKAGES)


def commands() -> tuple[Action[Any], ...]:
    """Every action, in menu order."""
    return tuple(action for _, action in declared())


class ActionSet:
    """The window's QActions by key, each with the predicate that enables it."""

    def __init__(self, context: AppContext) -> None:
        self.context = context
        self.qactions: dict[str, QAction] = {}
        self._rules: list[tuple[QAction, Action[Any]]] = []
        self._switches: list[tuple[QAction, Callable[[], bool]]] = []

    def __getitem__(self, key: str) -> QAction:
        return self.qactions[key]

    def values(self) -> Iterable[QAction]:
        return self.qactions.values()

    def add(self, qaction: QAction, action: Action[Any]) -> None:
        self.qactions[action.key] = qaction
        self._rules.append((qaction, action))

    def add_switch(self, qaction: QAction, is_on: Callable[[], bool]) -> None:
        qaction.setCheckable(True)
        self._switches.append((qaction, is_on))

    def refresh(self, *_: object) -> None:
        """Every action enabled as its predicate says now; every switch checked as it is."""
        for qaction, action in self._rules:
            qaction.setEnabled(action.enabled(self.context))
        for qaction, is_on in self._switches:
            qaction.setChecked(is_on())


def build_actions(
    window: QMainWindow, controllers: Iterable[object], context: AppContext
) -> ActionSet:
    """A QAction per declared action, added to the window (so that its shortcut works while
    the menus are hidden) and to its menu, running its handler on the controller of its
    class among ``controllers``."""
    menus: dict[str, QMenu] = {}
    for title in MENUS:
        menu = QMenu(title, window)
        window.menuBar().addMenu(menu)
        menus[title] = menu
    found = declared()
    owners = {owner: _instance(owner, controllers) for owner, _ in found}
    actions = ActionSet(context)
    last_section: dict[str, int] = {}
    for owner, action in found:
        qaction = QAction(menu_text(action), window)
        qaction.setObjectName(action.key)
        qaction.setShortcuts([QKeySequence(s) for s in action.shortcuts])
        qaction.setToolTip(action.tip or action.text.replace("&", ""))
        qaction.setStatusTip(action.tip)
        handler = functools.partial(action.handler, owners[owner])
        qaction.triggered.connect(lambda _checked=False, run=handler: run())
        window.addAction(qaction)
        menu = menus[action.menu]
        if action.menu in last_section and last_section[action.menu] != action.section:
            menu.addSeparator()
        last_section[action.menu] = action.section
        menu.addAction(qaction)
        actions.add(qaction, action)
        if action.checked is not None:
            actions.add_switch(qaction, functools.partial(action.checked, owners[owner]))
    for menu in menus.values():  # a switch flipped by a click shows as it is in the menu
        menu.aboutToShow.connect(actions.refresh)
    actions.refresh()
    return actions


def menu_text(action: Action[Any]) -> str:
    """The item's text; its stepping keys after a tab, where a menu shows a shortcut."""
    if not action.keys:
        return action.text
    return f"{action.text}\t{key_names(action.keys)}"


def key_names(keys: Iterable[str]) -> str:
    """Keys as the platform names them, "PgDown, Ctrl+Down"."""
    native = QKeySequence.SequenceFormat.NativeText
    return ", ".join(QKeySequence(k).toString(native) for k in keys)


def _instance(owner: type, controllers: Iterable[object]) -> object:
    for controller in controllers:
        if isinstance(controller, owner):
            return controller
    raise LookupError(f"actions are declared for {owner.__name__}, which the window does not make")
