"""Server bots on two ``tricktable serve`` replicas sharing one Redis, moving at once
(``--bot-delay 0``): each due bot turn is claimed by one replica's sweep (the store's atomic
claim), so the bot moves the replicas compute (``tricktable_bot_decisions_total``, summed over
both) are the bot moves committed, but for the entries claimed again after a lease ran out
(``tricktable_deadline_leases_lapsed_total``). Before the claim, both replicas computed nearly
every move and one commit won: about twice as many decisions as moves."""

from __future__ import annotations

import re
import urllib.request

from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import game_types_pb2

from benchmarks.redis_server import free_port
from engine.record import verify
from service.config import REDIS_URL_ENV
from tests.integration.test_clocks import record_of, watch_until
from tests.servers import serve_process

GAMES = 6


def scrape(port: int) -> dict[str, float]:
    """The replica's counters we read, each summed over its labels."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as page:
        text = page.read().decode()
    sums = {"decisions": 0.0, "fired": 0.0, "lapsed": 0.0}
    wanted = {
        "decisions": re.compile(r"^tricktable_bot_decisions_total\{.*\} (\S+)$"),
        "fired": re.compile(r'^tricktable_deadline_fire_delay_seconds_count\{kind="bot"\} (\S+)$'),
        "lapsed": re.compile(r"^tricktable_deadline_leases_lapsed_total (\S+)$"),
    }
    for line in text.splitlines():
        for name, pattern in wanted.items():
            if found := pattern.match(line):
                sums[name] += float(found.group(1))
    return sums


def test_two_replicas_compute_each_bot_move_once(redis_url: str) -> None:
    env = {REDIS_URL_ENV: redis_url}
    flags = ("--bot-delay", "0", "--limit-create-game", "0", "--limit-open-games", "0")
    ports = [free_port(), free_port()]
    with (
        serve_process(*flags, "--metrics-port", str(ports[0]), env=env) as one,
        serve_process(*flags, "--metrics-port", str(ports[1]), env=env),
    ):
        client = one.client
        games = []
        for n in range(GAMES):
            request = pb.CreateGameRequest(
                game_type="counterpoint",
                seed=f"claims:{n}".encode(),
                options={"target_score": game_types_pb2.OptionValue(int_value=30)},
                bot_seats={0: "heuristic", 1: "random"},
            )
            games.append(client.stub.CreateGame(request).game.game_id)
        ended = [watch_until(client, g, 10**9, limit_s=120) for g in games]
        assert all(e.game.status == pb.GAME_STATUS_FINISHED for e in ended)
        moves = 0
        for game_id in games:  # every turn made once, each by the seat's bot
            record = record_of(client, game_id)
            assert verify(record) == record.outcome
            moves += sum(1 for s in record.steps if s.move is not None)
        counts = [scrape(port) for port in ports]
    decisions = sum(c["decisions"] for c in counts)
    fired = sum(c["fired"] for c in counts)
    lapsed = sum(c["lapsed"] for c in counts)
    assert fired == moves > 0  # every move a server bot's, committed by a sweep
    assert all(c["decisions"] > 0 for c in counts), counts  # both replicas took turns
    assert moves <= decisions <= moves + lapsed, counts
    # A lease (10 s) outlasts a sweep's work here: lapses are rare accidents of a loaded
    # machine, not the way turns are shared (with a 1 ms lease, about half the claims lapse).
    assert lapsed < moves / 10, counts
