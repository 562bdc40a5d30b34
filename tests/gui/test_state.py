"""The application state tells every field it sets to that field's subscribers and to
``changed``, with no Qt; the window subscribes each view to the fields it shows."""

from __future__ import annotations

from types import SimpleNamespace
from unittest.mock import MagicMock

import pytest

from explorer.gui.events import Event, Evented, Events, Observed
from explorer.gui.state import AppState, StateEvents
from tests.gui.controllers.fakes import result, traced_run


def test_each_field_set_tells_its_subscribers_then_changed():
    state = AppState()
    told: list[tuple[str, object]] = []
    state.events.result.connect(lambda r: told.append(("result", r)))
    state.events.presenting.connect(lambda on: told.append(("presenting", on)))
    state.events.changed.connect(lambda name: told.append(("changed", name)))
    shown = result()
    state.result = shown
    state.presenting = True
    assert told == [
        ("result", shown),
        ("changed", "result"),
        ("presenting", True),
        ("changed", "presenting"),
    ]
    assert state.result is shown and state.presenting


def test_the_history_grows_by_new_values_without_arrays():
    state = AppState()
    seen = []
    state.events.history.connect(seen.append)
    state.remember(result(arrays=True))
    state.remember(result("tiled", arrays=True))
    assert [len(h) for h in seen] == [1, 2]
    assert all(r.output is None and r.inputs is None for r in state.history)


def test_every_observed_field_has_its_event_and_two_states_share_none():
    names = AppState.observed()
    assert {"result", "history", "traced", "playback", "presenting", "tour_stage"} <= set(names)
    a, b = AppState(), AppState()
    for name in names:
        assert isinstance(getattr(a.events, name), Event)
        assert getattr(a.events, name) is not getattr(b.events, name)
    a.history = (result(),)
    assert b.history == ()


def test_an_event_holder_must_declare_every_field():
    class Half(Events):
        shown: Event[int]

    class Thing(Evented):
        shown = Observed[int](0)
        hidden = Observed[int](0)

    with pytest.raises(TypeError, match="hidden"):
        Half(Thing.observed())
    assert set(StateEvents(AppState.observed()).__dict__) >= set(AppState.observed())


def test_the_views_follow_the_fields_they_show():
    from explorer.gui.wiring import subscribe_views

    views = SimpleNamespace(
        show_notice=MagicMock(),
        source_view=MagicMock(),
        roofline_view=MagicMock(),
        timing_view=MagicMock(),
        result_view=MagicMock(),
        findings_view=MagicMock(),
    )
    state = AppState()
    subscribe_views(views, state)
    state.notice = "Settings reset to defaults"
    views.show_notice.assert_called_with("Settings reset to defaults")
    shown = result()
    state.result = shown
    views.source_view.show_run.assert_called_with(shown)
    state.remember(shown)
    views.roofline_view.show_results.assert_called_with(state.history)
    state.comparison = (shown,)
    views.timing_view.show_compare.assert_called_with((shown,))
    state.tour_results = ()
    views.timing_view.show_compare.assert_called_with(())
    traced = traced_run()
    state.traced = traced
    for view in (views.result_view, views.findings_view, views.source_view):
        view.show_traced.assert_called_with(traced)
    state.oclgrind = "Oclgrind crashed"
    views.findings_view.show_oclgrind.assert_called_with("Oclgrind crashed")
