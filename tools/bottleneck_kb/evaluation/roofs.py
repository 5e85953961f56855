"""The roofs a kernel's time can be bound by, read from the entry schema's roof table
(`$defs/roof`): adding a roof is a row there, and every layer reads this."""

from __future__ import annotations

from dataclasses import dataclass

from ..schemas import ENTRY, roofs, vocabulary


@dataclass(frozen=True, slots=True)
class Roof:
    """A resource that can set a kernel's time: the `bound_by` value that names it, the
    formula of the entry that gives its demand, and the device figure that demand is divided
    by (None: the formula gives seconds)."""

    name: str
    quantity: str
    figure: str | None


def _table() -> tuple[tuple[Roof, ...], Roof, dict[str, str]]:
    """The roofs of the entry schema's table (`schemas.roofs`): the times, the capacity
    row, and each roof formula's unit."""
    times, capacity, units = [], None, {}
    for row in roofs():
        roof = Roof(row["name"], row["formula"], row["figure"])
        units[roof.quantity] = row["unit"]
        if row.get("capacity"):
            capacity = roof
        else:
            times.append(roof)
    assert capacity is not None, "the roof table has no capacity row"
    return tuple(times), capacity, units


#: The roofs whose times are compared, in the order that breaks ties (the entry schema's
#: roof table, so that a roof is added in one row there).
#: Not a time (CAPACITY): a footprint past the device's memory is what binds, however fast
#: it moves.
ROOFS, CAPACITY, _UNITS = _table()


#: The two roofs every entry has.
COMPUTE, MEMORY = ROOFS[0].name, ROOFS[1].name


#: The formulas an entry may give besides FLOPs and bytes.
OPTIONAL = tuple(r.quantity for r in (*ROOFS, CAPACITY) if r.quantity not in ("flops", "bytes"))


#: The unit of each quantity a check can bound.
UNITS = {"flops": "FLOP", "bytes": "B", "intensity": "FLOP/B", "time": "s", **_UNITS}


def device_figures() -> tuple[str, ...]:
    """The names under which formulas read the device's figures (from the entry schema)."""
    return vocabulary(ENTRY, "device_figure")
