"""The Pages workflow publishes under the repository's own address and needs nothing for it:
GitHub Actions sets GITHUB_REPOSITORY in every job, the plugin takes the address from it
(`site.address`), and neither the workflow nor mkdocs.yml may name another."""

from __future__ import annotations

import re
from typing import Any

import yaml

from bottleneck_kb.site.address import ENVIRONMENT

from ..conftest import REPOSITORY

PAGES = REPOSITORY / ".github" / "workflows" / "pages.yml"


def environments(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    """Every `env:` of the workflow, its jobs and their steps."""
    found = [workflow.get("env") or {}]
    for job in workflow["jobs"].values():
        found.append(job.get("env") or {})
        found += [step.get("env") or {} for step in job.get("steps", [])]
    return found


def test_the_pages_workflow_leaves_the_address_to_github() -> None:
    workflow = yaml.safe_load(PAGES.read_text("utf-8"))
    named = sorted({k for env in environments(workflow) for k in env} & set(ENVIRONMENT))
    assert named == [], f"{PAGES.name} sets {named}: the site would not be the repository's"
    runs = [
        step["run"]
        for job in workflow["jobs"].values()
        for step in job.get("steps", [])
        if "run" in step
    ]
    # The plugin sets the address; a build by `kb site` would take it from the same setting.
    assert any(re.search(r"\bmkdocs build\b|\bkb site\b", run) for run in runs)
    assert not any(re.search(r"KB_REPOSITORY=|GITHUB_REPOSITORY=|--repository", r) for r in runs)


def test_mkdocs_yml_takes_its_address_from_the_repository() -> None:
    config = yaml.safe_load((REPOSITORY / "mkdocs.yml").read_text("utf-8"))
    assert "site_url" not in config, "the plugin sets site_url from the repository's address"
    plugin = [p for p in config["plugins"] if p == "bottleneck-kb" or "bottleneck-kb" in p]
    assert plugin == ["bottleneck-kb"], "a fixed `repository:` would pin every fork's address"
