"""PyInstaller runtime hook of the bundle, run first in both executables (see
kernel-explorer.spec): the environment the person started the bundle with, kept before the
other runtime hooks change it, and the dynamic loader's path given back at once.

The bootloader puts the bundle's own folder first on ``LD_LIBRARY_PATH`` (saving the person's
value, if any, in ``LD_LIBRARY_PATH_ORIG``) and adds ``_PYI_*`` variables; PySide6's runtime
hook then points ``QT_PLUGIN_PATH`` and ``QML2_IMPORT_PATH`` into the bundle. A program started
from the bundle that is not the bundle would inherit all of it: the person's own Python under
``capture`` would load the bundle's libpython, libstdc++ and OpenSSL instead of its own, and
ssh or ffmpeg likewise. The loader reads its path once, when a process starts, so giving it
back here changes nothing in this process; the bundle's own children (an executor's process)
get it again from their bootloader. The rest is kept in ``__main__`` as
``_PERSON_ENVIRONMENT`` (runtime hooks and the entry script share that namespace) for
bundle_main.py to give to the person's program under ``capture``.
"""


def _person_environment() -> dict[str, str]:
    import os
    import sys

    bundle = os.path.normcase(os.path.abspath(sys._MEIPASS))  # type: ignore[attr-defined]

    def inside(entry: str) -> bool:
        path = os.path.normcase(os.path.abspath(entry))
        return path == bundle or path.startswith(bundle + os.sep)

    def outside(entries: str) -> str:
        kept = [entry for entry in entries.split(os.pathsep) if entry and not inside(entry)]
        return os.pathsep.join(kept)

    env = {k: v for k, v in os.environ.items() if not k.startswith("_PYI_")}
    for name in ("LD_LIBRARY_PATH", "LIBPATH"):  # Linux and the like; AIX
        original = env.pop(name + "_ORIG", None)
        value = original if original is not None else outside(env.get(name, ""))
        if value:
            env[name] = value
            os.environ[name] = value
        else:
            env.pop(name, None)
            os.environ.pop(name, None)
        os.environ.pop(name + "_ORIG", None)
    return env


_PERSON_ENVIRONMENT = _person_environment()
del _person_environment
