"""A deserted clocked Nominations table through the real server, on the embedded store and
on Redis: the clock's moves are the least harmful (docs/proposed-rules-timeout.md), so a
timed-out bidder passes, a dealer forced to bid bids the lowest number (never a misère or open
misère), the declaration and the play are the reference bot's, and the record the clock wrote
verifies as ordinary moves."""

from __future__ import annotations

from tricktable.v1 import clocks_pb2
from tricktable.v1 import game_service_pb2 as pb

from engine.core.events import TimedOut
from engine.core.moves import Bid, Call, DeclareContract, PlayCard
from engine.record import timed_out, verify
from service.cli.record_check import check_record
from service.records import record_to_json
from tests.integration.test_clocks import record_of, time_control, watch_until
from tests.service.support import Client, auth, option_value

OPTIONS = {"all_pass": "dealer_forced", "open_misere": True, "min_bid": 7}


def test_a_timed_out_nominations_bidder_passes_and_never_bids_a_misere(client: Client) -> None:
    request = pb.CreateGameRequest(
        game_type="nominations",
        seed=b"timed-out bidders",
        time_control=time_control(clocks_pb2.TIMEOUT_POLICY_AUTO_MOVE),
    )
    for name, value in OPTIONS.items():
        request.options[name].CopyFrom(option_value(value))
    table = client.seat_all(client.stub.CreateGame(request).game)
    watch_until(client, table.game_id, 9)  # seven calls, the declaration, the opening lead
    client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=table.game_id), metadata=auth(table.tokens[0])
    )
    record = record_of(client, table.game_id)
    assert verify(record) is None  # the clock's moves re-play through the rules
    exported = client.stub.GetGameRecord(pb.GetGameRecordRequest(game_id=table.game_id)).record
    replays, verdict = check_record(record_to_json(exported))  # replay --check's checker
    assert replays and "made by the clock" in verdict, verdict
    steps = [s for s in record.steps if s.move is not None]
    assert all(timed_out(s) == TimedOut(s.seat or 0, auto_move=True) for s in steps)
    moves = [s.move for s in steps]
    # Three passes, the dealer must bid: the lowest, 7; three passes end the auction.
    assert moves[:7] == [Call("pass")] * 3 + [Bid("tricks", 7)] + [Call("pass")] * 3
    assert isinstance(moves[7], DeclareContract) and isinstance(moves[8], PlayCard)
