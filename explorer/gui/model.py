"""The one model of the current configuration; widgets read and write it, never each other."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from explorer.engine.catalog import variants_of
from explorer.engine.records import DeviceInfo, RunRequest, Variant
from explorer.families import FAMILIES


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
        self._family = family
        problem = FAMILIES[family]
        self._sizes = dict(problem.default_sizes)
        if self._input not in problem.input_presets:
            self._input = problem.input_presets[0]
            self.input_changed.emit()
        self.family_changed.emit()
        self.sizes_changed.emit()
        self.set_variant(variants_of(family)[0])

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
        self.variant_changed.emit()

    def add_user_variant(self, variant: Variant) -> None:
        """A kernel file the user opened; it replaces an earlier one of the same path."""
        self._user_variants = [v for v in self._user_variants if v.path != variant.path]
        self._user_variants.append(variant)
        if variant.family != self._family:
            self._family = variant.family
            self._sizes = dict(FAMILIES[variant.family].default_sizes)
            self.family_changed.emit()
            self.sizes_changed.emit()
        else:
            self.family_changed.emit()
        self._variant = None  # type: ignore[assignment]
        self.set_variant(variant)

    def set_variant(self, variant: Variant) -> None:
        if variant is self._variant:
            return
        if variant.family != self._family:
            self.set_family(variant.family)
        self._variant = variant
        self._local = None
        self._defines = {}
        self.variant_changed.emit()
        self.local_changed.emit()
        self.defines_changed.emit()

    # -- sizes, local size, defines, input -----------------------------------------
    @property
    def sizes(self) -> dict[str, int]:
        return dict(self._sizes)

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

    def set_define(self, name: str, value: int) -> None:
        if self._defines.get(name) != value:
            self._defines[name] = int(value)
            self.defines_changed.emit()

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

    def request(self, repeat: int = 10, timeout_s: float = 60.0) -> RunRequest:
        return RunRequest(
            variant=self._variant,
            sizes=self.sizes,
            local=self._local,
            defines=self.defines,
            device_key=self._device_key,
            input=self._input,
            text=self._text,
            image_path=self._image_path,
            repeat=repeat,
            timeout_s=timeout_s,
        )
