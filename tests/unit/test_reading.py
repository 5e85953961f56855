"""What a reader is shown first: the knowledge base's featured devices (kb.yaml, checked as
hostile input like every file), devices' short names, and values as people read them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bottleneck_kb.checking.run import check
from bottleneck_kb.core.numbers import amount, amount_range, format_quantity
from bottleneck_kb.knowledge.base import KnowledgeBase
from bottleneck_kb.knowledge.config import CONFIG_FILE, Config, read_config
from bottleneck_kb.records.device import derived_short_name
from bottleneck_kb.site.pages.build import build_site
from bottleneck_kb.site.pages.html import Options

DEVICES = ["amd-instinct-mi300x", "nvidia-h100-sxm"]


def lines(root: Path) -> list[str]:
    return [f"{d.path}:{d.line}:{d.col}: {d.code} {d.message}" for d in check(root).diagnostics]


def test_without_kb_yaml_the_first_devices_by_id_are_featured(kb_root: Path) -> None:
    assert read_config(kb_root) == (Config(), [])
    assert Config().featured(list(reversed(DEVICES))) == DEVICES
    assert Config(("nvidia-h100-sxm", "gone")).featured(DEVICES) == ["nvidia-h100-sxm"]


def test_kb_check_locates_an_unknown_featured_device_and_a_wrong_shape(kb_root: Path) -> None:
    (kb_root / CONFIG_FILE).write_text(
        "featured_devices:\n  - nvidia-h100-sxm\n  - nvidia-h100\n", encoding="utf-8"
    )
    assert lines(kb_root) == ["kb.yaml:3:5: KB204 no device 'nvidia-h100' in hardware/"]
    (_, found) = read_config(kb_root, dict.fromkeys(DEVICES))
    assert found[0].hint == (
        "did you mean 'nvidia-h100-sxm'? allowed devices: amd-instinct-mi300x, nvidia-h100-sxm"
    )
    # A check of one file says it too: a removed device may be one it features.
    entry = kb_root / "entries" / "fixtures" / "minimal.yaml"
    assert [d.code for d in check(kb_root, [entry]).diagnostics] == ["KB204"]
    (kb_root / CONFIG_FILE).write_text(
        "featured_devices: nvidia-h100-sxm\nfeatured: []\n", encoding="utf-8"
    )
    assert [line.split(" ", 2)[:2] for line in lines(kb_root)] == [
        ["kb.yaml:1:19:", "KB104"],
        ["kb.yaml:2:1:", "KB102"],
    ]


def test_naming_kb_yaml_on_the_command_line_checks_it_and_is_no_unread_file(
    kb_root: Path,
) -> None:
    (kb_root / CONFIG_FILE).write_text("featured_devices: [nope]\n", encoding="utf-8")
    found = check(kb_root, [kb_root / CONFIG_FILE]).diagnostics
    assert [(d.path, d.code) for d in found] == [("kb.yaml", "KB204")]


@pytest.mark.parametrize(
    ("written", "code"),
    [
        ("featured_devices: [", "KB001"),
        ("- a list\n", "KB008"),
        ("featured_devices: [nvidia-h100-sxm, nvidia-h100-sxm]\n", "KB105"),
        ("featured_devices: [" + ", ".join(f"d{i}" for i in range(7)) + "]\n", "KB105"),
        ("featured_devices: &a [nvidia-h100-sxm]\n", "KB003"),
    ],
)
def test_a_hostile_configuration_is_a_located_error_and_the_defaults_hold(
    kb_root: Path, written: str, code: str
) -> None:
    (kb_root / CONFIG_FILE).write_text(written, encoding="utf-8")
    config, found = read_config(kb_root, dict.fromkeys(DEVICES))
    assert config == Config()
    assert [d.code for d in found] == [code]
    assert KnowledgeBase.load(kb_root).config == Config()


def test_a_configuration_linked_from_outside_the_repository_is_not_read(
    kb_root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text("featured_devices: [nvidia-h100-sxm]\n", encoding="utf-8")
    os.symlink(outside, kb_root / CONFIG_FILE)
    config, found = read_config(kb_root)
    assert config == Config()
    assert [(d.code, d.message) for d in found] == [
        ("KB011", "is a symlink pointing outside the repository")
    ]


def test_the_pages_lead_with_the_configured_devices(kb_root: Path) -> None:
    (kb_root / CONFIG_FILE).write_text(
        "featured_devices: [nvidia-h100-sxm, amd-instinct-mi300x]\n", encoding="utf-8"
    )
    page = build_site(kb_root, Options()).pages["entries/fixtures/minimal.md"]
    answer = page.split('<section class="kb-answer"', 1)[1].split("</section>", 1)[0]
    rows = answer.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert rows.index('data-device="nvidia-h100-sxm"') < rows.index(
        'data-device="amd-instinct-mi300x"'
    )
    assert '<p class="kb-answer-verdict"><strong>memory-bound on all 2 devices</strong>' in answer
    # The answer comes before the card's own words, and its table names devices by short name.
    assert page.index('<section class="kb-answer"') < page.index('class="kb-prose kb-summary"')
    assert 'title="NVIDIA H100 SXM5 80GB">H100 SXM5 80GB</a>' in answer


def test_a_short_name_is_derived_from_the_name_by_the_schemas_rule() -> None:
    assert derived_short_name("NVIDIA B200 (HGX B200, 1000 W)", "NVIDIA") == "B200"
    assert derived_short_name("AMD Instinct MI300X OAM", "AMD") == "Instinct MI300X OAM"
    assert derived_short_name("Acme", "Acme") == "Acme"
    assert derived_short_name("(x)", "Acme") == "(x)"


def test_values_are_written_as_people_read_them() -> None:
    assert amount(6.74e9, "parameters") == "6.74 G parameters"
    assert amount(128256, "tokens") == "128,256 tokens"
    assert amount(153906.2, "tokens") == "153,900 tokens"
    assert amount(346.08, "tokens") == "346.1 tokens"
    assert amount(3.6e-6, "s") == "3.6 µs"
    assert amount(1.05e9, "B") == "1.05 GB"
    assert amount(0.25, None) == "0.25"
    assert amount_range(1e6, 1e9, "tokens") == "1 M to 1 G tokens"
    assert amount_range(1e3, 1e9, "B") == "1 kB to 1 GB"
    # 0.9995 rounds to 1.0, as 1.0 is written: no "1 FLOP/B" beside "1.0 FLOP/B".
    assert format_quantity(0.9995, "FLOP/B") == format_quantity(1.0, "FLOP/B") == "1.0 FLOP/B"


def test_a_featured_device_whose_file_has_errors_is_said_once_there(kb_root: Path) -> None:
    (kb_root / CONFIG_FILE).write_text("featured_devices: [nvidia-h100-sxm]\n", encoding="utf-8")
    device = kb_root / "hardware" / "nvidia-h100-sxm.yaml"
    device.write_text(device.read_text("utf-8").replace("vendor: NVIDIA", "vendor: 7"), "utf-8")
    assert {d.path for d in check(kb_root).diagnostics} == {"hardware/nvidia-h100-sxm.yaml"}
