"""service.event_loop: which loop a server process runs on, and that each choice runs one."""

from __future__ import annotations

import asyncio

import pytest

from service import event_loop


async def _loop_module() -> str:
    await asyncio.sleep(0)
    return type(asyncio.get_running_loop()).__module__.partition(".")[0]


def test_auto_is_uvloop_where_it_is_installed() -> None:
    expected = "uvloop" if event_loop.UVLOOP_INSTALLED else "asyncio"
    assert event_loop.resolve("auto") == expected
    assert event_loop.run(_loop_module()) == expected


def test_asyncio_runs_asyncio_loop_even_with_uvloop_installed() -> None:
    assert event_loop.resolve("asyncio") == "asyncio"
    assert event_loop.run(_loop_module(), "asyncio") == "asyncio"


@pytest.mark.skipif(not event_loop.UVLOOP_INSTALLED, reason="uvloop is not installed here")
def test_uvloop_runs_uvloop() -> None:
    assert event_loop.run(_loop_module(), "uvloop") == "uvloop"


def test_the_environment_chooses_and_a_wrong_name_is_an_error() -> None:
    assert event_loop.from_environment({}) == event_loop.resolve("auto")
    assert event_loop.from_environment({event_loop.EVENT_LOOP_ENV: " AsyncIO "}) == "asyncio"
    with pytest.raises(ValueError, match="not 'trio'"):
        event_loop.from_environment({event_loop.EVENT_LOOP_ENV: "trio"})
    with pytest.raises(ValueError, match="not 'epoll'"):
        event_loop.resolve("epoll")
