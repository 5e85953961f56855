"""Pull-request mode: `kb check PATHS` and `kb check --changed-since REF` report what a full
run reports on the given files and on every entry that depends on them."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from bottleneck_kb.checking.run import check
from bottleneck_kb.cli import main
from bottleneck_kb.core.codes import NOT_A_FILE
from bottleneck_kb.core.diagnostics import Diagnostic
from bottleneck_kb.knowledge.base import Catalog
from bottleneck_kb.rules.examples import MINIMAL_DEVICE, MINIMAL_ENTRY, patched

from ..conftest import REPOSITORY, copy_repository, git

H100 = "hardware/nvidia-h100-sxm.yaml"
MI300X = "hardware/amd-instinct-mi300x.yaml"
MINIMAL = "entries/fixtures/minimal.yaml"


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """The repository's entries and catalog, and the fixture entry (which names no device)."""
    root = copy_repository(tmp_path / "kb")
    (root / MINIMAL).parent.mkdir(parents=True)
    (root / MINIMAL).write_text(MINIMAL_ENTRY, encoding="utf-8")
    return root


SLOW_MEMORY = patched(
    MINIMAL_DEVICE,
    """
id: slow-memory
memory_bandwidth: {value: 10 GB/s}
peak_flops:
  fp32: {value: 29 TFLOP/s, source: sheet}
  bf16: {value: 29 TFLOP/s}
  fp16: {value: 29 TFLOP/s, source: sheet}
  fp8: {value: 29 TFLOP/s}
""",
)


def every_entry(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in (root / "entries").rglob("*.yaml")}


def every_model(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in (root / "models").glob("*.yaml")}


def full_run_on(root: Path, shown: set[str]) -> list[Diagnostic]:
    return [d for d in check(root).diagnostics if d.path in shown]


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def change_bandwidth(root: Path) -> None:
    edit(root / H100, "  value: 3.35 TB/s", "  value: 3.9 TB/s")


def delete_device(root: Path) -> None:
    (root / MI300X).unlink()


def break_entry(root: Path) -> None:
    edit(root / MINIMAL, "bound_by: memory", "bound_by: memroy")


def claim_a_seed_id(root: Path) -> None:
    # Sorts before the seed it copies, so the full run blames the seed for the duplicate.
    edit(root / MINIMAL, "id: fixtures/minimal", "id: flops/speculative-draft")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mutate", "given", "device"),
    [
        (change_bandwidth, H100, "nvidia-h100-sxm"),
        (delete_device, MI300X, "amd-instinct-mi300x"),
        (break_entry, MINIMAL, None),
    ],
)
def test_given_files_and_their_dependents_match_a_full_run(
    base: Path, mutate: Callable[[Path], None], given: str, device: str | None
) -> None:
    # A changed device re-checks every entry and every model (the models' measurements too).
    dependents = every_entry(base) | every_model(base) if device else set()
    mutate(base)
    shown = {given} | dependents
    target = base / given

    # A deleted file is given as git gives it: named, it is also said not to exist.
    result = check(base, [target]) if target.exists() else check(base, [], removed=[target])

    # kb.yaml is said by every check (a deleted device may be one it features).
    expected = full_run_on(base, shown | {"kb.yaml"})
    assert expected, "the mutation must give the selected files something to report"
    assert result.diagnostics == expected
    assert result.entries == len(shown - {H100, MI300X} - every_model(base))


def test_a_device_edit_checks_every_entry(base: Path) -> None:
    change_bandwidth(base)
    result = check(base, [base / H100])
    assert result.entries == len(every_entry(base))
    assert "KB206" in {d.code for d in result.diagnostics}


def test_a_device_that_fails_an_entry_naming_no_device_is_caught_by_its_own_check(
    base: Path,
) -> None:
    """bound_by is judged on every device: a new device with a slow memory and as fast a
    core on every dtype (ridge point 2,900 FLOP/B, inside the plausible band) makes a
    compute-bound seed memory-bound there, though no seed names it."""
    new = base / "hardware" / "slow-memory.yaml"
    new.write_text(SLOW_MEMORY, encoding="utf-8")

    result = check(base, [new])

    assert result.diagnostics == full_run_on(
        base, every_entry(base) | {"hardware/slow-memory.yaml"}
    )
    assert "KB406" in {d.code for d in result.diagnostics}


def test_an_id_claimed_from_another_file_is_checked_against_it(base: Path) -> None:
    claim_a_seed_id(base)
    seed = "entries/flops/speculative-draft.yaml"

    result = check(base, [base / MINIMAL])

    assert result.diagnostics == full_run_on(base, {MINIMAL, seed})
    # The duplicate is reported on the file that introduces it: the one whose id is not its path.
    assert [(d.path, d.code) for d in result.diagnostics if d.code == "KB202"] == [
        (MINIMAL, "KB202")
    ]


@pytest.mark.parametrize("takes", ["id: fixtures/old-name", "aliases: [fixtures/old-name]"])
def test_an_entry_that_takes_another_entrys_alias_is_checked_against_it(
    base: Path, takes: str
) -> None:
    """The entry holding the alias is re-checked with the new one: as its id (the alias no
    longer redirects) or as an alias of its own (two entries claim the old id)."""
    holder = "entries/fixtures/holder.yaml"
    (base / holder).write_text(
        patched(MINIMAL_ENTRY, "id: fixtures/holder\naliases: [fixtures/old-name]"), "utf-8"
    )
    new = "entries/fixtures/old-name.yaml" if takes.startswith("id") else "entries/a/new.yaml"
    (base / new).parent.mkdir(exist_ok=True)
    (base / new).write_text(patched(MINIMAL_ENTRY, f"id: {new[8:-5]}\n{takes}"), "utf-8")

    result = check(base, [base / new])

    assert result.diagnostics == full_run_on(base, {new, holder})
    taken = {(d.path, d.code) for d in result.diagnostics}
    assert (holder, "KB214") in taken
    assert ((new, "KB214") in taken) is takes.startswith("aliases")


@pytest.fixture
def repository(base: Path) -> Path:
    git(base, "init", "-q", "-b", "main")
    git(base, "add", ".")
    git(base, "commit", "-q", "-m", "base")
    git(base, "checkout", "-q", "-b", "change")
    return base


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", *args], env={"GITHUB_ACTIONS": ""})
    return result.exit_code, result.output


@pytest.mark.slow
def test_changed_since_checks_committed_and_uncommitted_changes(repository: Path) -> None:
    change_bandwidth(repository)
    git(repository, "commit", "-q", "-am", "faster h100")
    break_entry(repository)  # not committed
    added = repository / "entries" / "fixtures" / "added.yaml"
    shutil.copyfile(repository / MINIMAL, added)  # untracked
    edit(added, "id: fixtures/minimal", "id: fixtures/added")

    code, output = run("--root", str(repository), "--changed-since", "main")

    shown = {H100} | every_entry(repository)
    expected = check(repository, [repository / p for p in sorted(shown)])
    assert expected.diagnostics == full_run_on(repository, shown)
    assert code == 1
    _, listed = run("--root", str(repository), *(str(repository / p) for p in sorted(shown)))
    assert output == listed
    assert f"checked {len(shown) - 1} entries" in output.splitlines()[-1]


def test_changed_since_with_nothing_changed_checks_nothing(repository: Path) -> None:
    devices = len(list((repository / "hardware").glob("*.yaml")))
    assert run("--root", str(repository), "--changed-since", "main") == (
        0,
        f"All clear: checked 0 entries against {devices} devices.\n",
    )


def relating(root: Path, entry_id: str) -> set[str]:
    """Entry files whose related list names `entry_id`, found with a plain YAML load."""
    found = set()
    for path in (root / "entries").rglob("*.yaml"):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and any(r["id"] == entry_id for r in data.get("related", [])):
            found.add(path.relative_to(root).as_posix())
    return found


@pytest.mark.slow
def test_a_deleted_entry_re_checks_the_entries_that_relate_to_it(repository: Path) -> None:
    gone = "gemm/decode-weight-gemm"
    dependents = relating(repository, gone)
    assert dependents, "the repository's entries relate to this one; pick another if not"
    (repository / "entries" / f"{gone}.yaml").unlink()

    code, output = run("--root", str(repository), "--changed-since", "main")

    expected = full_run_on(repository, dependents)
    assert {d.code for d in expected} == {"KB212"}
    assert code == 1
    assert output.count(" KB212 ") == len(expected)
    assert f"checked {len(dependents)} entries" in output.splitlines()[-1]


@pytest.mark.slow
def test_staged_checks_what_the_commit_changes_deletions_included(repository: Path) -> None:
    """The pre-commit hook's mode: git's index against HEAD, not the working tree's changes."""
    gone = "gemm/decode-weight-gemm"
    dependents = relating(repository, gone)
    assert dependents, "the repository's entries relate to this one; pick another if not"
    git(repository, "rm", "-q", f"entries/{gone}.yaml")
    break_entry(repository)  # not staged: the hook's commit does not hold it

    code, output = run("--root", str(repository), "--staged")

    assert code == 1
    assert output.count(" KB212 ") == len(full_run_on(repository, dependents))
    assert f"checked {len(dependents)} entries" in output.splitlines()[-1]
    git(repository, "reset", "-q", "--hard")
    devices = len(list((repository / "hardware").glob("*.yaml")))
    assert run("--root", str(repository), "--staged") == (
        0,
        f"All clear: checked 0 entries against {devices} devices.\n",
    )


def test_staged_says_a_file_the_commit_deletes_but_the_disk_keeps(repository: Path) -> None:
    """`git rm --cached` of a device: kb read it from disk, and the hook passed a commit whose
    tree fails."""
    git(repository, "rm", "-q", "--cached", H100)
    code, output = run("--root", str(repository), "--staged")
    assert code == 1
    assert output.splitlines()[-1] == (
        f"kb: {H100} is deleted by this commit but kept on disk, where kb reads it: delete it, "
        "or stage it again"
    )


def test_staged_before_the_first_commit_checks_every_staged_file(base: Path) -> None:
    git(base, "init", "-q", "-b", "main")
    git(base, "add", MINIMAL)
    devices = len(list((base / "hardware").glob("*.yaml")))
    code, output = run("--root", str(base), "--staged")
    assert (code, output) == (0, f"All clear: checked 1 entry against {devices} devices.\n")


def test_staged_and_changed_since_are_one_or_the_other(repository: Path, tmp_path: Path) -> None:
    code, output = run("--root", str(repository), "--staged", "--changed-since", "main")
    assert code == 2
    assert "--staged and --changed-since each choose the changes; give one" in output
    (tmp_path / "alone" / "entries").mkdir(parents=True)
    code, output = run("--root", str(tmp_path / "alone"), "--staged")
    assert (code, output.splitlines()[-1]) == (
        2,
        f"Error: Invalid value for --staged: {tmp_path / 'alone'} is not in a git repository",
    )


def test_an_edited_entry_re_checks_only_itself(base: Path) -> None:
    """Related links name entries that exist: editing one changes no other entry's result."""
    result = check(base, [base / "entries" / "gemm" / "decode-weight-gemm.yaml"])
    assert result.entries == 1


@pytest.mark.slow
def test_a_missing_entry_given_re_checks_the_entries_that_relate_to_it(base: Path) -> None:
    given = "entries/gemm/decode-weight-gemm.yaml"
    dependents = relating(base, "gemm/decode-weight-gemm")
    (base / given).unlink()
    result = check(base, [base / given])
    # The models whose recipes bind the card are checked again too, as a full run finds them.
    models = {d.path for d in result.diagnostics if d.path.startswith("models/")}
    assert models == {p.relative_to(base).as_posix() for p in (base / "models").glob("*.yaml")}
    # So are the device files whose achieved fractions rest on its measurements.
    citing = {"hardware/nvidia-h800-sxm.yaml"}
    assert [d for d in result.diagnostics if d.path != given] == full_run_on(
        base, dependents | models | citing
    )
    assert [d.code for d in result.diagnostics if d.path == given] == [NOT_A_FILE]
    assert result.entries == len(dependents)


def test_a_deleted_entry_is_not_reported_missing(repository: Path) -> None:
    (repository / MINIMAL).unlink()
    assert run("--root", str(repository), "--changed-since", "main")[0] == 0


@pytest.mark.parametrize("ref", ["no-such-branch", "--output=/tmp/owned", "main:hardware"])
def test_a_ref_that_is_not_a_commit_is_a_usage_error(repository: Path, ref: str) -> None:
    code, output = run("--root", str(repository), f"--changed-since={ref}")
    assert code == 2
    assert f"'{ref}' is not a commit of the git repository at {repository}" in output
    assert not Path("/tmp/owned").exists()


def test_catalog_from_another_folder(base: Path, tmp_path: Path) -> None:
    own = tmp_path / "own"
    shutil.copytree(base / "entries", own / "entries")
    count = len(list(own.rglob("*.yaml")))
    devices = len(list((base / "hardware").glob("*.yaml")))
    for catalog in (base, base / "hardware"):
        code, output = run("--root", str(own), "--catalog", str(catalog))
        # The entries' measurements are judged on the other catalog's devices.
        judged, summary = output.splitlines()
        assert (code, summary) == (
            0,
            f"All clear: checked {count} entries against {devices} devices.",
        )
        assert judged.startswith("Judged ") and "achieved fraction of the bound" in judged
    code, output = run("--root", str(own))  # no catalog: every named device is unknown
    assert code == 1
    assert "KB204 no device 'nvidia-h100-sxm' in hardware/" in output


def test_eval_and_hardware_take_the_devices_of_another_catalog(base: Path, tmp_path: Path) -> None:
    """A knowledge base checked against another's catalog is evaluated against it too."""
    own = tmp_path / "own"
    shutil.copytree(base / "entries", own / "entries")
    devices = sorted(p.stem for p in (base / "hardware").glob("*.yaml"))

    def kb(*args: str) -> Result:
        return CliRunner().invoke(main, [*args, "--root", str(own)], env={"GITHUB_ACTIONS": ""})

    evaluated = kb("eval", "fixtures/minimal", "--format", "json", "--catalog", str(base))
    listed = kb("hardware", "--format", "json", "--catalog", str(base / "hardware"))
    alone = kb("eval", "fixtures/minimal", "--format", "json")

    assert evaluated.exit_code == 0, evaluated.output
    # Every device of that catalog with the bf16 peak the entry reads (the L4 has none).
    catalog = Catalog.load(base).devices
    able = sorted(d for d in devices if "bf16" in catalog[d].peak_flops)
    assert sorted(r["device"] for r in json.loads(evaluated.stdout)["results"]) == able
    assert sorted(d["id"] for d in json.loads(listed.stdout)) == devices
    assert json.loads(alone.stdout)["results"] == []


def test_another_catalogs_files_are_named_by_their_whole_path(base: Path, tmp_path: Path) -> None:
    """Named as hardware/x.yaml, an error of the other catalog's file was annotated on this
    repository's file of that name, and the hints sent the reader there."""
    own = tmp_path / "own"
    shutil.copytree(base / "entries", own / "entries")
    (base / "hardware" / "broken.yaml").write_text("id: broken\nname: [unclosed\n", "utf-8")
    edit(base / H100, "id: nvidia-h100-sxm", "id: nvidia-h100-sxm-x")
    catalog = (base / "hardware").absolute()

    code, output = run("--root", str(own), "--catalog", str(base))
    evaluated = CliRunner().invoke(
        main,
        ["eval", "fixtures/minimal", "--root", str(own), "--catalog", str(base), "--on", "broken"],
    )

    assert code == 1
    lines = output.splitlines()
    assert (
        f"{catalog}/broken.yaml:3:1: KB001 YAML syntax error: did not find expected ',' or ']'"
        in lines
    )
    assert any(line.startswith(f"{catalog}/nvidia-h100-sxm.yaml:2:5: KB203 ") for line in lines)
    assert (
        f"    hint: set id: nvidia-h100-sxm, or rename the file to {catalog}/nvidia-h100-sxm-x.yaml"
        in lines
    )
    assert evaluated.output.endswith(f"    hint: run kb check --root {base.absolute()}\n")


@pytest.mark.slow
def test_another_catalogs_schema_lines_are_its_own_business(base: Path, tmp_path: Path) -> None:
    """A knowledge base that publishes schema/ and vendors this catalog (a submodule, or a
    folder beside it) was told to point each of that catalog's devices at its own schema, so
    `--strict` failed on files it does not keep, however the catalog's path was spelled."""
    own = tmp_path / "own"
    shutil.copytree(base / "entries", own / "entries")
    shutil.copytree(REPOSITORY / "schema", own / "schema")
    vendored = own / "vendor" / "bottleneck-kb"
    shutil.copytree(base / "hardware", vendored / "hardware")
    beside = os.path.relpath(base, Path.cwd())  # spelled with ..
    for catalog in (vendored, Path(os.path.relpath(vendored)), Path(beside), base):
        code, output = run("--root", str(own), "--catalog", str(catalog), "--strict")
        assert "KB018" not in output, catalog
    # The knowledge base's own devices, named by --catalog, still get their schema line asked.
    (own / "hardware").mkdir()
    for device in (base / "hardware").iterdir():
        text = device.read_text(encoding="utf-8")
        (own / "hardware" / device.name).write_text(text.partition("\n")[2], "utf-8")
    code, output = run("--root", str(own), "--catalog", str(own), "--strict")
    assert (code, output.count("KB018 warning")) == (1, len(list((own / "hardware").iterdir())))


#: The minimal entry with a check on a device no catalog of these tests holds.
NAMES_MY_GPU = MINIMAL_ENTRY + (
    "checks:\n  - claim: Memory-bound.\n    devices: [my-gpu]\n    expect: {bound_by: memory}\n"
)
MY_GPU = f"{MINIMAL}:{len(MINIMAL_ENTRY.splitlines()) + 3}:15"


def test_a_device_missing_from_another_catalog_is_said_missing_from_that_catalog(
    base: Path, tmp_path: Path
) -> None:
    own = tmp_path / "own"
    (own / MINIMAL).parent.mkdir(parents=True)
    (own / MINIMAL).write_text(NAMES_MY_GPU, encoding="utf-8")
    (own / "hardware").mkdir()
    (own / "hardware" / "my-gpu.yaml").write_text(patched(MINIMAL_DEVICE, "id: my-gpu"), "utf-8")
    catalog = f"{(base / 'hardware').absolute()}/"
    code, output = run("--root", str(own), "--catalog", str(base))
    assert code == 1
    assert f"{MY_GPU}: KB204 no device 'my-gpu' in {catalog}" in output.splitlines()
    # The knowledge base's own device file is not read, and said not to be, in a full run
    # and when it is given.
    unread = (
        f"hardware/my-gpu.yaml:1:1: KB019 is not read: the devices come from the catalog {catalog}"
    )
    assert unread in output.splitlines()
    code, output = run("--root", str(own), "--catalog", str(base), str(own / "hardware"))
    assert (code, output.splitlines()[0]) == (1, unread)


def test_a_device_file_left_out_of_the_catalog_is_said_when_entries_are_given(
    base: Path,
) -> None:
    """Its errors were filtered away, and the entries 'checked against 16 devices' passed."""
    edit(base / H100, "  value: 3.35 TB/s", "  value: 3.35 TBps")

    result = check(base, [base / MINIMAL])

    # A unit of no bandwidth: the schema's unit pattern refuses it (KB105), so the H100 is
    # left out of the catalog.
    assert {(d.path, d.code) for d in result.diagnostics} == {(H100, "KB105")}


def test_an_empty_catalog_is_said_to_have_no_devices(tmp_path: Path) -> None:
    (tmp_path / MINIMAL).parent.mkdir(parents=True)
    (tmp_path / MINIMAL).write_text(NAMES_MY_GPU, encoding="utf-8")
    (tmp_path / "hardware").mkdir()
    code, output = run("--root", str(tmp_path))
    assert code == 1
    assert output.splitlines()[:2] == [
        f"{MY_GPU}: KB204 no device 'my-gpu' in hardware/",
        "    hint: the catalog has no devices",
    ]
    # One device file, with errors: the catalog is not said to be empty.
    (tmp_path / "hardware" / "other-gpu.yaml").write_text("id: other-gpu\n", "utf-8")
    code, output = run("--root", str(tmp_path))
    assert f"{MY_GPU}: KB204 no device 'my-gpu' in hardware/" in output.splitlines()
    assert (
        "    hint: the catalog's device files all have errors; fix them first: "
        "hardware/other-gpu.yaml"
    ) in output.splitlines()


def test_catalog_must_hold_hardware(base: Path, tmp_path: Path) -> None:
    code, output = run("--root", str(base), "--catalog", str(tmp_path))
    assert code == 2
    assert f"{tmp_path} has no hardware/" in output


def test_changes_outside_a_git_repository_are_said_to_be_so(tmp_path: Path) -> None:
    (tmp_path / MINIMAL).parent.mkdir(parents=True)
    (tmp_path / MINIMAL).write_text(MINIMAL_ENTRY, encoding="utf-8")
    code, output = run("--root", str(tmp_path), "--changed-since", "main")
    assert (code, output.splitlines()[-1]) == (
        2,
        f"Error: Invalid value for --changed-since: {tmp_path} is not in a git repository",
    )


# Changes a pull request may make that pull-request mode passed while a full run failed
# (found by a differential fuzzer): each keeps main clean and breaks the branch.
def _move_into_shared_and_link(root: Path, name: str) -> None:
    (root / "shared").mkdir(exist_ok=True)
    target = root / "shared" / Path(name).name
    (root / name).rename(target)
    (root / name).symlink_to(os.path.relpath(target, (root / name).parent))


def _yml_device(root: Path) -> None:
    shutil.copy(root / "hardware" / "nvidia-l40s.yaml", root / "hardware" / "nvidia-l40s-2.yml")


def _entry_linked_to_a_device(root: Path) -> None:
    (root / "entries" / "gemm" / "l40s.yaml").symlink_to("../../hardware/nvidia-l40s.yaml")


def _namespace_made_a_link(root: Path) -> None:
    (root / "shared").mkdir()
    (root / "entries" / "runtime").rename(root / "shared" / "runtime")
    (root / "entries" / "runtime").symlink_to("../shared/runtime", target_is_directory=True)


def _entry_made_a_folder(root: Path) -> None:
    entry = root / "entries" / "runtime" / "launch-overhead.yaml"
    entry.unlink()
    entry.mkdir()
    (entry / "NOTE.md").write_text("moved\n", "utf-8")


def _folder_named_as_an_entry(root: Path) -> None:
    (root / "entries" / "gemm" / "odd.yaml").mkdir()
    (root / "entries" / "gemm" / "odd.yaml" / "README.md").write_text("odd\n", "utf-8")


def _entry_hidden(root: Path) -> None:
    folder = root / "entries" / "speculative"
    (folder / "verification.yaml").rename(folder / ".verification.yaml")


def _linked_entry_edited(root: Path) -> None:
    edit(root / "shared" / "prefill-gemm.yaml", "bound_by: compute", "bound_by: memory")


def _linked_device_edited(root: Path) -> None:
    edit(root / "shared" / "nvidia-l40s.yaml", "value: 864 GB/s", "value: 86400 GB/s")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("on_main", "change"),
    [
        (None, _yml_device),
        (None, _entry_linked_to_a_device),
        (None, _namespace_made_a_link),
        (None, _entry_made_a_folder),
        (None, _entry_hidden),
        (None, _folder_named_as_an_entry),
        (
            lambda r: _move_into_shared_and_link(r, "entries/gemm/prefill-gemm.yaml"),
            _linked_entry_edited,
        ),
        (
            lambda r: _move_into_shared_and_link(r, "hardware/nvidia-l40s.yaml"),
            _linked_device_edited,
        ),
    ],
)
def test_a_change_pull_request_mode_passes_passes_a_full_run(
    base: Path,
    on_main: Callable[[Path], None] | None,
    change: Callable[[Path], None],
) -> None:
    """Pull-request mode reports, on what it covers, exactly what a full run reports there,
    and so never passes a change that a full run fails."""
    if on_main is not None:
        on_main(base)
    assert check(base).diagnostics == []
    git(base, "init", "-q", "-b", "main")
    git(base, "add", ".")
    git(base, "commit", "-q", "-m", "base")
    git(base, "checkout", "-q", "-b", "change")
    change(base)
    git(base, "add", "-A")
    git(base, "commit", "-q", "-m", "change")

    full = check(base).diagnostics
    code, output = run("--root", str(base), "--changed-since", "main")

    assert full, "the change must break the branch"
    assert code == 1, output
    said = {line.split(": ", 1)[0] for line in output.splitlines() if ": KB" in line}
    assert said == {f"{d.path}:{d.line}:{d.col}" for d in full}, output


@pytest.mark.slow
@pytest.mark.parametrize("given", [".", "hardware", "entries hardware"])
def test_the_whole_repository_or_its_folders_given_is_a_full_run(base: Path, given: str) -> None:
    """`kb check .` passed a catalog with a duplicate device: the devices' files were not
    among those reported on."""
    shutil.copy(base / "hardware" / "nvidia-l40s.yaml", base / "hardware" / "nvidia-l40s-copy.yaml")
    (base / "hardware" / "old").mkdir()
    shutil.copy(base / H100, base / "hardware" / "old" / "nvidia-h100-sxm.yaml")
    full = check(base)

    result = check(base, [base / part for part in given.split()])

    assert {d.code for d in full.diagnostics} >= {"KB202", "KB203", "KB019"}
    assert result.diagnostics == full.diagnostics


def test_changed_since_and_staged_re_check_the_models_a_change_touches(repository: Path) -> None:
    """A changed model is checked; a deleted card re-checks the models whose recipes bind it;
    a change elsewhere checks no model."""
    model = repository / "models" / "llama-3.1-70b.yaml"
    edit(model, "  batch: [1, 1024]", "  batch: [1, 100000]")
    code, output = run("--root", str(repository), "--changed-since", "main")
    assert code == 1
    assert {line.split(":")[0] for line in output.splitlines() if " KB6" in line} == {
        "models/llama-3.1-70b.yaml"
    }
    git(repository, "checkout", "-q", "--", "models")
    git(repository, "rm", "-q", "entries/gemm/lm-head.yaml")
    code, output = run("--root", str(repository), "--staged")
    assert code == 1
    models = sorted(
        p.relative_to(repository).as_posix() for p in (repository / "models").glob("*.yaml")
    )
    said = sorted({line.split(":")[0] for line in output.splitlines() if " KB606 " in line})
    assert said == models
    git(repository, "reset", "-q", "--hard")
    unrelated = repository / "entries" / "training" / "optimizer-step.yaml"
    unrelated.write_text(unrelated.read_text("utf-8") + "# a comment\n", "utf-8")
    code, output = run("--root", str(repository), "--changed-since", "main")
    assert output.splitlines()[-1].startswith("All clear: checked 1 entry against")
