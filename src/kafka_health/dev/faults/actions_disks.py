"""The fault suite's disk-full: a broker's second log directory on a small tmpfs, filled until
Kafka takes the directory offline.

``disk_prepare`` mounts a tmpfs of :data:`DISK_SIZE` in broker :data:`DISK_BROKER`'s folder,
restarts the broker (a controlled shutdown) with it as its second log directory (``log.dirs``:
the first keeps the metadata log, so the broker survives the failure; KRaft formats the new
one), and creates :data:`DISK_TOPIC` with the broker as its leader: a broker places a new
partition in its directory with the fewest partitions, the empty tmpfs (checked: the
partition's folder must be there). ``fill_disk`` writes to it until the broker logs the
directory offline ("Stopping serving replicas in dir"): "No space left on device" in an
append is an ``IOException``, which takes the whole directory offline. ``disk_restore`` deletes
the topic, stops the broker, unmounts the tmpfs and starts the broker with its one directory
again (the start is what brings a failed directory back in Kafka, and what resolves the page).
Mounting needs root (the project's CI machine and this one run as root).
"""

from __future__ import annotations

import re
import subprocess
import time
from datetime import datetime
from pathlib import Path

from kafka_health.dev.faults.actions_decommission import monitored_admin
from kafka_health.dev.faults.context import FaultContext

DISK_BROKER = 3
DISK_SIZE = "24m"
"""The tmpfs's size: a few seconds of writes fill it."""
DISK_TOPIC = "faultsuite-disk"
DISK_FOLDER = "small-disk"
"""The mount point, in the broker's folder."""
RECORD_BYTES = 200_000
"""Each record written to fill the disk (below the brokers' 1 MB message.max.bytes)."""
FILL_BOUND_S = 120.0
"""How long ``fill_disk`` writes before it gives up on the directory failing."""
OFFLINE_LINE = re.compile(
    r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\] WARN .*Stopping serving replicas in dir (\S+)"
)
PLACED_WAIT_S = 30.0


def small_disk(ctx: FaultContext) -> Path:
    return Path(ctx.cluster.node(DISK_BROKER).dir).resolve() / DISK_FOLDER


def mounted(path: Path) -> bool:
    target = str(path)
    with open("/proc/self/mounts", encoding="utf-8") as mounts:
        return any(line.split()[1] == target for line in mounts if len(line.split()) > 1)


def disk_prepare(ctx: FaultContext) -> None:
    """The small tmpfs as broker 3's second log directory, and a topic whose partition lives
    in it (led by broker 3)."""
    disk = small_disk(ctx)
    if mounted(disk):  # a run interrupted before its cleanup
        disk_restore(ctx)
    disk.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={DISK_SIZE}", "tmpfs", str(disk)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if result.returncode != 0:
        raise RuntimeError(f"cannot mount a tmpfs at {disk} (root?): {result.stderr.strip()}")
    ctx.say(f"  broker {DISK_BROKER}: second log dir {disk} on a {DISK_SIZE} tmpfs (restart)")
    ctx.cluster.stop_broker(DISK_BROKER)
    ctx.cluster.set_extra_log_dir(DISK_BROKER, disk)
    ctx.start_brokers([DISK_BROKER])
    _create_topic(ctx, disk)


def _create_topic(ctx: FaultContext, disk: Path) -> None:
    from kafka.admin import NewTopic

    brokers = [n.broker_id for n in ctx.cluster.nodes]
    others = [b for b in brokers if b != DISK_BROKER]
    placed = disk / f"{DISK_TOPIC}-0"
    admin = monitored_admin(ctx, brokers)
    try:
        admin.create_topics(
            [NewTopic(DISK_TOPIC, replica_assignments={0: [DISK_BROKER, *others]})],
            timeout_ms=30_000,
        )
        if not _wait_dir(placed, 5.0):
            # KRaft 4.1.1 put it in the first directory: moved (AlterReplicaLogDirs, the
            # kafka-reassign-partitions log_dirs request), an empty log's copy is at once
            errors = admin.alter_replica_log_dirs({(DISK_TOPIC, 0, DISK_BROKER): str(disk)})
            ctx.notes["moved_to_log_dir"] = {str(k): getattr(v, "__name__", str(v))
                                             for k, v in errors.items()}  # fmt: skip
    finally:
        admin.close()
    if not _wait_dir(placed, PLACED_WAIT_S):
        raise RuntimeError(f"broker {DISK_BROKER} did not place {DISK_TOPIC}-0 in {disk}")
    ctx.notes["log_dir"] = str(disk)


def _wait_dir(path: Path, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not path.is_dir():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)
    return True


def fill_disk(ctx: FaultContext) -> None:
    """Write to the topic until broker 3 logs its directory offline (or the bound)."""
    from kafka import KafkaProducer

    disk = small_disk(ctx)
    server_log = ctx.cluster.node(DISK_BROKER).log_dir / "server.log"
    start = server_log.stat().st_size if server_log.exists() else 0
    producer = KafkaProducer(
        bootstrap_servers=ctx.cluster.bootstrap_servers, acks=1, linger_ms=5,
        batch_size=1_000_000, max_request_size=1_048_576, retries=0,
        client_id="kafka-health-faults-disk",
    )  # fmt: skip
    value = b"x" * RECORD_BYTES
    written = 0
    failed: tuple[str, str] | None = None
    deadline = time.monotonic() + FILL_BOUND_S
    try:
        while failed is None and time.monotonic() < deadline:
            for _ in range(10):
                producer.send(DISK_TOPIC, value)
                written += RECORD_BYTES
            try:
                producer.flush(timeout=10)
            except Exception:  # the leader's directory failing: refused or timed out writes
                time.sleep(0.5)
            failed = _offline_line(server_log, start, disk)
    finally:
        producer.close(timeout=5)
    ctx.notes["written_mb"] = round(written / 1e6, 1)
    if failed is None:
        raise RuntimeError(f"broker {DISK_BROKER} did not take {disk} offline in "
                           f"{FILL_BOUND_S:g} s")  # fmt: skip
    stamp, directory = failed
    failed_at = datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").astimezone().timestamp()
    ctx.notes["offline_line_at"] = failed_at
    ctx.notes["dir_failed_after_s"] = round(failed_at - ctx.injected_at, 1)
    ctx.notes["offline_dir"] = directory
    ctx.say(f"  broker {DISK_BROKER} took {directory} offline "
            f"{ctx.notes['dir_failed_after_s']} s after the first write")  # fmt: skip


def _offline_line(server_log: Path, start: int, disk: Path) -> tuple[str, str] | None:
    """The time and directory of the first offline line for ``disk`` past ``start``."""
    try:
        with server_log.open("r", encoding="utf-8", errors="replace") as f:
            f.seek(start)
            for line in f:
                m = OFFLINE_LINE.match(line)
                if m and m.group(2) == str(disk):
                    return m.group(1), m.group(2)
    except FileNotFoundError:
        return None
    return None


def disk_restore(ctx: FaultContext) -> None:
    """The topic deleted, broker 3 back on its one directory (restarted), the tmpfs gone."""
    disk = small_disk(ctx)
    node = ctx.cluster.node(DISK_BROKER)
    if not mounted(disk) and node.extra_log_dir is None:
        return
    admin = monitored_admin(ctx, [n.broker_id for n in ctx.cluster.nodes])
    try:
        admin.delete_topics([DISK_TOPIC], timeout_ms=30_000, raise_errors=False)
    except Exception as exc:  # gone already, or the controller busy: the restart still helps
        ctx.say(f"  deleting {DISK_TOPIC}: {type(exc).__name__}: {exc}")
    finally:
        admin.close()
    time.sleep(2.0)
    ctx.say(f"  broker {DISK_BROKER}: restart without {disk}")
    ctx.cluster.refresh()
    if node.pid is not None:
        ctx.cluster.stop_broker(DISK_BROKER)
    if mounted(disk):
        subprocess.run(["umount", "-l", str(disk)], check=False)
    ctx.cluster.set_extra_log_dir(DISK_BROKER, None)
    ctx.start_brokers([DISK_BROKER])
    ctx.notes["restarted_at"] = time.time()
