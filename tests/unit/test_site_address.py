"""The site's address from one setting, the repository's: what it is given, else
KB_REPOSITORY, else GITHUB_REPOSITORY (GitHub Actions), else the documented default."""

from __future__ import annotations

import pytest

from bottleneck_kb.core.errors import KBError
from bottleneck_kb.site.address import DEFAULT_REPOSITORY, repository_address


def test_the_default_is_the_projects_own_pages_address() -> None:
    address = repository_address(None, {})
    assert DEFAULT_REPOSITORY == "bottleneck-kb/bottleneck-kb"
    assert address.site_url == "https://bottleneck-kb.github.io/bottleneck-kb/"
    assert address.edit_url == "https://github.com/bottleneck-kb/bottleneck-kb/edit/main/"


def test_github_actions_repository_sets_site_url_and_edit_links() -> None:
    address = repository_address(None, {"GITHUB_REPOSITORY": "Team-A/perf.kb"})
    assert address.site_url == "https://team-a.github.io/perf.kb/"
    assert address.edit_url == "https://github.com/Team-A/perf.kb/edit/main/"


def test_kb_repository_wins_over_github_and_the_given_over_both() -> None:
    environ = {"GITHUB_REPOSITORY": "a/b", "KB_REPOSITORY": "c/d"}
    assert repository_address(None, environ).repository == "c/d"
    assert repository_address("e/f", environ).repository == "e/f"
    assert (
        repository_address(None, {"GITHUB_REPOSITORY": "a/b", "KB_REPOSITORY": ""}).repository
        == "a/b"
    )


def test_a_user_site_repository_is_published_at_the_hosts_root() -> None:
    address = repository_address("Team/team.github.io", {})
    assert address.site_url == "https://team.github.io/"
    assert address.edit_url == "https://github.com/Team/team.github.io/edit/main/"


@pytest.mark.parametrize(
    "value",
    [
        "team",
        "team/",
        "/kb",
        "a/b/c",
        "-a/b",
        "a--b/c",
        "a/..",
        "a/b c",
        "a/b\n::warning::x",
        "a" * 40 + "/b",
        "a/" + "b" * 101,
        "https://github.com/a/b",
    ],
)
def test_anything_but_owner_and_name_is_refused_with_what_was_given(value: str) -> None:
    with pytest.raises(KBError) as raised:
        repository_address(None, {"KB_REPOSITORY": value})
    assert raised.value.message == (
        f"KB_REPOSITORY is {value!r}, not a GitHub repository's OWNER/NAME"
    )
