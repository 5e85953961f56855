"""References from entries into the hardware catalog: devices, parameters and their values."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from ..core.codes import UNKNOWN_DEVICE
from ..core.diagnostics import Diagnostic
from ..core.numbers import format_quantity
from ..core.text import suggest
from ..records.device import Device
from ..records.entry import Entry
from ..records.fields import parameter_dimension, parameter_names
from ..records.located import Located
from ..records.quantity import Dimension, QuantityError, parse_quantity
from . import Context, Scope, rule

UNKNOWN_PARAMETER = "KB205"
MAGNITUDE = "KB206"

_SEPARATOR = re.compile(r"\s+vs\.?\s+")


def _unknown_devices(
    names: Sequence[str],
    where: Located,
    context: Context,
    pointed: set[str],
    key: str | None = None,
) -> Iterator[Diagnostic]:
    """The names of `names` (a list at `where`, or one value at `where`'s `key`) that are no
    device of the catalog."""
    for i, name in enumerate(names):
        at: tuple[str | int, ...] = (i,) if key is None else (key,)
        if name in context.devices or name in pointed:
            continue
        broken = context.broken_devices.get(name)
        if broken is None:
            yield where.error(
                UNKNOWN_DEVICE,
                f"no device '{name}' in {context.hardware_folder}",
                suggest(name, sorted(context.devices), "devices")
                if context.devices
                else _no_devices(context),
                at=at,
            )
        else:  # said once per entry: the problem is in the device's file, reported there
            pointed.add(name)
            yield where.error(
                UNKNOWN_DEVICE,
                f"device '{name}' is defined in {broken}, which has errors",
                f"fix {broken} first",
                at=at,
            )


def _no_devices(context: Context) -> str:
    files = sorted(set(context.broken_devices.values()))
    if not files:
        return "the catalog has no devices"
    return f"the catalog's device files all have errors; fix them first: {', '.join(files)}"


@rule(UNKNOWN_DEVICE, "known-device", Scope.ENTRY)
def known_devices(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """Every device an entry names is a file of hardware/.

    ## What it checks
    Each device id in `hardware_parameters[].values_for` and `checks[].devices` names a
    device of the catalog; the hint offers the closest id. A device whose file has errors is
    pointed to once per entry instead: its errors are reported on its own file, first. The
    same code marks a device of `featured_devices` in the knowledge base's `kb.yaml` that
    the catalog does not have.
    An editor cannot show this: a JSON Schema sees one file's data, not the files around it.
    ## Why it matters
    A claim about a device the catalog does not have is never evaluated.
    ## How to fix
    Use the catalog's id, or add the device to `hardware/` with its sources.
    ## Fails
    ```yaml
    checks:
      - claim: Memory-bound.
        devices: [nvidia-h100]
        expect: {bound_by: memory}
    ```
    ## Passes
    ```yaml
    checks:
      - claim: Memory-bound.
        devices: [nvidia-h100-sxm]
        expect: {bound_by: memory}
    ```
    """
    pointed: set[str] = set()
    for parameter in entry.hardware_parameters:
        where = Located(parameter.where.source, (*parameter.where.pointer, "values_for"))
        yield from _unknown_devices(parameter.values_for, where, context, pointed)
    for check in entry.checks:
        where = Located(check.where.source, (*check.where.pointer, "devices"))
        yield from _unknown_devices(check.devices, where, context, pointed)
    for measurement in entry.measurements:
        yield from _unknown_devices(
            [measurement.device], measurement.where, context, pointed, "device"
        )


@rule(UNKNOWN_PARAMETER, "known-parameter", Scope.ENTRY)
def known_parameters(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """A hardware parameter names a figure of the hardware schema.

    ## What it checks
    `hardware_parameters[].parameter` is a device figure (`memory_bandwidth`, ...) or a row of
    the dense peaks (`peak_flops.bf16`).
    An editor shows only the form of the name; a JSON Schema could list the figures, which the entry
    schema leaves to this rule and its closest-name hint.
    ## Why it matters
    The parameter's values are looked up in the catalog by that name.
    ## How to fix
    Use a name the hint lists.
    ## Fails
    ```yaml
    hardware_parameters:
      - parameter: memory_bw
        effect: Streams the weights.
        values_for: [nvidia-h100-sxm]
        basis: datasheet
    ```
    ## Passes
    ```yaml
    hardware_parameters:
      - parameter: memory_bandwidth
        effect: Streams the weights.
        values_for: [nvidia-h100-sxm]
        basis: datasheet
    ```
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

    ## What it checks
    `magnitude` holds one value per device of `values_for`, joined by ` vs `, each equal to
    the catalog's figure to the precision it is written in. A link's bandwidth is compared
    per direction, as the model reads it, whichever way its device file gives it.
    An editor cannot show this: the values are the catalog's, in other files (and a piece's unit,
    which a schema could hold to the parameter's dimension, is left to this rule with them).
    ## Why it matters
    Figures copied into prose drift from the catalog; this keeps them the same.
    ## How to fix
    Quote the catalog's values in the order of `values_for`, or correct the catalog with a
    source.
    ## Fails
    ```yaml
    hardware_parameters:
      - parameter: memory_bandwidth
        effect: Streams the weights.
        values_for: [nvidia-h100-sxm, amd-instinct-mi300x]
        magnitude: 5.3 TB/s vs 3.35 TB/s
        basis: datasheet
    ```
    ## Passes
    ```yaml
    hardware_parameters:
      - parameter: memory_bandwidth
        effect: Streams the weights.
        values_for: [nvidia-h100-sxm, amd-instinct-mi300x]
        magnitude: 3.35 TB/s vs 5.3 TB/s
        basis: datasheet
    ```
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
        written = parse_quantity(piece, dimension)
    except QuantityError as exc:
        return exc.message, exc.hint
    if written.agrees_with(actual.value):
        return None
    catalog = format_quantity(actual.value, dimension.base_unit, digits=4)
    written_as = device.figures.get(parameter)
    if written_as is not None and written_as.direction == "both_directions":
        # The model reads a link per direction; the file may say both, as vendors do.
        both = format_quantity(actual.value * 2, dimension.base_unit, digits=4)
        return (
            f"'{piece}' for {device.id} disagrees with the catalog's {catalog} per direction "
            f"(its file gives {both} for both directions: {device.path})",
            f"quote the value per direction, {catalog}, or correct the catalog with a source",
        )
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
