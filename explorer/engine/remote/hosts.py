"""Hosts: the machines whose devices the explorer uses besides its own, and the router that
sends each request to the executor of its device's machine.

A host is a label (what its devices are prefixed with: ``server: NVIDIA H100``) and the
command that starts its executor: for ``user@server``, ``ssh -T user@server`` (the person's
own ssh configuration, keys and agent) running ``python -m explorer executor-serve`` with the
Python of the explorer installed for this version in the host's cache folder
(:mod:`.install`), else ``python3``; or any command given whole.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from typing import Any

from explorer import __version__

SERVE = ("-m", "explorer", "executor-serve")  # after the Python that runs the executor
CLI_SERVE = ("kernel-explorer-cli", "executor-serve")  # the installed script's way
# Where a host keeps the explorer installed for it, as its shell and Python find it.
CACHE_SH = '"${XDG_CACHE_HOME:-$HOME/.cache}/opencl-kernel-explorer"'
VENV = f"venv-{__version__}"
# The remote command of ``user@server``: the installed Python when there is one. A single
# quoted ``sh -c`` script, whatever shell the account logs in with.
DEFAULT_SERVE = "sh -c " + shlex.quote(
    f'p={CACHE_SH}/{VENV}/bin/python; [ -x "$p" ] || p=python3; '
    'exec "$p" -m explorer executor-serve'
)
_SHELL_TRANSPORTS = ("ssh", "autossh")  # they hand the rest of the command to a shell there


@dataclass(frozen=True)
class Host:
    """A machine reached through ``command``; ``text`` is what the person typed."""

    label: str
    command: tuple[str, ...]
    text: str

    @classmethod
    def parse(cls, target: str = "", command: str = "") -> Host:
        """``--host user@server`` and/or ``--executor-command "CMD"``: ssh to ``target``,
        or ``command`` instead of ssh (``target`` then only names the host)."""
        target, command = target.strip(), command.strip()
        if not target and not command:
            raise ValueError("a host needs user@server or a command that starts its executor")
        if command:
            words = tuple(shlex.split(command))
            if not words:
                raise ValueError("the executor command is empty")
            return cls(_label(target) if target else "remote", words, command)
        if target.startswith("-") or any(c.isspace() for c in target):
            raise ValueError(f"{target!r} is not a host: give user@server (as for ssh)")
        return cls(_label(target), ("ssh", "-T", target, DEFAULT_SERVE), target)

    @property
    def by_name(self) -> bool:
        """Whether this is ``user@server`` reached with ssh's default command."""
        return self.command[:3] == ("ssh", "-T", self.text) and len(self.command) == 4

    def to_json(self) -> dict[str, str]:
        return {"label": self.label, "text": self.text, "command": shlex.join(self.command)}

    @classmethod
    def from_json(cls, value: Any) -> Host:
        """What :meth:`to_json` gave (read from a settings file, which is checked as any
        document from outside); ``ValueError`` naming the field for anything else."""
        limit = 4096  # characters of a host's label, text or command
        quoted = repr(value) if len(repr(value)) <= 120 else f"{repr(value)[:117]}..."
        if not isinstance(value, dict) or set(value) - {"label", "text", "command"}:
            raise ValueError(f"a host is {{label, text, command}}, not {quoted}")
        for key in ("label", "text", "command"):
            field = value.get(key)
            if field is not None and (not isinstance(field, str) or len(field) > limit):
                raise ValueError(f"a host's {key} is text of at most {limit} characters: {quoted}")
        if not value.get("command"):
            raise ValueError(f"a host needs the command that starts its executor: {quoted}")
        words = tuple(shlex.split(value["command"]))  # an unclosed quote: ValueError
        label = value.get("label") or "remote"
        if not words or "/" in label or not label.isprintable():
            raise ValueError(f"not a host: {quoted}")
        text = value.get("text") or value["command"]
        if words[:3] == ("ssh", "-T", text) and not any(c.isspace() for c in text):
            # ``user@server``, saved by another version: this one's command, which starts
            # this version's installed Python
            return cls(label, cls.parse(text).command, text)
        return cls(label, words, text)

    def reach(self) -> Reach:
        """How the command reaches the host (what :mod:`.install` runs there); ``ValueError``,
        saying why, for a command that does not end in the executor's own words."""
        if self.by_name:
            return Reach(self.command[:3], "python3", (), True)
        words = self.command
        if len(words) >= 4 and words[-3:] == SERVE:
            at = len(words) - 4
            # Back over the Python's own options (``-u``, ``-X dev``) to the Python.
            while at > 0 and (words[at].startswith("-") or words[at - 1] in ("-X", "-W")):
                at -= 1
            prefix, python, options = words[:at], words[at], words[at + 1 : -3]
        elif len(words) >= 2 and (os.path.basename(words[-2]), words[-1]) == CLI_SERVE:
            prefix, python, options = words[:-2], "python3", ()
        else:
            raise ValueError(
                f"the command of {self.label} ({self.text}) does not end with 'PYTHON -m "
                "explorer executor-serve' or 'kernel-explorer-cli executor-serve', so which of "
                "its words reach the host is not known"
            )
        shell = any(os.path.basename(w) in _SHELL_TRANSPORTS for w in prefix)
        return Reach(prefix, python, options, shell)


@dataclass(frozen=True)
class Reach:
    """A host's command taken apart: the words that reach the host (``ssh -p 2222 me@gpu``,
    ``env …``, or none for this machine), the Python there and its options, and whether a
    shell there reads the rest (ssh), so that each word must be quoted for it."""

    prefix: tuple[str, ...]
    python: str  # as the command gives it (for a shell there: its text, ``~`` and all)
    options: tuple[str, ...]
    shell: bool

    def command(self, python: str, *words: str) -> tuple[str, ...]:
        """``python`` (already in the form the far end reads) with ``words``, there."""
        return (*self.prefix, python, *(shlex.quote(w) if self.shell else w for w in words))

    def quoted(self, path: str) -> str:
        """A path of the host as a word of its command."""
        return shlex.quote(path) if self.shell else path


def _label(target: str) -> str:
    """``user@server.example.org`` → ``server.example.org``: the machine, without the user."""
    label = target.rpartition("@")[2] or target
    if "/" in label:
        raise ValueError(f"{target!r} is not a host name")
    return label


def host_of_key(key: str | None) -> str:
    """The host a device key names (``server/0:1`` → ``server``); "" for this machine."""
    head, slash, _ = (key or "").rpartition("/")
    return head if slash else ""
