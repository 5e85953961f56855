"""The hardware catalog on its own: sources that resolve, and figures a device could have.

Vendors make dense and sparse figures easy to confuse, print capacities in GB or GiB and quote
links with both directions summed. These rules catch what such a slip leaves behind: a
narrower tensor type slower than a wider one, a figure twice what its neighbours predict, a
ridge point or a capacity no device has. What a data type is (its width, whether it runs on
matrix units) and what range a figure may take are annotations of the hardware schema.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..core.diagnostics import Diagnostic, Severity
from ..core.numbers import format_quantity
from ..core.text import suggest
from ..evaluation.result import BASES, Basis, basis_figure
from ..records.device import Device
from ..records.fields import PEAK_FLOPS, dtype_traits, field_shapes
from ..records.located import Located
from ..records.quantity import Measure
from . import Context, Scope, rule

UNKNOWN_SOURCE = "KB310"
UNUSED_SOURCE = "KB311"
DTYPE_ORDER = "KB312"
RIDGE = "KB313"
IMPLAUSIBLE = "KB314"
LOOKS_SPARSE = "KB315"

#: Ridge points (dense peak FLOP/s over memory bandwidth) outside this band are a misplaced
#: unit or a wrong figure: real accelerators sit between about 1 and a few hundred FLOP/B.
#: A unit slip (GB/s for TB/s, GFLOP/s for TFLOP/s) moves a ridge point a thousandfold; the
#: band's low end leaves room for the FP64 that export parts cut to about 1 TFLOP/s (an H20's
#: 1 TFLOP/s over 4 TB/s is 0.25 FLOP/B).
RIDGE_BAND = (0.1, 3000.0)
#: How far above the rate its wider neighbours predict a figure may be before it looks like a
#: structured-sparsity figure (which is exactly twice the dense one).
SPARSE_FACTOR = 1.5


def _citations(device: Device) -> Iterator[tuple[str, Located]]:
    """Every source id a value cites, with where the `source` key was written."""
    for figure in device.figures.values():
        yield figure.source, figure.where
        if figure.measured is not None:
            yield figure.measured.source, figure.measured.where
    for fraction in device.achieved.values():
        if fraction.source is not None:
            yield fraction.source, fraction.where
        for row in fraction.by_class:
            if row.source is not None:
                yield row.source, row.where


@rule(UNKNOWN_SOURCE, "known-source", Scope.DEVICE)
def sources_resolve(device: Device, context: Context) -> Iterable[Diagnostic]:
    """Every value's source names an item of the same file's sources.

    ## What it checks
    Each `source:` of a figure (and of its `measured` variant) is the `id` of an item of
    `sources`; the hint offers the closest id.
    An editor cannot show this: a JSON Schema cannot compare one value of a file with another.
    ## Why it matters
    A figure whose source cannot be found cannot be checked by a reader.
    ## How to fix
    Use the id of the source that supports the figure, or add that source.
    ## Fails
    ```yaml
    memory_bandwidth: {value: 3.35 TB/s, source: shet}
    ```
    ## Passes
    ```yaml
    memory_bandwidth: {value: 3.35 TB/s, source: sheet}
    ```
    """
    known = [s.id for s in device.sources]
    for cited, where in _citations(device):
        if cited not in known:
            yield where.error(
                UNKNOWN_SOURCE,
                f"source '{cited}' is not an id of this file's sources",
                suggest(cited, known, "source ids"),
                at=("source",),
            )


@rule(UNUSED_SOURCE, "source-used", Scope.DEVICE)
def sources_used(device: Device, context: Context) -> Iterable[Diagnostic]:
    """Every source supports at least one value, and no two share an id.

    ## What it checks
    Each item of `sources` is named by some figure, and ids are unique in the file.
    An editor cannot show this: a JSON Schema cannot compare one value of a file with another.
    ## Why it matters
    A source nobody cites is a sign a figure lost its source; a shared id is ambiguous.
    ## How to fix
    Cite it from the figures it supports, or remove it.
    ## Fails
    ```yaml
    sources:
      - id: sheet
        title: Datasheet
        url: https://example.com/a
        publisher: Nobody
        kind: vendor
        read: "2026-11-29"
      - id: extra
        title: Dataextra
        url: https://example.com/b
        publisher: Nobody
        kind: vendor
        read: "2026-11-29"
    ```
    ## Passes
    ```yaml
    sources:
      - id: sheet
        title: Datasheet
        url: https://example.com/a
        publisher: Nobody
        kind: vendor
        read: "2026-11-29"
    ```
    """
    cited = {source for source, _ in _citations(device)}
    seen: set[str] = set()
    for item in device.sources:
        if item.id in seen:
            yield item.where.error(
                UNUSED_SOURCE,
                f"source id '{item.id}' is used by two items of sources",
                "give each source its own id",
                at=("id",),
            )
        elif item.id not in cited:
            yield item.where.error(
                UNUSED_SOURCE,
                f"source '{item.id}' supports no value of this device",
                "name it as the source of the values it gives, or remove it",
                at=("id",),
            )
        seen.add(item.id)


def _flops(value: float) -> str:
    return format_quantity(value, "FLOP/s", digits=4)


def _tensor_peaks(device: Device) -> list[tuple[str, int, Measure]]:
    """(dtype, bits, peak) of the device's floating matrix-unit types, widest first."""
    traits = dtype_traits()
    peaks = [
        (dtype, traits[dtype].bits, peak)
        for dtype, peak in device.peak_flops.items()
        if traits[dtype].tensor and not traits[dtype].integer
    ]
    return sorted(peaks, key=lambda row: -row[1])


@rule(DTYPE_ORDER, "narrower-dtype-not-slower", Scope.DEVICE)
def narrower_not_slower(device: Device, context: Context) -> Iterable[Diagnostic]:
    """A narrower tensor data type is at least as fast as a wider one on the same device.

    ## What it checks
    On matrix units, fp8 is at least as fast as bf16 and fp16, bf16 at least as fast as tf32,
    fp4 at least as fast as fp8; equal is allowed (Gaudi 3 runs fp8 and bf16 at one rate), and
    non-tensor fp32 and fp64, and the integer int8, are exempt. The message names both types
    and values.
    An editor cannot show this: a JSON Schema cannot convert units and compare two figures.
    ## Why it matters
    A narrower type slower than a wider one is a copying slip: a dense figure beside a sparse
    one, or two rows swapped.
    ## How to fix
    Check both figures against the source; write the dense ones.
    ## Fails
    ```yaml
    peak_flops:
      fp8: {value: 494.7 TFLOP/s, source: sheet}
    ```
    ## Passes
    ```yaml
    peak_flops:
      fp8: {value: 1978.9 TFLOP/s, source: sheet}
    ```
    """
    peaks = _tensor_peaks(device)
    for dtype, bits, peak in peaks:
        wider = [(w, p) for w, b, p in peaks if b > bits and p.value > peak.value]
        if not wider:
            continue
        fastest, fastest_peak = max(wider, key=lambda row: row[1].value)
        yield device.figures[f"{PEAK_FLOPS}.{dtype}"].where.error(
            DTYPE_ORDER,
            f"{dtype} peak {_flops(peak.value)} is below {fastest} peak "
            f"{_flops(fastest_peak.value)}; a narrower tensor type is never slower",
            f"is the {fastest} figure the structured-sparsity one, or was {dtype} halved twice?",
            at=("value",),
        )


def _on_bases(device: Device, name: str) -> Iterator[tuple[Basis, float, Located]]:
    """Figure `name` on each basis a command may evaluate on (datasheet, measured, derated),
    each value once, with where it comes from."""
    datasheet = device.figures[name].value.value
    seen: set[float] = set()
    for basis in BASES:
        value, kind = basis_figure(device, name, datasheet, basis)
        if value not in seen:
            seen.add(value)
            yield basis, value, _departure(device, name, kind)


def _on_figures(basis: Basis) -> str:
    """` on measured figures`: what a message adds for figures other than the datasheet's."""
    return f" on {basis.words} figures" if basis.words else ""


@rule(RIDGE, "plausible-ridge-point", Scope.DEVICE)
def plausible_ridge(device: Device, context: Context) -> Iterable[Diagnostic]:
    """Each ridge point (dense peak over memory bandwidth) lies between 0.1 and 3,000 FLOP/B.

    ## What it checks
    Peak FLOP/s of each dtype divided by the memory bandwidth, on the datasheet figures and
    on the measured and derated ones (`kb eval --basis measured`, `--derated`).
    An editor cannot show this: a JSON Schema cannot do the arithmetic of a ridge point.
    ## Why it matters
    A ridge point outside that band means a unit slip (GB/s for TB/s, GFLOP/s for TFLOP/s),
    which flips every verdict on the device.
    ## How to fix
    Check the units of peak_flops and memory_bandwidth.
    ## Fails
    ```yaml
    memory_bandwidth: {value: 3.35 GB/s, source: sheet}
    ```
    ## Passes
    ```yaml
    memory_bandwidth: {value: 3.35 TB/s, source: sheet}
    ```
    """
    low, high = RIDGE_BAND
    bandwidth = device.figures["memory_bandwidth"].value.value
    for dtype in device.peak_flops:
        key = f"{PEAK_FLOPS}.{dtype}"
        datasheet = device.figures[key].value.value
        told: set[tuple[float, float]] = set()
        for basis in BASES:
            peak, peak_kind = basis_figure(device, key, datasheet, basis)
            moved, moved_kind = basis_figure(device, "memory_bandwidth", bandwidth, basis)
            ridge = peak / moved
            if (peak, moved) in told or low <= ridge <= high:
                continue
            told.add((peak, moved))
            # Said where the basis departs from the datasheet: the figure that moved.
            if peak_kind == "datasheet" and moved_kind != "datasheet":
                where = _departure(device, "memory_bandwidth", moved_kind)
            else:
                where = _departure(device, key, peak_kind)
            yield where.error(
                RIDGE,
                f"{dtype} ridge point {format_quantity(ridge, 'FLOP/B')} "
                f"({_flops(peak)} over {format_quantity(moved, 'B/s')}){_on_figures(basis)} "
                f"is outside {low:g} to {high:,.0f} FLOP/B",
                "check the units of peak_flops and memory_bandwidth",
                at=("value",),
            )


def _departure(device: Device, name: str, kind: str) -> Located:
    """Where a figure's value on a basis comes from: its datasheet value, its measured value
    or the achieved fraction that derates it."""
    figure = device.figures[name]
    if kind == "measured" and figure.measured is not None:
        return figure.measured.where
    if kind == "datasheet, derated":
        return device.achieved[name.partition(".")[0]].where
    return figure.where


@rule(IMPLAUSIBLE, "plausible-figure", Scope.DEVICE)
def plausible_figures(device: Device, context: Context) -> Iterable[Diagnostic]:
    """A capacity, bandwidth or time lies in the plausible range of its kind.

    ## What it checks
    Memory capacity, memory and interconnect bandwidth and launch latency against ranges no
    accelerator falls outside (the schema's `x-plausible` on each kind of figure): the
    datasheet value, a measured one, and the value an achieved fraction derates it to.
    An editor cannot show this: a JSON Schema cannot convert a figure's unit to compare it with a
    range.
    ## Why it matters
    A figure off by a factor of 1,000 passes the dimension check and ruins every result.
    ## How to fix
    Check the figure's unit and prefix against the source.
    ## Fails
    ```yaml
    memory_capacity: {value: 80 MB, source: sheet}
    ```
    ## Passes
    ```yaml
    memory_capacity: {value: 80 GB, source: sheet}
    ```
    """
    shapes = field_shapes()
    for name, figure in device.figures.items():
        shape = shapes[name]
        if shape.plausible is None or shape.dimension is None:
            continue
        low, high = shape.plausible
        unit = shape.dimension.base_unit
        # Link bandwidths are held per direction; the range is per direction too.
        each_way = " each way" if figure.direction is not None else ""
        for basis, value, where in _on_bases(device, name):
            if not low <= value <= high:
                yield where.error(
                    IMPLAUSIBLE,
                    f"{name} {format_quantity(value, unit)}{each_way}{_on_figures(basis)} is "
                    f"outside {format_quantity(low, unit)} to {format_quantity(high, unit)}",
                    "check the unit (GB, not MB; TB/s, not GB/s)",
                    at=("value",),
                )


@rule(LOOKS_SPARSE, "looks-sparse", Scope.DEVICE, Severity.WARNING)
def looks_sparse(device: Device, context: Context) -> Iterable[Diagnostic]:
    """A peak about twice what the other data types predict asks for a note.

    ## What it checks
    Each tensor peak against what the device's wider types predict (each halving of the bit
    width doubling the rate at most); a figure well past that looks like the 2:4
    structured-sparsity figure that vendors print beside the dense one. A `note` on the value
    saying why it is dense silences the warning.
    An editor cannot show this: a JSON Schema cannot convert units and compare two figures.
    ## Why it matters
    Sparse figures passed off as dense halve every compute time and move every ridge point.
    ## How to fix
    Write the dense figure (half the sparse one, with `basis: derived`), or add a note.
    ## Fails
    ```yaml
    peak_flops:
      fp8: {value: 3957.8 TFLOP/s, source: sheet}
    ```
    ## Passes
    ```yaml
    peak_flops:
      fp8: {value: 1978.9 TFLOP/s, source: sheet}
    ```
    """
    peaks = _tensor_peaks(device)
    for dtype, bits, peak in peaks:
        figure = device.figures[f"{PEAK_FLOPS}.{dtype}"]
        if figure.note is not None:
            continue
        predictions = [
            (other, other_peak.value * other_bits / bits, other_bits)
            for other, other_bits, other_peak in peaks
            if other != dtype and other_bits >= bits
        ]
        if not predictions:
            continue
        # The lowest prediction; of equal ones (to rounding), the nearest type's.
        other, predicted, _ = min(predictions, key=lambda row: (float(f"{row[1]:.6g}"), row[2]))
        if peak.value > SPARSE_FACTOR * predicted:
            yield figure.where.error(
                LOOKS_SPARSE,
                f"{dtype} peak {_flops(peak.value)} is {peak.value / predicted:.1f}x what "
                f"{other} predicts ({_flops(predicted)}): is it the structured-sparsity figure?",
                "write the dense figure (half the sparse one, basis: derived), or add a note "
                "saying why this one is dense",
                at=("value",),
            )
