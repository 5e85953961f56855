"""References from entries into the hardware catalog: devices, parameters and their values."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..diagnostics import Diagnostic
from ..model import Device, Entry, Located, parameter_dimension, parameter_names
from ..quantity import Dimension, QuantityError, format_si, parse
from ..schemas import suggest
from . import Context, Scope, rule

UNKNOWN_DEVICE = "KB204"
UNKNOWN_PARAMETER = "KB205"
MAGNITUDE = "KB206"

_SEPARATOR = re.compile(r"\s+vs\.?\s+")


def _unknown_device(name: str, where: Located, index: int, context: Context) -> Diagnostic:
    return where.error(
        UNKNOWN_DEVICE,
        f"no device '{name}' in hardware/",
        suggest(name, sorted(context.devices), "devices"),
        at=(index,),
    )


@rule(UNKNOWN_DEVICE, "known-device", Scope.ENTRY)
def known_devices(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """Every device an entry names (values_for, checks' devices) is a file of hardware/.

    Fails: `values_for: [nvidia-h100]`
    Passes: `values_for: [nvidia-h100-sxm]`
    """
    for parameter in entry.hardware_parameters:
        where = Located(parameter.where.source, (*parameter.where.pointer, "values_for"))
        for i, name in enumerate(parameter.values_for):
            if name not in context.devices:
                yield _unknown_device(name, where, i, context)
    for check in entry.checks:
        where = Located(check.where.source, (*check.where.pointer, "devices"))
        for i, name in enumerate(check.devices):
            if name not in context.devices:
                yield _unknown_device(name, where, i, context)


@rule(UNKNOWN_PARAMETER, "known-parameter", Scope.ENTRY)
def known_parameters(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """A hardware parameter names a quantity field of the hardware schema.

    Fails: `parameter: memory_bw`
    Passes: `parameter: memory_bandwidth` or `parameter: peak_flops.bf16`
    """
    names = parameter_names()
    for parameter in entry.hardware_parameters:
        if parameter.parameter not in names:
            yield parameter.where.error(
                UNKNOWN_PARAMETER,
                f"'{parameter.parameter}' is not a hardware parameter",
                suggest(parameter.parameter, names, "parameters"),
                at=("parameter",),
            )


@rule(MAGNITUDE, "magnitude-matches-catalog", Scope.ENTRY)
def magnitudes_match(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """A magnitude quotes the catalog's values for values_for, in order, within rounding.

    Fails: `values_for: [nvidia-h100-sxm, amd-instinct-mi300x]`, `magnitude: 5.3 TB/s vs 3.35 TB/s`
    Passes: the same values_for with `magnitude: 3.35 TB/s vs 5.3 TB/s`
    """
    for parameter in entry.hardware_parameters:
        dimension = parameter_dimension(parameter.parameter)
        if parameter.magnitude is None or dimension is None:
            continue
        pieces = _pieces(parameter.magnitude)
        if len(pieces) != len(parameter.values_for):
            yield parameter.where.error(
                MAGNITUDE,
                f"magnitude has {len(pieces)} value(s) for {len(parameter.values_for)} device(s)",
                "write one value per device of values_for, in order, joined by ' vs '",
                at=("magnitude",),
            )
            continue
        for (offset, piece), device_id in zip(pieces, parameter.values_for, strict=True):
            device = context.devices.get(device_id)
            if device is None:
                continue  # reported by known-device
            problem = _disagreement(piece, device, parameter.parameter, dimension)
            if problem is not None:
                message, hint = problem
                yield parameter.where.error(
                    MAGNITUDE, message, hint, at=("magnitude",), offset=offset
                )


def _disagreement(
    piece: str, device: Device, parameter: str, dimension: Dimension
) -> tuple[str, str | None] | None:
    """(message, hint) when `piece` does not quote `device`'s value of `parameter`."""
    actual = device.parameter(parameter)
    if actual is None:
        return (
            f"{device.id} has no {parameter} in the catalog",
            f"add it to {device.path}, or drop the device from values_for",
        )
    try:
        written = parse(piece, dimension)
    except QuantityError as exc:
        return exc.message, exc.hint
    if written.agrees_with(actual.value):
        return None
    catalog = format_si(actual.value, dimension.base_unit, digits=4)
    return (
        f"'{piece}' for {device.id} disagrees with the catalog's {catalog} ({device.path})",
        "quote the catalog's value, or correct the catalog with a source",
    )


def _pieces(text: str) -> list[tuple[int, str]]:
    """`'3.35 TB/s vs 5.3 TB/s'` -> `[(0, '3.35 TB/s'), (13, '5.3 TB/s')]`."""
    pieces = []
    start = 0
    for match in _SEPARATOR.finditer(text):
        pieces.append((start, text[start : match.start()]))
        start = match.end()
    pieces.append((start, text[start:]))
    return [(offset + len(piece) - len(piece.lstrip()), piece.strip()) for offset, piece in pieces]
