"""Published measurements, judged as claims are: each names a unique id and a source of its
file, its workload is one the card's ranges (or the model's offered deployments) allow on a
device with the figures, and what it measured is never faster than the lower bound (a card's)
or the floor (a model's). A device's achieved fraction that rests on measurements lies within
the range they show."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..composition.measured import judge_model
from ..core.diagnostics import Diagnostic
from ..core.numbers import format_quantity, half_last_digit, number
from ..evaluation.evaluator import Evaluator
from ..evaluation.measured import Judged, Unjudged, judge_card
from ..evaluation.roofs import ROOFS
from ..records.device import Device
from ..records.entry import Entry
from ..records.measurement import Measurement
from ..records.model import Model
from . import Context, Scope, rule

MEASUREMENT_ID = "KB701"
MEASUREMENT_SOURCE = "KB702"
MEASUREMENT_WORKLOAD = "KB703"
MEASURED_NOT_BELOW_BOUND = "KB704"
FRACTION_MEASUREMENTS = "KB705"


@rule(MEASUREMENT_ID, "measurement-id-unique", Scope.ENTRY, also=(Scope.MODEL,))
def measurement_id_unique(subject: Entry | Model, context: Context) -> Iterable[Diagnostic]:
    """Each measurement's id is unique in its file.

    ## What it checks
    That no two items of `measurements` share an `id`.
    An editor cannot show this: a JSON Schema cannot compare one value of a file with another.
    ## Why it matters
    A measurement is cited as `<card-or-model-id>#<id>` (a device's achieved fraction rests on
    the measurements it names); two of one name would make the citation ambiguous.
    ## How to fix
    Rename one: the device, the shape and the software usually make a name,
    `fa2-a100-hd128-16k`.
    ## Fails
    ```yaml
    measurements:
      - {id: a, device: nvidia-h100-sxm, software: {name: x, version: "1"}, scope: kernel,
         time: 700 us, how: timed, source: {reference: "https://doi.org/10.1145/1498765.1498785",
         read: "2026-12-02", where: Table 1}}
      - {id: a, device: nvidia-h100-sxm, software: {name: x, version: "1"}, scope: kernel,
         time: 800 us, how: timed, source: {reference: "https://doi.org/10.1145/1498765.1498785",
         read: "2026-12-02", where: Table 1}}
    ```
    ## Passes
    ```yaml
    measurements:
      - {id: a, device: nvidia-h100-sxm, software: {name: x, version: "1"}, scope: kernel,
         time: 700 us, how: timed, source: {reference: "https://doi.org/10.1145/1498765.1498785",
         read: "2026-12-02", where: Table 1}}
      - {id: b, device: nvidia-h100-sxm, software: {name: x, version: "1"}, scope: kernel,
         time: 800 us, how: timed, source: {reference: "https://doi.org/10.1145/1498765.1498785",
         read: "2026-12-02", where: Table 1}}
    ```
    """
    seen: set[str] = set()
    for measurement in subject.measurements:
        if measurement.id in seen:
            yield measurement.where.error(
                MEASUREMENT_ID,
                f"measurement id '{measurement.id}' is used twice in {subject.id}",
                "give each measurement its own id",
                at=("id",),
            )
        seen.add(measurement.id)


@rule(MEASUREMENT_SOURCE, "measurement-cites-a-source", Scope.ENTRY, also=(Scope.MODEL,))
def measurement_cites_a_source(subject: Entry | Model, context: Context) -> Iterable[Diagnostic]:
    """A measurement's source is a reference of its card, or a source of its model file.

    ## What it checks
    That `source.reference` is the arXiv id or URL of one of the card's references (its own
    or a workaround's), as a claim cites one; in a model file, the id of one of its
    `sources`.
    An editor cannot show this: a JSON Schema cannot compare one value of a file with another.
    ## Why it matters
    A number without a source a reader can open cannot be checked, and the site links each
    measurement to its reference.
    ## How to fix
    Add the publication to `references` (`sources` in a model file) and cite it by its
    arXiv id or URL (its id).
    ## Fails
    ```yaml
    measurements:
      - {id: a, device: nvidia-h100-sxm, software: {name: x, version: "1"}, scope: kernel,
         time: 700 us, how: timed, source: {reference: "2307.08691", read: "2026-12-02",
         where: Figure 4}}
    ```
    ## Passes
    ```yaml
    measurements:
      - {id: a, device: nvidia-h100-sxm, software: {name: x, version: "1"}, scope: kernel,
         time: 700 us, how: timed, source: {reference: "https://doi.org/10.1145/1498765.1498785",
         read: "2026-12-02", where: Table 1}}
    ```
    """
    if isinstance(subject, Model):
        known = [s.id for s in subject.sources]
        kind = "the ids of this file's sources"
    else:
        known = [r.key for r in subject.all_references()]
        kind = "the card's references (arXiv ids and URLs)"
    for measurement in subject.measurements:
        if measurement.reference not in known:
            yield measurement.where.error(
                MEASUREMENT_SOURCE,
                f"measurement '{measurement.id}' cites '{measurement.reference}', which is not "
                f"among {kind}",
                f"add it to {'sources' if isinstance(subject, Model) else 'references'}, or "
                f"cite one of: {', '.join(known[:5]) or 'none yet'}",
                at=("source", "reference"),
            )


def judged(subject: Entry | Model, context: Context) -> list[tuple[Measurement, Judged | Unjudged]]:
    """Each of the subject's measurements, judged (a card's against its bound, a model's
    against the estimate's floor) or why it cannot be; found once a subject (the context
    keeps it for the other rule that reads it)."""
    key = (JUDGED, subject.path, subject.id)
    known: list[tuple[Measurement, Judged | Unjudged]] | None = context.memo.get(key)
    if known is None:
        known = context.memo[key] = _judged(subject, context)
    return known


#: The memo key of a subject's judged measurements (with its path and id).
JUDGED = "judged measurements"


def _judged(
    subject: Entry | Model, context: Context
) -> list[tuple[Measurement, Judged | Unjudged]]:
    found: list[tuple[Measurement, Judged | Unjudged]] = []
    for measurement in subject.measurements:
        try:
            if isinstance(subject, Model):
                found.append(
                    (measurement, judge_model(subject, measurement, context.devices, context.cards))
                )
            else:
                evaluator = context.evaluator
                if evaluator is None or not context.evaluable:
                    return []  # the formula rules say why
                found.append((measurement, judge_card(evaluator, measurement, context.devices)))
        except Unjudged as why:
            found.append((measurement, why))
    return found


@rule(MEASUREMENT_WORKLOAD, "measurement-workload", Scope.ENTRY, also=(Scope.MODEL,))
def measurement_workload(subject: Entry | Model, context: Context) -> Iterable[Diagnostic]:
    """A measurement's workload can be evaluated: a device of the catalog with the figures,
    values inside the card's ranges (the model's offered deployments), the right scope.

    ## What it checks
    That the measurement's `device` is in the catalog with every figure the card reads, that
    each value of `set` is a symbol of the card inside its range (for a model, that
    `deployment` is one `kb estimate` accepts for it), that a card's measurement has scope
    `kernel` and a model's `step` (with its `phase`) or `request`, and that its result is a
    positive, finite quantity of the right kind: a time, a FLOP or byte rate for a card, a
    token rate for a model's step (the schema holds the unit, KB105, and an editor shows it).
    An editor cannot show the rest: the catalog, the card's ranges and the model's
    deployments are other files, and a range or a zero is arithmetic a JSON Schema cannot do.
    ## Why it matters
    A measurement is judged against the bound at its workload; one that cannot be evaluated
    would seem to agree with the card.
    ## How to fix
    Name the device by its catalog id, set the symbols to the measured shape (widen a range
    the measurement shows too narrow, with its source), or record the measurement where it
    belongs: a whole model's in its model file.
    ## Fails
    ```yaml
    measurements:
      - {id: a, device: nvidia-h100-sxm, set: {B: 4096}, software: {name: x, version: "1"},
         scope: kernel, time: 700 us, how: timed, source: {reference:
         "https://doi.org/10.1145/1498765.1498785", read: "2026-12-02", where: Table 1}}
    ```
    ## Passes
    ```yaml
    measurements:
      - {id: a, device: nvidia-h100-sxm, set: {B: 16}, software: {name: x, version: "1"},
         scope: kernel, time: 700 us, how: timed, source: {reference:
         "https://doi.org/10.1145/1498765.1498785", read: "2026-12-02", where: Table 1}}
    ```
    """
    pointed: set[str] = set()
    for measurement, outcome in judged(subject, context):
        device = measurement.device
        if isinstance(subject, Entry) and device not in context.devices:
            continue  # known-device (KB204) says so, once
        broken = context.broken_devices.get(device)
        if broken is not None:
            if device not in pointed:  # its errors are reported on its own file
                pointed.add(device)
                yield measurement.where.error(
                    MEASUREMENT_WORKLOAD,
                    f"device '{device}' is defined in {broken}, which has errors",
                    f"fix {broken} first",
                    at=("device",),
                )
            continue
        if isinstance(outcome, Unjudged):
            yield measurement.where.error(
                MEASUREMENT_WORKLOAD,
                f"measurement '{measurement.id}' cannot be judged: {outcome.message}",
                outcome.hint,
                at=outcome.at,
                key=outcome.key,
            )


@rule(MEASURED_NOT_BELOW_BOUND, "measured-not-below-bound", Scope.ENTRY, also=(Scope.MODEL,))
def measured_not_below_bound(subject: Entry | Model, context: Context) -> Iterable[Diagnostic]:
    """No measurement is faster than the lower bound: a card's at its workload, a model's
    floor (the largest roof total over its rows) at its deployment.

    ## What it checks
    That each measured time (a throughput turned into the time it stands for), at its last
    printed digit, is at least the bound worked out on its device's datasheet figures.
    An editor cannot show this: a JSON Schema sees one file's data, not the files around it.
    ## Why it matters
    A lower bound above a measured time is not a bound: the card's formula, a device figure or
    the measurement is wrong, and every number drawn from it misleads. A model's step between
    its floor and the serial sum of its rows is allowed (work overlapped); below the floor no
    overlap explains it.
    ## How to fix
    Read the measurement against its source again (the shape, the dtype, what the time
    counts); then the card's formula (does it count work the kernel does not do?) and the
    device figures. Do not adjust the measurement to fit.
    ## Fails
    ```yaml
    measurements:
      - {id: a, device: nvidia-h100-sxm, software: {name: x, version: "1"}, scope: kernel,
         time: 500 us, how: timed, source: {reference: "https://doi.org/10.1145/1498765.1498785",
         read: "2026-12-02", where: Table 1}}
    ```
    ## Passes
    ```yaml
    measurements:
      - {id: a, device: nvidia-h100-sxm, software: {name: x, version: "1"}, scope: kernel,
         time: 700 us, how: timed, source: {reference: "https://doi.org/10.1145/1498765.1498785",
         read: "2026-12-02", where: Table 1}}
    ```
    """
    for measurement, outcome in judged(subject, context):
        if isinstance(outcome, Judged) and outcome.below:
            bound = "floor" if outcome.serial_s is not None else "lower bound"
            figures = f" ({', '.join(outcome.figures)})" if outcome.figures else ""
            yield measurement.where.error(
                MEASURED_NOT_BELOW_BOUND,
                f"measurement '{measurement.id}' on {outcome.device}: measured "
                f"{format_quantity(outcome.measured_s, 's')} is below the {bound} "
                f"{format_quantity(outcome.bound_s, 's')}, {outcome.roof}-bound{figures}",
                "a bound above a measured time is not a bound: check the measurement against "
                "its source, then the formulas and the device figures",
                at=(measurement.result_key,),
            )


def cited_fractions(devices: Iterable[Device]) -> dict[str, list[str]]:
    """Card id -> the device paths whose achieved fractions cite one of its measurements:
    what a check of that card re-checks."""
    found: dict[str, list[str]] = {}
    for device in devices:
        for fraction in device.achieved.values():
            for row in fraction.by_class:
                for key in row.measurements:
                    found.setdefault(key.partition("#")[0], []).append(device.path)
    return found


@rule(FRACTION_MEASUREMENTS, "fraction-within-measurements", Scope.DEVICE)
def fraction_within_measurements(device: Device, context: Context) -> Iterable[Diagnostic]:
    """An achieved fraction by class that rests on measurements lies within the range they
    show.

    ## What it checks
    That each measurement a `by_class` value names (`<card-id>#<id>`) exists, was made on this
    device, is of a card of that class bound by this figure's roof at its workload (for a
    ranged value, with its message size in the range), and that the value lies between the
    smallest and the largest of their achieved fractions of the bound, as far as the value's
    last written digit rounds (0.67 stands for 0.665 to 0.675).
    An editor cannot show this: a JSON Schema sees one file's data, not the files around it.
    ## Why it matters
    `kb eval --derated` and whole-model estimates divide by these values, and the site shows
    an "expected at about" time from them: a value the measurements do not bear out would
    pass for measured.
    ## How to fix
    Set the value within the range the named measurements show (`kb eval CARD --on DEVICE`
    prints each one's fraction), or name the measurements it rests on.
    ## Fails
    ```yaml
    achieved_fraction:
      memory_bandwidth:
        by_class:
          - {class: decode_gemm, value: 0.9, measurements: [gemm/none#missing]}
    ```
    ## Passes
    ```yaml
    achieved_fraction:
      memory_bandwidth:
        by_class:
          - {class: decode_gemm, value: 0.9, source: sheet}
    ```
    """
    if not context.cited_cards_read:
        return
    for figure, fraction in device.achieved.items():
        roof = next((r.name for r in ROOFS if r.figure == figure), None)
        for row in fraction.by_class:
            shown: list[float] = []
            for index, key in enumerate(row.measurements):
                at = ("measurements", index)
                card_id, _, measurement_id = key.partition("#")
                evaluator = context.cards.get(card_id)
                measurement = (
                    None
                    if evaluator is None
                    else next(
                        (m for m in evaluator.entry.measurements if m.id == measurement_id), None
                    )
                )
                if evaluator is None or measurement is None:
                    yield row.where.error(
                        FRACTION_MEASUREMENTS, f"{key}: no such measurement", at=at
                    )
                    continue
                problem = _cited_problem(
                    device, evaluator, measurement, row.cls, roof, context.devices
                )
                if isinstance(problem, str):
                    yield row.where.error(FRACTION_MEASUREMENTS, f"{key}: {problem}", at=at)
                    continue
                if row.message is not None and not (
                    problem.message_bytes is not None
                    and row.message[0] <= problem.message_bytes <= row.message[1]
                ):
                    size = (
                        "no message size"
                        if problem.message_bytes is None
                        else format_quantity(problem.message_bytes, "B")
                    )
                    yield row.where.error(
                        FRACTION_MEASUREMENTS,
                        f"{key}: its message ({size}) is outside the value's message sizes",
                        at=at,
                    )
                    continue
                shown.append(problem.fraction)
            # A value written to two places stands for the range it rounds: 0.67 for 0.6681.
            slack = half_last_digit(repr(row.value))
            if shown and not min(shown) - slack <= row.value <= max(shown) + slack:
                yield row.where.error(
                    FRACTION_MEASUREMENTS,
                    f"{figure} for {row.cls} is {number(row.value)}, outside what its "
                    f"measurements show: {number(min(shown))} to {number(max(shown))} of the bound",
                    f"set a value between {number(min(shown))} and {number(max(shown))}",
                    at=("value",),
                )


def _cited_problem(
    device: Device,
    evaluator: Evaluator,
    measurement: Measurement,
    cls: str,
    roof: str | None,
    devices: Mapping[str, Device],
) -> Judged | str:
    """The cited measurement judged, or what makes it no ground for this value."""
    entry = evaluator.entry
    if measurement.device != device.id:
        return f"measured on {measurement.device}, not on {device.id}"
    if entry.cls != cls:
        return f"{entry.id} is of class {entry.cls}, not {cls}"
    try:
        outcome = judge_card(evaluator, measurement, devices)
    except Unjudged as why:
        return f"cannot be judged: {why.message}"
    if outcome.roof != roof:
        return f"bound by {outcome.roof} at its workload, not by this figure's roof ({roof})"
    return outcome
