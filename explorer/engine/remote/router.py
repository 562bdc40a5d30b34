"""This machine's executor and one per host, used as one: the devices of all of them (each
host's named with the host), and each request sent to the executor of its device's machine,
which its device key names (``server/0:1``)."""

from __future__ import annotations

from typing import Any

from explorer.engine.executor import Executor, ExecutorError
from explorer.engine.records import DeviceInfo, RunRequest, RunResult, failed_result
from explorer.engine.remote.client import CommandExecutor, Progress
from explorer.engine.remote.hosts import Host, host_of_key


class HostRouter:
    """Executors by machine: "" for this one, a host's label for each host added."""

    def __init__(self, local: Executor | None = None, progress: Progress | None = None) -> None:
        self.local = local if local is not None else Executor()
        self.progress = progress
        self._hosts: dict[str, CommandExecutor] = {}
        self.problems: dict[str, str] = {}  # a host's label → why its devices are missing

    @property
    def hosts(self) -> list[Host]:
        return [executor.host for executor in self._hosts.values()]

    def add(self, host: Host) -> None:
        """Use ``host`` too (one already added under its label is replaced)."""
        old = self._hosts.pop(host.label, None)
        if old is not None:
            old.close()
        self._hosts[host.label] = self._far(host)

    def remove(self, label: str) -> None:
        old = self._hosts.pop(label, None)
        if old is not None:
            old.close()
        self.problems.pop(label, None)

    def devices(self, timeout_s: float = 60.0) -> list[DeviceInfo]:
        """This machine's devices, then each host's; a host that cannot be reached is left out
        and its reason kept in :attr:`problems` (``ExecutorError`` only when nothing answered)."""
        self.problems = {}
        found: list[DeviceInfo] = []
        failure: ExecutorError | None = None
        for label, executor in [("", self.local), *self._hosts.items()]:
            try:
                found += executor.devices(timeout_s)
            except ExecutorError as exc:
                failure = failure or exc
                if label:
                    self.problems[label] = str(exc)
        if failure is not None and not found:
            raise failure
        return found

    def executor_for(self, key: str | None) -> Executor:
        """The executor of the machine ``key`` names."""
        label = host_of_key(key)
        if not label:
            return self.local
        if label not in self._hosts:
            raise ExecutorError(
                f"{label} is not among the hosts: add it (Devices ▸ Add host…)", "error"
            )
        return self._hosts[label]

    def with_env(self, key: str | None, env: dict[str, str]) -> Executor:
        """Another executor on the machine ``key`` names, started with ``env`` (Oclgrind's
        switches, read when its runtime loads)."""
        label = host_of_key(key)
        if not label:
            return Executor(env=env)
        far = self.executor_for(key)
        assert isinstance(far, CommandExecutor)
        return self._far(far.host, env)

    def _far(self, host: Host, env: dict[str, str] | None = None) -> CommandExecutor:
        """An executor on ``host`` that tells of its builds as this machine's does."""
        executor = CommandExecutor(host, env=env, progress=self.progress)
        executor.on_build = self.local.on_build
        return executor

    def run(self, request: RunRequest) -> RunResult:
        try:
            executor = self.executor_for(request.device_key)
        except ExecutorError as exc:
            return failed_result(request, str(exc), exc.kind)
        return executor.run(request)

    def trace(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            executor = self.executor_for(request.run.device_key)
        except ExecutorError as exc:
            from explorer.engine.record.trace_launch import TracedRun

            return TracedRun(failed_result(request.run, str(exc), exc.kind), None, None, {})
        return executor.trace(request, *args, **kwargs)

    def call(self, function: Any, *args: Any, timeout_s: float = 600.0, what: str = "") -> Any:
        """``function(*args)`` in the executor of the device its arguments name (a request,
        or a device key); this machine's when they name none."""
        executor = self.executor_for(_key_in(args, set(self._hosts)))
        return executor.call(function, *args, timeout_s=timeout_s, what=what)

    def cancel(self) -> None:
        for executor in [self.local, *self._hosts.values()]:
            executor.cancel()

    def close(self) -> None:
        for executor in [self.local, *self._hosts.values()]:
            executor.close()

    def __enter__(self) -> HostRouter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _key_in(args: tuple[Any, ...], labels: set[str]) -> str | None:
    """The device key among ``args``: a request's, or a host's device key itself."""
    for arg in args:
        run = getattr(arg, "run", arg)
        if isinstance(run, RunRequest):
            return run.device_key
        if isinstance(arg, str) and host_of_key(arg) in labels:
            return arg
    return None
