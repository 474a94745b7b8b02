"""End-of-game decisions shared by the games."""

from __future__ import annotations

from collections.abc import Sequence


def leaders(totals: Sequence[int]) -> tuple[int, ...]:
    """The seats with the highest total, ascending."""
    top = max(totals)
    return tuple(seat for seat, t in enumerate(totals) if t == top)


def final_winners(
    totals: Sequence[int], end_reached: bool, tie_rule: str
) -> tuple[int, ...] | None:
    """Who has won, or None when play goes on.

    The game ends once ``end_reached`` (the deal count or target score, per game) unless the
    lead is shared and ``tie_rule`` is ``extra_deal``: then complete deals are played until one
    seat leads. With ``draw`` the tied leaders share the win.
    """
    if not end_reached:
        return None
    top = leaders(totals)
    if len(top) > 1 and tie_rule == "extra_deal":
        return None
    return top
