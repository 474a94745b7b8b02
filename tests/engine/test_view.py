"""Trick views: who played what, clockwise from the leader, shared between views."""

from __future__ import annotations

from engine.core.view import TrickView, trick_view


def test_a_trick_view_names_each_card_s_seat_and_the_same_trick_is_one_object() -> None:
    view = trick_view(2, [10, 20, 30], 0, 3)
    assert view == TrickView(leader=2, seats=(2, 0, 1), cards=(10, 20, 30), winner=0)
    assert trick_view(2, [10, 20, 30], 0, 3) is view
    assert trick_view(2, [10, 20], None, 3) == TrickView(2, (2, 0), (10, 20), None)
    assert trick_view(2, [10, 20, 30], None, 3) is not view  # not yet won: another view
    assert trick_view(2, [10, 20, 30], 0, 4).seats == (2, 3, 0)
