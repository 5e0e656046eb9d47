"""Review 4: tsfile._mem.pool.block_room on odd inputs. It took set_memory_retention's parser:
a size string ("10", "1 GiB") was read as bytes, and a negative count or a bool was refused
with a message about ``max_bytes``. The room itself: never less than asked, a fixed point (a
room's room is itself) and never decreasing."""

from __future__ import annotations

import numpy as np
import pytest

from tsfile._mem.pool import MIN_POOLED, block_room


@pytest.mark.parametrize("bad", ["10", "1 GiB", b"10", 1.5, None, True, False, [1]])
def test_only_a_byte_count_is_taken(bad):
    with pytest.raises(TypeError, match="block_room"):
        block_room(bad)


def test_a_negative_count_is_refused_by_its_name():
    with pytest.raises(ValueError, match="block_room"):
        block_room(-1)


@pytest.mark.parametrize("n", [0, 1, MIN_POOLED - 1, 2**64, 2**70])
def test_counts_the_pool_does_not_keep_are_their_own_room(n):
    assert block_room(n) == n


def test_rooms_hold_what_is_asked_are_fixed_points_and_never_decrease():
    rng = np.random.default_rng(0)
    sizes = sorted(
        {int(x) for x in rng.integers(MIN_POOLED, 1 << 34, 400)}
        | {MIN_POOLED, 16 << 20, (16 << 20) + 1, 1 << 30}
    )
    rooms = [block_room(n) for n in sizes]
    assert all(r >= n for r, n in zip(rooms, sizes, strict=True))
    assert all(block_room(r) == r for r in rooms)
    assert rooms == sorted(rooms)
    assert block_room(np.int64(sizes[3])) == rooms[3]
