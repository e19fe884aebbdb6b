"""The queries still reading again what a restart rewound: caught up at their last rewound
batch, each on its own."""

from __future__ import annotations

from kafka_health.job.catch_up import CatchUp


def test_nothing_rewound_is_caught_up() -> None:
    assert CatchUp().caught_up(lambda query: -1)


def test_a_query_catches_up_at_its_last_rewound_batch() -> None:
    catch_up = CatchUp()
    catch_up.rewound("monitor", 39)  # the state holds batch 36: 37-39 are read again
    folded = {"monitor": 36}
    assert not catch_up.caught_up(folded.__getitem__)
    folded["monitor"] = 38
    assert not catch_up.caught_up(folded.__getitem__)
    folded["monitor"] = 39
    assert catch_up.caught_up(folded.__getitem__)
    folded["monitor"] = 0  # forgotten once caught up: a later state is not asked about
    assert catch_up.caught_up(folded.__getitem__)


def test_every_rewound_query_must_catch_up() -> None:
    catch_up = CatchUp()
    catch_up.rewound("monitor", 5)
    catch_up.rewound("canary", 12)
    folded = {"monitor": 5, "canary": 11}
    assert not catch_up.caught_up(folded.__getitem__), "the canary query is still behind"
    folded["canary"] = 12
    assert catch_up.caught_up(folded.__getitem__)


def test_a_second_rewind_of_a_query_keeps_the_later_batch() -> None:
    catch_up = CatchUp()
    catch_up.rewound("monitor", 9)
    catch_up.rewound("monitor", 7)  # a fold failed on the way: rewound again, to less
    assert not catch_up.caught_up(lambda query: 8)
    assert catch_up.caught_up(lambda query: 9)


def test_a_query_that_makes_no_batch_is_given_up_on_after_the_limit() -> None:
    now = [0.0]
    catch_up = CatchUp(limit_s=120.0, clock=lambda: now[0])
    catch_up.rewound("canary", 10)  # its cluster is down: no canary batch comes
    now[0] = 119.0
    assert not catch_up.caught_up(lambda query: 8)
    now[0] = 120.0
    assert catch_up.caught_up(lambda query: 8), "snapshots again: nothing held for ever"
