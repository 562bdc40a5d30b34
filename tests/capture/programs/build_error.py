"""A program whose kernel does not compile: it ends with pyopencl's build error."""

import pyopencl as cl

context = cl.create_some_context(interactive=False)
cl.Program(context, "__kernel void broken(__global int *x) { x[0] = undeclared; }").build()
