"""The row of controls above the animation: play and pause, a step back and on, the slider,
the speed and the loop, stepping by pass or by line, the warp box, step or heat map. Its
timer plays the animation; what a press does to the steps is the execution view's."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QPushButton,
    QSizePolicy,
    QSlider,
    QWidget,
)

SPEEDS = {"0.5×": 1000, "1×": 500, "2×": 250, "4×": 125, "8×": 60}  # milliseconds a step
PLAY, PAUSE = "▶ Play (Space)", "❚❚ Pause (Space)"


class SteadyButton(QPushButton):
    """A button as wide as the widest of the texts it takes turns showing, at any type
    size: Play and Pause swapping never moves the buttons beside it."""

    def __init__(self, texts: tuple[str, ...], parent: QWidget | None = None) -> None:
        super().__init__(texts[0], parent)
        self.texts = texts
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        metrics = self.fontMetrics()
        shown = metrics.horizontalAdvance(self.text())
        widest = max(metrics.horizontalAdvance(t) for t in self.texts)
        return QSize(hint.width() + widest - shown, hint.height())

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()


class PlaybackControls(QWidget):
    """The controls; their presses come out as signals."""

    play_pressed = Signal()
    back = Signal()
    forward = Signal()  # the step button, and each tick while playing
    step_chosen = Signal(int)  # the slider
    by_iteration_changed = Signal(bool)  # each pass (True) or each line
    warp_toggled = Signal(bool)
    heat_toggled = Signal(bool)  # the heat map (True) or the steps

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.forward)
        self.play_button = SteadyButton((PLAY, PAUSE))
        self.play_button.clicked.connect(self.play_pressed)
        back = QPushButton("◀ Step (←)")
        back.clicked.connect(self.back)
        forward = QPushButton("Step ▶ (→)")
        forward.clicked.connect(self.forward)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setMinimumWidth(60)
        self.slider.valueChanged.connect(self.step_chosen)
        self.speed = QComboBox()
        self.speed.addItems(list(SPEEDS))
        self.speed.setCurrentText("1×")
        self.speed.setToolTip("Speed: steps a second at 1× is two")
        self.speed.currentTextChanged.connect(lambda _: self._restart_timer())
        self.loop = QCheckBox("Loop")
        self.loop.setChecked(True)
        self.granularity = QComboBox()
        self.granularity.addItems(["Each pass", "Each line"])
        self.granularity.setToolTip(
            "Each pass: a loop body is one step per iteration (the walk along K, the inner "
            "product over a tile); each line: one step per source line and phase"
        )
        self.granularity.currentIndexChanged.connect(
            lambda index: self.by_iteration_changed.emit(index == 0)
        )
        self.warp_box = QCheckBox("Warp")
        self.warp_box.setToolTip(
            "The selected work-item's warp at this step: its 32 addresses, the 32-byte "
            "sectors they touch (global) or the banks they hit (local)"
        )
        self.warp_box.toggled.connect(self.warp_toggled)
        self.mode = QComboBox()
        self.mode.addItems(["Step", "Heat"])
        self.mode.setToolTip(
            "Step: this step's accesses; Heat: the heat map of global loads per element "
            "over every traced group"
        )
        self.mode.currentIndexChanged.connect(lambda index: self.heat_toggled.emit(index == 1))
        self._lay_out(back, forward)

    def _lay_out(self, back: QPushButton, forward: QPushButton) -> None:
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        for combo, letters in ((self.speed, 4), (self.granularity, 9), (self.mode, 4)):
            # as wide as their longest words, "Each pass" not cut to "Each pas", and no
            # wider: the view must not widen the window
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(letters)
        for w in (
            self.play_button,
            back,
            forward,
            self.slider,
            self.speed,
            self.loop,
            self.granularity,
            self.warp_box,
            self.mode,
        ):
            w.setFocusPolicy(Qt.FocusPolicy.ClickFocus if w is not self.slider else w.focusPolicy())
            row.addWidget(w)
        row.setStretchFactor(self.slider, 1)

    # -- the Step menu's switches: the keyboard's way to the controls above ---------------
    def switch(self, name: str) -> None:
        """Flip one switch: "lines" (each line, or each pass), "loop", "warp" or "heat"."""
        control = self._switches()[name]
        if isinstance(control, QCheckBox):
            control.toggle()
        else:
            control.setCurrentIndex(1 - control.currentIndex())

    def switched(self, name: str) -> bool:
        control = self._switches()[name]
        if isinstance(control, QCheckBox):
            return control.isChecked()
        return control.currentIndex() == 1

    def _switches(self) -> dict[str, QCheckBox | QComboBox]:
        return {
            "lines": self.granularity,
            "loop": self.loop,
            "warp": self.warp_box,
            "heat": self.mode,
        }

    def change_speed(self, steps: int) -> None:
        """``steps`` speeds faster (negative: slower), within the list."""
        index = self.speed.currentIndex() + steps
        self.speed.setCurrentIndex(min(max(index, 0), self.speed.count() - 1))

    @property
    def by_iteration(self) -> bool:
        return self.granularity.currentIndex() == 0

    @property
    def heat_map(self) -> bool:
        return self.mode.currentIndex() == 1

    @property
    def looping(self) -> bool:
        return self.loop.isChecked()

    @property
    def playing(self) -> bool:
        return self.timer.isActive()

    def show_steps(self, count: int) -> None:
        """The slider's range for this many steps (setting it plays nothing)."""
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(count - 1, 0))
        self.slider.blockSignals(False)

    def show_step(self, index: int) -> None:
        """The slider at a step (setting it steps nothing)."""
        self.slider.blockSignals(True)
        self.slider.setValue(index)
        self.slider.blockSignals(False)

    def play(self) -> None:
        self.timer.start(SPEEDS.get(self.speed.currentText(), 500))
        self.play_button.setText(PAUSE)

    def pause(self) -> None:
        self.timer.stop()
        self.play_button.setText(PLAY)

    def _restart_timer(self) -> None:
        """A new speed takes effect at once while playing."""
        if self.timer.isActive():
            self.timer.start(SPEEDS.get(self.speed.currentText(), 500))
