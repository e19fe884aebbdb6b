"""THE table of log patterns: which line means which event, and where each wording comes from.

Every pattern is a regular expression in the subset that Python's ``re`` and Java's
``java.util.regex`` read alike (Spark runs the Java side; the tests and the benchmark's baseline
run the Python side). Named groups ``(?P<name>...)`` say which output field a part feeds; Spark
gets the same text with the names removed (group numbers do not change).

A pattern has a *trigger*, a loose expression saying "this line is about that event". An entry
whose trigger matches but whose full pattern does not (a truncated or reworded line) is counted
as ``malformed`` rather than silently ignored.

Sources were checked against the string constants of the Kafka jars on Maven Central
(kafka_2.11 0.9.0.1, 0.10.2.2, 1.1.1; kafka_2.12 2.4.1; kafka_2.13 2.8.2, 3.6.2, 4.1.1 and the
4.1.1 kafka-metadata / coordinator jars), against real 4.1.1 logs written by the project's dev
cluster, and, for the JVM, against logs written by OpenJDK 17 and lines quoted by operators.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

Family = Literal["kafka", "gc"]

EVENT_TYPES: tuple[str, ...] = (
    "isr_shrink",
    "isr_expand",
    "isr_change",
    "isr_update_failed",
    "leader_change",
    "leader_election_failed",
    "zk_session_expired",
    "zk_disconnected",
    "controller_change",
    "broker_failure",
    "quorum_leader",
    "quorum_no_leader",
    "controller_resigned",
    "quorum_election_timeout",
    "broker_unfenced",
    "broker_starting",
    "controlled_shutdown",
    "shutdown_signal",
    "min_isr_violation",
    "not_leader",
    "processor_uncaught_exception",
    "coordinator_load_start",
    "coordinator_load_finish",
    "group_rebalance_start",
    "group_stabilized",
    "group_empty",
    "group_member_failed",
    "group_epoch_bump",
    "log_cleaner_died",
    "log_dir_offline",
    "log_dir_halt",
    "broker_started",
    "session_timeout",
    "full_gc",
    "young_gc",
    "gc_failure",
)

COLLECTORS: tuple[str, ...] = ("g1", "cms", "parallel", "serial", "shenandoah", "zgc")

# Named groups a pattern may use. Each feeds an output field (see events.py for the conversion).
GROUPS: frozenset[str] = frozenset(
    {
        "tp",  # "topic-3" or "topicId:topic-3" (split into topic and partition)
        "topic",
        "partition",
        "isr_before",  # "1,2,3" or "[1, 2, 3]"
        "isr_after",
        "isr_set",  # ISR printed as a set: its size is isr_size
        "isr_size",
        "min_isr",
        "leader",
        "leader_epoch",
        "session_id",
        "session_timeout",  # milliseconds: a broker's own session timeout (session_timeout_ms)
        "subject",  # the broker a controller line is about (subject_broker_id)
        "cause",
        "pause",  # a number; the unit is in pause_unit (ms, s, secs, us, ns)
        "pause_unit",
        "real",  # JDK 8 "[Times: ... real=N secs]", used when no pause figure is found
        "heap_before",  # numbers with a unit letter: 8071M, 272640K, 5649.6M, 0.0B
        "heap_after",
        "heap_total",
        "young_gen",  # JDK 8 young generation name: tells the collector
        "log_dir",  # a broker's log directory (log_dir_offline, log_dir_halt): a path, or a list
        "group",  # a consumer group's id, as its coordinator names it (any text but a line end)
        "generation",  # a group's generation (classic) or group epoch (the consumer protocol)
        "members",  # how many members a group stabilized with
    }
)


@dataclass(frozen=True)
class EventPattern:
    """One supported wording of one event."""

    name: str
    event: str
    family: Family
    trigger: str
    regex: str
    source: str
    scope: Literal["head", "entry"] = "head"  # first line only, or the whole multi-line entry
    collector: str | None = None  # constant collector for GC patterns that say it

    def java_regex(self) -> str:
        """The regex for Spark: named groups unnamed (Java forbids '_' in group names)."""
        return re.sub(r"\(\?P<\w+>", "(", self.regex)

    def group_index(self) -> dict[str, int]:
        """Group number of each named group, the same in Python and Java."""
        return dict(re.compile(self.regex).groupindex)


# --------------------------------------------------------------------------------------------
# Shared fragments

ISR = r"\[?\d+(?:,\s?\d+)*+\]?"  # 3,1,4 (mkString(",")) or [1,2,3] (KRaft Partition)
NEW_PREFIX = r"\[Partition (?P<tp>[^\s\]]+) broker=\d+\] "  # Partition.logIdent, 1.1+
OLD_PREFIX = r"Partition \[(?P<topic>[^,\]\s]+),(?P<partition>\d+)\] on broker \d+: "  # to 1.0
OLD_TP = r"\[(?P<topic>[^,\]\s]+),(?P<partition>\d+)\]"  # TopicAndPartition.toString, 0.9
HEAP = r"\d+(?:[.,]\d+)?[BKMG]"
DURATION = r"(?P<pause>\d+(?:[.,]\d+)?)(?P<pause_unit>ms|s|us|ns)"
CAUSE = r"[^()]++(?:\(\)[^()]*+)?+"  # "Allocation Failure", "System.gc()"
UNIFIED_HEAP = rf"(?P<heap_before>{HEAP})->(?P<heap_after>{HEAP})\((?P<heap_total>{HEAP})\)"
# The whole heap's transition and the pause: JDK 8 ", [Metaspace: ...]" (JDK 6-7 Serial and CMS
# ", [Perm : ...]"; JDK 6-7 Parallel " [PSPermGen: ...]", no comma: PSOldGen::print_used_change),
# a JDK 6-7 Parallel "      GC time would exceed GCTimeLimit of 98%" line before the pause
# (garbagecat's Parallel preprocessing), early JDK 6's -XX:+PrintHeapAtGC "Heap after gc
# invocations=147:" block, printed inside the line up to its "}" (garbagecat dataset6/21), CMS's
# -XX:PrintFLSStatistics "After GC:" block (CompactibleFreeListSpace::gc_epilogue, from
# GenCollectedHeap::gc_epilogue after the heap's transition: "Statistics for
# BinaryTreeDictionary:", "Total Free Space: 123", ... " free=123 frag=0.0000", lines without a
# bracket; JDK 6-7 print one for the perm gen too), a comma decimal where the locale writes one.
JDK8_HEAP = (
    r"(?P<heap_before>\d+[KMG])->(?P<heap_after>\d+[KMG])\((?P<heap_total>\d+[KMG])\)"
    r"(?:,? \[[^\]]*+\])*+(?:[ \t]++GC [^\n]*+\n|Heap after (?:gc|GC) invocations=[^}]*+\}\n|"
    r"After GC:\n(?:[^\n\[\]]*+\n)*+)?"
    r", (?P<pause>\d+[.,]\d+) (?P<pause_unit>secs)\]"
)
# Date and uptime stamps, then -XX:+PrintGCID's "#<gc id>: " (JDK 8u, GCTraceTime)
JDK8_STAMP = r"^(?:\d{4}-\d\d-\d\dT[\d:.]+[+-]\d{4}: )?(?:\d+[.,]\d+: )?(?:#\d+: )?"
# The same stamps where a GCTraceTime opens inside another's line ("[Full GC (...) <stamps>[...").
JDK8_INNER_STAMP = r"(?:\d{4}-\d\d-\d\dT[\d:.]+[+-]\d{4}: )?(?:\d+[.,]\d+: )?(?:#\d+: )?"
# -XX:+PrintTenuringDistribution inside a JDK 8 G1 pause's line (ageTable::compute_tenuring_
# threshold: a new line, "Desired survivor size ...", then "- age   1: ..." per age), before
# the pause's ", 0.0055924 secs]".
G1_TENURING = r"(?:\nDesired survivor size [^\n]*+(?:\n- age [^\n]*+)*+\n)?"
# The class histogram CollectedHeap::pre_full_gc_dump prints inside a Full GC's line
# (-XX:+PrintClassHistogramBeforeFullGC; KlassInfoHisto::print_histo_on): its title, a line
# per class, "Total ...", then its GCTraceTime's ", 0.1234567 secs]" (-XX:+PrintGCDetails).
HISTOGRAM = (
    rf"(?:{JDK8_INNER_STAMP}\[Class Histogram(?: \(before full gc\))?: ?)?"
    r"\n num +#instances +#bytes +class name\n.*?\nTotal +\d++ +\d++\n(?:, \d+[.,]\d+ secs\]\n)?"
)
# -XX:+HeapDumpBeforeFullGC's GCTraceTime inside the Full GC's line; where the GC log is the
# JVM's stdout, HeapDumper::dump's "Dumping heap to <path> ..." and "Heap dump file created
# [<n> bytes in <t> secs]" between its title and its ", 1.2345678 secs]".
HEAP_DUMP = (
    rf"{JDK8_INNER_STAMP}\[Heap Dump \(before full gc\): (?:Dumping heap to [^\n]*+\n"
    r"(?:Heap dump file created [^\n]*+\n|Unable to create [^\n]*+\n|Dump file is incomplete"
    r"[^\n]*+\n)?)?, \d+[.,]\d+ secs\]"
)

# A group coordinator's lines. Kafka 3.6-4.x's coordinator (group-coordinator's
# GroupMetadataManager) logs through CoordinatorRuntime.CoordinatorContext's log context
# '[%s topic=%s partition=%d] ', %s being GroupCoordinatorService's 'GroupCoordinator id=%d'
# (3.9.1 and 4.1.1 jars): the group's offsets partition is there. The old coordinator
# (kafka.coordinator.group.GroupCoordinator 0.11-3.x, logIdent '[GroupCoordinator %d]: ')
# prints it after the generation: ' (__consumer_offsets-%d)' (partitionFor(groupId)).
# A group id is any text: lazily up to the words that follow it. No possessive quantifier,
# no lookaround: the same table is compiled for RE2 as well.
GROUP_CONTEXT = (
    r"(?:\[GroupCoordinator id=\d+ topic=(?P<topic>[^\s\]]+) partition=(?P<partition>\d+)\] )?"
)
GROUP_TP = r"(?: \((?P<tp>[^\s()]+-\d+)\))?"


def _k(name: str, event: str, trigger: str, regex: str, source: str, **kw: object) -> EventPattern:
    return EventPattern(name, event, "kafka", trigger, regex, source, **kw)  # type: ignore[arg-type]


def _g(name: str, event: str, trigger: str, regex: str, source: str, **kw: object) -> EventPattern:
    return EventPattern(name, event, "gc", trigger, regex, source, **kw)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# Kafka broker logs (server.log, controller.log, state-change.log), log4j "[%d] %p %m (%c)%n"

KAFKA_PATTERNS: tuple[EventPattern, ...] = (
    _k(
        "isr_shrink.0_9",
        "isr_shrink",
        r"Shrinking ISR",
        rf"Shrinking ISR for partition {OLD_TP} from (?P<isr_before>{ISR}) to (?P<isr_after>{ISR})",
        "kafka.cluster.Partition 0.9-0.10: 'Shrinking ISR for partition [%s,%d] from %s to %s'",
    ),
    _k(
        "isr_shrink.0_11",
        "isr_shrink",
        r"Shrinking ISR",
        rf"{OLD_PREFIX}Shrinking ISR from (?P<isr_before>{ISR}) to (?P<isr_after>{ISR})",
        "kafka.cluster.Partition 0.11-1.0: logIdent 'Partition [%s,%d] on broker %d: '",
    ),
    _k(
        "isr_shrink.1_1",
        "isr_shrink",
        r"Shrinking ISR",
        rf"(?:{NEW_PREFIX})?Shrinking ISR from (?P<isr_before>{ISR}) to (?P<isr_after>{ISR})"
        r"(?:\.|\s|$)",
        "kafka.cluster.Partition 1.1-4.x: 'Shrinking ISR from %s to %s' (2.4+ adds "
        "'. Leader: (highWatermark: %d, endOffset: %d). Out of sync replicas: %s.')",
    ),
    _k(
        "isr_expand.0_9",
        "isr_expand",
        r"Expanding ISR",
        rf"Expanding ISR for partition {OLD_TP} from (?P<isr_before>{ISR}) to (?P<isr_after>{ISR})",
        "kafka.cluster.Partition 0.9: 'Expanding ISR for partition [%s,%d] from %s to %s'",
    ),
    _k(
        "isr_expand.0_10",
        "isr_expand",
        r"Expanding ISR",
        rf"Expanding ISR for partition (?P<tp>[^\s\[]\S*) from (?P<isr_before>{ISR}) "
        rf"to (?P<isr_after>{ISR})",
        'kafka.cluster.Partition 0.10: s"Expanding ISR for partition $topicPartition from ..."',
    ),
    _k(
        "isr_expand.0_11",
        "isr_expand",
        r"Expanding ISR",
        rf"{OLD_PREFIX}Expanding ISR from (?P<isr_before>{ISR}) to (?P<isr_after>{ISR})",
        "kafka.cluster.Partition 0.11-1.0: logIdent 'Partition [%s,%d] on broker %d: '",
    ),
    _k(
        "isr_expand.1_1",
        "isr_expand",
        r"Expanding ISR",
        rf"(?:{NEW_PREFIX})?Expanding ISR from (?P<isr_before>{ISR}) to (?P<isr_after>{ISR})"
        r"(?:\.|\s|$)",
        "kafka.cluster.Partition 1.1-2.6: 'Expanding ISR from %s to %s' (2.7+ logs only "
        "'ISR updated to')",
    ),
    _k(
        "isr_change.all",
        "isr_change",
        r"ISR updated to",
        rf"(?:{NEW_PREFIX}|{OLD_PREFIX})?ISR updated to (?P<isr_after>{ISR})\s*"
        r"(?:\(under-min-isr\))?\s*and (?:zkVersion|version) updated to \[?\d+\]?",
        "kafka.cluster.Partition: 0.9-2.6 'ISR updated to [%s] and zkVersion updated to [%d]'; "
        "2.7-3.4 'ISR updated to %s and version updated to [%d]'; 3.5-4.x 'ISR updated to %s "
        "%s and version updated to %d' (second %s is '(under-min-isr)' or empty)",
    ),
    _k(
        "isr_update_failed.zk_version",
        "isr_update_failed",
        r"Cached zkVersion",
        rf"(?:{NEW_PREFIX}|{OLD_PREFIX})?Cached zkVersion \[?\d+\]? not equal to that in "
        r"zookeeper, skip updating ISR",
        "kafka.cluster.Partition.updateIsr, ZooKeeper mode 0.8-2.x: 'Cached zkVersion [%d] not "
        "equal to that in zookeeper, skip updating ISR' (later 2.x without the brackets: "
        's"Cached zkVersion $zkVersion ..."): the ISR change the broker just logged '
        "('Shrinking ISR', 'Expanding ISR') was not written, ZooKeeper holds a newer state "
        "(another leader, the controller's ISR); repeated, the stale partition state of "
        "KAFKA-2729",
    ),
    _k(
        "leader_change.epoch_cache_1_x",
        "leader_change",
        r"Updated PartitionLeaderEpoch",
        r"Updated PartitionLeaderEpoch\. New: \{epoch:(?P<leader_epoch>\d+), offset:?\s?\d+\}.*? "
        r"for Partition: (?P<tp>\S+)\. Cache now contains",
        "kafka.server.epoch.LeaderEpochFileCache 1.0-2.3: 'Updated PartitionLeaderEpoch. New: "
        "{epoch:%d, offset:%d}, Current: ... for Partition: %s. Cache now contains %d entries.'",
    ),
    _k(
        "leader_change.epoch_cache_2_4",
        "leader_change",
        r"new epoch entry",
        r"(?:\[LeaderEpochCache (?P<tp>[^\s\]]+)\] )?Appended new epoch entry "
        r"EpochEntry\(epoch=(?P<leader_epoch>\d+), startOffset=\d+\)",
        "LeaderEpochFileCache 2.4-4.x: 'Appended new epoch entry %s. Cache now contains %d "
        "entries.'",
    ),
    _k(
        "leader_change.become_leader",
        "leader_change",
        r"starts at leader epoch",
        r"Leader (?P<tp>\S+) (?:with topic id \S+ )?starts at leader epoch (?P<leader_epoch>\d+)"
        r"(?:.*? ISR \[(?P<isr_after>[\d,\s]*)\])?",
        "kafka.cluster.Partition.makeLeader 2.4-4.x: 'Leader %s [with topic id %s] starts at "
        "leader epoch %d from offset %d ... ISR [..]'; the logging broker is the new leader",
    ),
    _k(
        "leader_change.become_follower",
        "leader_change",
        r"starts at leader epoch",
        r"Follower (?P<tp>\S+) starts at leader epoch (?P<leader_epoch>\d+)"
        r"(?:.*?Current leader is (?P<leader>\d+))?",
        "kafka.cluster.Partition.makeFollower 2.4-4.x: 'Follower %s starts at leader epoch %d "
        "from offset %d ... Current leader is %d.' (3.x+ names the leader)",
    ),
    _k(
        "leader_change.become_leader_1_x",
        "leader_change",
        r"starts at Leader Epoch",
        r"(?:\[Partition [^\s\]]+ broker=\d+\] |Partition \[[^,\]\s]+,\d+\] on broker \d+: )?"
        r"(?P<tp>[^\s\[\]]+) starts at Leader Epoch (?P<leader_epoch>\d+) from offset \d+",
        "kafka.cluster.Partition.makeLeader 1.0-2.3: '%s starts at Leader Epoch %d from offset "
        "%d. Previous Leader Epoch was: %d' after logIdent 'Partition [%s,%d] on broker %d: ' "
        "(1.0) or '[Partition %s broker=%d] ' (1.1+), lines quoted from public broker logs; the "
        "logging broker is the new leader",
    ),
    _k(
        "leader_change.offline_selector_0_8",
        "leader_change",
        r"for offline partition",
        r'Selected new leader and ISR \{"leader":(?P<leader>\d+),"leader_epoch":'
        r'(?P<leader_epoch>\d+),"isr":\[(?P<isr_after>[\d,]*)\]\} for offline partition '
        r"\[(?P<topic>[^,\]\s]+), ?(?P<partition>\d+)\]",
        "kafka.controller.OfflinePartitionLeaderSelector 0.8-1.0 (controller.log): 'Selected new "
        "leader and ISR %s for offline partition %s' (0.8.0: '[%s, %d]'), the first %s being "
        "LeaderAndIsr.toString = Json.encode(Map(leader, leader_epoch, isr))",
    ),
    _k(
        "leader_change.become_leader_trace",
        "leader_change",
        r"for the become-leader transition",
        r"(?:Broker (?P<leader>\d+) completed|Completed) LeaderAndIsr request correlationId \d+ "
        rf"from controller \d+ epoch \d+ for the become-leader transition for partition "
        rf"(?:{OLD_TP}|(?P<tp>[^\s\]]+))",
        "kafka.server.ReplicaManager.makeLeaders (state-change.log, TRACE) 0.8-1.0 'Broker %d "
        "completed LeaderAndIsr request correlationId %d from controller %d epoch %d for the "
        "become-leader transition for partition %s' ([t,p] to 0.10); 1.1-3.x logIdent "
        "'[Broker id=%d] ' + 'Completed LeaderAndIsr request ...': the logging broker leads",
    ),
    _k(
        "leader_change.become_follower_trace",
        "leader_change",
        r"for the become-follower transition",
        r"(?:Broker \d+ completed|Completed) LeaderAndIsr request correlationId \d+ "
        rf"from controller \d+ epoch \d+ for the become-follower transition for partition "
        rf"(?:{OLD_TP}|(?P<tp>[^\s\]]+))(?: with leader (?P<leader>\d+))?",
        "kafka.server.ReplicaManager.makeFollowers (state-change.log, TRACE) 0.8-1.0 'Broker %d "
        "completed LeaderAndIsr request ... for the become-follower transition for partition "
        "%s'; 1.1-2.x '[Broker id=%d] Completed ...'; 2.4-3.x adds ' with leader %d'",
    ),
    _k(
        "leader_change.preferred_election",
        "leader_change",
        r"completed preferred replica leader election",
        r"Partition (?P<tp>\S+) completed preferred replica leader election\. "
        r"New leader is (?P<leader>\d+)",
        "kafka.controller.KafkaController 0.9-3.x: 'Partition %s completed preferred replica "
        "leader election. New leader is %d'",
    ),
    _k(
        "leader_election_failed.preferred_error",
        "leader_election_failed",
        r"preferred replica leader election",
        r"Error completing preferred replica leader election for partitions? (?P<tp>[^\s,]+)",
        "kafka.controller.KafkaController 0.9-3.x: 'Error completing preferred replica leader "
        "election for partition(s) %s'",
    ),
    _k(
        "leader_election_failed.preferred_not_moved",
        "leader_election_failed",
        r"failed to complete preferred replica",
        r"Partition (?P<tp>\S+) failed to complete preferred replica leader election"
        r"(?: to \d+)?\. Leader is (?:still )?(?P<leader>\d+)",
        "kafka.controller.KafkaController 0.9-1.x '... election. Leader is %d'; 2.x-3.x '... "
        "election to %d. Leader is still %d'",
    ),
    _k(
        "leader_election_failed.strategy",
        "leader_election_failed",
        r"Failed to elect leader",
        r"Failed to elect leader for partition (?P<tp>\S+) under strategy",
        "kafka.controller.(Zk)PartitionStateMachine 1.1-3.x: 'Failed to elect leader for "
        "partition %s under strategy %s'",
    ),
    _k(
        "zk_session_expired.clientcnxn",
        "zk_session_expired",
        r"Unable to reconnect to ZooKeeper service(?!.*closing socket connection)",
        r"Unable to reconnect to ZooKeeper service, session (?P<session_id>0x[0-9a-fA-F]+) "
        r"has expired(?!, closing socket connection)",
        "org.apache.zookeeper.ClientCnxn 3.4-3.8 (WARN; the INFO copy ending ', closing socket "
        "connection' is the same expiry and is not counted again)",
    ),
    _k(
        "zk_session_expired.zkclient",
        "zk_session_expired",
        r"zookeeper state changed \(Expired",
        r"zookeeper state changed \(Expired\)",
        "org.I0Itec.zkclient.ZkClient (Kafka 0.9-1.0): 'zookeeper state changed (Expired)'",
    ),
    _k(
        "zk_session_expired.zookeeperclient",
        "zk_session_expired",
        r"\[ZooKeeperClient[^\]]*\] Session expired",
        r"\[ZooKeeperClient[^\]]*\] Session expired\.",
        "kafka.zookeeper.ZooKeeperClient 1.1-3.x: logIdent '[ZooKeeperClient %s] ' + "
        "'Session expired.'",
    ),
    _k(
        "zk_session_expired.controller_0_8",
        "zk_session_expired",
        r"ZK expired; shut down all controller components",
        r"ZK expired; shut down all controller components and try to re-elect",
        "kafka.controller.KafkaController.SessionExpirationListener.handleNewSession 0.8-1.0 "
        "(controller.log): '[SessionExpirationListener on %d], ZK expired; shut down all "
        "controller components and try to re-elect'",
    ),
    _k(
        "zk_disconnected.clientcnxn",
        "zk_disconnected",
        r"Client session timed out(?!.*closing socket connection)",
        r"Client session timed out, have not heard from server in \d+ms for session ?id "
        r"(?P<session_id>0x[0-9a-fA-F]+)(?![0-9a-fA-F]|, closing socket connection)",
        "org.apache.zookeeper.ClientCnxn 3.4-3.8 (WARN; the INFO copy ending ', closing "
        "socket connection and attempting reconnect' is not counted again)",
    ),
    _k(
        "zk_disconnected.zkclient",
        "zk_disconnected",
        r"zookeeper state changed \(Disconnected",
        r"zookeeper state changed \(Disconnected\)",
        "org.I0Itec.zkclient.ZkClient (Kafka 0.9-1.0): 'zookeeper state changed (Disconnected)'",
    ),
    _k(
        "controller_change.become_0_9",
        "controller_change",
        r"become controller state transition",
        r"Broker (?P<subject>\d+) starting become controller state transition",
        "kafka.controller.KafkaController.onControllerFailover 0.9-1.0",
    ),
    _k(
        "controller_change.elected",
        "controller_change",
        r"successfully elected as",
        r"(?P<subject>\d+) successfully elected as (?:the controller|leader)"
        r"(?:\. Epoch incremented to (?P<leader_epoch>\d+))?",
        "KafkaController 1.1-3.x '%d successfully elected as the controller' (2.4+ adds "
        "'. Epoch incremented to %d ...'); ZookeeperLeaderElector 0.9-1.0 'successfully "
        "elected as leader'",
    ),
    _k(
        "controller_change.observed",
        "controller_change",
        r"has been elected as the controller",
        r"Broker (?P<subject>\d+) has been elected as the controller",
        "kafka.controller.KafkaController 1.1-3.x (DEBUG): 'Broker %d has been elected as the "
        "controller, so stopping the election process.'",
    ),
    _k(
        "controller_change.kraft",
        "controller_change",
        r"Becoming the active controller",
        r"\[QuorumController id=(?P<subject>\d+)\] Becoming the active controller at epoch "
        r"(?P<leader_epoch>\d+)",
        "org.apache.kafka.controller.QuorumController 3.x-4.x (KRaft)",
    ),
    # The KRaft quorum, epoch by epoch (detectors/kraft_quorum.py). Every controller's
    # QuorumController hears each leader change of its Raft client (handleLeaderChange): the
    # new leader logs "Becoming the active controller" (above), the others "In the new epoch
    # E, the leader is L." or, when a vote began (a candidate bumped the epoch), "... the
    # leader is (none)."; an active controller that loses the leadership "Renouncing ...". The
    # Raft client (logIdent '[RaftManager id=N] ', server.log) logs its own transitions and
    # its failed elections. Checked in the kafka-metadata and kafka-raft sources of 3.9.1 and
    # 4.1.1 (3.9.1's raft jar: its string constants) and in real 4.1.1 devcluster logs (the
    # active controller SIGKILLed; two of three voters SIGKILLed).
    _k(
        "quorum_leader.controller",
        "quorum_leader",
        r"In the new epoch \d+, the leader is \d",
        r"In the new epoch (?P<leader_epoch>\d+), the leader is (?P<subject>\d+)",
        "org.apache.kafka.controller.QuorumController.QuorumMetaLogListener.handleLeaderChange "
        "3.x-4.x (INFO, on a controller that is not the new leader): 'In the new epoch {}, the "
        "leader is {}.' (3.9.1, 4.1.1; real 4.1.1 devcluster line)",
    ),
    _k(
        "quorum_no_leader.controller",
        "quorum_no_leader",
        r"In the new epoch \d+, the leader is \(none",
        r"In the new epoch (?P<leader_epoch>\d+), the leader is \(none\)",
        "org.apache.kafka.controller.QuorumController.QuorumMetaLogListener.handleLeaderChange "
        "3.x-4.x (INFO): the leader's name is '(none)' when the new epoch has no leader yet (a "
        "candidate bumped it: a vote is under way) (3.9.1, 4.1.1; real 4.1.1 devcluster line)",
    ),
    _k(
        "quorum_leader.raft",
        "quorum_leader",
        r"Completed transition to Leader\(",
        r"(?:\[RaftManager id=(?P<subject>\d+)\] )?Completed transition to Leader\("
        r"[^\n]{0,1000}?, epoch=(?P<leader_epoch>\d+)",
        "org.apache.kafka.raft.QuorumState.durableTransitionTo 3.x-4.x (INFO): 'Completed "
        "transition to {} from {}' with LeaderState.toString, 4.1.1 'Leader(localVoterNode=%s, "
        "epoch=%d, epochStartOffset=%d, ...' (real devcluster line), 3.9.1 "
        "'Leader(localReplicaKey=%s, epoch=%d, ...'; the node that logs it won the vote. Not "
        "the 'Attempting durable transition to' line before it",
    ),
    _k(
        "quorum_no_leader.raft_candidate",
        "quorum_no_leader",
        r"Completed transition to CandidateState\(",
        r"Completed transition to CandidateState\(localId=(?P<subject>\d+), "
        r"(?:localDirectoryId=[^,\s]*+, ?)?epoch=(?P<leader_epoch>\d+)",
        "org.apache.kafka.raft.QuorumState.durableTransitionTo 3.x-4.x (INFO) with "
        "CandidateState.toString: 4.1.1 'CandidateState(localId=%d, localDirectoryId=%s, "
        "epoch=%d, epochElection=...' (real devcluster line), 3.9.1 'CandidateState(localId=%d, "
        "localDirectoryId=%s,epoch=%d, retries=%d, ...': the node stands for election at a new "
        "epoch, which has no leader yet",
    ),
    _k(
        "controller_resigned.metadata_event",
        "controller_resigned",
        r"Renouncing the leadership due to a metadata log event",
        r"Renouncing the leadership due to a metadata log event\. We were the leader at epoch "
        r"(?P<leader_epoch>\d+), but in the new epoch \d+, the leader is (?:(?P<leader>\d+)|"
        r"\(none\))",
        "org.apache.kafka.controller.QuorumController.QuorumMetaLogListener.handleLeaderChange "
        "3.x-4.x (WARN): 'Renouncing the leadership due to a metadata log event. We were the "
        "leader at epoch {}, but in the new epoch {}, the leader is {}. Reverting to last "
        "stable offset {}.' (3.9.1, 4.1.1): leader_epoch is the epoch it led, leader the new "
        "one (none: '(none)')",
    ),
    _k(
        "controller_resigned.event_failure",
        "controller_resigned",
        r"Renouncing leadership and reverting",
        r"at epoch (?P<leader_epoch>\d+)(?: in \d+ microseconds)?\. Renouncing leadership and "
        r"reverting to the last committed offset",
        "org.apache.kafka.controller.errors.EventHandlerExceptionInfo.failureMessage 3.x-4.x, "
        "logged by QuorumController.handleEventException (INFO; ERROR through the non-fatal "
        "fault handler): '<event>: event failed with <exception> [(treated as <exception>)] at "
        "epoch %d in %d microseconds. Renouncing leadership and reverting to the last committed "
        "offset %d.' (3.9.1, 4.1.1; real 4.1.1 devcluster line after two of three voters died)",
    ),
    _k(
        "controller_resigned.check_quorum",
        "controller_resigned",
        r"Did not receive fetch request from the majority of the voters",
        r"(?:\[RaftManager id=(?P<subject>\d+)\] )?Did not receive fetch request from the "
        r"majority of the voters within \d+ ?ms",
        "org.apache.kafka.raft.LeaderState.timeUntilCheckQuorumExpires 3.x-4.x (INFO): 'Did not "
        "receive fetch request from the majority of the voters within {}ms. Current fetched "
        "voters are {}, and voters are {}'; KafkaRaftClient.pollLeader then resigns (3.9.1, "
        "4.1.1; real 4.1.1 devcluster line, 3000 ms: 1.5 fetch timeouts)",
    ),
    _k(
        "quorum_election_timeout.prospective",
        "quorum_election_timeout",
        r"Election timed out before receiving sufficient vote",
        r"(?:\[RaftManager id=(?P<subject>\d+)\] )?Election timed out before receiving "
        r"sufficient vote responses to become candidate",
        "org.apache.kafka.raft.KafkaRaftClient.pollProspective 4.x (KIP-996 pre-vote; INFO): "
        "'Election timed out before receiving sufficient vote responses to become candidate. "
        "Current epoch election state: {}' (4.1.1; real devcluster line, repeated every 1-2 s "
        "by the survivor of two voters killed)",
    ),
    _k(
        "quorum_election_timeout.candidate",
        "quorum_election_timeout",
        r"Election was not granted, transitioning to prospective",
        r"(?:\[RaftManager id=(?P<subject>\d+)\] )?Election was not granted, transitioning to "
        r"prospective",
        "org.apache.kafka.raft.KafkaRaftClient.pollCandidate 4.x (INFO): 'Election was not "
        "granted, transitioning to prospective' (4.1.1): the candidate's election timed out",
    ),
    _k(
        "quorum_election_timeout.candidate_3x",
        "quorum_election_timeout",
        r"Election has timed out, backing off",
        r"(?:\[RaftManager id=(?P<subject>\d+)\] )?Election has timed out, backing off for \d+ "
        r"?ms before becoming a candidate again",
        "org.apache.kafka.raft.KafkaRaftClient.pollCandidate 3.x (INFO): 'Election has timed "
        "out, backing off for {}ms before becoming a candidate again' (3.9.1's jar; 4.x: "
        "'Election was not granted')",
    ),
    _k(
        "broker_failure.zk",
        "broker_failure",
        r"Broker failure callback",
        r"Broker failure callback for (?P<subject>\d+)",
        "kafka.controller.KafkaController.onBrokerFailure 0.9-3.x: 'Broker failure callback "
        "for %s' (several ids: the first is the subject)",
    ),
    _k(
        "broker_failure.kraft_fenced",
        "broker_failure",
        r"Fencing broker",
        r"Fencing broker (?P<subject>\d+) (?:at epoch \d+ )?because its session has timed out",
        "org.apache.kafka.controller.ReplicationControlManager 3.x 'Fencing broker %d because "
        "its session has timed out.'; 4.x adds 'at epoch %d'",
    ),
    _k(
        "broker_failure.kraft_new_incarnation",
        "broker_failure",
        r"Registering a new incarnation of broker",
        r"Registering a new incarnation of broker (?P<subject>\d+)\. Previous incarnation ID "
        r"was",
        "org.apache.kafka.controller.ClusterControlManager 3.9-4.x (the active controller, at "
        "a registration): 'Registering a new incarnation of broker {}. Previous incarnation ID "
        "was {}; new incarnation ID is {}. ...' A broker killed and started again before its "
        "session timed out is never fenced: this is the controller's only report of it (a "
        "controlled restart logs it too, inside its maintenance window). Not the replay line "
        "'Replayed RegisterBrokerRecord establishing a new incarnation' (3.6+): every "
        "controller logs it, and again for old records when it starts",
    ),
    # A KRaft broker fenced (broker_failure.kraft_fenced) and unfenced again, repeatedly, is a
    # fencing storm (detectors/kraft_quorum.py) unless it restarted in between: its own start
    # line tells a restart from a broker that lost its session while it ran.
    _k(
        "broker_unfenced.heartbeat",
        "broker_unfenced",
        r"to unfence has been granted",
        r"The request from broker (?P<subject>\d+) to unfence has been granted",
        "org.apache.kafka.controller.BrokerHeartbeatManager.calculateNextBrokerState 3.x-4.x "
        "(INFO, the active controller): 'The request from broker {} to unfence has been granted "
        "because it has caught up with the offset of its register broker record {}.' (3.9.1, "
        "4.1.1; real 4.1.1 devcluster line)",
    ),
    _k(
        "broker_starting.lifecycle",
        "broker_starting",
        r"is now STARTING",
        r"Incarnation \S++ of broker (?P<subject>\d+) in cluster \S++ is now STARTING",
        "kafka.server.BrokerLifecycleManager.start 3.x-4.x (KRaft, INFO, the broker's first "
        "lifecycle line, before it registers): 'Incarnation %s of broker %d in cluster %s is "
        "now STARTING.' (3.9.1, 4.1.1; real 4.1.1 devcluster line)",
    ),
    _k(
        "controlled_shutdown.broker_zk",
        "controlled_shutdown",
        r"Starting controlled shutdown",
        r"(?:\[Kafka ?Server (?:id=)?(?P<subject>\d+)\][,:]? )?Starting controlled shutdown",
        "kafka.server.KafkaServer 0.9-3.x: 'Starting controlled shutdown'",
    ),
    _k(
        "controlled_shutdown.broker_kraft",
        "controlled_shutdown",
        r"to SHUTTING_DOWN",
        r"\[BrokerServer id=(?P<subject>\d+)\] Transition from STARTED to SHUTTING_DOWN",
        "kafka.server.BrokerServer 3.x-4.x (KRaft)",
    ),
    _k(
        "shutdown_signal.sigterm",
        "shutdown_signal",
        r"Terminating process due to signal",
        r"Terminating process due to signal SIG(?:TERM|INT|HUP)\b",
        "org.apache.kafka.common.utils.LoggingSignalHandler (kafka-clients 3.9.1, 4.1.1): "
        "'Terminating process due to signal {}', logged in the signal handler before the JVM "
        "runs its shutdown hooks. The broker's own shutdown lines come from a hook that races "
        "Log4j's, and can be lost: a 4.1.1 devcluster broker logged this line and none of them",
    ),
    _k(
        "controlled_shutdown.controller_kraft",
        "controlled_shutdown",
        r"granted a controlled shutdown",
        r"Unfenced broker (?P<subject>\d+) has requested and been granted a controlled shutdown",
        "org.apache.kafka.controller.BrokerHeartbeatManager 3.x-4.x (KRaft controller)",
    ),
    _k(
        "controlled_shutdown.controller_zk",
        "controlled_shutdown",
        r"Shutting down broker \d",
        r"Shutting down broker (?P<subject>\d+)",
        "kafka.controller.KafkaController.shutdownBroker 0.9-3.x: 'Shutting down broker %d'",
    ),
    _k(
        "min_isr_violation.0_9",
        "min_isr_violation",
        r"below required minimum",
        rf"Number of insync replicas for partition (?:{OLD_TP}|(?P<tp>\S+)) is "
        r"\[(?P<isr_size>\d+)\], below required minimum \[(?P<min_isr>\d+)\]",
        "kafka.cluster.Partition 0.9-1.x NotEnoughReplicasException: 'Number of insync "
        "replicas for partition %s is [%d], below required minimum [%d]'",
        scope="entry",
    ),
    _k(
        "min_isr_violation.2_x",
        "min_isr_violation",
        r"insufficient to satisfy the min\.isr",
        r"The size of the current ISR (?::\s*(?P<isr_size>\d+)|(?:Set|List)?\(?\[?"
        r"(?P<isr_set>[\d,\s]*)\]?\)?) is insufficient to satisfy the min\.isr requirement "
        r"of (?P<min_isr>\d+) for partition (?P<tp>[^\s,]+)",
        "kafka.cluster.Partition 2.x-3.x NotEnoughReplicasException: 'The size of the current "
        "ISR Set(2) is insufficient to satisfy the min.isr requirement of %d for partition %s'; "
        "3.x-4.x 'The size of the current ISR : %d is insufficient ...'",
        scope="entry",
    ),
    # A follower asking a broker that is no longer the leader (Kafka 2.0 logs no exception for
    # it: AbstractFetcherThread handles NOT_LEADER_FOR_PARTITION before its 'Error for partition
    # %s at offset %d' branch), and the exception's own message quoted by the broker's request
    # handlers. Checked in apache/kafka's tags 0.8.2.2-3.0.0 (2.0.0 and 2.0.1 in full).
    _k(
        "not_leader.remote_broker",
        "not_leader",
        r"Remote broker is not the leader",
        r"Remote broker is not the leader for partition (?P<tp>[^\s,]++)",
        "kafka.server.AbstractFetcherThread 1.1-2.0 (INFO; DEBUG 2.1+), logIdent '[ReplicaFetcher "
        "replicaId=%d, leaderId=%d, fetcherId=%d] ': 'Remote broker is not the leader for "
        "partition %s, which could indicate that the partition is being moved'",
    ),
    _k(
        "not_leader.epoch_retry",
        "not_leader",
        r"reported an error: NOT_LEADER_(?:FOR_PARTITION|OR_FOLLOWER)",
        r"Retrying leaderEpoch request for partition (?P<tp>\S++) as the (?:leader|current "
        r"replica) reported an error: NOT_LEADER_(?:FOR_PARTITION|OR_FOLLOWER)",
        "kafka.server.ReplicaFetcherThread 1.0-2.0, AbstractFetcherThread 2.1-3.x (INFO): "
        "'Retrying leaderEpoch request for partition %s as the leader reported an error: %s' "
        "(Errors' name: NOT_LEADER_FOR_PARTITION to 2.5, NOT_LEADER_OR_FOLLOWER 2.6+); "
        "ReplicaAlterLogDirsThread 1.1-3.x '... as the current replica reported an error: %s'",
    ),
    _k(
        "not_leader.leader_not_local",
        "not_leader",
        r"Leader not local for partition",
        rf"Leader not local for partition (?:{OLD_TP}|(?P<tp>[^\s,\]]++)) on broker \d",
        "NotLeaderForPartitionException's message (NotLeaderOrFollowerException 2.6+), "
        "kafka.cluster.Partition / ReplicaManager 0.8-3.x: 'Leader not local for partition %s on "
        "broker %d' ('[%s,%d]' to 0.10), quoted as '... on partition %s failed due to %s' by "
        "KafkaApis and ReplicaManager 0.8.2 (WARN) and KafkaApis' ListOffsets 0.9-2.x (DEBUG)",
    ),
    _k(
        "not_leader.error_code",
        "not_leader",
        r"NOT_LEADER_(?:FOR_PARTITION|OR_FOLLOWER)",
        r"(?:on topic-partition (?P<tp>[^\s,]+),.*?)?"
        r"Error: NOT_LEADER_(?:FOR_PARTITION|OR_FOLLOWER)",
        "org.apache.kafka.clients.producer.internals.Sender: 'Got error produce response with "
        "correlation id %d on topic-partition %s, retrying ... Error: NOT_LEADER_OR_FOLLOWER'",
    ),
    _k(
        "not_leader.exception",
        "not_leader",
        r"NotLeader(?:ForPartition|OrFollower)",
        rf"(?s)(?:(?:on|for) partition (?:{OLD_TP}|(?P<tp>[^\s,\]]+))[\s\S]*?)?"
        r"NotLeader(?:ForPartition|OrFollower)(?:Exception|Error)?",
        "NotLeaderForPartitionException (0.9-2.x) / NotLeaderOrFollowerException (2.7+), "
        "logged by ReplicaManager ('Error processing append operation on partition %s') "
        "and ReplicaFetcherThread ('Error for partition %s ...')",
        scope="entry",
    ),
    _k(
        "processor_uncaught_exception.all",
        "processor_uncaught_exception",
        r"Processor got uncaught exception",
        r"Processor got uncaught exception\.",
        "kafka.network.Processor (SocketServer.scala) 0.9-2.x: 'Processor got uncaught exception.'",
    ),
    _k(
        "coordinator_load_start.0_8",
        "coordinator_load_start",
        r"Loading offsets from",
        rf"Loading offsets from (?:{OLD_TP}|(?P<tp>\S+))",
        "kafka.server.OffsetManager 0.8.2: 'Loading offsets from ' + TopicAndPartition "
        "('[__consumer_offsets,12]'); its end is 'Finished loading offsets from %s in %d "
        "milliseconds.' (coordinator_load_finish.0_9)",
    ),
    _k(
        "coordinator_load_start.0_9",
        "coordinator_load_start",
        r"oading offsets and group metadata from",
        rf"Loading offsets and group metadata from (?:{OLD_TP}|(?P<tp>\S+))",
        "kafka.coordinator.GroupMetadataManager 0.9-0.10: 'Loading offsets and group metadata "
        "from %s'",
    ),
    _k(
        "coordinator_load_start.1_1",
        "coordinator_load_start",
        r"Scheduling loading of offsets",
        r"Scheduling loading of offsets and group metadata from (?P<tp>\S+)",
        "kafka.coordinator.group.GroupMetadataManager 1.1-3.x",
    ),
    _k(
        "coordinator_load_start.runtime",
        "coordinator_load_start",
        r"Scheduling loading of metadata from",
        r"Scheduling loading of metadata from (?P<tp>\S+) with epoch (?P<leader_epoch>\d+)",
        "org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime 3.6-4.x",
    ),
    _k(
        "coordinator_load_finish.0_9",
        "coordinator_load_finish",
        r"Finished loading offsets",
        rf"Finished loading offsets from (?:{OLD_TP}|(?P<tp>\S+)) in \d+ milliseconds",
        "kafka.coordinator.GroupMetadataManager 0.9-0.10: 'Finished loading offsets from %s in "
        "%d milliseconds.'",
    ),
    _k(
        "coordinator_load_finish.1_1",
        "coordinator_load_finish",
        r"Finished loading offsets",
        r"Finished loading offsets and group metadata from (?P<tp>\S+) in \d+ milliseconds"
        r"(?: for epoch (?P<leader_epoch>\d+))?",
        "kafka.coordinator.group.GroupMetadataManager 1.1-3.x (2.8+ adds 'for epoch %d, of "
        "which %d milliseconds was spent in the scheduler')",
    ),
    _k(
        "coordinator_load_finish.runtime",
        "coordinator_load_finish",
        r"Finished loading of metadata from",
        r"Finished loading of metadata from (?P<tp>\S+) with epoch (?P<leader_epoch>\d+)",
        "org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime 3.6-4.x",
    ),
    # A consumer group's rebalances, as its coordinator logs them (replay/groups.py reads
    # them; the live job has the admin API's word for the same). Checked in apache/kafka's
    # GroupCoordinator.scala at tags 0.9.0.1, 0.10.0.1-0.10.2.2, 0.11.0.2, 1.0.2, 1.1.1,
    # 2.0.1-2.8.2, 3.0.2-3.8.0, in the string constants of kafka_2.13 3.9.1 and of
    # kafka-group-coordinator 3.9.1 and 4.1.1 (GroupMetadataManager), and in the real 2.x
    # lines quoted by seeds 001 and 004. The 4.1.1 devcluster's own logs hold none (no
    # consumer group rebalanced in them).
    _k(
        "group_rebalance_start.0_9",
        "group_rebalance_start",
        r"Preparing to restabilize group",
        r"Preparing to restabilize group (?P<group>.+?) with old generation (?P<generation>\d+)",
        "kafka.coordinator.GroupCoordinator.prepareRebalance 0.9-0.10 (INFO, logIdent "
        "'[GroupCoordinator %d]: '): 'Preparing to restabilize group %s with old generation %s' "
        "(tags 0.9.0.1, 0.10.2.2)",
    ),
    _k(
        "group_rebalance_start.0_11",
        "group_rebalance_start",
        r"Preparing to rebalance group",
        rf"{GROUP_CONTEXT}Preparing to rebalance group (?P<group>.+?)(?: in state \w+)? with old "
        rf"generation (?P<generation>\d+){GROUP_TP}",
        "kafka.coordinator.group.GroupCoordinator.prepareRebalance 0.11-2.0: 'Preparing to "
        "rebalance group %s with old generation %d (__consumer_offsets-%d)'; 2.1-3.x: 'Preparing "
        "to rebalance group %s in state %s with old generation %d (__consumer_offsets-%d) "
        "(reason: %s)' (seeds 001, 004: '[GroupCoordinator 3]: Preparing to rebalance group "
        "TEST-REALTIME-SZL in state PreparingRebalance with old generation 1 "
        "(__consumer_offsets-49) (reason: removing member ... on heartbeat expiration)'); "
        "org.apache.kafka.coordinator.group.GroupMetadataManager 3.6-4.x (3.9.1, 4.1.1): "
        "'Preparing to rebalance group {} in state {} with old generation {} (reason: {}).' after "
        "the '[GroupCoordinator id=%d topic=%s partition=%d] ' log context",
    ),
    _k(
        "group_stabilized.all",
        "group_stabilized",
        r"Stabilized group",
        rf"{GROUP_CONTEXT}Stabilized group (?P<group>.+?) generation (?P<generation>\d+)"
        rf"{GROUP_TP}(?: with (?P<members>\d+) members)?",
        "kafka.coordinator.GroupCoordinator.onCompleteJoin 0.9-0.10: 'Stabilized group %s "
        "generation %s'; kafka.coordinator.group.GroupCoordinator 0.11-2.7 adds ' "
        "(__consumer_offsets-%d)' (seed 001: 'Stabilized group XXX-SZL generation 1 "
        "(__consumer_offsets-28)'), 2.8-3.x ' with %d members'; GroupMetadataManager 3.6-4.x "
        "(3.9.1, 4.1.1): 'Stabilized group {} generation {} with {} members.' after the log "
        "context. Logged when the join phase completes (the sync phase follows)",
    ),
    _k(
        "group_empty.all",
        "group_empty",
        r"is now empty",
        rf"{GROUP_CONTEXT}Group (?P<group>.+?) with generation (?P<generation>\d+) is now "
        rf"empty{GROUP_TP}",
        "kafka.coordinator.GroupCoordinator.onCompleteJoin 0.10.1-0.10.2: 'Group %s with "
        "generation %s is now empty'; kafka.coordinator.group.GroupCoordinator 0.11-3.x adds ' "
        "(__consumer_offsets-%d)' (seed 004: 'Group TEST-SZL with generation 2 is now empty "
        "(__consumer_offsets-43)'); GroupMetadataManager 3.6-4.x (3.9.1, 4.1.1): 'Group {} with "
        "generation {} is now empty.' after the log context",
    ),
    _k(
        "group_member_failed.classic",
        "group_member_failed",
        r"has failed, removing it from the group",
        rf"{GROUP_CONTEXT}Member .+? in group (?P<group>.+?) has failed, removing it from the "
        r"group",
        "kafka.coordinator.group.GroupCoordinator.onMemberFailure 0.11-3.x (INFO; 0.9-0.10 "
        "logged 'Member %s in group %s has failed' at TRACE only): 'Member %s in group %s has "
        "failed, removing it from the group' (seeds 001, 004); GroupMetadataManager 3.6-4.x "
        "(3.9.1, 4.1.1): 'Member {} in group {} has failed, removing it from the group.' after "
        "the log context: its session timed out",
    ),
    _k(
        "group_member_failed.consumer_protocol",
        "group_member_failed",
        r"fenced from the group because",
        rf"{GROUP_CONTEXT}\[GroupId (?P<group>.+?)\] (?:Streams member|Member) .+? fenced "
        r"from the group because",
        "org.apache.kafka.coordinator.group.GroupMetadataManager 3.6-4.x, the consumer protocol "
        "(KIP-848; 3.9.1, 4.1.1): '[GroupId {}] Member {} fenced from the group because {}.' "
        "(its session or rebalance timed out); 4.1.1 streams groups '[GroupId {}] Streams "
        "member {} fenced from the group because {}.'",
    ),
    _k(
        "group_epoch_bump.consumer_protocol",
        "group_epoch_bump",
        r"group epoch to \d",
        rf"{GROUP_CONTEXT}\[GroupId (?P<group>.+?)\](?:\[MemberId [^\]]*\])? Bumped "
        r"(?:streams )?group epoch to (?P<generation>\d+)",
        "org.apache.kafka.coordinator.group.GroupMetadataManager 3.6-4.x, the consumer protocol "
        "(KIP-848) and share groups: '[GroupId {}] Bumped group epoch to {}.' (3.6.2, 3.7.0, "
        "3.9.1), '... to {} with metadata hash {}.' (4.1.1); 4.1.1 streams groups '[GroupId {}]"
        "[MemberId {}] Bumped streams group epoch to {} with metadata hash {}.': a new group "
        "epoch, the consumer protocol's generation, after the log context",
    ),
    _k(
        "log_cleaner_died.thread",
        "log_cleaner_died",
        r"kafka-log-cleaner-thread-\d+\S* Error due to",
        r"\[kafka-log-cleaner-thread-\d+\][:,]? Error due to",
        "kafka.utils.ShutdownableThread in kafka.log.LogCleaner 0.9-2.3: '[%s]: Error due to' "
        "(0.9-1.0 logIdent '[%s], '): the cleaner thread dies",
    ),
    _k(
        "log_cleaner_died.uncleanable",
        "log_cleaner_died",
        r"as uncleanable",
        r"Unexpected exception thrown when cleaning log .*?\. Marking its partition "
        r"\((?P<tp>[^)\s]+)\) as uncleanable",
        "LogCleaner.CleanerThread 2.4-4.x: compaction stops for that partition",
    ),
    # A failed log directory (disk full, I/O error): LogDirFailureChannel.maybeAddOfflineLogDir
    # logs the IOException (ERROR, a wording per call site), then the LogDirFailureHandler
    # thread takes the dir offline: ReplicaManager.handleLogDirFailure logs the line below
    # first, then LogManager's "Stopping serving logs in dir %s" (the same failure, not
    # counted again). The dir stays offline until the broker restarts (LogDirFailureChannel's
    # javadoc). Checked in kafka_2.13 3.9.1 and 4.1.1 (ReplicaManager.class, LogManager.class,
    # ReplicaManager$LogDirFailureHandler.class) and apache/kafka's 3.9 branch.
    _k(
        "log_dir_offline.replica_manager",
        "log_dir_offline",
        r"Stopping serving replicas in dir",
        r"Stopping serving replicas in dir (?P<log_dir>\S+)",
        "kafka.server.ReplicaManager.handleLogDirFailure 1.0-4.x (WARN, logIdent '[ReplicaManager "
        "broker=%d] '): 'Stopping serving replicas in dir %s'; 3.7-4.x (3.9.1, 4.1.1) 'Stopping "
        "serving replicas in dir %s with uuid %s because the log directory has failed.' (the "
        "uuid an Option: 'Some(<id>)' or 'None')",
    ),
    _k(
        "log_dir_halt.all_failed",
        "log_dir_halt",
        r"Shutdown broker because all log dirs in",
        r"Shutdown broker because all log dirs in (?P<log_dir>[^\n]+?) have failed",
        "kafka.log.LogManager.handleLogDirFailure 1.0-4.x (FATAL, then Exit.halt(1)): 'Shutdown "
        "broker because all log dirs in %s have failed' (the dirs joined by ', '), after "
        "ReplicaManager's 'Stopping serving replicas in dir %s' for the last one",
    ),
    _k(
        "log_dir_halt.metadata_dir",
        "log_dir_halt",
        r"Shutdown broker because the metadata log dir",
        r"Shutdown broker because the metadata log dir (?P<log_dir>\S+) has failed",
        "kafka.server.ReplicaManager.handleLogDirFailure 3.7-4.x, KRaft (FATAL, then "
        "Exit.halt(1)): 'Shutdown broker because the metadata log dir %s has failed' (3.9.1, "
        "4.1.1), after 'Stopping serving replicas in dir %s'",
    ),
    _k(
        "log_dir_halt.offline_dir",
        "log_dir_halt",
        r"Halting broker because dir",
        r"Halting broker because dir (?P<log_dir>\S+) is offline",
        "kafka.server.ReplicaManager.LogDirFailureHandler 1.0-3.9 (FATAL, then Exit.halt(1), "
        "inter.broker.protocol.version below 1.0 only; 3.9.1 has it, 4.1.1 not): 'Halting "
        "broker because dir %s is offline'",
    ),
    # A broker's process has started (the end of its start-up): a failed log dir is offline
    # until then (detectors/log_dirs.py).
    _k(
        "broker_started.kraft",
        "broker_started",
        r"Transition from STARTING to STARTED",
        r"\[BrokerServer id=(?P<subject>\d+)\] Transition from STARTING to STARTED",
        "kafka.server.BrokerServer 2.8-4.x (KRaft): logIdent '[BrokerServer id=%d] ' + "
        "'Transition from STARTING to STARTED' (real 4.1.1 devcluster line)",
    ),
    _k(
        "broker_started.zk",
        "broker_started",
        r"Server (?:id=)?\d+\][,:]? started",
        r"\[Kafka ?Server (?:id=)?(?P<subject>\d+)\][,:]? started\b",
        "kafka.server.KafkaServer.startup 0.9-3.x (ZooKeeper mode): logIdent '[KafkaServer "
        "id=%d] ' + 'started' (real 3.9.1 devcluster line; 0.9-1.0 '[Kafka Server %d], started')",
    ),
    # The broker's own session timeout, which a GC pause must stay under (detectors/
    # session_timeouts.py). The start-up dump of AbstractConfig.logAll is one multi-line entry:
    # "KafkaConfig values: " + NL, then "\tkey = value" + NL per key (sorted: logAll walks a
    # TreeMap), then the logger " (kafka.server.KafkaConfig)" (4.x: "(org.apache.kafka.common.
    # config.AbstractConfig)"). Its mode decides the key: a KRaft node (process.roles set)
    # keeps its broker session through heartbeats to the controller, which fences it after
    # broker.session.timeout.ms; a ZooKeeper-mode broker (process.roles unset or "[]", 3.x
    # lists zookeeper.* keys in both modes) through zookeeper.session.timeout.ms. Lookaheads
    # keep the match independent of key order; "^" on the entry's first line keeps a hostile
    # entry repeating "KafkaConfig values:" linear (one start, not one per repeat).
    _k(
        "session_timeout.kafka_config_kraft",
        "session_timeout",
        r"KafkaConfig values:",
        r"^[^\n]*?KafkaConfig values: ?(?=[\s\S]*?\n\tprocess\.roles = \[?(?:broker|controller))"
        r"[\s\S]*?\n\tbroker\.session\.timeout\.ms = (?P<session_timeout>\d+)",
        "org.apache.kafka.common.config.AbstractConfig.logAll in kafka.server.KafkaConfig, KRaft "
        "2.8-4.x: 'KafkaConfig values: ' then '\\tbroker.session.timeout.ms = 9000' and "
        "'\\tprocess.roles = [broker, controller]' (Kafka 3.4-3.7 operations docs: process.roles "
        "unset means ZooKeeper mode; real 4.1.1 devcluster dump)",
        scope="entry",
    ),
    _k(
        "session_timeout.kafka_config_zookeeper",
        "session_timeout",
        r"KafkaConfig values:",
        r"^[^\n]*?KafkaConfig values: ?[\s\S]*?\n\tzookeeper\.session\.timeout\.ms = "
        r"(?P<session_timeout>\d+)",
        "AbstractConfig.logAll in kafka.server.KafkaConfig, ZooKeeper mode 0.9-3.x: "
        "'\\tzookeeper.session.timeout.ms = 6000' (3.x also lists 'process.roles = []'; real "
        "3.9.1 devcluster dump)",
        scope="entry",
    ),
    _k(
        "session_timeout.zookeeper_client",
        "session_timeout",
        r"Initiating client connection",
        r"Initiating client connection, connectString=\S*+ sessionTimeout=(?P<session_timeout>\d+)",
        "org.apache.zookeeper.ZooKeeper 3.4-3.8 constructor, logged by a ZooKeeper-mode broker "
        "(Kafka 0.9-3.x): 'Initiating client connection, connectString=%s sessionTimeout=%d "
        "watcher=%s' (seed 002; real 3.9.1 devcluster line)",
    ),
)

# --------------------------------------------------------------------------------------------
# JVM GC logs. JDK 9+ unified logging: any decorators ([time][uptime][level][tags]...) then
# "GC(n) ...". JDK 8 -XX:+PrintGCDetails: optional date and uptime stamps, then "[GC ..." or
# "[Full GC ...", possibly over several lines (G1 detail blocks, CMS interleaving).

# What follows "[GC" in JDK 6-8 lines that are not young collections: G1's "[GC pause" (its own
# patterns), "[GC concurrent-...", "[GC remark ... [GC ref-proc, ...]", "[GC cleanup 4476M->
# 4470M(8192M), ...]" (a figure, but no collection), CMS's phases (JDK 8 "[GC (CMS Initial
# Mark)", "[GC (CMS Final Remark)"; JDK 6-7 "[GC [1 CMS-initial-mark: ...", "[GC[YG occupancy:
# ...][Rescan ...][1 CMS-remark: ..."). In the regex too, so that it never matches where its
# trigger does not (Spark runs the regex alone).
NOT_YOUNG = (
    r"(?! pause| concurrent| remark| cleanup| ref-proc| \(CMS| ?\[1 CMS-initial-mark"
    r"| ?\[YG occupancy)"
)

GC_PATTERNS: tuple[EventPattern, ...] = (
    _g(
        "gc_failure.g1_evacuation_failure",
        "gc_failure",
        r"GC\(\d+\) Pause Young.*\(Evacuation Failure",
        rf"GC\(\d+\) Pause Young (?:\((?:Normal|Concurrent Start|Prepare Mixed|Mixed)\) )?"
        rf"\((?P<cause>{CAUSE})\) \(Evacuation Failure[^)]*\) {UNIFIED_HEAP} {DURATION}",
        "JDK 20+ G1 (g1YoungCollector young_gc_name): 'Pause Young (Normal) (G1 Evacuation "
        "Pause) (Evacuation Failure[: Allocation|Pinned]) 36M->30M(46M) 1.922ms'",
        collector="g1",
    ),
    _g(
        "gc_failure.g1_to_space_exhausted_unified",
        "gc_failure",
        r"GC\(\d+\) To-space exhausted",
        r"GC\(\d+\) To-space exhausted",
        "JDK 9-19 G1, tag gc: 'GC(12) To-space exhausted' (a separate line; the pause follows)",
        collector="g1",
    ),
    _g(
        "gc_failure.zgc_allocation_stall",
        "gc_failure",
        r"Allocation Stall \(",
        rf"Allocation Stall \((?P<cause>[^)]*)\) {DURATION}",
        "JDK 11+ ZGC, tag gc: 'Allocation Stall (main) 27.632ms' (the thread waited that long; "
        "cause holds the thread name)",
        collector="zgc",
    ),
    _g(
        "gc_failure.shenandoah_degenerated",
        "gc_failure",
        r"Pause Degenerated GC",
        rf"GC\(\d+\) Pause Degenerated GC \((?P<cause>[^)]*)\) {UNIFIED_HEAP} {DURATION}",
        "JDK 12+ Shenandoah: 'Pause Degenerated GC (Outside of Cycle) 59M->57M(64M) 2.519ms' "
        "(concurrent collection lost the race with allocation)",
        collector="shenandoah",
    ),
    _g(
        "full_gc.unified",
        "full_gc",
        r"GC\(\d+\) Pause Full\b.*\d[BKMG]->",
        rf"GC\(\d+\) Pause Full(?: \((?P<cause>{CAUSE})\))? {UNIFIED_HEAP} {DURATION}",
        "JDK 9+ G1/Parallel/Serial 'Pause Full (System.gc()) 1M->1M(10M) 3.987ms', G1 10+ cause "
        "'G1 Compaction Pause', jcmd GC.run 'Diagnostic Command'; Shenandoah 'Pause Full "
        "59M->57M(64M) 120ms' (no cause)",
    ),
    _g(
        "young_gc.unified",
        "young_gc",
        r"GC\(\d+\) Pause (?:Young|Mixed|Initial Mark \()\b.*\d[BKMG]->",
        rf"GC\(\d+\) Pause (?:Young|Mixed|Initial Mark(?= \())(?: \((?P<cause>{CAUSE})\))*+ "
        rf"{UNIFIED_HEAP} {DURATION}",
        "JDK 11+ G1 'Pause Young (Normal|Concurrent Start|Prepare Mixed|Mixed) (G1 Evacuation "
        "Pause) 2M->2M(10M) 1.037ms'; JDK 9-10 G1 'Pause Young|Mixed|Initial Mark (G1 "
        "Evacuation Pause)'; Parallel/Serial/CMS 'Pause Young (Allocation Failure) "
        "64M->5M(245M) 4.7ms'. JDK 9-13 CMS 'Pause Initial Mark 91M->91M(150M) 0.165ms' has no "
        "cause (CMSCollector::do_CMS_operation's GCTraceTime gets GCCause::_no_gc): a CMS "
        "phase, not a young collection, as in JDK 8",
    ),
    _g(
        "gc_failure.jdk8_g1_to_space_exhausted",
        "gc_failure",
        r"\(to-space (?:exhausted|overflow)\)",
        rf"(?s){JDK8_STAMP}\[GC pause (?:\((?P<cause>{CAUSE})\) )?\((?:young|mixed|partial)\)"
        rf"[^\n]*?{G1_TENURING} ?\(to-space (?:exhausted|overflow)\)(?: \(initial-mark\))?, "
        r"(?P<pause>\d+[.,]\d+) "
        r"(?P<pause_unit>secs)\](?:.*?Heap: (?P<heap_before>[\d.,]+[BKMG])\([\d.,]+[BKMG]\)->"
        r"(?P<heap_after>[\d.,]+[BKMG])\((?P<heap_total>[\d.,]+[BKMG])\))?",
        "JDK 7-8 G1 -XX:+PrintGCDetails: '[GC pause (G1 Evacuation Pause) (young) (to-space "
        "exhausted), 0.1234 secs]' (G1CollectedHeap::log_gc_footer), tenuring lines before it",
        scope="entry",
        collector="g1",
    ),
    _g(
        "full_gc.jdk8_cms_failure",
        "full_gc",
        r"\(concurrent mode failure\)|\(promotion failed\)",
        rf"(?s){JDK8_STAMP}\[(?:Full GC|GC)(?: \({CAUSE}\))?.*?"
        r"\((?P<cause>concurrent mode failure|promotion failed)\).*?\] " + JDK8_HEAP,
        "JDK 6-8 CMS -XX:+PrintGCDetails: CMSCollector::acquire_control_and_collect ' (concurrent "
        "mode failure)' and ParNew ' (promotion failed)': the young collection gives up and a "
        "stop-the-world full collection of the old generation follows in the same entry, so it "
        "is a Full GC and its pause is the whole entry's (the last figure before [Times:): "
        "'(concurrent mode failure): 2145434K->751705K(2454528K), 2.96 secs] 2683000K->751705K"
        "(3076608K), [CMS Perm : ...], 3.36 secs]'",
        scope="entry",
        collector="cms",
    ),
    _g(
        "gc_failure.jdk8_parallel_promotion_failed",
        "gc_failure",
        r"\[GC[^\[]*--\[PSYoungGen",
        rf"{JDK8_STAMP}\[GC(?: \((?P<cause>{CAUSE})\))? --\[(?P<young_gen>PSYoungGen): "
        r"[^\]]*\] " + JDK8_HEAP,
        "JDK 8 Parallel: '[GC (Allocation Failure) --[PSYoungGen: 7495K->7495K(9216K)] "
        "15687K->15695K(19456K), 0.0027637 secs]' ('--' marks promotion failure)",
        collector="parallel",
    ),
    _g(
        "full_gc.jdk8_g1",
        "full_gc",
        r"\[Full GC\b",
        rf"{JDK8_STAMP}\[Full GC(?: \((?P<cause>{CAUSE})\))?\s+"
        r"(?P<heap_before>[\d.]+[BKMG])->(?P<heap_after>[\d.]+[BKMG])\((?P<heap_total>[\d.]+[BKMG])\)"
        r", (?P<pause>\d+[.,]\d+) (?P<pause_unit>secs)\]",
        "JDK 7-8 G1 (and -XX:+PrintGC without details): '[Full GC (Allocation Failure)  "
        "8071M->4285M(8192M), 10.3987109 secs]'",
    ),
    _g(
        "full_gc.jdk8_g1_interleaved",
        "full_gc",
        r"\[Full GC\b",
        rf"(?s){JDK8_STAMP}\[Full GC(?: \((?P<cause>{CAUSE})\))? *"
        rf"(?:$|\n?{JDK8_INNER_STAMP}\[GC concurrent-)"
        r"(?:.*?\s(?P<heap_before>[\d.]+[BKMG])->(?P<heap_after>[\d.]+[BKMG])"
        r"\((?P<heap_total>[\d.]+[BKMG])\), (?P<pause>\d+[.,]\d+) (?P<pause_unit>secs)\])?",
        "JDK 7-8 G1: G1CollectedHeap::do_full_collection prints '[Full GC (cause) ' and only at "
        "the end the heap and pause; the concurrent mark thread's '[GC concurrent-...]' lines "
        "(own date and uptime stamps) land in between, on the same line or the next. The "
        "figures are taken when they are in the same entry; otherwise the pause is unknown",
        scope="entry",
        collector="g1",
    ),
    _g(
        "full_gc.jdk8_g1_dump",
        "full_gc",
        r"\[Full GC\b",
        rf"(?s){JDK8_STAMP}\[Full GC(?: \((?P<cause>{CAUSE})\))? *+(?:{HEAP_DUMP})?(?:{HISTOGRAM})?"
        r" *+(?P<heap_before>[\d.]+[BKMG])->(?P<heap_after>[\d.]+[BKMG])"
        rf"\((?P<heap_total>[\d.]+[BKMG])\){G1_TENURING}, (?P<pause>\d+[.,]\d+) "
        r"(?P<pause_unit>secs)\]",
        "JDK 8 G1 G1CollectedHeap::do_collection: the Full GC's GCTraceTime opens '[Full GC "
        "(cause) ', then CollectedHeap::pre_full_gc_dump prints -XX:+HeapDumpBeforeFullGC's "
        "'<stamps>[Heap Dump (before full gc): , 1.2345678 secs]' and -XX:+PrintClassHistogram"
        "BeforeFullGC's '<stamps>[Class Histogram (before full gc): ' + histogram + ', 0.1 secs]', "
        "then ' 8071M->4285M(8192M), 10.3987109 secs]' (the pause includes the dump's). The "
        "after-Full-GC dump and histogram come after the line, entries of their own. JDK 6 G1 "
        "prints -XX:+PrintTenuringDistribution's lines before the pause (GCViewer's "
        "SampleSun1_6_0G1FullGcTenuringDistribution.txt)",
        scope="entry",
        collector="g1",
    ),
    _g(
        "full_gc.jdk8_generational",
        "full_gc",
        r"\[Full GC\b",
        rf"(?s){JDK8_STAMP}\[Full GC(?: ?\((?P<cause>{CAUSE})\))?.*?"
        r"(?:\[(?P<young_gen>PSYoungGen|ParNew|DefNew|CMS|Tenured|ParOldGen|PSOldGen)\b.*?)?\]\n? "
        + JDK8_HEAP,
        "JDK 6-8 Parallel '[Full GC (Ergonomics) [PSYoungGen: ...] [ParOldGen: ...] 5112K->"
        "4968K(125952K), [Metaspace: ...], 0.0102 secs]' (JDK 6-7 '... 146596K->112415K(475904K) "
        "[PSPermGen: ...], 0.7563620 secs]'), CMS '[Full GC (Allocation Failure) [CMS: ...] ...', "
        "Serial '[Full GC (Allocation Failure) [Tenured: ...] ...'; lines printed inside the "
        "collection's own line (-XX:+TraceClassUnloading '[Unloading class ...]', "
        "-XX:+PrintTenuringDistribution, a dump or class histogram before it) are passed over; "
        "GenCollectedHeap::do_collection prints -XX:+PrintClassHistogramAfterFullGC's histogram "
        "inside the line too, after the old generation's part: its ', 0.41 secs]' ends a line, "
        "the heap's ' 8178943K->3104400K(8178944K), [Metaspace: ...], 9.10 secs]' opens the next",
        scope="entry",
    ),
    _g(
        "full_gc.jdk8_before_full_gc_dump",
        "full_gc",
        r"\[Full GC\b",
        rf"(?s){JDK8_STAMP}\[Full GC(?: ?\((?P<cause>{CAUSE})\))? *+(?:{JDK8_INNER_STAMP}\[(?:"
        r"Heap Dump|Class Histogram)(?: \(before full gc\))?:|\n num +#instances)",
        "JDK 8 CollectedHeap::pre_full_gc_dump inside a Full GC's line whose figures are not in "
        "the entry's scanned text (a class histogram of thousands of lines): a Full GC, pause "
        "unknown (JDK 6-7: '[Class Histogram:')",
        scope="entry",
    ),
    _g(
        "young_gc.jdk8_g1",
        "young_gc",
        r"\[GC pause \(",
        rf"(?s){JDK8_STAMP}\[GC pause (?:\((?P<cause>{CAUSE})\) )?\((?:young|mixed|partial)\)"
        rf"[^\n,]*+{G1_TENURING}, (?P<pause>\d+[.,]\d+) (?P<pause_unit>secs)\](?:.*?Heap: "
        r"(?P<heap_before>[\d.,]+[BKMG])\([\d.,]+[BKMG]\)->(?P<heap_after>[\d.,]+[BKMG])"
        r"\((?P<heap_total>[\d.,]+[BKMG])\))?",
        "JDK 7-8 G1 -XX:+PrintGCDetails: '[GC pause (G1 Evacuation Pause) (young|mixed)"
        "[ (initial-mark)], 0.0749305 secs]' then '[Eden: ... Heap: 5649.6M(8192.0M)->"
        "5466.5M(8192.0M)]' (G1CollectedHeap::log_gc_header/log_gc_footer); the cause may hold "
        "parentheses ('(System.gc())': -XX:+ExplicitGCInvokesConcurrent runs System.gc() as a "
        "young initial-mark pause, not a Full GC); -XX:+PrintTenuringDistribution's lines "
        "come before the pause; JDK 6-7 before 7u40 has no cause (JDK 6 '(partial)': mixed)",
        scope="entry",
        collector="g1",
    ),
    _g(
        "young_gc.jdk8_generational",
        "young_gc",
        rf"\[GC\b{NOT_YOUNG}",
        rf"(?s){JDK8_STAMP}\[GC{NOT_YOUNG}(?: ?\((?P<cause>{CAUSE})\))?"
        r"(?:.*?\[(?P<young_gen>PSYoungGen|ParNew|DefNew)\b.*?\] |[^\n]*?\s)" + JDK8_HEAP,
        "JDK 6-8 Parallel '[GC (Allocation Failure) [PSYoungGen: ...] 33280K->5112K(125952K), "
        "0.0041 secs]', CMS '[GC (Allocation Failure) 1.2: [ParNew: ...] ...', Serial "
        "'[GC (Allocation Failure) [DefNew: ...] ...', -XX:+PrintGC '[GC 118250K->113543K"
        "(130112K), 0.0094143 secs]'; lines printed inside the collection's line (JDK 6-8 "
        "Parallel's -XX:+PrintTenuringDistribution '[GC\\nDesired survivor size ...\\n "
        "[PSYoungGen: ...', PSScavenge::invoke_no_policy; -XX:+PrintAdaptiveSizePolicy) are "
        "passed over; without a generation's name the figures are on the first line",
        scope="entry",
    ),
)

ALL_PATTERNS: tuple[EventPattern, ...] = KAFKA_PATTERNS + GC_PATTERNS

# --------------------------------------------------------------------------------------------
# Line shapes (not events): where an entry starts, what it says about itself.

_LEVELS = r"(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL)"
_EXCEPTION_LINE = r"[a-z][\w$]*\.[\w$.]*(?:Exception|Error|Throwable)\b"
_JDK8_PREFIX = r"(?:\d{4}-\d\d-\d\dT[\d:.]+[+-]\d{4}: )?(?:\d+[.,]\d+: )?(?:#\d+: )?"

# A new entry starts with a timestamp (log4j, ISO), a bracketed decorator (unified JVM logging,
# JDK 8 G1 concurrent lines), a JDK 8 uptime stamp (then "[", or a -XX:+PrintGCID "#n: ", or
# a -XX:+PrintGCApplicationStoppedTime / ConcurrentTime line), a JSON layout's "{" (alone on
# its line where the layout is not compact: log4j2 JsonLayout's default), or, in
# any other log4j layout (thread first, no brackets), an unindented line with a level word
# near its start. Anything else continues the entry before it (stack frames, "Caused by:",
# exception lines, indented GC details), and so does JDK 6-8 -XX:+TraceClassUnloading's
# "[Unloading class <name>]" (ClassLoadingService::notify_class_unloaded), printed on the
# JVM's stdout in the middle of the Full GC line that unloads the class, and a generation's
# part of a collection ("49830.934: [CMS: ...", "[ParNew ...", "[CMS<stamp>: [CMS-concurrent-")
# where early JDK 6's -XX:+PrintHeapAtGC printed its "{Heap before gc invocations=146:" block
# inside the collection's line (garbagecat's "split PrintHeapAtGC", dataset6/8/21), whatever
# stamps the generation's GCTraceTime opens with (-XX:+PrintGCDateStamps, -XX:+PrintGCID too:
# GenCollectedHeap::do_collection prints "<stamps>[CMS: ..." at a line's start after a class
# histogram, -XX:+PrintClassHistogramBeforeFullGC, or -XX:+PrintFLSStatistics' "Before GC:"
# block ended the line before); the CMS thread's own "[CMS-concurrent-..." lines still start
# entries.
_INNER_GENERATION = r"(?:ParNew|DefNew|Tenured)\b|CMS(?!-)"
ENTRY_START = (
    rf"^(?!{_JDK8_PREFIX}\[(?:{_INNER_GENERATION}))"
    rf"(?:\[?\d{{4}}-\d\d-\d\d[ T]\d\d:\d\d|\[(?!Unloading class )|\{{\"|"
    r"\{\s*$|#\d+: \[|"
    r"\d+[.,]\d+: (?:\[|#\d+: \[|Total time for which|Application time:)|"
    rf"{_LEVELS}\b|(?!{_EXCEPTION_LINE}|Caused by:)\S[^\n]{{0,100}}?\b{_LEVELS}\b)"
)
# Lines a JDK 6-8 prints inside a collection's entry, never first: CMS's -XX:PrintFLSStatistics
# blocks (CompactibleFreeListSpace::gc_prologue/gc_epilogue "Before GC:"/"After GC:", then
# BinaryTreeDictionary::report_statistics, reportIndexedFreeListStatistics, " free=%d
# frag=%1.4f"; endSweepFLCensus "CMS: Large block 0x...", setNearLargestChunk "CMS: Large
# Block: 0x...; Proximity: ..."), a Full GC's ": 520550K->..." after such a line,
# -XX:+PrintCMSInitiationStatistics' lines after its header (CMSCollector::
# shouldConcurrentCollect: "free=%d", "occupancy=%3.7f", ..., "metadata initialized %d"), a class
# histogram's rows from the 1000th on ("%4d: %13ld  %13lu  %s"), its dashes, "Total ..." and
# its GCTraceTime's ", 0.5686420 secs]" (hotspot 8u: compactibleFreeListSpace.cpp,
# binaryTreeDictionary.cpp, concurrentMarkSweepGeneration.cpp, heapInspection.cpp), and a
# generation's part of a collection (the lines ENTRY_START leaves out).
_GC_DETAIL_LINE = (
    r"(?:Before|After) GC:$|Statistics for (?:BinaryTreeDictionary|IndexedFreeLists):$|-{32,46}$|"
    r"(?:Total Free Space|Max   Chunk Size|Number of Blocks|Av\.  Block  Size|Tree      Height): "
    r"\d+$|CMS: Large [Bb]lock|: \d+[KMG]->|(?:free|contiguous_available|promotion_rate|"
    r"cms_allocation_rate|occupancy|initiatingOccupancy|cms_time_since_begin|cms_time_since_end)"
    r"=[\w.+-]+$|metadata initialized \d+$|\d+: +\d+ +\d+  \S|Total +\d+ +\d+$|"
    rf", \d+[.,]\d+ secs\]|{_JDK8_PREFIX}\[(?:{_INNER_GENERATION})"
)
# A lone record that only continues an entry (shippers that do not join lines).
CONTINUATION = rf"^(?:\s|Caused by:|\.\.\. \d+ more|{_EXCEPTION_LINE}|{_GC_DETAIL_LINE})"
# The entry's own date and time: the first one in the first 120 characters, whatever the
# layout puts before it (a level, a thread, a bracket): "[2019-05-15 22:20:14,399]",
# "2015-05-19 16:52:48,758 ERROR", "[main] 2019-05-15T22:20:14.399+0800", "INFO  2019-...".
TIMESTAMP = (
    r"^[^\n]{0,120}?(?<![\d.:-])(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:[,.](\d{1,9}))?"
    r"(Z|[+-]\d\d:?\d\d)?"
)
# log4j 1.x "%d{DATE}" (DateTimeDateFormat "dd MMM yyyy HH:mm:ss,SSS", English month names;
# https://logging.apache.org/log4j/1.2/apidocs/org/apache/log4j/PatternLayout.html), read
# where TIMESTAMP finds no ISO date: "19 May 2015 16:52:48,758 ERROR [main] ...".
LOG4J_DATE = (
    r"^[^\n]{0,120}?(?<!\d)(\d\d (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} "
    r"\d\d:\d\d:\d\d(?:,\d{3})?)"
)
# The log4j level: the first upper-case level word in the first 120 characters.
LEVEL = rf"^[^\n]{{0,120}}?\b({_LEVELS[3:-1]})\b"
# The family of an entry, from its first line. A JVM GC log line: unified logging decorators
# with a gc or safepoint tag, or a JDK 6-8 line ("[GC", "[Full GC", "Total time for which
# application threads were stopped", "{Heap before GC invocations="), possibly after its date,
# uptime and -XX:+PrintGCID stamps, or CMS's -XX:+PrintCMSInitiationStatistics header
# ("CMSCollector shouldConcurrentCollect: " and outputStream::stamp's "%.3f").
GC_LINE = (
    r"^(?:\[[^\[\]\n]{0,80}\]){0,12}?\[(?:gc|safepoint)\b[\w,\s]{0,40}\]|"
    rf"^{_JDK8_PREFIX}(?:\[(?:GC|Full GC)\b|Total time for which application threads|"
    r"Application time: )|^\{Heap (?:before|after) GC invocations=|"
    r"^CMSCollector shouldConcurrentCollect: \d"
)
GC_LINE_TEXTS = (
    "[gc", "[safepoint", "[GC", "[Full GC", "Total time for which application threads",
    "Application time: ", "{Heap ", "CMSCollector shouldConcurrentCollect: ",
)  # fmt: skip
"""Plain texts one of which every line :data:`GC_LINE` matches holds (each of its branches
names one): a line without any is not a GC line, and meets no regex to say so."""
DEFAULT_LAYOUT_LEVELS = (" INFO ", " WARN ", " ERROR ", " DEBUG ", " TRACE ", " FATAL ")
"""A level as Kafka's default log4j layout writes it ("[%d] %p %m (%c)%n"), with the spaces
around it, right after the bracketed date: "[2026-11-26 10:15:57,357] INFO ..."."""
DEFAULT_LAYOUT_LEVEL_AT = 25
"""Where the space before the level is in such a line (0-based)."""


def is_default_layout(head: str) -> bool:
    """Whether ``head`` opens as Kafka's default layout writes a line: "[", then a level in
    :data:`DEFAULT_LAYOUT_LEVELS` at :data:`DEFAULT_LAYOUT_LEVEL_AT`. Such a line matches
    :data:`LOG4J_LINE` and :data:`ENTRY_START` (a test checks it), so a parse that sees this by
    plain compares needs neither regex for it."""
    at = DEFAULT_LAYOUT_LEVEL_AT
    return head.startswith("[") and any(
        head[at : at + len(level)] == level for level in DEFAULT_LAYOUT_LEVELS
    )


DEFAULT_LAYOUT_STAMP = r"^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2},[0-9]{3}$"
"""The date Kafka's default layout writes between its brackets (log4j's ISO8601 "%d":
"2026-11-26 10:15:57,357"); ``[0-9]``, not ``\\d``, so that Python reads it as Java does."""


def default_layout_stamp(head: str) -> tuple[str, str] | None:
    """The ISO timestamp and the level of a line in Kafka's default layout, read at their
    fixed places: when ``head`` opens as that layout writes a line (:func:`is_default_layout`),
    its bracket closes right before the level and holds a date of the layout's own shape
    (:data:`DEFAULT_LAYOUT_STAMP`). None for any other line. Where it gives them,
    :data:`TIMESTAMP` and :data:`LEVEL` find the same (a test checks it): the parse reads an
    event's time and level this way first, and runs those regexes only on the other lines."""
    at = DEFAULT_LAYOUT_LEVEL_AT
    stamp = head[1 : at - 1]
    if not is_default_layout(head) or head[at - 1] != "]":
        return None
    if re.match(DEFAULT_LAYOUT_STAMP, stamp) is None:
        return None
    return f"{stamp[:10]}T{stamp[11:19]}.{stamp[20:]}", head[at + 1 :].split(" ", 1)[0]


# A log4j line in any common layout: a level word near the start (GC logs have none in upper
# case) or a JSON layout object.
LOG4J_LINE = rf"^[^\n]{{0,120}}?\b{_LEVELS}\b|^\{{\""

# The broker a Kafka line names as its own logger context: "[Partition t-0 broker=3]",
# "[ReplicaManager broker=2]", "[Broker id=1]", "[KafkaServer id=3]", "[QuorumController id=1]".
LINE_BROKER = (
    r"\[(?:Partition \S+ broker|ReplicaManager broker|Broker id|KafkaServer id|BrokerServer id|"
    r"Controller id|QuorumController id|BrokerLifecycleManager id|GroupMetadataManager brokerId|"
    r"GroupCoordinator id|TransactionCoordinator id|ReplicaFetcher replicaId)=(\d+)\b"
)
# JVM: "[12.345s]" (uptime) "[12345ms]" (uptimemillis) or JDK 8 "12.345: [" after a date stamp.
UPTIME_UNIFIED = r"^(?:\[[^\]]*\]){0,8}?\[(\d+(?:[.,]\d+)?)(s|ms|ns)\]"
UPTIME_JDK8 = r"^(?:\d{4}-\d\d-\d\dT[\d:.]+[+-]\d{4}: )?(\d+\.\d+): (?:#\d+: )?\["
# "Using G1", "Using Parallel", "Using The Z Garbage Collector", ... at JVM start (tag gc/init).
USING_COLLECTOR = (
    r"\] Using (G1|Parallel|Serial|Shenandoah|The Z Garbage Collector|Concurrent Mark Sweep)\s*$"
)

YOUNG_GEN_COLLECTOR: dict[str, str] = {
    "PSYoungGen": "parallel",
    "ParOldGen": "parallel",
    "PSOldGen": "parallel",
    "ParNew": "cms",
    "CMS": "cms",
    "DefNew": "serial",
    "Tenured": "serial",
}
USING_TO_COLLECTOR: dict[str, str] = {
    "G1": "g1",
    "Parallel": "parallel",
    "Serial": "serial",
    "Shenandoah": "shenandoah",
    "The Z Garbage Collector": "zgc",
    "Concurrent Mark Sweep": "cms",
}


# Line-shape expressions that run on every record (checked like the table's patterns).
SHAPES: dict[str, str] = {
    "ENTRY_START": ENTRY_START,
    "CONTINUATION": CONTINUATION,
    "GC_LINE": GC_LINE,
    "LOG4J_LINE": LOG4J_LINE,
    "TIMESTAMP": TIMESTAMP,
    "LOG4J_DATE": LOG4J_DATE,
    "LEVEL": LEVEL,
    "LINE_BROKER": LINE_BROKER,
    "UPTIME_UNIFIED": UPTIME_UNIFIED,
    "UPTIME_JDK8": UPTIME_JDK8,
    "USING_COLLECTOR": USING_COLLECTOR,
}

# Repetition of a group compiles, in java.util.regex, to a loop that recurses once per
# iteration: "(?:a|bc)*" over 1 MB overflows a task thread's stack (a repeated single character
# or class is iterative). A repeated group must be possessive ("*+", "++": Java then runs it
# iteratively) or bounded by a small count.
MAX_GROUP_REPEAT = 16
_GROUP_QUANTIFIER = re.compile(r"(?:[*+?]|\{(\d+)(?:,(\d*))?\})([+?]?)")


def _outside_classes(regex: str) -> Iterator[tuple[int, str]]:
    """Each unescaped character of ``regex`` outside its character classes, with its index
    (a class's own brackets and contents are skipped; "[]...]" and "[^]...]" hold a "]")."""
    i, in_class = 0, False
    while i < len(regex):
        c = regex[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if regex[i + 1 : i + 2] == "^":
                i += 1
            if regex[i + 1 : i + 2] == "]":
                i += 1
        else:
            yield i, c
        i += 1


def recursion_hazards(regex: str) -> list[str]:
    """Repeated groups in ``regex`` that make Java's matcher recurse once per repeat."""
    found = []
    for i, c in _outside_classes(regex):
        if c != ")":
            continue
        m = _GROUP_QUANTIFIER.match(regex, i + 1)
        if m and m.group(0)[0] != "?" and m.group(3) != "+":
            low, high = m.group(1), m.group(2)
            bounded = low is not None and (
                (high is None and int(low) <= MAX_GROUP_REPEAT)
                or (high not in (None, "") and int(high) <= MAX_GROUP_REPEAT)
            )
            if not bounded:
                found.append(f"repeated group '...{regex[max(0, i - 30) : m.end()]}'")
    return found


MIN_LITERAL = 3
"""A trigger's literal must be at least this long to be worth a search of its own."""
_QUANTIFIERS = frozenset("?*{")


def _split_top_level(regex: str) -> list[str]:
    """``regex`` split at its top-level ``|`` (outside groups and classes)."""
    parts, depth, start = [], 0, 0
    for i, c in _outside_classes(regex):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            parts.append(regex[start:i])
            start = i + 1
    parts.append(regex[start:])
    return parts


def _leading_literal(alternative: str) -> str:
    """The plain text every match of ``alternative`` starts with (escapes resolved; a
    character a quantifier makes optional is left out)."""
    out: list[str] = []
    i = 0
    while i < len(alternative):
        c = alternative[i]
        if c == "\\":
            nxt = alternative[i + 1 : i + 2]
            if not nxt or nxt.isalnum():  # \d, \b, \Q...: not a plain character
                break
            char, width = nxt, 2
        elif c in "()[].*+?{}|^$":
            break
        else:
            char, width = c, 1
        following = alternative[i + width : i + width + 1]
        if following in _QUANTIFIERS and following:
            break
        out.append(char)
        i += width
        if following == "+":
            break
    return "".join(out)


def trigger_literals(trigger: str) -> tuple[str, ...] | None:
    """Texts one of which every match of ``trigger`` contains (one per top-level
    alternative), or None when an alternative starts with less than :data:`MIN_LITERAL`
    plain characters. A record holding none of them cannot match: a plain substring search
    (Spark's ``contains``) says so, far cheaper than Java's regex trying every alternative at
    every position (measured: 60 % of the job's CPU on a 200-broker backlog)."""
    found = []
    for alternative in _split_top_level(trigger):
        literal = _leading_literal(alternative)
        if len(literal) < MIN_LITERAL:
            return None
        found.append(literal)
    return tuple(found)


def literals_by_family(patterns: tuple[EventPattern, ...]) -> dict[str, set[str]] | None:
    """Each family's trigger literals, or None when some trigger has no usable literal."""
    found: dict[str, set[str]] = {}
    for p in patterns:
        literals = trigger_literals(p.trigger)
        if literals is None:
            return None
        found.setdefault(p.family, set()).update(literals)
    return found


def prefilter_literals(patterns: tuple[EventPattern, ...] = ALL_PATTERNS) -> tuple[str, ...] | None:
    """The fewest texts one of which every trigger's match contains (a text that contains
    another is left out), or None when some trigger has no usable literal. The whole
    literals of every family: the parse searches :mod:`~kafka_health.parsing.prefilter`'s
    anchors, each family's own; these are the baseline its tests compare them with."""
    by_family = literals_by_family(patterns)
    return None if by_family is None else fewest(set().union(*by_family.values()))


def fewest(texts: set[str]) -> tuple[str, ...]:
    """``texts`` without those that contain another (the shorter one is enough), sorted."""
    return tuple(sorted(t for t in texts if not any(o != t and o in t for o in texts)))


def check_table(patterns: tuple[EventPattern, ...] = ALL_PATTERNS) -> list[str]:
    """Problems in the table (duplicate names, unknown events or groups); empty when sound."""
    problems = []
    names = [p.name for p in patterns]
    for name in {n for n in names if names.count(n) > 1}:
        problems.append(f"{name}: duplicate pattern name")
    for p in patterns:
        if p.event not in EVENT_TYPES:
            problems.append(f"{p.name}: unknown event {p.event}")
        if not p.name.startswith(p.event + "."):
            problems.append(f"{p.name}: name must start with its event")
        if p.collector is not None and p.collector not in COLLECTORS:
            problems.append(f"{p.name}: unknown collector {p.collector}")
        try:
            groups = set(re.compile(p.regex).groupindex)
            re.compile(p.trigger)
        except re.error as exc:
            problems.append(f"{p.name}: {exc}")
            continue
        for g in groups - GROUPS:
            problems.append(f"{p.name}: unknown group {g}")
        for text in (p.regex, p.trigger):
            problems.extend(f"{p.name}: {hazard}" for hazard in recursion_hazards(text))
    return problems
