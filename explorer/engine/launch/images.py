"""Image and sampler arguments: ``cl.Image`` objects made from a description's image format,
filled from and read back into host arrays of shape (H, W[, channels]) or (D, H, W[, channels]),
``cl.Sampler`` objects from a sampler's properties, and the refusal of a device that cannot
hold them."""

from __future__ import annotations

from typing import Any

import numpy as np

from explorer.description.launch import BufferParam, LaunchDescription, SamplerParam
from explorer.engine.records import Refusal


def _format(cl: Any, b: BufferParam) -> Any:
    assert b.image is not None
    order = getattr(cl.channel_order, b.image.channels)
    kind = getattr(cl.channel_type, b.image.channel_type.upper())
    return cl.ImageFormat(order, kind)


def _flags(cl: Any, b: BufferParam) -> int:
    mf = cl.mem_flags
    return {"read": mf.READ_ONLY, "write": mf.WRITE_ONLY}.get(b.access, mf.READ_WRITE)


def device_refusal(
    cl: Any, context: Any, description: LaunchDescription, device_name: str
) -> Refusal | None:
    """Why this device cannot run a launch with images or samplers (no image support, an
    image larger than it holds, a format it does not offer); None when it can."""
    images = description.images
    samplers = [p for p in description.params if isinstance(p, SamplerParam)]
    if not images and not samplers:
        return None
    device = context.devices[0]
    named = images[0].name if images else samplers[0].name
    if not device.image_support:
        return Refusal(
            f"{device_name} does not support images (CL_DEVICE_IMAGE_SUPPORT is false), and "
            f"the kernel's argument {named} is an "
            f"{images[0].image.kind if images and images[0].image else 'sampler_t'}.",
            "Run it on a device that supports images (PoCL's CPU device does).",
        )
    for b in images:
        image = b.image
        assert image is not None
        limits: tuple[int, ...]
        if image.dims == 2:
            limits = (int(device.image2d_max_width), int(device.image2d_max_height))
        else:
            limits = (
                int(device.image3d_max_width),
                int(device.image3d_max_height),
                int(device.image3d_max_depth),
            )
        if any(s > lim for s, lim in zip(image.size, limits, strict=True)):
            return Refusal(
                f"the image {b.name} is {'×'.join(map(str, image.size))} pixels; {device_name} "
                f"holds {image.kind} images of at most {'×'.join(map(str, limits))}.",
                "Use smaller sizes.",
            )
        kind = cl.mem_object_type.IMAGE2D if image.dims == 2 else cl.mem_object_type.IMAGE3D
        offered = {
            (int(f.channel_order), int(f.channel_data_type))
            for f in cl.get_supported_image_formats(context, _flags(cl, b), kind)
        }
        wanted = _format(cl, b)
        if (int(wanted.channel_order), int(wanted.channel_data_type)) not in offered:
            return Refusal(
                f"{device_name} offers no {image.channels} {image.channel_type} "
                f"{image.kind} images for {b.access} access (the image {b.name}).",
                "Declare another channel type or order (float and RGBA are offered widely).",
            )
    return None


def create(cl: Any, context: Any, b: BufferParam) -> Any:
    """The image the kernel gets, empty."""
    assert b.image is not None
    return cl.create_image(context, _flags(cl, b), _format(cl, b), shape=b.image.size)


def _region(b: BufferParam) -> tuple[tuple[int, ...], tuple[int, ...]]:
    assert b.image is not None
    return (0,) * b.image.dims, b.image.size


def upload(cl: Any, queue: Any, image: Any, b: BufferParam, array: np.ndarray) -> Any:
    """The host array copied into the image; the event."""
    origin, region = _region(b)
    host = np.ascontiguousarray(array, dtype=b.element.base)
    return cl.enqueue_copy(queue, image, host, origin=origin, region=region)


def download(cl: Any, queue: Any, host: np.ndarray, image: Any, b: BufferParam) -> Any:
    """The image copied into ``host`` (its array shape, contiguous); the event."""
    origin, region = _region(b)
    return cl.enqueue_copy(queue, host, image, origin=origin, region=region)


_ADDRESSES = {
    "none": "NONE",
    "clamp_to_edge": "CLAMP_TO_EDGE",
    "clamp": "CLAMP",
    "repeat": "REPEAT",
    "mirrored_repeat": "MIRRORED_REPEAT",
}


def sampler(cl: Any, context: Any, s: SamplerParam) -> Any:
    """The sampler the kernel gets."""
    address = getattr(cl.addressing_mode, _ADDRESSES[s.address])
    filtered = getattr(cl.filter_mode, s.filter.upper())
    return cl.Sampler(context, s.normalized, address, filtered)
