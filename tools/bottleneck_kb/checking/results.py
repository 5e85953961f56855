"""What commands produce, apart from how it is produced: reporters and the site import these,
never the checker or the CLI."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.diagnostics import Diagnostic, Severity
from ..records.device import Device


@dataclass(frozen=True)
class CheckResult:
    """The diagnostics of one `kb check` run, and how much it checked."""

    diagnostics: list[Diagnostic]
    entries: int
    devices: int
    #: Model files checked.
    models: int = 0
    #: The measurements judged, each with its achieved fraction of the bound (bound over
    #: measured), by key (`<card-or-model-id>#<id>`).
    measured: list[tuple[str, float]] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(d.severity is Severity.ERROR for d in self.diagnostics)

    @property
    def warnings(self) -> int:
        return sum(d.severity is Severity.WARNING for d in self.diagnostics)

    @property
    def files(self) -> int:
        return len({d.path for d in self.diagnostics})


@dataclass(frozen=True)
class HardwareListing:
    """The devices of the catalog, in catalog order, for `kb hardware`."""

    devices: list[Device]


#: The kinds of file `kb diff` counts as added or removed, in the order it says them.
DIFF_KINDS = ("cards", "devices", "models")
#: The sides `kb diff` compares, as it names them.
BASE_SIDE, WORKING_TREE = "merge base", "working tree"


@dataclass(frozen=True, slots=True)
class Flip:
    """An entry's verdict on a device (what bounds it) that the change turns."""

    entry: str
    device: str
    before: str
    after: str


@dataclass(frozen=True, slots=True)
class Move:
    """A time that the change moves by more than the threshold: an entry's lower bound on a
    device (`quantity` "lower bound"), or a model's estimate there ("prefill", "decode")."""

    subject: str
    device: str
    quantity: str
    before: float
    after: float

    @property
    def change(self) -> float | None:
        """After over before, less one (+0.16: 16 % longer); None from a time of 0 s."""
        return self.after / self.before - 1 if self.before else None


@dataclass(frozen=True, slots=True)
class Turn:
    """A check or a measurement on a device that the change makes fail or pass: `before` is
    None where the base had no such check or measurement there."""

    subject: str
    #: A check's claim, or a measurement's key (`<card-or-model-id>#<id>`).
    what: str
    device: str
    before: bool | None
    after: bool
    detail: str


@dataclass(frozen=True, slots=True)
class Unmatched:
    """A card, device or model that both sides hold but one cannot evaluate, and why."""

    kind: str
    subject: str
    side: str
    why: str


@dataclass(frozen=True)
class Diff:
    """What `kb diff` finds: the working tree against the merge base of a ref and HEAD."""

    ref: str
    #: The merge base's commit.
    base: str
    threshold: float
    #: How many cards, devices and models both sides evaluate, by kind (DIFF_KINDS).
    compared: dict[str, int]
    added: dict[str, list[str]]
    removed: dict[str, list[str]]
    verdicts: list[Flip]
    times: list[Move]
    estimates: list[Move]
    checks: list[Turn]
    measurements: list[Turn]
    unmatched: list[Unmatched]
    #: What kb check refuses on each side: the merge base's files as the installed kb reads
    #: them, and the working tree's.
    base_errors: list[Diagnostic]
    errors: list[Diagnostic]
    #: Files of the merge base not taken from it, by path, with why (a link, past the size).
    unread: dict[str, str] = field(default_factory=dict)

    @property
    def changes(self) -> int:
        """How many things move: files added or removed, verdicts, times, checks."""
        kinds = (self.verdicts, self.times, self.estimates, self.checks, self.measurements)
        files = sum(len(v) for v in (*self.added.values(), *self.removed.values()))
        return files + sum(len(found) for found in kinds)
