"""The only code of a round that runs on kafka-python's I/O thread: requests sent, answers
awaited (kafka-python decodes them there). Every answer is read on the caller's thread (the
poller's), so the admin client's event loop is never held by the round's CPU work.

Each coroutine here is handed to the admin client's ``_manager.run``, which runs it on the I/O
thread and blocks the caller until it is done.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable
from typing import Any

IN_FLIGHT = 3
"""Requests of a round in flight to one broker at once (kafka-python allows five a connection,
and its admin client sends its own metadata requests on the same connections)."""


async def exchange(send: Callable[..., Any], requests: list[tuple[int, Any]]) -> list[Any]:
    """Each ``(node, request)``'s answer, or its exception, in order. At most ``IN_FLIGHT``
    a node at once (kafka-python fails a send past its connection's five in flight, it does
    not queue it); the nodes' requests travel together."""
    out: list[Any] = [None] * len(requests)
    waiting: dict[int, deque[int]] = defaultdict(deque)
    for i, (node, _) in enumerate(requests):
        waiting[node].append(i)
    flying: deque[tuple[int, int, Any]] = deque()

    def start(node: int) -> None:
        i = waiting[node].popleft()
        try:
            flying.append((i, node, send(requests[i][1], node_id=node)))
        except Exception as exc:  # raised, not failed: a node its metadata no longer lists
            out[i] = exc  # (UnknownBrokerId: seen just after a frozen broker was fenced)
            while waiting[node]:
                out[waiting[node].popleft()] = exc

    for node in waiting:
        for _ in range(IN_FLIGHT):
            if waiting[node]:
                start(node)
    while flying:
        i, node, future = flying.popleft()
        try:
            out[i] = await future
        except Exception as exc:
            out[i] = exc
        if waiting[node]:
            start(node)
    return out


ASK_ATTEMPTS = 3
"""Brokers a round's metadata request is sent to before the round fails."""


async def ask(send: Callable[..., Any], request: Any) -> Any:
    """``request``'s answer from the least loaded broker; one that fails it (a dead broker
    refuses: kafka-python then backs off from it and picks another) leaves it to the next, up
    to :data:`ASK_ATTEMPTS` (raises as the last send does). Seen: with two of three brokers
    dead, a new admin client picked a dead one for most rounds, and the whole round failed."""
    for _ in range(ASK_ATTEMPTS - 1):
        try:
            return await send(request)
        except Exception:
            continue
    return await send(request)
