"""The kernels of program7.cl driven as a host program drives them: 64 particles (velocity in
x, y, z and mass in w), the kinetic energy of each with its neighbour's, then the neighbours
whose flags are set. Prints the energies' sum and how many were flagged."""

import pathlib

import numpy as np
import pyopencl as cl

source = (pathlib.Path(__file__).parent / "program7.cl").read_text()
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, source).build()
mf = cl.mem_flags

particles = np.arange(256, dtype=np.float32).reshape(64, 4)
v = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=particles)
energy = np.zeros(64, np.float32)
energy_buffer = cl.Buffer(context, mf.WRITE_ONLY, energy.nbytes)
program.neighbour_energy(queue, (64,), (16,), v, energy_buffer)
cl.enqueue_copy(queue, energy, energy_buffer)
flagged = np.zeros(64, np.uint32)
flagged_buffer = cl.Buffer(context, mf.WRITE_ONLY, flagged.nbytes)
program.flagged_neighbours(queue, (64,), (16,), v, flagged_buffer)
cl.enqueue_copy(queue, flagged, flagged_buffer)
print("energy", float(energy.sum()), "flagged", int(flagged.sum()))
