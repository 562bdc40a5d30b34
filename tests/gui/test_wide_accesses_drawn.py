"""A step's accesses wider than one element are drawn over every element they cover, and the
frame's caption counts those elements: vstore3 and vload3 of a local array of floats write
and read three each (the frame marked one in three, its caption said "32 read" where the
group read 96; matmul reg2d's vstore4 of B's tile showed one column in four)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from explorer.gui.buffer_pictures import BufferPictures, step_scene
from explorer.trace.grids import make_grids
from explorer.trace.playback import Playback
from tests.trace.test_odd_sizes import _trace


def test_each_element_a_vstore3_or_vload3_covers_is_marked_and_counted(device, qapp):
    traced = _trace(device, "local_vec3_ok")  # 32 work-items: a triple each into tile
    # The cells are shaded by the values the vstore3s stored, which the trace holds for
    # every element: the marks are counted on the same trace without its values.
    for trace in (traced.trace, replace(traced.trace, values=None, value_parts=None)):
        playback = Playback(trace, make_grids(trace, {}))
        tile = next(g for g in playback.grids if g.name == "tile")
        group = playback.cursor.group_steps
        seen = []
        for step in range(len(group.steps)):
            records = group.step_records(step)
            if not (playback.index.buffer[records] == tile.buffer).any():
                continue
            playback.cursor.go(step)
            frame = BufferPictures().frame(playback, tile, step_scene(playback), "tile")
            seen.extend(part for part in frame.caption.split(" · ") if " read, " in part)
            cells = frame.pixels.reshape(-1, frame.pixels.shape[-1])
            assert cells.shape[0] == 96
            if trace.values is not None:  # each element holds what its vstore3 stored
                assert np.isfinite(frame.values).all(), frame.caption
                continue
            # One colour for the step's accesses over every cell, but the followed
            # work-item's own triple, drawn apart.
            _, counts = np.unique(cells, axis=0, return_counts=True)
            assert sorted(counts.tolist()) == [3, 93], frame.caption
        assert seen == ["0 read, 96 written", "96 read, 0 written"]
