"""A stand-in for ``ssh``: runs a command and relays this process's standard input and
output to it, ending (and closing both) when either side ends, as a dropped connection
does."""

import os
import subprocess
import sys
import threading


def pump(source: int, target: int) -> None:
    try:
        while data := os.read(source, 1 << 16):
            view = memoryview(data)
            while view:
                view = view[os.write(target, view) :]
    except OSError:
        pass


def main() -> int:
    child = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin and child.stdout
    out = threading.Thread(target=pump, args=(child.stdout.fileno(), 1), daemon=True)
    out.start()
    pump(0, child.stdin.fileno())  # until this side's input ends
    child.stdin.close()
    out.join()
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
