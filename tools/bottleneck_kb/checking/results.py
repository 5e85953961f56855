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
