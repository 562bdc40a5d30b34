"""Two launches of a kernel that writes nothing on three large buffers of bytes (declared
without const): ``a``, ``b`` made to have the same CRC-32 as ``a`` with other contents, and
``c`` a copy of ``a``; the first launch's of 9 MiB each (more than a piece), the second's of
2 MiB. Prints each buffer's CRC-32 in hex."""

import zlib

import numpy as np
import pyopencl as cl


def same_crc(data: np.ndarray, crc: int) -> None:
    """Set the last 4 bytes of ``data`` so that its CRC-32 is ``crc`` (a CRC is affine in
    the message's bits: a system of 32 equations over GF(2))."""
    start = zlib.crc32(data[:-4].tobytes())

    def of(word: int) -> int:
        return zlib.crc32(word.to_bytes(4, "little"), start)

    zero = of(0)
    basis: list[tuple[int, int]] = []  # (the CRC's bits, the word's bits that make them)
    for bit in range(32):
        column, word = of(1 << bit) ^ zero, 1 << bit
        for value, made in basis:
            if column ^ value < column:
                column, word = column ^ value, word ^ made
        if column:
            basis.append((column, word))
            basis.sort(reverse=True)
    want, word = crc ^ zero, 0
    for value, made in basis:
        if want ^ value < want:
            want, word = want ^ value, word ^ made
    assert want == 0
    data[-4:] = np.frombuffer(word.to_bytes(4, "little"), np.uint8)
    assert zlib.crc32(data.tobytes()) == crc


context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(
    context,
    "__kernel void keep(__global uchar *a, __global uchar *b, __global uchar *c) {}",
).build()
keep = program.keep
flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
for mib in (9, 2):
    a = (np.arange(mib << 20) % 251).astype(np.uint8)
    b = a.copy()
    b[:1000] += 1
    same_crc(b, zlib.crc32(a.tobytes()))
    buffers = [cl.Buffer(context, flags, hostbuf=values) for values in (a, b, a.copy())]
    keep(queue, (1,), None, *buffers)
    queue.finish()
    print(" ".join(f"{zlib.crc32(v.tobytes()):08x}" for v in (a, b, a)))
