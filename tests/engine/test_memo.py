"""The memo behind the hot paths' caches: kept values come back; full, it starts over."""

from __future__ import annotations

from engine.core.memo import Memo


def test_a_memo_keeps_values_and_starts_over_when_full() -> None:
    memo: Memo[str, int] = Memo(3)
    assert memo.keep("a", 1) == 1 and memo.get("a") == 1
    memo.keep("b", 2)
    memo.keep("c", 3)
    assert len(memo) == 3
    assert memo.keep("d", 4) == 4  # full: emptied first, so it never grows past its limit
    assert dict(memo) == {"d": 4}
    memo.keep("d", 5)  # a key kept again is replaced
    assert memo.get("d") == 5 and memo.get("a") is None
