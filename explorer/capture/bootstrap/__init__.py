"""What runs inside a person's own Python program while ``capture`` watches it.

The program's Python may be another than the explorer's, without the explorer installed: this
package imports nothing of the explorer, only the standard library, numpy and pyopencl (which
the program brings), and its modules import each other relatively, so it works under any name.
In the explorer it is ``explorer.capture.bootstrap``; in the program, ``capture`` puts this
folder first on ``PYTHONPATH``, Python runs :mod:`sitecustomize` at start-up, and that imports
the folder as the package :data:`sitecustomize.PACKAGE` and the recorder by name from it.

- :mod:`recorder`: wraps pyopencl's build, argument setters and launch, and records each launch
  into the capture folder;
- :mod:`host_cpu`: names the processor for PoCL where its compiler does not know it (the
  explorer's own device listing uses it too);
- :mod:`sitecustomize`: the start in the program's process.
"""
