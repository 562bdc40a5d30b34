"""Controllers: the only places where the model, the state and the views meet.

Each controller owns one concern (devices, running, tracing, navigating the kernel on screen,
presenting, sweeping, measuring a fix, a person's own files, exports, sessions, the window's
own commands). It is handed the model, the shared :class:`~explorer.gui.state.AppState`, the
worker and the few views it uses, each through a small protocol of
:mod:`~explorer.gui.controllers.roles`; it never reaches into a view's widgets, and views
never call each other.

The module of a controller declares the menu commands it handles (``ACTIONS``, see
:mod:`explorer.gui.actions`), where the window finds them.
"""
