"""Hosts: the machines whose devices the explorer uses besides its own, and the router that
sends each request to the executor of its device's machine.

A host is a label (what its devices are prefixed with: ``server: NVIDIA H100``) and the
command that starts its executor: ``ssh -T user@server python3 -m explorer executor-serve``
for ``user@server`` (the person's own ssh configuration, keys and agent), or any command
given whole.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

SERVE = ("python3", "-m", "explorer", "executor-serve")


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
        return cls(_label(target), ("ssh", "-T", target, *SERVE), target)

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
        return cls(label, words, value.get("text") or value["command"])


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
