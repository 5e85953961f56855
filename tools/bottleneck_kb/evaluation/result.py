"""What an evaluation gives: the work at one assignment (FLOPs and bytes, which do not depend on the
device), one device's result on its roofs, and the basis of the figures used."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from ..records.device import Device
from .roofs import CAPACITY, COMPUTE, MEMORY


@dataclass(frozen=True, slots=True)
class Work:
    """FLOPs and bytes at one assignment: everything that does not depend on the device."""

    values: Mapping[str, float]
    flops: float
    bytes: float
    workaround: int | None = None
    #: The other roofs' values that read no device figure, by formula name, computed on the
    #: first device asked and the same on every other (a sweep asks every device).
    shared: dict[str, float] = field(default_factory=dict, compare=False, repr=False)


#: The basis of every figure of an evaluation on datasheet figures, shared by all of them.
_DATASHEET: Mapping[str, str] = MappingProxyType(
    {"peak_flops": "datasheet", "memory_bandwidth": "datasheet"}
)


@dataclass(slots=True)
class Result:
    """An entry's work on one device's roofs. Read-only by convention, not frozen: `kb check`
    builds one per device for every entry, and frozen dataclasses build at half the speed."""

    device: str
    values: Mapping[str, float]
    flops: float
    bytes: float
    peak: float
    bandwidth: float
    #: The time each roof gives, by the `bound_by` value that names the roof.
    times: dict[str, float]
    #: The other formulas' values (interconnect_bytes, latency, footprint) where given.
    quantities: Mapping[str, float] = field(default_factory=dict)
    #: The derived values, by name.
    derived: Mapping[str, float] = field(default_factory=dict)
    #: The device's memory capacity, where the entry gives a footprint to compare with it.
    capacity: float | None = None
    #: Where each device figure came from, by figure: `datasheet`, `measured`, or
    #: `datasheet, derated` when a typical achieved fraction of peak was applied.
    basis: Mapping[str, str] = field(default_factory=lambda: _DATASHEET)

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes

    @property
    def ridge(self) -> float:
        return self.peak / self.bandwidth

    @property
    def fits(self) -> bool:
        """The footprint fits in the device's memory (True when the entry gives none)."""
        footprint = self.quantities.get("footprint")
        return footprint is None or self.capacity is None or footprint <= self.capacity

    @property
    def verdict(self) -> str:
        """What binds: capacity where the footprint does not fit, else the roof that sets the
        lower bound (the first listed wins a tie)."""
        if not self.fits:
            return CAPACITY.name
        times = self.times
        return max(times, key=times.__getitem__)

    @property
    def compute_time(self) -> float:
        return self.times[COMPUTE]

    @property
    def memory_time(self) -> float:
        return self.times[MEMORY]

    @property
    def time(self) -> float:
        """The roofline's lower bound on the kernel's time: the slowest roof, overlap assumed."""
        return max(self.times.values())

    def quantity(self, name: str) -> float | None:
        """A computed value by the name checks' `expect` uses for it; None when the entry
        gives no formula for it."""
        if name == "flops":
            return self.flops
        if name == "bytes":
            return self.bytes
        if name == "intensity":
            return self.intensity
        if name == "time":
            return self.time
        return self.quantities.get(name)


@dataclass(frozen=True, slots=True)
class Basis:
    """Which device figures an evaluation uses: the datasheet's (the default, and what claims
    are judged on), measured ones where the catalog has them, and whether typical achieved
    fractions of peak are applied."""

    measured: bool = False
    derated: bool = False

    @property
    def words(self) -> str:
        """`measured and derated`: how messages name figures other than the datasheet's."""
        return " and ".join(
            w for w, on in (("measured", self.measured), ("derated", self.derated)) if on
        )


DATASHEET = Basis()


#: Every basis a command may evaluate on (`kb eval --basis measured --derated`).
BASES = (DATASHEET, Basis(measured=True), Basis(derated=True), Basis(measured=True, derated=True))


def basis_figure(
    device: Device,
    name: str,
    datasheet: float,
    basis: Basis,
    cls: str | None = None,
    message_bytes: float | None = None,
) -> tuple[float, str]:
    """A figure on `basis`: a measured value is what was achieved, so it is never derated;
    derated, by the achieved fraction for a card of class `cls` (whose message is
    `message_bytes`) where the device gives one, else by the figure-wide fraction."""
    if basis.measured and name in device.measured:
        return device.measured[name].value, "measured"
    if not basis.derated:
        return datasheet, "datasheet"
    figure = name.partition(".")[0]
    by_class = None if cls is None else device.class_fraction(figure, cls, message_bytes)
    if by_class is not None:
        return datasheet * by_class.value, f"datasheet, derated for {cls}"
    fraction = device.achieved_fraction.get(figure)
    if fraction is not None:
        return datasheet * fraction, "datasheet, derated"
    return datasheet, "datasheet"


def verdict_summary(results: Sequence[Result]) -> str:
    """`memory-bound on all 23 devices`, or `memory-bound on 12 of 16 devices, compute-bound
    on 4`: the verdicts counted, the commonest first (the site's answer says the same)."""
    counts = Counter(r.verdict for r in results).most_common()
    total = len(results)
    devices = f"{total} device{'s' if total != 1 else ''}"
    if len(counts) == 1:
        return f"{counts[0][0]}-bound on {'all ' if total > 1 else ''}{devices}"
    (verdict, count), *rest = counts
    return ", ".join(
        [f"{verdict}-bound on {count} of {devices}", *(f"{v}-bound on {n}" for v, n in rest)]
    )
