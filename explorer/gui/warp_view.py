"""A warp's view of one access: its 32 lanes, the addresses they touch, and where those land:
the 32-byte sectors of global memory (coalescing) or the 32 banks of local memory (bank
conflicts), so both are seen, not only counted.

The lanes are the selected work-item's warp (32 consecutive work-items of the group by linear
local id, as a GPU forms warps); the access is one site of the current step's line.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from explorer.trace.playback import Playback
from explorer.trace.recorded import LOCAL

WARP = 32
SECTOR_BYTES = 32
BANKS, BANK_BYTES = 32, 4  # 32 banks of 4 bytes


@dataclass(frozen=True)
class WarpAccess:
    """One warp's access at one site: per lane (0–31) its byte offset, or -1 if the lane made
    no access there."""

    title: str
    local: bool  # local memory: banks; global: sectors
    offsets: np.ndarray  # (32,) int64 byte offsets from the buffer's start, -1: none
    size: int  # bytes per access

    @property
    def active(self) -> np.ndarray:
        return self.offsets >= 0

    def targets(self) -> np.ndarray:
        """Per lane: its sector (global) or bank (local); -1 where the lane is idle."""
        word = self.offsets // (BANK_BYTES if self.local else SECTOR_BYTES)
        target = word % BANKS if self.local else word
        return np.where(self.active, target, -1)

    def sectors(self) -> tuple[int, int]:
        """(sectors touched, the fewest that could hold the bytes asked for)."""
        offsets = self.offsets[self.active]
        if offsets.size == 0:
            return 0, 0
        touched = np.unique(
            np.concatenate([offsets // SECTOR_BYTES, (offsets + self.size - 1) // SECTOR_BYTES])
        ).size
        distinct = np.unique(offsets).size
        return int(touched), int(-(-distinct * self.size // SECTOR_BYTES))

    def conflict(self) -> int:
        """The worst bank's number of distinct words (1: none; lanes reading one word share
        it as a broadcast)."""
        offsets = self.offsets[self.active]
        if offsets.size == 0:
            return 0
        words = np.unique(offsets // BANK_BYTES)
        return int(np.bincount(words % BANKS, minlength=BANKS).max())

    def summary(self) -> str:
        lanes = int(self.active.sum())
        if self.local:
            degree = self.conflict()
            verdict = "no bank conflict" if degree <= 1 else f"{degree}-way bank conflict"
            return f"{self.title}: {lanes} lanes → {verdict}"
        touched, fewest = self.sectors()
        return f"{self.title}: {lanes} lanes → {touched} sectors of 32 B (fewest possible {fewest})"


class WarpView(QWidget):
    """Lanes on top, sectors or banks below, a line from each lane to where it lands."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.accesses: list[WarpAccess] = []
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._fit()

    def _fit(self) -> None:
        line = QFontMetricsF(self.font()).height()
        self.setFixedHeight(int(max(len(self.accesses), 1) * (3 * line + 40)))

    def sizeHint(self) -> QSize:
        return QSize(600, self.height())

    def set_accesses(self, accesses: list[WarpAccess]) -> None:
        self.accesses = accesses[:2]
        self._fit()
        self.update()

    def clear(self) -> None:
        """No warp: the trace it came from is gone."""
        self.set_accesses([])

    def show_warp(self, pb: Playback, who: int) -> None:
        """The warp of work-item ``who`` (linear local id) at the cursor's step, one strip
        per access site."""
        group, trace = pb.cursor.group_steps, pb.trace
        if group is None:
            return
        accesses = []
        for site, offsets, size in group.warp_offsets(pb.cursor.step, who // WARP):
            info = trace.sites[site]
            buffer = trace.buffers[info.buffer] if info.buffer >= 0 else None
            local = buffer is not None and buffer.space == LOCAL
            title = f"line {info.line} {info.text or (buffer.name if buffer else '?')}"
            accesses.append(WarpAccess(title, local, offsets, size))
        self.set_accesses(accesses)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        line = QFontMetricsF(self.font()).height()
        band = 3 * line + 40
        if not self.accesses:
            painter.setPen(QColor("#5d6d7e"))
            painter.drawText(
                QRectF(4, 0, self.width() - 8, line + 4),
                Qt.AlignmentFlag.AlignLeft,
                "warp view: this step's line makes no memory access",
            )
        for i, access in enumerate(self.accesses):
            self._draw(painter, access, i * band, line)

    def _draw(self, painter: QPainter, access: WarpAccess, top: float, line: float) -> None:
        width = self.width() - 8
        lane_w = width / WARP
        painter.setPen(QColor("#1b2631"))
        painter.drawText(
            QRectF(4, top, width, line + 2), Qt.AlignmentFlag.AlignLeft, access.summary()
        )
        lanes_y = top + line + 4
        targets_y = lanes_y + line + 24
        target = access.targets()
        if access.local:
            slots = list(range(BANKS))
            per_bank = np.bincount(
                np.unique(access.offsets[access.active] // BANK_BYTES) % BANKS, minlength=BANKS
            )
        else:
            slots = sorted(int(t) for t in np.unique(target[target >= 0]))
            per_bank = np.zeros(BANKS, dtype=np.int64)
        slot_w = width / max(len(slots), 1) if not access.local else lane_w
        where = {s: 4 + (k + 0.5) * slot_w for k, s in enumerate(slots)}
        for lane in range(WARP):
            x = 4 + lane * lane_w
            active = bool(access.active[lane])
            painter.fillRect(
                QRectF(x + 1, lanes_y, lane_w - 2, line),
                QColor("#d6eaf8" if active else "#f2f3f4"),
            )
            painter.setPen(QColor("#1b2631"))
            painter.drawText(
                QRectF(x, lanes_y, lane_w, line), Qt.AlignmentFlag.AlignCenter, str(lane)
            )
            if active:
                painter.setPen(QPen(QColor("#2874a6"), 1))
                painter.drawLine(
                    QPointF(x + lane_w / 2, lanes_y + line),
                    QPointF(where[int(target[lane])], targets_y),
                )
        for k, slot in enumerate(slots):
            x = 4 + k * slot_w
            clash = access.local and per_bank[slot] > 1
            used = slot in set(int(t) for t in target[target >= 0])
            colour = "#f5b7b1" if clash else ("#fdebd0" if used else "#f2f3f4")
            painter.fillRect(QRectF(x + 1, targets_y, slot_w - 2, line), QColor(colour))
            painter.setPen(QColor("#1b2631"))
            label = str(slot) if access.local else f"{slot * SECTOR_BYTES}"
            painter.drawText(
                QRectF(x, targets_y, slot_w, line), Qt.AlignmentFlag.AlignCenter, label
            )
        painter.setPen(QColor("#5d6d7e"))
        painter.drawText(
            QRectF(4, targets_y + line, width, line + 2),
            Qt.AlignmentFlag.AlignLeft,
            "banks (red: more than one word)" if access.local else "sectors by byte address",
        )
