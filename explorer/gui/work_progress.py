"""Work in flight, in the status bar: what runs, for how long, and a Cancel button beside it.

Shown once the work has taken a second (a quick run only flickers otherwise); the elapsed
time counts up while the worker runs, traces or checks; Cancel stops it through the worker.
A build that takes over a second says so in place of the work ("Building matmul/fast (…)
(first time; cached after)"): its time is not the kernel's.
"""

from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QWidget,
)

SHOW_AFTER_MS = 1000
TICK_MS = 100


class WorkProgress(QWidget):
    """What runs ("Tracing matmul/tiled … 3.4 s"), a busy bar and Cancel; hidden while
    nothing runs."""

    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel("")
        self.label.setObjectName("work-elapsed")
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)  # busy: how long is not known
        self.bar.setMaximumWidth(120)
        self.bar.setTextVisible(False)
        self.cancel = QPushButton("Cancel")
        self.cancel.setToolTip("Stop the work in flight (Esc outside presenter mode)")
        self.cancel.clicked.connect(self.cancel_requested)
        self.cancel.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        for widget in (self.label, self.bar, self.cancel):
            layout.addWidget(widget)
        self.what = ""
        self._work = ""  # the work itself, said again once a build within it is over
        self._clock = QElapsedTimer()
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        self.setVisible(False)

    @property
    def running(self) -> bool:
        return self._timer.isActive()

    def start(self, what: str) -> None:
        """Work began; a new piece of work while one runs restarts the clock."""
        self.what = self._work = what[:1].upper() + what[1:]
        self._clock.start()
        self._timer.start()
        self._tick()

    def building(self, text: str) -> None:
        """A build within the work has taken a second (``text`` says which), or is over
        (""); the clock goes on counting the work's time."""
        if not self.running:
            return
        self.what = text[:1].upper() + text[1:] if text else self._work
        self._tick()

    def stop(self) -> float:
        """Nothing runs any more; the seconds the work took."""
        seconds = self.elapsed()
        self._timer.stop()
        self.setVisible(False)
        return seconds

    def elapsed(self) -> float:
        return self._clock.elapsed() / 1000 if self._clock.isValid() else 0.0

    def _tick(self) -> None:
        ms = self._clock.elapsed()
        self.label.setText(f"{self.what} … {ms / 1000:.1f} s")
        if ms >= SHOW_AFTER_MS and not self.isVisible():
            self.setVisible(True)
