"""The hardware catalog: the schema is its only vocabulary, figures convert as documented,
and the catalog's devices are the ones the issue lists, each clean under every rule."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bottleneck_kb import schemas
from bottleneck_kb.checking.run import check
from bottleneck_kb.core.diagnostics import Severity
from bottleneck_kb.knowledge.base import Catalog
from bottleneck_kb.records import fields
from bottleneck_kb.records.device import Device, build_device
from bottleneck_kb.records.quantity import Dimension
from bottleneck_kb.rules import REGISTRY
from bottleneck_kb.rules.catalog import DTYPE_ORDER, LOOKS_SPARSE, RIDGE
from bottleneck_kb.source import load

from ..conftest import FIXTURES, copy_repository, write_example

SOURCES = """\
sources:
  - {id: sheet, title: A datasheet, url: https://example.com/sheet, publisher: Vendor,
     kind: vendor, read: "2026-11-29"}
  - {id: bench, title: A benchmark, url: https://example.com/bench, publisher: Someone,
     kind: secondary, read: "2026-11-29"}
"""

DEVICE = (
    """\
id: test-device
name: Test device
vendor: Test
memory_capacity: {value: 80 GB, source: sheet}
memory_bandwidth:
  value: 3.35 TB/s
  source: sheet
  measured: {value: 2.9 TB/s, how: copy of 4 GiB buffers, source: bench}
interconnect_bandwidth:
  {value: 900 GB/s, direction: both_directions, source: sheet,
   measured: {value: 750 GB/s, how: p2p test both ways at once, source: bench}}
scale_up_domain: {value: 8, source: sheet}
launch_latency: {value: 3 us, source: bench, basis: measured}
peak_flops:
  tf32: {value: 494.7 TFLOP/s, source: sheet}
  bf16: {value: 989.4 TFLOP/s, source: sheet}
  fp8: {value: 1978.9 TFLOP/s, source: sheet, basis: derived, note: half the sparse one}
achieved_fraction:
  memory_bandwidth: {value: 0.8, source: bench}
"""
    + SOURCES
)


def _device(text: str) -> Device:
    document, problems = load(text.encode(), "hardware/test-device.yaml")
    assert document is not None and problems == []
    assert schemas.validate(schemas.HARDWARE, document) == []
    device, invalid = build_device(document)
    assert device is not None and invalid == []
    return device


def test_figures_convert_to_the_models_units() -> None:
    device = _device(DEVICE)

    assert device.parameter("memory_capacity") is not None
    assert device.quantities["memory_capacity"].value == 80e9
    assert device.memory_bandwidth == 3.35e12
    interconnect = device.parameter("interconnect_bandwidth")
    assert interconnect is not None and interconnect.value == 450e9  # both directions halved
    domain = device.parameter("scale_up_domain")
    assert domain is not None and domain.value == 8.0
    latency = device.parameter("launch_latency")
    assert latency is not None and latency.value == pytest.approx(3e-6)
    peak = device.parameter("peak_flops.fp8")
    assert peak is not None and peak.value == pytest.approx(1978.9e12)


def test_per_value_metadata_measured_values_and_fractions() -> None:
    device = _device(DEVICE)

    fp8 = device.figures["peak_flops.fp8"]
    assert (fp8.source, fp8.basis, fp8.note) == ("sheet", "derived", "half the sparse one")
    assert device.figures["peak_flops.bf16"].basis == "datasheet"
    assert device.figures["launch_latency"].basis == "measured"
    assert device.figures["interconnect_bandwidth"].direction == "both_directions"
    measured = device.figures["memory_bandwidth"].measured
    assert measured is not None and measured.how == "copy of 4 GiB buffers"
    assert set(device.measured) == {"memory_bandwidth", "interconnect_bandwidth"}
    assert device.measured["memory_bandwidth"] == measured.value
    assert device.measured["memory_bandwidth"].value == 2.9e12
    assert device.measured["interconnect_bandwidth"].value == 375e9  # converted like the figure
    assert device.achieved_fraction == {"memory_bandwidth": 0.8}
    assert [(s.id, s.kind, s.read) for s in device.sources] == [
        ("sheet", "vendor", "2026-11-29"),
        ("bench", "secondary", "2026-11-29"),
    ]


def test_a_per_direction_link_is_taken_as_written() -> None:
    text = DEVICE.replace(
        "{value: 900 GB/s, direction: both_directions", "{value: 450 GB/s, direction: per_direction"
    )
    interconnect = _device(text).parameter("interconnect_bandwidth")
    assert interconnect is not None and interconnect.value == 450e9


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if "$ref" in node:
            yield node["$ref"].removeprefix("#/$defs/")
        for value in node.values():
            yield from _refs(value)


def test_parameters_and_their_dimensions_come_from_the_schema() -> None:
    hardware = schemas.schema(schemas.HARDWARE)
    definitions = hardware["$defs"]
    expected: dict[str, str] = {}
    for name, node in hardware["properties"].items():
        if "$ref" in node and "x-dimension" in definitions[node["$ref"].split("/")[-1]]:
            expected[name] = definitions[node["$ref"].split("/")[-1]]["x-dimension"]
    for dtype, row in hardware["properties"]["peak_flops"]["properties"].items():
        expected[f"peak_flops.{dtype}"] = definitions[row["$ref"].split("/")[-1]]["x-dimension"]

    assert fields.parameter_names() == tuple(expected)
    assert {name: fields.parameter_dimension(name) for name in expected} == {
        name: None if dimension == "count" else Dimension[dimension.upper()]
        for name, dimension in expected.items()
    }
    assert fields.parameter_dimension("interconnect_bandwidth") is Dimension.BANDWIDTH
    assert fields.parameter_dimension("scale_up_domain") is None


def test_the_entry_dtypes_are_the_hardware_rows_in_order_and_written_once() -> None:
    """The entry schema's dtype enum is derived from the hardware schema's peak_flops rows:
    the package's source names them and holds no list of its own, which would be a second
    place to edit."""
    source = json.loads((Path(schemas.__file__).parent / "entry.schema.json").read_bytes())
    written = source["properties"]["arithmetic_intensity"]["properties"]["dtype"]
    assert "enum" not in written
    assert written[schemas.ENUM_KEYS_OF] == "hardware.schema.json#/properties/peak_flops/properties"
    entry = schemas.schema(schemas.ENTRY)
    derived = entry["properties"]["arithmetic_intensity"]["properties"]["dtype"]["enum"]
    rows = schemas.schema(schemas.HARDWARE)["properties"]["peak_flops"]["properties"]
    assert derived == list(rows) == list(fields.dtype_traits())


def test_every_dtype_declares_its_width_and_whether_it_is_a_tensor_type() -> None:
    rows = schemas.schema(schemas.HARDWARE)["properties"]["peak_flops"]["properties"]
    assert all(
        isinstance(r["x-bits"], int) and isinstance(r["x-tensor"], bool) for r in rows.values()
    )


def test_adding_a_dtype_to_the_schema_needs_no_python_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hardware = copy.deepcopy(schemas.schema(schemas.HARDWARE))
    rows = hardware["properties"]["peak_flops"]["properties"]
    rows["fp6"] = {**rows["fp8"], "title": "FP6", "x-bits": 6}
    real = schemas.schema

    def patched(kind: str, words: schemas.Words = schemas.BUILT_IN) -> dict[str, Any]:
        return hardware if kind == schemas.HARDWARE else real(kind, words)

    monkeypatch.setattr(schemas, "schema", patched)
    # The validators are built from the schema once: built again from the patched one.
    caches = (
        fields.field_shapes,
        fields.dtype_traits,
        fields.parameter_names,
        schemas._fast_validator,
        schemas._reference_validator,
    )
    for cached in caches:
        cached.cache_clear()
    try:
        assert "peak_flops.fp6" in fields.parameter_names()
        assert fields.parameter_dimension("peak_flops.fp6") is Dimension.FLOP_RATE
        device = _device(
            DEVICE.replace(
                "peak_flops:\n", "peak_flops:\n  fp6: {value: 1 TFLOP/s, source: sheet}\n"
            )
        )
        assert device.peak_flops["fp6"].value == 1e12

        from bottleneck_kb.rules import catalog

        found = list(catalog.narrower_not_slower(device, None))
        assert [d.code for d in found] == [DTYPE_ORDER]
        assert "fp6 peak 1 TFLOP/s is below fp8 peak 1.979 PFLOP/s" in found[0].message
    finally:
        for cached in caches:
            cached.cache_clear()


SPARSE_FP8 = FIXTURES / "rules" / LOOKS_SPARSE / "sparse-fp8.yaml"


def test_a_note_silences_the_sparse_warning(kb_root: Path) -> None:
    fixture = SPARSE_FP8.read_text(encoding="utf-8")
    noted = fixture.replace(
        "fp8: {value: 3957.8 TFLOP/s}", "fp8: {value: 3957.8 TFLOP/s, note: dense}"
    )
    assert noted != fixture
    write_example(kb_root, REGISTRY[LOOKS_SPARSE], noted)

    assert check(kb_root).diagnostics == []


def test_a_sparse_figure_is_a_warning_that_names_it(kb_root: Path) -> None:
    write_example(kb_root, REGISTRY[LOOKS_SPARSE], SPARSE_FP8.read_text(encoding="utf-8"))

    [found] = check(kb_root).diagnostics
    assert (found.code, found.severity) == (LOOKS_SPARSE, Severity.WARNING)
    assert found.message.startswith("fp8 peak 3.958 PFLOP/s is 2.0x what bf16 predicts")


#: The devices issue 12 asks the catalog to cover.
REQUIRED_DEVICES = {
    "nvidia-a100-sxm-80gb",
    "nvidia-h100-sxm",
    "nvidia-h100-pcie",
    "nvidia-h200-sxm",
    "nvidia-b200-hgx",
    "nvidia-gb200",
    "nvidia-l40s",
    "nvidia-rtx-4090",
    "amd-instinct-mi250x",
    "amd-instinct-mi300x",
    "amd-instinct-mi325x",
    "amd-instinct-mi355x",
    "google-tpu-v5e",
    "google-tpu-v5p",
    "google-tpu-v6e",
    "intel-gaudi-3",
}


def test_the_catalog_covers_the_required_devices_and_each_is_clean(repository: Path) -> None:
    catalog = Catalog.load(repository)
    assert catalog.diagnostics == []
    assert set(catalog.devices) >= REQUIRED_DEVICES
    result = check(repository)
    assert [d for d in result.diagnostics if d.path.startswith("hardware/")] == []


def test_every_derived_value_says_how_and_every_source_was_read_on_a_date(
    repository: Path,
) -> None:
    for device in Catalog.load(repository).devices.values():
        for name, figure in device.figures.items():
            if figure.basis == "derived":
                assert figure.note, f"{device.id} {name}"
        assert all(s.read and s.url.startswith(("https://", "http://")) for s in device.sources)


def test_marketed_capacities_stay_the_datasheets_and_the_drivers_count_is_measured(
    repository: Path,
) -> None:
    """CONTRIBUTING's rule for capacities: the value is the datasheet's in its own unit (claims
    are judged on it), what the driver reports is the measured value."""
    devices = Catalog.load(repository).devices
    mib = 2.0**20
    # nvidia-smi's totals: NVIDIA/nccl issue 1264 (H100 SXM), NVIDIA/cuda-samples issue 311
    # (H200), thundergolfer.com's NVML table (A100 80GB, L40S).
    reported = {
        "nvidia-h100-sxm": (80e9, 81559 * mib),
        "nvidia-h200-sxm": (141e9, 143771 * mib),
        "nvidia-a100-sxm-80gb": (80e9, 81920 * mib),
        "nvidia-l40s": (48e9, 46068 * mib),
    }
    for device_id, (datasheet, driver) in reported.items():
        device = devices[device_id]
        assert device.quantities["memory_capacity"].value == datasheet, device_id
        assert device.measured["memory_capacity"].value == driver, device_id
    # Google prints the TPU v5p's capacity in GiB, the amount software can allocate.
    assert devices["google-tpu-v5p"].quantities["memory_capacity"].value == 95 * 2.0**30
    assert "memory_capacity" not in devices["google-tpu-v5p"].measured


def test_a_device_failing_its_own_rules_is_reported_once_on_its_file(tmp_path: Path) -> None:
    """A measured peak of 1e-300 FLOP/s makes every time on the device's measured figures
    infinite: the device's ridge point says so, and entries are not checked on it (they were
    each told, and `kb check` ended in an internal error writing one of the messages); those
    that name it are pointed to its file."""
    root = copy_repository(tmp_path / "kb")
    h100 = root / "hardware" / "nvidia-h100-sxm.yaml"
    text = h100.read_text(encoding="utf-8")
    measured = "measured: {value: 1.0e-300 FLOP/s, how: A GEMM benchmark., source: klockwood-h100}"
    written = text.replace(
        "  bf16:\n    value: 989.4 TFLOP/s\n",
        f"  bf16:\n    {measured}\n    value: 989.4 TFLOP/s\n",
    )
    assert written != text
    h100.write_text(written, encoding="utf-8")

    found = check(root).diagnostics

    device, *pointers = found
    assert (device.path, device.code) == ("hardware/nvidia-h100-sxm.yaml", RIDGE)
    assert "on measured figures" in device.message
    # Entries that name the device are pointed to its file, once each, and told nothing else.
    assert pointers
    assert len({d.path for d in pointers}) == len(pointers)
    for pointer in pointers:
        # A model's measurement on the device is pointed there as an entry is (KB703 is the
        # model's code for a device its measurement cannot be judged on).
        assert pointer.code == ("KB703" if pointer.path.startswith("models/") else "KB204")
        assert pointer.message == (
            "device 'nvidia-h100-sxm' is defined in hardware/nvidia-h100-sxm.yaml, which has errors"
        )


def test_a_symbol_may_be_bounded_by_exactly_the_device_figures_that_count() -> None:
    """The entry schema's device_count lists what `at_most` may name: the hardware schema's
    figures without a unit (a copy kept for editors' completion, tied here)."""
    counts = schemas.vocabulary(schemas.ENTRY, "device_count")
    assert counts
    assert list(counts) == [n for n, s in fields.field_shapes().items() if s.dimension is None]
    assert set(counts) <= set(schemas.vocabulary(schemas.ENTRY, "device_figure"))
