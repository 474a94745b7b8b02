"""The commands: ``tricktable bot --register`` prints a bot's id and token, ``tricktable bot
--connect`` (a process of its own) plays the seats the server hands it, and ``tricktable
tournament --hosted --address`` creates a tournament on the server, follows it and prints its
standings; the same command without ``--hosted`` still plays the tournament itself."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tricktable.cli import main

from tests.servers import ROOT, running_server

GAME = "counterpoint"


def test_a_connected_bot_process_plays_in_a_hosted_tournament(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with running_server(bot_delay_s=0) as served:
        assert main(["bot", "--register", "--address", served.address, "--game", GAME,
                     "--name", "linked"]) == 0  # fmt: skip
        printed = dict(line.split(" ", 1) for line in capsys.readouterr().out.splitlines())
        bot_id, token = printed["bot_id"], printed["bot_token"]
        bot = subprocess.Popen(
            [sys.executable, "-m", "tricktable.cli", "bot", "--connect", served.address,
             "--token", token, "--bot", "heuristic"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )  # fmt: skip
        try:
            args = ["tournament", GAME, "--address", served.address, "--hosted", "--quiet"]
            args += ["-e", bot_id, "-e", "random", "--rounds", "2", "-o", "target_score=30"]
            args += ["--json", str(tmp_path / "t.json")]
            assert main(args) == 0
        finally:
            bot.terminate()
            seats_log = bot.communicate(timeout=10)[0]
    out = capsys.readouterr().out
    assert "counterpoint: 4 games, a deal per game" in out
    assert "linked" in out and "random" in out
    assert seats_log.count("seat ") == 4  # each of its seats handed to it
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["tournament"]["status"] == "TOURNAMENT_STATUS_FINISHED"
    assert len(data["games"]) == 4


def test_register_needs_an_address(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["bot", "--register", "--game", GAME])
    assert "--register needs --address" in capsys.readouterr().err
