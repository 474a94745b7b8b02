"""Tournaments, proto ⇄ the desk's data: what the servicer answers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tricktable.v1 import tournament_service_pb2 as pb

from service import convert
from service.tournaments import events
from service.tournaments.schedule import Slot, slots
from service.tournaments.spec import CANCELLED, FINISHED, RUNNING
from service.tournaments.standings import Result, Row
from service.tournaments.store import TournamentState

STATUS = {
    RUNNING: pb.TOURNAMENT_STATUS_RUNNING,
    FINISHED: pb.TOURNAMENT_STATUS_FINISHED,
    CANCELLED: pb.TOURNAMENT_STATUS_CANCELLED,
}


def row_to_proto(row: Row) -> pb.StandingRow:
    return pb.StandingRow(**row.to_data())  # type: ignore[arg-type]


def rows_to_proto(rows: Sequence[Row]) -> list[pb.StandingRow]:
    return [row_to_proto(r) for r in rows]


def tournament_to_proto(state: TournamentState, rows: Sequence[Row]) -> pb.Tournament:
    spec = state.spec
    out = pb.Tournament(
        tournament_id=spec.tournament_id,
        name=spec.name,
        game_type=spec.game_type,
        round_robin=pb.RoundRobin(rounds=spec.rounds, duplicate=spec.duplicate),
        entrants=[pb.Entrant(index=e.index, bot=e.bot, name=e.name) for e in spec.entrants],
        games_at_once=spec.games_at_once,
        status=STATUS[state.status],
        games_total=len(slots(spec)),
        games_started=len(state.games),
        games_ended=len(state.results),
        standings=rows_to_proto(rows),
        created_at_ms=spec.created_at_ms,
        version=state.version,
    )
    convert.options_to_proto(spec.options, out.options)
    if spec.time_control is not None:
        out.time_control.CopyFrom(convert.time_control_to_proto(spec.time_control))
    return out


def game_to_proto(slot: Slot, game_id: str, result: Result | None) -> pb.TournamentGame:
    out = pb.TournamentGame(
        number=slot.number,
        game_id=game_id,
        seats=slot.seats,
        round=slot.round,
        table=slot.table,
        rotation=slot.rotation,
        deal_id=slot.deal_id,
        started=bool(game_id),
        ended=result is not None,
    )
    if result is not None:
        out.scores.extend(result.scores)
        out.winners.extend(result.winners)
    return out


def games_to_proto(state: TournamentState) -> list[pb.TournamentGame]:
    return [
        game_to_proto(slot, state.games.get(slot.number, ""), state.results.get(slot.number))
        for slot in slots(state.spec)
    ]


def event_to_proto(
    state: TournamentState, version: int, data: dict[str, Any]
) -> pb.StreamTournamentResponse:
    """An event as a stream sends it (``state``: the tournament, for its schedule)."""
    out = pb.StreamTournamentResponse(version=version)
    schedule = slots(state.spec)
    if data["kind"] == events.STARTED:
        slot = schedule[data["number"]]
        out.game_started.game.CopyFrom(game_to_proto(slot, data["game_id"], None))
    elif data["kind"] == events.ENDED:
        result = Result.from_json_data(data["result"])
        slot = schedule[result.number]
        out.game_ended.game.CopyFrom(game_to_proto(slot, result.game_id, result))
        out.game_ended.standings.extend(rows_to_proto(events.rows_of(data["standings"])))
    else:
        out.ended.status = STATUS[data["status"]]
        out.ended.standings.extend(rows_to_proto(events.rows_of(data["standings"])))
    return out
