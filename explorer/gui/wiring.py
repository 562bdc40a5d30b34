"""How the window's pieces meet: the controllers made from the model, the state, the worker
and the views; the views subscribed to the state fields they show; the views' signals led to
the controllers that handle them; the actions re-enabled as the state and the model change.

Nothing here decides anything: each line connects two pieces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMainWindow

from explorer.engine.record.oclgrind import find_oclgrind
from explorer.gui.actions import ActionSet
from explorer.gui.controllers.captures import CapturesController
from explorer.gui.controllers.devices import DeviceController
from explorer.gui.controllers.exercises import ExerciseController
from explorer.gui.controllers.explain import ExplainController
from explorer.gui.controllers.exports import ExportController
from explorer.gui.controllers.fix_cost import FixCostController
from explorer.gui.controllers.freshness import FreshnessController
from explorer.gui.controllers.hosts import HostsController
from explorer.gui.controllers.kernel_editing import KernelEditingController
from explorer.gui.controllers.kernel_files import KernelFilesController
from explorer.gui.controllers.navigation import NavigationController
from explorer.gui.controllers.presenter import PresenterController
from explorer.gui.controllers.roles import Worker
from explorer.gui.controllers.runs import RunsController
from explorer.gui.controllers.sessions import SessionController
from explorer.gui.controllers.sweep import SweepController
from explorer.gui.controllers.trace_diff import TraceDiffController
from explorer.gui.controllers.traces import TraceController
from explorer.gui.controllers.window_commands import WindowCommands
from explorer.gui.model import ConfigModel
from explorer.gui.state import AppState
from explorer.gui.views import Views


@dataclass(frozen=True)
class Controllers:
    """One controller per concern."""

    devices: DeviceController
    runs: RunsController
    traces: TraceController
    navigation: NavigationController
    presenter: PresenterController
    sweep: SweepController
    fix_cost: FixCostController
    kernels: KernelFilesController
    exports: ExportController
    sessions: SessionController
    window: WindowCommands
    captures: CapturesController
    hosts: HostsController
    trace_diff: TraceDiffController
    freshness: FreshnessController
    editing: KernelEditingController
    exercises: ExerciseController
    explain: ExplainController

    def __iter__(self) -> Iterator[object]:
        return (getattr(self, f.name) for f in fields(self))


def make_controllers(
    window: QMainWindow,
    model: ConfigModel,
    state: AppState,
    worker: Worker,
    views: Views,
    layout: Callable[[bool, bool], None],
    settings: QSettings | None = None,
) -> Controllers:
    """Each controller with the views it uses; ``layout(on, full_screen)`` is the window's
    presenter layout; ``settings`` keep the exercises' progress."""
    v = views
    runs = RunsController(
        model, state, worker, v.panel, v.result_view, v.timing_view, status=v, pages=v
    )
    traces = TraceController(
        model,
        state,
        worker,
        v.panel,
        v.execution_view,
        v.findings_view,
        v.result_view,
        v.timing_view,
        status=v,
        pages=v,
    )
    controllers = Controllers(
        devices=DeviceController(
            model, state, worker, v.panel, v.result_view, v.roofline_view, status=v
        ),
        runs=runs,
        traces=traces,
        navigation=NavigationController(
            model,
            state,
            worker,
            v.source_view,
            v.execution_view,
            v.result_view,
            v,
            v,
            findings=v.findings_view,
        ),
        presenter=PresenterController(
            model,
            state,
            worker,
            v.execution_view,
            v.result_view,
            tracer=traces,
            run_finished=runs.run_finished,
            layout=layout,
        ),
        sweep=SweepController(model, worker, v.sweep_view, status=v),
        fix_cost=FixCostController(model, worker, v.findings_view, status=v),
        kernels=(
            kernels := KernelFilesController(
                model,
                state,
                runs,
                traces,
                v.execution_view,
                status=v,
                parent=window,
                worker=worker,
                settings=settings,
            )
        ),
        exports=ExportController(state, v.execution_view, status=v, pages=v, parent=window),
        sessions=SessionController(
            model, state, traces, v.execution_view, v.result_view, v, v, parent=window
        ),
        window=WindowCommands(window, v.execution_view),
        captures=CapturesController(model, state, runs, traces, traces, status=v, window=window),
        hosts=HostsController(window, settings or QSettings(), worker, status=v),
        trace_diff=(
            trace_diff := TraceDiffController(
                model, state, traces, v.execution_view, status=v, parent=window, files=kernels
            )
        ),
        # Made last (arguments are made in order): it clears the views and says how to run
        # after the others have followed a change.
        freshness=FreshnessController(
            model,
            state,
            worker,
            v.result_view,
            v.timing_view,
            v.findings_view,
            v.execution_view,
            v.source_view,
            status=v,
        ),
        editing=KernelEditingController(model, v.source_view, kernels, status=v, parent=window),
        exercises=ExerciseController(
            model,
            state,
            worker,
            settings if settings is not None else QSettings(),
            files=kernels,
            comparer=trace_diff,
            panel=v.exercise_panel,
            source=v.source_view,
            status=v,
            pages=v,
            parent=window,
        ),
        explain=ExplainController(
            model, state, traces, v.result_view, v.execution_view, status=v, pages=v
        ),
    )
    runs.cancelled.connect(traces.cancelled)
    runs.cancelled.connect(controllers.exercises.cancelled)
    model.devices_changed.connect(
        lambda: v.findings_view.set_oclgrind_available(find_oclgrind(model.devices) is not None)
    )
    model.device_changed.connect(
        lambda: v.roofline_view.set_device(model.device.shown_name if model.device else None)
    )
    return controllers


def subscribe_views(views: Views, state: AppState) -> None:
    """Each view shows the state fields it is about, from now on."""
    events = state.events
    events.notice.connect(views.show_notice)
    events.result.connect(views.source_view.show_run)
    events.history.connect(views.roofline_view.show_results)
    events.comparison.connect(views.timing_view.show_compare)
    events.tour_results.connect(views.timing_view.show_compare)
    events.traced.connect(views.result_view.show_traced)
    events.traced.connect(views.findings_view.show_traced)
    events.traced.connect(views.source_view.show_traced)
    events.oclgrind.connect(views.findings_view.show_oclgrind)


def connect_views(views: Views, controllers: Controllers, actions: ActionSet) -> None:
    """What a person does in a view reaches the controller that handles it."""
    c = controllers
    views.run_button.clicked.connect(actions["run"].trigger)
    actions["run"].enabledChanged.connect(views.run_button.setEnabled)
    views.panel.anyway_requested.connect(actions["run_anyway"].trigger)
    views.panel.validity_changed.connect(c.runs.set_validity)
    views.source_view.line_activated.connect(c.navigation.goto_line)
    views.findings_view.line_selected.connect(c.navigation.goto_line)
    views.findings_view.finding_selected.connect(c.navigation.show_finding)
    views.findings_view.measure_fix_requested.connect(c.fix_cost.measure)
    views.execution_view.group_requested.connect(c.traces.trace_group)
    views.execution_view.step_changed.connect(c.navigation.step_shown)
    views.result_view.element_clicked.connect(c.explain.explain)
    views.result_view.inflow_requested.connect(c.explain.show_inflow)
    views.sweep_view.run_requested.connect(c.sweep.run_sweep)
    views.sweep_view.cell_chosen.connect(c.sweep.load_cell)
    # one Cancel button: an export in progress, else the worker's run, trace or check
    views.work.cancel_requested.connect(
        lambda: c.exports.cancel() if c.exports.exporting else c.runs.cancel()
    )

    def run_tip(_: object = None) -> None:  # the Run button says why it is disabled
        views.run_button.setToolTip(c.freshness.how_to_run())

    for event in (c.freshness.state.events.runnable, c.freshness.state.events.refusal):
        event.connect(run_tip)
    run_tip()


def follow_state(actions: ActionSet, state: AppState, model: ConfigModel) -> None:
    """Every action's enablement is read again whenever the state or the model changes."""
    state.events.changed.connect(actions.refresh)
    for signal in (model.devices_changed, *model.configuration_signals()):
        signal.connect(actions.refresh)
