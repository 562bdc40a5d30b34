"""Sessions in the window: apply one, read the view back, save one (``explorer.session``
holds the file format and its validation)."""

from __future__ import annotations

import sys

# Session view names: the --view names, "grid" for the Execution tab.
TABS = {
    "result": "result_view",
    "timing": "timing_view",
    "source": "source_view",
    "findings": "findings_view",
    "grid": "execution_view",
}


def apply_session(window, session) -> None:  # type: ignore[no-untyped-def]
    """Set the window's configuration from a session (its device comes with the devices)."""
    from explorer.session import resolve_variant

    model = window.model
    variant = resolve_variant(session)
    if session.kernel_path:
        model.add_user_variant(variant)
    else:
        model.set_family(variant.family)
        model.set_variant(variant)
    for name, value in session.sizes.items():
        model.set_size(name, value)
    model.set_local(session.local)
    for name, value in session.defines.items():
        model.set_define(name, value)
    if session.input:
        model.set_input(session.input, session.text, session.image_path)


def session_device(window, session) -> str | None:  # type: ignore[no-untyped-def]
    """Select the session's device among the window's; the notice when it is missing."""
    from explorer.session import session_to_request

    request, notice = session_to_request(session, window.model.devices)
    window.model.set_device(request.device_key)
    return notice


def open_session(window, session) -> None:  # type: ignore[no-untyped-def]
    """Show a session in the interactive window: configuration, device, tab."""
    apply_session(window, session)
    tab = getattr(window, TABS.get(session.view.get("tab", ""), ""), None)
    if tab is not None:
        window.tabs.setCurrentWidget(tab)

    def choose_device() -> None:
        notice = session_device(window, session)
        if notice:  # kept in the status bar beside the device the window announces
            window.notice = f"{window.notice}  ·  {notice}" if window.notice else notice
            window.statusBar().showMessage(window.notice)

    if window.model.devices:
        choose_device()
    else:
        window.model.devices_changed.connect(choose_device)


def session_view(window) -> dict:  # type: ignore[no-untyped-def]
    """The tab shown and, after a trace, the work-group and phase shown."""
    view: dict = {}
    for name, attr in TABS.items():
        if window.tabs.currentWidget() is getattr(window, attr):
            view["tab"] = name
    playback = window.playback
    if playback is not None and playback.group is not None and playback.steps:
        view["group"] = list(playback.group)
        step = max(0, min(window.execution_view.current, len(playback.steps) - 1))
        view["phase"] = playback.steps[step].phase
    return view


def save_session_file(window, path: str) -> bool:  # type: ignore[no-untyped-def]
    from explorer.session import SessionError, save_session, session_from_request

    request = window.model.request()
    try:
        save_session(session_from_request(request, window.model.device, session_view(window)), path)
    except SessionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return False
    return True
