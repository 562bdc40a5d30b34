"""The one model of the current configuration; widgets read and write it, never each other."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QObject, Signal, SignalInstance

from explorer.description.expressions import ExpressionError
from explorer.engine.header.catalog import variants_of
from explorer.engine.launch.plan import resolve_defines
from explorer.engine.records import DeviceInfo, RunRequest, Variant
from explorer.families import FAMILIES


def declared_sizes(variant: Variant) -> dict[str, int]:
    """The sizes a variant starts with: its header's own named sizes, else its family's."""
    return dict(variant.model.default_sizes)


class ConfigModel(QObject):
    """Device, family, variant, sizes, local size, defines and input: one signal per field."""

    devices_changed = Signal()
    device_changed = Signal()
    family_changed = Signal()
    variant_changed = Signal()
    sizes_changed = Signal()
    local_changed = Signal()
    defines_changed = Signal()
    input_changed = Signal()
    layout_changed = Signal()

    def __init__(self) -> None:
        super().__init__()
        self._devices: list[DeviceInfo] = []
        self._device_key: str | None = None
        self._family = "matmul"
        self._variant: Variant = variants_of("matmul")[0]
        self._sizes: dict[str, int] = dict(FAMILIES["matmul"].default_sizes)
        self._local: tuple[int, ...] | None = None
        self._defines: dict[str, int] = {}
        self._input = "iou"
        self._text = "IOU"
        self._image_path: str | None = None
        self._user_variants: list[Variant] = []
        self._layout: str | None = None  # None: the variant's own (its header's) layout
        self.timeout_s = 60.0  # each run's and trace's limit (``main.py --timeout``)
        # Asked before another kernel replaces the current one (its editor may hold unsaved
        # edits: the person saves, discards or stays); False keeps the current kernel.
        self.may_leave_kernel: Callable[[], bool] = lambda: True

    # -- devices -------------------------------------------------------------------
    @property
    def devices(self) -> list[DeviceInfo]:
        return list(self._devices)

    def set_devices(self, devices: list[DeviceInfo], default_key: str | None) -> None:
        self._devices = list(devices)
        self.devices_changed.emit()
        keys = [d.key for d in devices]
        self.set_device(self._device_key if self._device_key in keys else default_key)

    @property
    def device_key(self) -> str | None:
        return self._device_key

    @property
    def device(self) -> DeviceInfo | None:
        return next((d for d in self._devices if d.key == self._device_key), None)

    def set_device(self, key: str | None) -> None:
        if key != self._device_key:
            self._device_key = key
            self.device_changed.emit()

    # -- family and variant --------------------------------------------------------
    @property
    def family(self) -> str:
        return self._family

    def set_family(self, family: str) -> None:
        if family == self._family or family not in FAMILIES:
            return
        if not variants_of(family) and not any(v.family == family for v in self._user_variants):
            self.family_changed.emit()  # nothing to run there yet (open a kernel of that kind)
            return
        if not self._may_leave(None):
            return
        self._family = family
        family_model = FAMILIES[family]
        self._sizes = dict(family_model.default_sizes)
        if self._input not in family_model.input_presets:
            self._input = family_model.input_presets[0]
            self.input_changed.emit()
        self.family_changed.emit()
        self.sizes_changed.emit()
        self.set_variant(self.variants()[0])

    @property
    def variant(self) -> Variant:
        return self._variant

    def variants(self) -> list[Variant]:
        """The family's catalog variants, then the user's own kernels of that family."""
        return list(variants_of(self._family)) + [
            v for v in self._user_variants if v.family == self._family
        ]

    def replace_variant(self, variant: Variant) -> None:
        """A new version of the current user kernel (its file changed): sizes, local size
        and defines stay as they are."""
        self._user_variants = [v for v in self._user_variants if v.path != variant.path]
        self._user_variants.append(variant)
        self._variant = variant
        if variant.model.own_sizes:  # sizes still declared keep their values
            declared = declared_sizes(variant)
            kept = {k: v for k, v in self._sizes.items() if k in declared}
            if set(declared) != set(self._sizes):
                self._sizes = {**declared, **kept}
                self.sizes_changed.emit()
        self.variant_changed.emit()

    def add_user_variant(self, variant: Variant) -> None:
        """A kernel file the user opened; it replaces an earlier one of the same path."""
        if not self._may_leave(variant):
            return
        self._user_variants = [v for v in self._user_variants if v.path != variant.path]
        self._user_variants.append(variant)
        if variant.family != self._family:
            self._family = variant.family
            self._sizes = declared_sizes(variant)
            presets = FAMILIES[variant.family].input_presets
            if self._input not in presets:
                self._input = presets[0]
                self.input_changed.emit()
            self.family_changed.emit()
            self.sizes_changed.emit()
        else:
            self.family_changed.emit()
        self._select(variant, replaces_own_sizes=False)  # the sizes were set for it above

    def set_variant(self, variant: Variant) -> None:
        if variant is self._variant or not self._may_leave(variant):
            return
        if variant.family != self._family:
            self.set_family(variant.family)
        self._select(variant, replaces_own_sizes=self._variant.model.own_sizes)

    def _may_leave(self, variant: Variant | None) -> bool:
        """Whether the current kernel may give way to ``variant`` (None: another family's);
        when it may not, the widgets that already show the other one are told the current
        one again."""
        if variant is not None and variant.path == self._variant.path:
            return True  # the same file, read again
        if self.may_leave_kernel():
            return True
        self.family_changed.emit()
        self.variant_changed.emit()
        return False

    def _select(self, variant: Variant, replaces_own_sizes: bool) -> None:
        """Make ``variant`` current with its own local size, defines and layout; its sizes
        are its own when it declares them or the variant it replaces did."""
        own_sizes = variant.model.own_sizes or replaces_own_sizes
        self._variant = variant
        self._local = None
        self._defines = {}
        self._layout = None
        if own_sizes:  # a custom kernel's sizes are its own
            self._sizes = declared_sizes(variant)
            self.sizes_changed.emit()
        self.variant_changed.emit()
        self.local_changed.emit()
        self.defines_changed.emit()
        self.layout_changed.emit()

    # -- sizes, local size, defines, layout, input ---------------------------------
    @property
    def sizes(self) -> dict[str, int]:
        return dict(self._sizes)

    @property
    def size_names(self) -> tuple[str, ...]:
        """The sizes the current variant takes: its family's, or its header's own (while the
        family changes, the new family's)."""
        if self._variant.family != self._family:
            return FAMILIES[self._family].size_names
        return self._variant.model.size_names

    def set_size(self, name: str, value: int) -> None:
        if self._sizes.get(name) != value:
            self._sizes[name] = int(value)
            self.sizes_changed.emit()

    @property
    def local(self) -> tuple[int, ...] | None:
        """None means the variant's default local size."""
        return self._local

    def set_local(self, local: tuple[int, ...] | None) -> None:
        if local != self._local:
            self._local = local
            self.local_changed.emit()

    @property
    def defines(self) -> dict[str, int]:
        return dict(self._defines)

    def built_defines(self) -> dict[str, int]:
        """The defines a run of this configuration is built with: the header's, those of
        its ``[[by_size]]`` rule for these sizes on this device (a CPU's smaller blocks),
        then the ones chosen here, as the engine resolves them."""
        device = self.device
        try:
            return resolve_defines(
                self._variant, self._defines, self.sizes, device.type if device else None
            )
        except ExpressionError:  # the refusal says so; show the header's and the chosen
            return {**self._variant.default_defines, **self._defines}

    def set_define(self, name: str, value: int) -> None:
        if self._defines.get(name) != value:
            self._defines[name] = int(value)
            self.defines_changed.emit()

    @property
    def layout(self) -> str:
        """How the matrices are stored: the variant's own layout unless one was chosen, as
        ``row-major``, ``column-major`` or ``A:row-major,B:column-major,C:row-major``."""
        return self._layout if self._layout is not None else self._variant.layout

    @property
    def chosen_layout(self) -> str | None:
        """The layout chosen in the app, None while the variant's own is used."""
        return self._layout

    def set_layout(self, layout: str | None) -> None:
        """Another layout for this variant's matrices; None goes back to its header's."""
        if layout == self._variant.layout:
            layout = None
        if layout != self._layout:
            self._layout = layout
            self.layout_changed.emit()

    @property
    def input(self) -> str:
        return self._input

    @property
    def text(self) -> str:
        return self._text

    @property
    def image_path(self) -> str | None:
        return self._image_path

    def set_input(
        self, preset: str, text: str | None = None, image_path: str | None = None
    ) -> None:
        if preset not in FAMILIES[self._family].input_presets:
            return
        changed = (
            preset != self._input
            or (text is not None and text != self._text)
            or (image_path is not None and image_path != self._image_path)
        )
        self._input = preset
        if text is not None:
            self._text = text
        if image_path is not None:
            self._image_path = image_path
        if changed:
            self.input_changed.emit()

    # -- what is on screen belongs to ------------------------------------------------
    def kernel_identity(self) -> tuple[object, ...]:
        """What a result, a trace or a sweep belongs to, besides the local size and the
        defines: device, kernel (by file, so a saved new version of it is the same kernel),
        sizes, input and layout."""
        v = self._variant
        return (
            self._device_key,
            v.family,
            v.id,
            v.path,
            tuple(sorted(self._sizes.items())),
            self._input,
            self._text,
            self._image_path,
            self.layout,
        )

    def configuration_signals(self) -> tuple[SignalInstance, ...]:
        """Every signal of a change to the configuration (not to the list of devices)."""
        return (
            self.device_changed,
            self.family_changed,
            self.variant_changed,
            self.sizes_changed,
            self.local_changed,
            self.defines_changed,
            self.input_changed,
            self.layout_changed,
        )

    def identity(self) -> tuple[object, ...]:
        """The whole configuration a result or a trace belongs to: the kernel's identity,
        the local size and the defines."""
        return (*self.kernel_identity(), self._local, tuple(sorted(self._defines.items())))

    def request(self, repeat: int = 10, timeout_s: float | None = None) -> RunRequest:
        variant = self._variant
        if self._layout is not None:
            variant = replace(variant, layout=self._layout)
        return RunRequest(
            variant=variant,
            sizes=self.sizes,
            local=self._local,
            defines=self.defines,
            device_key=self._device_key,
            input=self._input,
            text=self._text,
            image_path=self._image_path,
            repeat=repeat,
            timeout_s=self.timeout_s if timeout_s is None else timeout_s,
        )
