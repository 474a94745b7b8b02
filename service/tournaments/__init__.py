"""Hosted tournaments (issue 27): a room of the service whose schedule, progress and standings
live in the store, advanced by any replica.

- :mod:`.spec` — what a tournament is (its spec, as created), and its entrants;
- :mod:`.schedule` — pure: every game of a round robin, its seats and deal seed;
- :mod:`.standings` — pure: standings from the results counted;
- :mod:`.store` — the ``TournamentStore`` port and its in-memory adapter;
- :mod:`.redis_store` — the Redis adapter (each step one Lua script);
- :mod:`.advance` — one step of a tournament: count what ended, start what may start;
- :mod:`.runner` — the sweep every replica runs over the store's index of tournaments;
- :mod:`.desk` — the transport-free entry points of ``TournamentService``;
- :mod:`.convert`, :mod:`.servicer` — the door: proto ⇄ the desk.
"""
