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

# What ``capture`` and the recorder share: the environment that starts the recorder, and the
# files it writes. Here, so that ``capture`` knows them without importing the recorder.
ENV_DIR = "EXPLORER_CAPTURE_DIR"
ENV_LAUNCHES = "EXPLORER_CAPTURE_LAUNCHES"
ENV_MAX_BYTES = "EXPLORER_CAPTURE_MAX_BYTES"
# "FD:DEVICE:INODE" of a pipe to ``capture``: what the recorder could not keep is said there
# (a full disk cannot take even that line); the fd is used only where it is still that pipe.
ENV_STATUS = "EXPLORER_CAPTURE_STATUS"
ENVIRONMENT = (ENV_DIR, ENV_LAUNCHES, ENV_MAX_BYTES, ENV_STATUS)  # read by the recorder
JOURNAL = "journal.jsonl"
CAPTURE_FILE = "capture.json"  # made by ``capture`` from the journal (journal.py)
# Written by ``capture`` into every folder it records into: only a folder holding it (or an
# empty one) is recorded into again, and then only the files ``capture`` writes are replaced.
MARKER = ".opencl-explorer-capture"
# The journal is listed up to this size (some 50,000 launches), so that the capture stays
# readable: a reader takes capture.json and the journal up to twice this (folder.py).
JOURNAL_LIMIT = 32 << 20
CLAIM = "recorder.pid"
# Buffer contents of up to PACK_LIMIT bytes (with their .npy header) are appended to this one
# file, each a whole .npy image, instead of a file each; the journal's launch lines give where
# (docs/capture.md, "The folder").
PACK = "data/small.pack"
PACK_LIMIT = 1 << 20
