"""The offset tracker commits only finished prefixes."""

from __future__ import annotations

from services.runtime.offsets import OffsetTracker

TP = ("t", 0)


def test_nothing_started_nothing_to_commit() -> None:
    assert OffsetTracker().committable(TP) is None


def test_commits_up_to_the_first_unfinished_offset() -> None:
    tracker = OffsetTracker()
    for offset in range(10, 15):
        tracker.start(TP, offset)
    tracker.finish(TP, 10)
    tracker.finish(TP, 11)
    tracker.finish(TP, 13)  # finished, but 12 before it is not
    assert tracker.committable(TP) == 12
    tracker.finish(TP, 12)
    assert tracker.committable(TP) == 14
    tracker.finish(TP, 14)
    assert tracker.committable(TP) == 15
    assert tracker.unfinished(TP) == 0


def test_all_unfinished_commits_only_the_start_position() -> None:
    tracker = OffsetTracker()
    tracker.start(TP, 7)
    tracker.start(TP, 8)
    tracker.finish(TP, 8)
    assert tracker.committable(TP) == 7


def test_committed_positions_are_not_offered_again() -> None:
    tracker = OffsetTracker()
    tracker.start(TP, 0)
    tracker.finish(TP, 0)
    assert tracker.to_commit() == {TP: 1}
    tracker.committed({TP: 1})
    assert tracker.to_commit() == {}
    tracker.start(TP, 1)
    tracker.finish(TP, 1)
    assert tracker.to_commit() == {TP: 2}


def test_partitions_are_independent_and_forgettable() -> None:
    tracker = OffsetTracker()
    other = ("t", 1)
    tracker.start(TP, 0)
    tracker.start(other, 5)
    tracker.finish(other, 5)
    assert tracker.to_commit() == {TP: 0, other: 6}
    assert tracker.to_commit([other]) == {other: 6}
    tracker.forget([other])
    assert tracker.to_commit([other]) == {}
    assert tracker.unfinished(TP) == 1


def test_finish_of_unknown_offset_is_ignored() -> None:
    tracker = OffsetTracker()
    tracker.start(TP, 3)
    tracker.finish(TP, 99)
    tracker.finish(("x", 0), 1)
    assert tracker.committable(TP) == 3
