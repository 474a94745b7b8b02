"""The client package's version changes with its API (issue 30): the committed listing of its
public API (``clients/python/API.txt``, see :mod:`tests.clients.client_api`) is the code's, the
version in ``clients/python/pyproject.toml`` heads the CHANGELOG, and a name that moved still
answers with a DeprecationWarning naming where it went."""

from __future__ import annotations

import re
import tomllib
import warnings

import pytest
import tricktable
from tricktable import cards as C

from tests.clients.client_api import LISTING, ROOT, listing

CLIENT = ROOT / "clients" / "python"


def client_version() -> str:
    project = tomllib.loads((CLIENT / "pyproject.toml").read_text())["project"]
    version: str = project["version"]
    return version


def test_the_committed_api_listing_is_the_codes() -> None:
    committed = LISTING.read_text().splitlines()
    now = listing()
    if committed != now:
        gone = sorted(set(committed) - set(now))[:10]
        new = sorted(set(now) - set(committed))[:10]
        pytest.fail(
            "the client API changed: regenerate clients/python/API.txt (python3 dev.py python -m "
            "tests.clients.client_api > clients/python/API.txt), raise the version in "
            "clients/python/pyproject.toml and say what changed in clients/python/CHANGELOG.md "
            f"(names that move keep a deprecated alias).\ngone: {gone}\nnew: {new}"
        )


def test_the_version_heads_the_changelog_and_the_package_reports_it() -> None:
    version = client_version()
    changelog = (CLIENT / "CHANGELOG.md").read_text()
    headings = re.findall(r"^## (\d+\.\d+\.\d+)", changelog, flags=re.M)
    assert headings and headings[0] == version, "the CHANGELOG's newest entry is this version"
    assert headings == sorted(headings, key=lambda v: tuple(map(int, v.split("."))), reverse=True)
    assert tricktable.__version__ == version


def test_a_moved_name_warns_and_still_answers() -> None:
    ace, ten, seven = C.card("AS"), C.card("TH"), C.card("7C")
    with pytest.warns(DeprecationWarning, match=r"tricktable\.facts\.of\(game\)\.points\(card\)"):
        points = C.points
    assert [points(ace), points(ten), points(seven)] == [11, 10, 0]
    with pytest.warns(DeprecationWarning, match="goes in 0.3.0"):
        assert C.POINTS[C.KING] == 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="no attribute 'pointz'"):
            C.pointz  # noqa: B018
