"""The Redis Cluster and replica-wait settings: flags over the environment, bad values refused
with a clear message (``tricktable serve`` exits 2, serving nothing)."""

from __future__ import annotations

import pytest

from service.cli import main
from service.config import REDIS_CLUSTER_ENV, REDIS_WAIT_REPLICAS_ENV, ServerConfig


def test_the_cluster_flag_or_the_environment_turns_cluster_mode_on() -> None:
    assert ServerConfig.redis_cluster_from(False, {}) is False
    assert ServerConfig.redis_cluster_from(True, {}) is True
    assert ServerConfig.redis_cluster_from(False, {REDIS_CLUSTER_ENV: "1"}) is True
    assert ServerConfig.redis_cluster_from(False, {REDIS_CLUSTER_ENV: "0"}) is False
    with pytest.raises(ValueError, match=REDIS_CLUSTER_ENV):
        ServerConfig.redis_cluster_from(False, {REDIS_CLUSTER_ENV: "maybe"})


def test_wait_replicas_comes_from_the_flag_else_the_environment() -> None:
    assert ServerConfig.redis_wait_replicas_from(None, {}) == 0
    assert ServerConfig.redis_wait_replicas_from(None, {REDIS_WAIT_REPLICAS_ENV: "2"}) == 2
    assert ServerConfig.redis_wait_replicas_from(1, {REDIS_WAIT_REPLICAS_ENV: "2"}) == 1
    with pytest.raises(ValueError, match="count"):
        ServerConfig.redis_wait_replicas_from(None, {REDIS_WAIT_REPLICAS_ENV: "two"})
    with pytest.raises(ValueError, match="0 or more"):
        ServerConfig.redis_wait_replicas_from(-1, {})


def test_serve_refuses_cluster_or_wait_without_a_redis_url(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refused(*argv: str) -> str:
        with pytest.raises(SystemExit) as stopped:  # a usage error, as argparse reports them
            main(["serve", "--port", "0", *argv])
        assert stopped.value.code == 2
        return capsys.readouterr().err

    monkeypatch.delenv("TRICKTABLE_REDIS_URL", raising=False)
    assert "need a Redis URL" in refused("--redis-cluster")
    assert "need a Redis URL" in refused("--redis-wait-replicas", "1")
    monkeypatch.setenv(REDIS_WAIT_REPLICAS_ENV, "x")
    # The variable is the flag's default, read as the flag's type: the error names the flag.
    assert "--redis-wait-replicas" in refused("--redis-url", "redis://127.0.0.1:1/0")


def test_serve_lists_the_cluster_flags_and_their_variables(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = capsys.readouterr().out
    for name in ("--redis-cluster", REDIS_CLUSTER_ENV, "--redis-wait-replicas"):
        assert name in text
    assert REDIS_WAIT_REPLICAS_ENV in text.replace("\n", "").replace(" ", "")
