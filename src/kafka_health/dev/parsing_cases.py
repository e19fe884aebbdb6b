# ruff: noqa: E501  (real log lines are kept whole, one per case)
"""The parser's table of test lines: every supported wording, with where the line comes from.

Each case is (id, entry text, expected type or "malformed"/"unrecognised", expected fields,
source). "seed" lines are quoted in ../shared/seeds/ (the incident write-ups); "4.1.1 devcluster"
lines were written by this project's own Kafka 4.1.1 brokers; "jdk17" lines by OpenJDK 17 on
this machine; other lines are formatted exactly as the named Kafka class of that version
formats them (checked against the jar's string constants) or quoted by operators as noted.
Fields are compared as the Spark parser outputs them (ints, lists of ints, floats).

The tests (``tests/unit/parsing``, ``tests/spark``) and the benchmarks (``parse_bench.py``, the
hostile lines and the job's fuzz) read the same table from here, so neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kafka_health.parsing.hostile import lines_of


@dataclass(frozen=True)
class Case:
    id: str
    text: str
    expect: str  # an event type, "malformed" or "unrecognised"
    fields: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    kind: str = "auto"


G1_FULL_10_39 = (
    "2019-05-15T22:25:59.422+0800: 21989402.560: [Full GC (Allocation Failure)  "
    "8071M->4285M(8192M), 10.3987109 secs]\n"
    "   [Eden: 0.0B(408.0M)->0.0B(408.0M) Survivors: 0.0B->0.0B Heap: 8071.2M(8192.0M)->"
    "4285.7M(8192.0M)], [Metaspace: 32321K->32321K(1077248K)]\n"
    " [Times: user=21.74 sys=0.00, real=10.39 secs] "
)
G1_FULL_10_23 = (
    "2019-05-15T22:26:49.312+0800: 21989452.450: [Full GC (Allocation Failure)  "
    "8056M->3891M(8192M), 10.2331784 secs]\n"
    "   [Eden: 0.0B(408.0M)->0.0B(408.0M) Survivors: 0.0B->0.0B Heap: 8056.7M(8192.0M)->"
    "3891.8M(8192.0M)], [Metaspace: 32321K->32321K(1077248K)]\n"
    " [Times: user=21.25 sys=0.00, real=10.23 secs] "
)
G1_YOUNG_JOINED = (
    "2019-05-15T23:51:14.885+0800: 21994518.023: [GC pause (G1 Evacuation Pause) (young), "
    "0.0749305 secs]\n"
    "   [Parallel Time: 70.4 ms, GC Workers: 33]\n"
    "      [GC Worker Start (ms): Min: 21994518023.0, Avg: 21994518023.5, Max: 21994518023.9, "
    "Diff: 0.9]\n"
    "   [Eden: 380.0M(380.0M)->0.0B(356.0M) Survivors: 28.0M->52.0M Heap: 5649.6M(8192.0M)->"
    "5466.5M(8192.0M)]\n"
    " [Times: user=2.31 sys=0.00, real=0.07 secs] "
)
CMS_FAILURE = (
    "2015-03-16T11:10:02.291+0800: 117373.544: [GC 117373.545: [ParNew (promotion failed): "
    "622080K->622080K(622080K), 0.3934210 secs]117373.938: [CMS2015-03-16T11:10:02.940+0800: "
    "117374.193: [CMS-concurrent-mark: 0.319/0.802 secs] [Times: user=5.09 sys=0.19, "
    "real=0.81 secs]\n"
    " (concurrent mode failure): 2145434K->751705K(2454528K), 2.9668350 secs] "
    "2683000K->751705K(3076608K), [CMS Perm : 107533K->105533K(262144K)], 3.3615860 secs] "
    "[Times: user=5.22 sys=0.07, real=3.36 secs]"
)

KAFKA_CASES: tuple[Case, ...] = (
    Case(
        "shrink_seed",
        "[2022-03-12 18:10:07,139] INFO [Partition __consumer_offsets-43 broker=3] Shrinking ISR from 3,1,4 to 3. Leader: (highWatermark: 115, endOffset: 120). Out of sync replicas: (brokerId: 1, endOffset: 115) (brokerId: 4, endOffset: 116). (kafka.cluster.Partition)",
        "isr_shrink",
        {
            "topic": "__consumer_offsets",
            "partition": 43,
            "isr_before": [3, 1, 4],
            "isr_after": [3],
            "broker_id": "3",
            "level": "INFO",
            "ts": "2022-03-12T18:10:07.139",
        },
        "seed 004 (Kafka 2.x Partition, 2.4+ wording)",
    ),
    Case(
        "shrink_1_1",
        "[2018-07-01 10:00:00,001] INFO [Partition orders-2 broker=1] Shrinking ISR from 1,2,3 to 1 (kafka.cluster.Partition)",
        "isr_shrink",
        {"topic": "orders", "partition": 2, "isr_before": [1, 2, 3], "isr_after": [1]},
        "Kafka 1.1 Partition 'Shrinking ISR from %s to %s'",
    ),
    Case(
        "shrink_0_11",
        "[2017-07-15 16:17:57,662] INFO Partition [zhh-replicated-partitions-topic,2] on broker 1: Shrinking ISR from 1,2,0 to 1,2 (kafka.cluster.Partition)",
        "isr_shrink",
        {
            "topic": "zhh-replicated-partitions-topic",
            "partition": 2,
            "isr_before": [1, 2, 0],
            "isr_after": [1, 2],
        },
        "operator log quoted in a blog (Kafka 0.11 logIdent 'Partition [%s,%d] on broker %d: ')",
    ),
    Case(
        "shrink_0_9",
        "[2016-03-01 10:00:00,000] INFO Partition [payments,0] on broker 2: Shrinking ISR for partition [payments,0] from 2,3 to 2 (kafka.cluster.Partition)",
        "isr_shrink",
        {"topic": "payments", "partition": 0, "isr_before": [2, 3], "isr_after": [2]},
        "Kafka 0.9 Partition 'Shrinking ISR for partition [%s,%d] from %s to %s'",
    ),
    Case(
        "shrink_truncated",
        "[2022-03-12 18:10:07,139] INFO [Partition x-1 broker=3] Shrinking ISR from 3,1,4 to",
        "malformed",
        {"reason": "isr_shrink"},
        "a truncated shrink line must be counted as malformed",
    ),
    Case(
        "expand_seed",
        "[2022-03-12 18:10:07,381] INFO [Partition __consumer_offsets-43 broker=3] Expanding ISR from 3 to 3,4 (kafka.cluster.Partition)",
        "isr_expand",
        {"topic": "__consumer_offsets", "partition": 43, "isr_before": [3], "isr_after": [3, 4]},
        "seed 004 (Kafka 1.1-2.6 Partition)",
    ),
    Case(
        "expand_0_10",
        "[2017-01-01 00:00:01,000] INFO Partition [t,1] on broker 1: Expanding ISR for partition t-1 from 1 to 1,2 (kafka.cluster.Partition)",
        "isr_expand",
        {"topic": "t", "partition": 1, "isr_before": [1], "isr_after": [1, 2]},
        'Kafka 0.10 Partition s"Expanding ISR for partition $topicPartition from ..."',
    ),
    Case(
        "expand_0_9",
        "[2016-03-01 10:00:05,000] INFO Partition [payments,0] on broker 2: Expanding ISR for partition [payments,0] from 2 to 2,3 (kafka.cluster.Partition)",
        "isr_expand",
        {"topic": "payments", "partition": 0, "isr_before": [2], "isr_after": [2, 3]},
        "Kafka 0.9 Partition 'Expanding ISR for partition [%s,%d] from %s to %s'",
    ),
    Case(
        "expand_0_11",
        "[2017-07-15 16:18:30,000] INFO Partition [zhh-replicated-partitions-topic,2] on broker 1: Expanding ISR from 1,2 to 1,2,0 (kafka.cluster.Partition)",
        "isr_expand",
        {"topic": "zhh-replicated-partitions-topic", "partition": 2, "isr_after": [1, 2, 0]},
        "Kafka 0.11-1.0 Partition (logIdent 'Partition [%s,%d] on broker %d: ')",
    ),
    Case(
        "isr_updated_4_1",
        "[2026-11-22 02:37:44,052] INFO [Partition probe-1 broker=3] ISR updated to 3,1,2  and version updated to 2 (kafka.cluster.Partition)",
        "isr_change",
        {"topic": "probe", "partition": 1, "isr_after": [3, 1, 2], "broker_id": "3"},
        "4.1.1 devcluster (Partition, KRaft AlterPartition)",
    ),
    Case(
        "isr_updated_under_min",
        "[2024-05-01 00:00:00,000] INFO [Partition probe-1 broker=3] ISR updated to 3 (under-min-isr) and version updated to 7 (kafka.cluster.Partition)",
        "isr_change",
        {"isr_after": [3]},
        "Kafka 3.5+ Partition '%s (under-min-isr) and version updated to %d'",
    ),
    Case(
        "isr_updated_2_8",
        "[2021-06-01 00:00:00,000] INFO [Partition t-0 broker=1] ISR updated to 1,2 and version updated to [5] (kafka.cluster.Partition)",
        "isr_change",
        {"topic": "t", "partition": 0, "isr_after": [1, 2]},
        "Kafka 2.7-3.4 Partition",
    ),
    Case(
        "isr_updated_0_9",
        "[2016-03-01 10:00:00,001] INFO Partition [payments,0] on broker 2: ISR updated to [2] and zkVersion updated to [14] (kafka.cluster.Partition)",
        "isr_change",
        {"topic": "payments", "partition": 0, "isr_after": [2]},
        "Kafka 0.9-2.6 Partition 'ISR updated to [%s] and zkVersion updated to [%d]'",
    ),
    Case(
        "isr_update_failed_2_0",
        "[2018-11-14 10:12:27,945] INFO [Partition orders-2 broker=1] Cached zkVersion [14] not equal to that in zookeeper, skip updating ISR (kafka.cluster.Partition)",
        "isr_update_failed",
        {"topic": "orders", "partition": 2},
        "Kafka 1.1-2.x Partition.updateIsr (tests/fixtures/logs/heldout, line 47)",
    ),
    Case(
        "isr_update_failed_0_9",
        "[2016-03-01 10:00:00,001] INFO Partition [payments,0] on broker 2: Cached zkVersion [14] not equal to that in zookeeper, skip updating ISR (kafka.cluster.Partition)",
        "isr_update_failed",
        {"topic": "payments", "partition": 0},
        "Kafka 0.9-1.0 Partition (logIdent 'Partition [%s,%d] on broker %d: ')",
    ),
    Case(
        "isr_update_failed_2_6",
        "[2020-09-01 10:00:00,001] INFO [Partition orders-2 broker=1] Cached zkVersion 14 not equal to that in zookeeper, skip updating ISR (kafka.cluster.Partition)",
        "isr_update_failed",
        {"topic": "orders", "partition": 2},
        'later Kafka 2.x Partition.updateIsr (ZooKeeper mode): s"Cached zkVersion $zkVersion ..."',
    ),
    Case(
        "epoch_cache_seed",
        "[2019-05-15 22:20:13,880] INFO Updated PartitionLeaderEpoch. New: {epoch:1, offset:5910507}, Current: {epoch:0, offset4932329} for Partition: zto_big_marks_mq-46. Cache now contains 1 entries. (kafka.server.epoch.LeaderEpochFileCache)",
        "leader_change",
        {"topic": "zto_big_marks_mq", "partition": 46, "leader_epoch": 1},
        "seed 002 (Kafka 1.x LeaderEpochFileCache)",
    ),
    Case(
        "epoch_cache_seed_no_class",
        "[2019-05-15 22:20:13,881] INFO Updated PartitionLeaderEpoch. New: {epoch:78, offset:1070147099}, Current: {epoch:77, offset1041132585} for Partition: zto_scan_rec-11. Cache now contains 1 entries. ",
        "leader_change",
        {"topic": "zto_scan_rec", "partition": 11, "leader_epoch": 78},
        "seed 002 (the line as quoted, cut before the logger)",
    ),
    Case(
        "epoch_cache_2_4",
        "[2020-02-02 10:00:00,000] INFO [LeaderEpochCache orders-3] Appended new epoch entry EpochEntry(epoch=12, startOffset=4500). Cache now contains 4 entries. (kafka.server.epoch.LeaderEpochFileCache)",
        "leader_change",
        {"topic": "orders", "partition": 3, "leader_epoch": 12},
        "Kafka 2.4+ LeaderEpochFileCache 'Appended new epoch entry %s'",
    ),
    Case(
        "become_leader_4_1",
        "[2026-11-22 02:37:31,600] INFO [Broker id=2] Leader probe-0 with topic id Some(uXCu8FIGQSS-JDdGwfYZ6g) starts at leader epoch 1 from offset 18 with partition epoch 5, high watermark 18, ISR [2,3], adding replicas [] and removing replicas [] . Previous leader Some(1) and previous leader epoch was 0. (state.change.logger)",
        "leader_change",
        {
            "topic": "probe",
            "partition": 0,
            "leader_epoch": 1,
            "leader": 2,
            "isr_after": [2, 3],
            "broker_id": "2",
        },
        "4.1.1 devcluster (Partition.makeLeader, state-change.log)",
    ),
    Case(
        "become_follower_4_1",
        "[2026-11-22 02:37:31,610] INFO [Broker id=3] Follower probe-0 starts at leader epoch 1 from offset 18 with partition epoch 5 and high watermark 18. Current leader is 2. Previous leader Some(2) and previous leader epoch was 1. (state.change.logger)",
        "leader_change",
        {"topic": "probe", "partition": 0, "leader_epoch": 1, "leader": 2, "broker_id": "3"},
        "4.1.1 devcluster (Partition.makeFollower)",
    ),
    Case(
        "preferred_election_done",
        "[2021-04-14 11:04:11,500] INFO [Controller id=0] Partition T-XXX-2 completed preferred replica leader election. New leader is 3 (kafka.controller.KafkaController)",
        "leader_change",
        {"topic": "T-XXX", "partition": 2, "leader": 3, "broker_id": "0"},
        "seed 001 (KafkaController, timestamp added: the seed quotes it without)",
    ),
    Case(
        "election_error_seed",
        "[2022-03-16 10:58:02,836] ERROR [Controller id=1] Error completing preferred replica leader election for partition T-TEST-0 (kafka.controller.KafkaController)\nkafka.common.StateChangeFailedException: Failed to elect leader for partition T-TEST-0 under strategy PreferredReplicaPartitionLeaderElectionStrategy\n        at kafka.controller.PartitionStateMachine.$anonfun$doElectLeaderForPartitions$9(PartitionStateMachine.scala:390)",
        "leader_election_failed",
        {"topic": "T-TEST", "partition": 0, "broker_id": "1", "level": "ERROR"},
        "seed 004 (KafkaController 2.x, joined with its stack trace)",
    ),
    Case(
        "election_not_moved_seed",
        "[2022-03-16 10:58:02,837] WARN [Controller id=1] Partition T-TEST-0 failed to complete preferred replica leader election to 2. Leader is still 0 (kafka.controller.KafkaController)",
        "leader_election_failed",
        {"topic": "T-TEST", "partition": 0, "leader": 0},
        "seed 004 (KafkaController 2.x)",
    ),
    Case(
        "election_not_moved_0_9",
        "[2016-01-01 00:00:00,000] INFO [Controller 1]: Partition [t,0] failed to complete preferred replica leader election. Leader is 2 (kafka.controller.KafkaController)",
        "leader_election_failed",
        {"leader": 2},
        "Kafka 0.9 KafkaController 'Partition %s failed to complete preferred replica leader election. Leader is %d'",
    ),
    Case(
        "election_strategy",
        "[2020-01-01 00:00:00,000] ERROR [Controller id=1 epoch=3] Failed to elect leader for partition t-5 under strategy OfflinePartitionLeaderElectionStrategy(false) (state.change.logger)",
        "leader_election_failed",
        {"topic": "t", "partition": 5},
        "Kafka 1.1-3.x (Zk)PartitionStateMachine",
    ),
    Case(
        "zk_expired_seed",
        "[2019-05-15 22:20:14,399] WARN Unable to reconnect to ZooKeeper service, session 0x167772767ad92fd has expired (org.apache.zookeeper.ClientCnxn)",
        "zk_session_expired",
        {"session_id": "0x167772767ad92fd", "level": "WARN"},
        "seed 002 (ZooKeeper 3.4 ClientCnxn)",
    ),
    Case(
        "zk_expired_seed_info_copy",
        "[2019-05-15 22:20:14,399] INFO Unable to reconnect to ZooKeeper service, session 0x167772767ad92fd has expired, closing socket connection (org.apache.zookeeper.ClientCnxn)",
        "unrecognised",
        {},
        "seed 002: the INFO copy of the same expiry is not a second event",
    ),
    Case(
        "zk_expired_zkclient_seed",
        "[2019-05-15 22:20:14,399] INFO zookeeper state changed (Expired) (org.I0Itec.zkclient.ZkClient)",
        "zk_session_expired",
        {},
        "seed 002 (ZkClient, Kafka 0.9-1.0)",
    ),
    Case(
        "zk_expired_zookeeperclient",
        "[2020-01-01 00:00:00,000] INFO [ZooKeeperClient Kafka server] Session expired. (kafka.zookeeper.ZooKeeperClient)",
        "zk_session_expired",
        {},
        "Kafka 2.x ZooKeeperClient logIdent '[ZooKeeperClient %s] ' + 'Session expired.'",
    ),
    Case(
        "zk_timeout_seed",
        "[2022-03-14 08:59:39,144] WARN Client session timed out, have not heard from server in 4002ms for sessionid 0x17862f2bedc0004 (org.apache.zookeeper.ClientCnxn)",
        "zk_disconnected",
        {"session_id": "0x17862f2bedc0004"},
        "seed 004 (ZooKeeper ClientCnxn)",
    ),
    Case(
        "zk_timeout_seed_info_copy",
        "[2022-03-14 08:59:39,145] INFO Client session timed out, have not heard from server in 4002ms for sessionid 0x17862f2bedc0004, closing socket connection and attempting reconnect (org.apache.zookeeper.ClientCnxn)",
        "unrecognised",
        {},
        "seed 004: the INFO copy is the same timeout",
    ),
    Case(
        "zk_disconnected_zkclient",
        "[2019-10-12 11:03:41,253] INFO zookeeper state changed (Disconnected) (org.I0Itec.zkclient.ZkClient)",
        "zk_disconnected",
        {},
        "seed 003 (ZkClient; the seed's timestamps are machine-translated, this one restored)",
    ),
    Case(
        "controller_kraft",
        "[2026-11-22 02:37:22,528] INFO [QuorumController id=1] Becoming the active controller at epoch 3, next write offset 33. (org.apache.kafka.controller.QuorumController)",
        "controller_change",
        {"subject_broker_id": 1, "broker_id": "1", "leader_epoch": 3},
        "4.1.1 devcluster (QuorumController); leader_epoch carries the controller epoch",
    ),
    Case(
        "controller_elected_2_4",
        "[2021-04-14 10:53:31,000] INFO [Controller id=0] 0 successfully elected as the controller. Epoch incremented to 2 and epoch zk version is now 2 (kafka.controller.KafkaController)",
        "controller_change",
        {"subject_broker_id": 0, "leader_epoch": 2},
        "Kafka 2.4+ KafkaController; leader_epoch carries the controller epoch",
    ),
    Case(
        "controller_observed_seed",
        "[2021-04-14 10:53:31,013] DEBUG [Controller id=1] Broker 0 has been elected as the controller, so stopping the election process. (kafka.controller.KafkaController)",
        "controller_change",
        {"subject_broker_id": 0, "broker_id": "1", "level": "DEBUG"},
        "seed 001 (KafkaController 1.1+)",
    ),
    Case(
        "controller_0_9",
        "[2016-01-01 00:00:00,000] INFO [Controller 2]: Broker 2 starting become controller state transition (kafka.controller.KafkaController)",
        "controller_change",
        {"subject_broker_id": 2},
        "Kafka 0.9 KafkaController.onControllerFailover",
    ),
    Case(
        "quorum_leader_controller_4_1",
        "[2026-12-04 23:24:36,987] INFO [QuorumController id=1] In the new epoch 1, the leader is 3. (org.apache.kafka.controller.QuorumController)",
        "quorum_leader",
        {"subject_broker_id": 3, "broker_id": "1", "leader_epoch": 1},
        "4.1.1 devcluster, a standby controller (QuorumController.handleLeaderChange)",
    ),
    Case(
        "quorum_no_leader_controller_4_1",
        "[2026-12-04 23:26:05,151] INFO [QuorumController id=1] In the new epoch 2, the leader is (none). (org.apache.kafka.controller.QuorumController)",
        "quorum_no_leader",
        {"broker_id": "1", "leader_epoch": 2, "subject_broker_id": None},
        "4.1.1 devcluster, the active controller (3) SIGKILLed: a vote under way at epoch 2",
    ),
    Case(
        "quorum_leader_raft_4_1",
        "[2026-12-04 23:24:36,941] INFO [RaftManager id=3] Completed transition to Leader(localVoterNode=VoterNode(voterKey=ReplicaKey(id=3, directoryId=146Bhcw23crcdWz1dUOT3Q), listeners=Endpoints(endpoints={ListenerName(CONTROLLER)=127.0.0.1/<unresolved>:53913}), supportedKRaftVersion=SupportedVersionRange[min_version:0, max_version:1]), epoch=1, epochStartOffset=0, highWatermark=Optional.empty, voterStates={1=ReplicaState(replicaKey=ReplicaKey(id=1, directoryId=<undefined>), endOffset=Optional.empty, lastFetchTimestamp=-1, lastCaughtUpTimestamp=-1, hasAcknowledgedLeader=false), 2=ReplicaState(replicaKey=ReplicaKey(id=2, directoryId=<undefined>), endOffset=Optional.empty, lastFetchTimestamp=-1, lastCaughtUpTimestamp=-1, hasAcknowledgedLeader=false), 3=ReplicaState(replicaKey=ReplicaKey(id=3, directoryId=<undefined>), endOffset=Optional.empty, lastFetchTimestamp=-1, lastCaughtUpTimestamp=-1, hasAcknowledgedLeader=true)}) from CandidateState(localId=3, localDirectoryId=146Bhcw23crcdWz1dUOT3Q, epoch=1, epochElection=EpochElection(voterStates={1=VoterState(replicaKey=ReplicaKey(id=1, directoryId=<undefined>), state=GRANTED), 2=VoterState(replicaKey=ReplicaKey(id=2, directoryId=<undefined>), state=UNRECORDED), 3=VoterState(replicaKey=ReplicaKey(id=3, directoryId=<undefined>), state=GRANTED)}), highWatermark=Optional.empty, electionTimeoutMs=1830) (org.apache.kafka.raft.QuorumState)",
        "quorum_leader",
        {"subject_broker_id": 3, "leader_epoch": 1},
        "4.1.1 devcluster (QuorumState: LeaderState.toString)",
    ),
    Case(
        "quorum_leader_raft_3_9",
        "[2026-12-05 10:00:00,000] INFO [RaftManager id=2] Completed transition to Leader(localReplicaKey=ReplicaKey(id=2, directoryId=Optional[Zs8wR1b0RVq4ZGv0hWq6zg]), epoch=7, epochStartOffset=1204, highWatermark=Optional.empty, voterStates={1=ReplicaState(replicaKey=ReplicaKey(id=1, directoryId=Optional.empty), endOffset=Optional.empty, lastFetchTimestamp=-1, lastCaughtUpTimestamp=-1, hasAcknowledgedLeader=false)}) from CandidateState(localId=2, localDirectoryId=Zs8wR1b0RVq4ZGv0hWq6zg,epoch=7, retries=1, voteStates={1=GRANTED, 2=GRANTED, 3=UNRECORDED}, highWatermark=Optional.empty, electionTimeoutMs=1523) (org.apache.kafka.raft.QuorumState)",
        "quorum_leader",
        {"subject_broker_id": 2, "leader_epoch": 7},
        "Kafka 3.9.1 QuorumState with LeaderState.toString 'Leader(localReplicaKey=%s, epoch=%d, epochStartOffset=%d, highWatermark=%s, voterStates=%s)' and ReplicaKey 'ReplicaKey(id=%d, directoryId=%s)' (an Optional; the jar's constants)",
    ),
    Case(
        "quorum_leader_attempting_not_counted",
        "[2026-12-04 23:26:05,162] INFO [RaftManager id=1] Attempting durable transition to Leader(localVoterNode=VoterNode(voterKey=ReplicaKey(id=1, directoryId=r5D9EDgPuBlCKO5aeNrkpg), listeners=Endpoints(endpoints={ListenerName(CONTROLLER)=127.0.0.1/<unresolved>:37195}), supportedKRaftVersion=SupportedVersionRange[min_version:0, max_version:1]), epoch=2, epochStartOffset=196, highWatermark=Optional.empty, voterStates={}) from CandidateState(localId=1, localDirectoryId=r5D9EDgPuBlCKO5aeNrkpg, epoch=2, epochElection=EpochElection(voterStates={}), highWatermark=Optional.empty, electionTimeoutMs=1178) (org.apache.kafka.raft.QuorumState)",
        "unrecognised",
        {},
        "4.1.1 devcluster: the line before 'Completed transition to Leader', the same transition",
    ),
    Case(
        "quorum_leader_raft_truncated",
        "[2026-12-04 23:26:05,164] INFO [RaftManager id=1] Completed transition to Leader(localVoterNode=VoterNode(voterKey=ReplicaKey(id=1, ",
        "malformed",
        {"reason": "quorum_leader"},
        "a cut 4.1.1 line: the transition without its epoch",
    ),
    Case(
        "quorum_no_leader_candidate_4_1",
        "[2026-12-04 23:26:05,151] INFO [RaftManager id=1] Completed transition to CandidateState(localId=1, localDirectoryId=r5D9EDgPuBlCKO5aeNrkpg, epoch=2, epochElection=EpochElection(voterStates={1=VoterState(replicaKey=ReplicaKey(id=1, directoryId=<undefined>), state=GRANTED), 2=VoterState(replicaKey=ReplicaKey(id=2, directoryId=<undefined>), state=UNRECORDED), 3=VoterState(replicaKey=ReplicaKey(id=3, directoryId=<undefined>), state=UNRECORDED)}), highWatermark=Optional[LogOffsetMetadata(offset=196, metadata=Optional.empty)], electionTimeoutMs=1178) from ProspectiveState(epoch=1, leaderId=OptionalInt[3], votedKey=Optional[ReplicaKey(id=3, directoryId=146Bhcw23crcdWz1dUOT3Q)], epochElection=EpochElection(voterStates={1=VoterState(replicaKey=ReplicaKey(id=1, directoryId=<undefined>), state=GRANTED), 2=VoterState(replicaKey=ReplicaKey(id=2, directoryId=<undefined>), state=GRANTED), 3=VoterState(replicaKey=ReplicaKey(id=3, directoryId=<undefined>), state=UNRECORDED)}), electionTimeoutMs=1897, highWatermark=Optional[LogOffsetMetadata(offset=196, metadata=Optional.empty)]) (org.apache.kafka.raft.QuorumState)",
        "quorum_no_leader",
        {"subject_broker_id": 1, "leader_epoch": 2},
        "4.1.1 devcluster, a follower of the SIGKILLed active controller stands for election (CandidateState.toString)",
    ),
    Case(
        "quorum_no_leader_candidate_3_9",
        "[2026-12-05 10:00:00,000] INFO [RaftManager id=2] Completed transition to CandidateState(localId=2, localDirectoryId=Zs8wR1b0RVq4ZGv0hWq6zg,epoch=7, retries=1, voteStates={1=UNRECORDED, 2=GRANTED, 3=UNRECORDED}, highWatermark=Optional.empty, electionTimeoutMs=1523) from FollowerState(fetchTimeoutMs=2000, epoch=6, leader=3, leaderEndpoints=Endpoints(endpoints={}), voters=[1, 2, 3], highWatermark=Optional.empty, fetchingSnapshot=Optional.empty) (org.apache.kafka.raft.QuorumState)",
        "quorum_no_leader",
        {"subject_broker_id": 2, "leader_epoch": 7},
        "Kafka 3.9.1 CandidateState.toString 'CandidateState(localId=%d, localDirectoryId=%s,epoch=%d, retries=%d, voteStates=%s, highWatermark=%s, electionTimeoutMs=%d)' (no space before epoch; the jar's constants)",
    ),
    Case(
        "quorum_prospective_not_counted",
        "[2026-12-04 23:26:05,143] INFO [RaftManager id=1] Completed transition to ProspectiveState(epoch=1, leaderId=OptionalInt[3], votedKey=Optional[ReplicaKey(id=3, directoryId=146Bhcw23crcdWz1dUOT3Q)], epochElection=EpochElection(voterStates={1=VoterState(replicaKey=ReplicaKey(id=1, directoryId=<undefined>), state=GRANTED), 2=VoterState(replicaKey=ReplicaKey(id=2, directoryId=<undefined>), state=UNRECORDED), 3=VoterState(replicaKey=ReplicaKey(id=3, directoryId=<undefined>), state=UNRECORDED)}), electionTimeoutMs=1897, highWatermark=Optional[LogOffsetMetadata(offset=196, metadata=Optional.empty)]) from FollowerState(fetchTimeoutMs=2000, epoch=1, leader=3, leaderEndpoints=Endpoints(endpoints={ListenerName(CONTROLLER)=127.0.0.1/<unresolved>:53913}), votedKey=Optional[ReplicaKey(id=3, directoryId=146Bhcw23crcdWz1dUOT3Q)], voters=[1, 2, 3], highWatermark=Optional[LogOffsetMetadata(offset=196, metadata=Optional.empty)], fetchingSnapshot=Optional.empty) (org.apache.kafka.raft.QuorumState)",
        "unrecognised",
        {},
        "4.1.1 devcluster: a pre-vote (KIP-996) keeps the epoch and the known leader; it is no election",
    ),
    Case(
        "controller_resigned_metadata_event",
        "[2026-12-05 10:00:00,000] WARN [QuorumController id=3] Renouncing the leadership due to a metadata log event. We were the leader at epoch 5, but in the new epoch 6, the leader is 1. Reverting to last stable offset 4021. (org.apache.kafka.controller.QuorumController)",
        "controller_resigned",
        {"broker_id": "3", "leader_epoch": 5, "leader": 1},
        "Kafka 3.9.1 and 4.1.1 QuorumController.handleLeaderChange (the sources' format)",
    ),
    Case(
        "controller_resigned_metadata_event_none",
        "[2026-12-05 10:00:00,000] WARN [QuorumController id=3] Renouncing the leadership due to a metadata log event. We were the leader at epoch 5, but in the new epoch 6, the leader is (none). Reverting to last stable offset 4021. (org.apache.kafka.controller.QuorumController)",
        "controller_resigned",
        {"broker_id": "3", "leader_epoch": 5, "leader": None},
        "Kafka 3.9.1 and 4.1.1 QuorumController.handleLeaderChange: newLeaderName '(none)'",
    ),
    Case(
        "controller_resigned_event_failure_4_1",
        "[2026-12-05 02:00:06,802] INFO [QuorumController id=1] writeNoOpRecord: event failed with NotLeaderException (treated as NotControllerException) at epoch 2 in 172 microseconds. Renouncing leadership and reverting to the last committed offset 838. Exception message: Append failed because the replica is not the current leader (org.apache.kafka.controller.QuorumController)",
        "controller_resigned",
        {"broker_id": "1", "leader_epoch": 2},
        "4.1.1 devcluster, two of three voters SIGKILLed (EventHandlerExceptionInfo.failureMessage)",
    ),
    Case(
        "controller_resigned_check_quorum_4_1",
        "[2026-12-05 02:00:06,331] INFO [RaftManager id=1] Did not receive fetch request from the majority of the voters within 3000ms. Current fetched voters are [], and voters are [ReplicaKey(id=3, directoryId=<undefined>), ReplicaKey(id=2, directoryId=<undefined>), ReplicaKey(id=1, directoryId=<undefined>)] (org.apache.kafka.raft.LeaderState)",
        "controller_resigned",
        {"subject_broker_id": 1},
        "4.1.1 devcluster, two of three voters SIGKILLed: the leader's check-quorum (LeaderState)",
    ),
    Case(
        "quorum_election_timeout_prospective_4_1",
        "[2026-12-05 02:00:09,172] INFO [RaftManager id=1] Election timed out before receiving sufficient vote responses to become candidate. Current epoch election state: EpochElection(voterStates={1=VoterState(replicaKey=ReplicaKey(id=1, directoryId=<undefined>), state=GRANTED), 2=VoterState(replicaKey=ReplicaKey(id=2, directoryId=<undefined>), state=UNRECORDED), 3=VoterState(replicaKey=ReplicaKey(id=3, directoryId=<undefined>), state=UNRECORDED)}) (org.apache.kafka.raft.KafkaRaftClient)",
        "quorum_election_timeout",
        {"subject_broker_id": 1},
        "4.1.1 devcluster, the survivor of two voters SIGKILLed (KafkaRaftClient.pollProspective)",
    ),
    Case(
        "quorum_election_timeout_candidate_4_1",
        "[2026-12-05 10:00:00,000] INFO [RaftManager id=2] Election was not granted, transitioning to prospective (org.apache.kafka.raft.KafkaRaftClient)",
        "quorum_election_timeout",
        {"subject_broker_id": 2},
        "Kafka 4.1.1 KafkaRaftClient.pollCandidate (the source's format)",
    ),
    Case(
        "quorum_election_timeout_candidate_3_9",
        "[2026-12-05 10:00:00,000] INFO [RaftManager id=2] Election has timed out, backing off for 734ms before becoming a candidate again (org.apache.kafka.raft.KafkaRaftClient)",
        "quorum_election_timeout",
        {"subject_broker_id": 2},
        "Kafka 3.9.1 KafkaRaftClient.pollCandidate (the jar's constant)",
    ),
    Case(
        "broker_unfenced_4_1",
        "[2026-12-04 23:26:14,934] INFO [QuorumController id=1] The request from broker 3 to unfence has been granted because it has caught up with the offset of its register broker record 221. (org.apache.kafka.controller.BrokerHeartbeatManager)",
        "broker_unfenced",
        {"subject_broker_id": 3, "broker_id": "1"},
        "4.1.1 devcluster (BrokerHeartbeatManager, the active controller)",
    ),
    Case(
        "broker_unfence_not_yet",
        "[2026-12-04 23:26:14,920] DEBUG [QuorumController id=1] The request from broker 3 to unfence cannot yet be granted because it has not caught up with the offset of its register broker record 221. It is still at offset 200. (org.apache.kafka.controller.BrokerHeartbeatManager)",
        "unrecognised",
        {},
        "Kafka 3.9.1 and 4.1.1 BrokerHeartbeatManager (DEBUG): not unfenced yet",
    ),
    Case(
        "broker_starting_4_1",
        "[2026-12-04 23:24:36,071] INFO [BrokerLifecycleManager id=1] Incarnation 7UAXzuUnTIq7gVE4mYAXEw of broker 1 in cluster oUHx4f0cT2m1uAdyBcmoBQ is now STARTING. (kafka.server.BrokerLifecycleManager)",
        "broker_starting",
        {"subject_broker_id": 1, "broker_id": "1"},
        "4.1.1 devcluster (BrokerLifecycleManager.start)",
    ),
    Case(
        "broker_failure_seed",
        "[2019-10-12 11:03:42,000] INFO [Controller id=56] Broker failure callback for 57 (kafka.controller.KafkaController)",
        "broker_failure",
        {"subject_broker_id": 57, "broker_id": "56"},
        "seed 003 (KafkaController; timestamp restored)",
    ),
    Case(
        "broker_fenced_4_1",
        "[2026-11-22 02:37:31,576] INFO [QuorumController id=1] Fencing broker 2 at epoch 8 because its session has timed out. (org.apache.kafka.controller.ReplicationControlManager)",
        "broker_failure",
        {"subject_broker_id": 2},
        "4.1.1 devcluster (ReplicationControlManager)",
    ),
    Case(
        "broker_new_incarnation_4_1",
        "[2026-11-28 04:26:11,261] INFO [QuorumController id=1] Registering a new incarnation of broker 3. Previous incarnation ID was pikwVXvrRTKmpz44gvd5VQ; new incarnation ID is ugdm1ZrPT6CBE2QMLcIxHA. Generated 3 record(s) to clean up previous incarnations. Broker epoch will become 195. (org.apache.kafka.controller.ClusterControlManager)",
        "broker_failure",
        {"subject_broker_id": 3, "broker_id": "1"},
        "4.1.1 devcluster, broker 3 SIGKILLed and started 8.4 s later, before its session timed out (ClusterControlManager)",
    ),
    Case(
        "broker_new_incarnation_replayed_4_1",
        "[2026-11-28 04:26:11,305] INFO [QuorumController id=2] Replayed RegisterBrokerRecord establishing a new incarnation of broker 3: RegisterBrokerRecord(brokerId=3, isMigratingZkBroker=false, incarnationId=ugdm1ZrPT6CBE2QMLcIxHA, brokerEpoch=195, rack=null, fenced=true, inControlledShutdown=false) (org.apache.kafka.controller.ClusterControlManager)",
        "unrecognised",
        {},
        "4.1.1 devcluster (shortened): every controller replays it, and again for old records at its start; not a failure",
    ),
    Case(
        "controlled_shutdown_broker_seed",
        "[2021-04-15 08:59:31,977] INFO [KafkaServer id=3] Starting controlled shutdown (kafka.server.KafkaServer)",
        "controlled_shutdown",
        {"subject_broker_id": 3, "broker_id": "3"},
        "seed 001 (KafkaServer 1.x-3.x)",
    ),
    Case(
        "controlled_shutdown_kraft_broker",
        "[2026-11-22 02:37:54,489] INFO [BrokerServer id=3] Transition from STARTED to SHUTTING_DOWN (kafka.server.BrokerServer)",
        "controlled_shutdown",
        {"subject_broker_id": 3},
        "4.1.1 devcluster (BrokerServer)",
    ),
    Case(
        "shutdown_signal",
        "[2026-11-27 16:05:35,053] INFO Terminating process due to signal SIGTERM (org.apache.kafka.common.utils.LoggingSignalHandler)",
        "shutdown_signal",
        {"subject_broker_id": None},
        "4.1.1 devcluster (LoggingSignalHandler; the shipping broker is the subject)",
    ),
    Case(
        "shutdown_signal_seed",
        "[2021-04-15 08:59:31,965] INFO Terminating process due to signal SIGTERM (org.apache.kafka.common.utils.LoggingSignalHandler)",
        "shutdown_signal",
        {"subject_broker_id": None},
        "seed 001 (Kafka 2.x, 12 ms before 'Starting controlled shutdown')",
    ),
    Case(
        "shutdown_signal_cut",
        "[2026-11-27 16:05:35,053] INFO Terminating process due to signal",
        "malformed",
        {"reason": "shutdown_signal"},
        "the devcluster line, cut before the signal's name",
    ),
    Case(
        "controlled_shutdown_kraft_controller",
        "[2026-11-22 02:37:54,496] INFO [QuorumController id=1] Unfenced broker 3 has requested and been granted a controlled shutdown. (org.apache.kafka.controller.BrokerHeartbeatManager)",
        "controlled_shutdown",
        {"subject_broker_id": 3, "broker_id": "1"},
        "4.1.1 devcluster (BrokerHeartbeatManager)",
    ),
    Case(
        "controlled_shutdown_controller_zk",
        "[2021-04-15 08:59:32,000] INFO [Controller id=1] Shutting down broker 3 (kafka.controller.KafkaController)",
        "controlled_shutdown",
        {"subject_broker_id": 3, "broker_id": "1"},
        "Kafka 0.9-3.x KafkaController.shutdownBroker 'Shutting down broker %d'",
    ),
    Case(
        "controlled_shutdown_broker_2_0",
        "[2018-10-17 12:58:47,494] INFO [KafkaServer id=10] Starting controlled shutdown (kafka.server.KafkaServer)",
        "controlled_shutdown",
        {"subject_broker_id": 10, "broker_id": "10"},
        "real Kafka 2.0.0 broker (elastic/beats filebeat/module/kafka/log/test/server-2.0.0.log)",
    ),
    Case(
        "controlled_shutdown_succeeded_2_0",
        "[2018-10-17 12:58:47,604] INFO [KafkaServer id=10] Controlled shutdown succeeded (kafka.server.KafkaServer)",
        "unrecognised",
        {},
        "real Kafka 2.0.0 broker (elastic/beats server-2.0.0.log): the end of the shutdown 'Starting controlled shutdown' counted",
    ),
    Case(
        "controlled_shutdown_retry_2_0",
        "[2018-11-14 10:30:37,163] WARN [KafkaServer id=1] Retrying controlled shutdown after the previous attempt failed... (kafka.server.KafkaServer)",
        "unrecognised",
        {},
        "Kafka 2.0 KafkaServer.controlledShutdown (tag 2.0.1): a step of the shutdown already counted",
    ),
    Case(
        "kafka_server_shutting_down_2_0",
        "[2018-10-17 12:58:47,492] INFO [KafkaServer id=10] shutting down (kafka.server.KafkaServer)",
        "unrecognised",
        {},
        "real Kafka 2.0.0 broker (elastic/beats server-2.0.0.log): every shutdown logs it, controlled or not (a failed start's too)",
    ),
    Case(
        "fetcher_shutting_down_2_0",
        "[2018-10-17 12:58:47,568] INFO [ReplicaFetcher replicaId=10, leaderId=30, fetcherId=0] Shutting down (kafka.server.ReplicaFetcherThread)",
        "unrecognised",
        {},
        "real Kafka 2.0.0 broker (elastic/beats server-2.0.0.log): a ShutdownableThread, not the broker",
    ),
    Case(
        "request_handlers_shutting_down_2_0",
        "[2018-10-17 12:58:47,631] INFO [Kafka Request Handler on Broker 10], shutting down (kafka.server.KafkaRequestHandlerPool)",
        "unrecognised",
        {},
        "real Kafka 2.0.0 broker (elastic/beats server-2.0.0.log)",
    ),
    Case(
        "controller_thread_shutting_down_2_0",
        "[2018-11-14 10:30:37,522] INFO [ControllerEventThread controllerId=1] Shutting down (kafka.controller.ControllerEventManager$ControllerEventThread)",
        "unrecognised",
        {},
        "Kafka 2.0 ControllerEventManager's thread (ShutdownableThread, tag 2.0.1): the controller component of a stopping broker, not a broker being shut down",
    ),
    Case(
        "confluent_shutting_down_kafka_server",
        "[2018-11-14 10:30:02,121] INFO Shutting down KafkaServer (io.confluent.support.metrics.SupportedServerStartable)",
        "unrecognised",
        {},
        "Confluent Platform's SupportedServerStartable (confluentinc/support-metrics-client): its shutdown hook, before KafkaServer's own lines",
    ),
    Case(
        "min_isr_4_1",
        "[2026-11-22 02:37:33,991] ERROR [ReplicaManager broker=3] Error processing append operation on partition uXCu8FIGQSS-JDdGwfYZ6g:probe-2 (kafka.server.ReplicaManager)\norg.apache.kafka.common.errors.NotEnoughReplicasException: The size of the current ISR : 2 is insufficient to satisfy the min.isr requirement of 3 for partition probe-2, live replica(s) broker.id are : Set(3, 1)",
        "min_isr_violation",
        {
            "topic": "probe",
            "partition": 2,
            "isr_size": 2,
            "min_isr": 3,
            "broker_id": "3",
            "level": "ERROR",
        },
        "4.1.1 devcluster (Partition.appendRecordsToLeader via ReplicaManager)",
    ),
    Case(
        "min_isr_2_x",
        "[2021-05-19 07:12:57,779] ERROR [ReplicaManager broker=2] Error processing append operation on partition __consumer_offsets-5 (kafka.server.ReplicaManager)\norg.apache.kafka.common.errors.NotEnoughReplicasException: The size of the current ISR Set(2) is insufficient to satisfy the min.isr requirement of 2 for partition __consumer_offsets-5",
        "min_isr_violation",
        {"topic": "__consumer_offsets", "partition": 5, "isr_size": 1, "min_isr": 2},
        "operator log quoted on GitHub (Kafka 2.x)",
    ),
    Case(
        "min_isr_0_9",
        "[2016-06-01 12:00:00,000] ERROR [Replica Manager on Broker 1]: Error processing append operation on partition [events,4] (kafka.server.ReplicaManager)\nkafka.common.NotEnoughReplicasException: Number of insync replicas for partition [events,4] is [1], below required minimum [2]",
        "min_isr_violation",
        {"topic": "events", "partition": 4, "isr_size": 1, "min_isr": 2},
        "Kafka 0.9 Partition 'Number of insync replicas for partition [%s,%d] is [%d], below required minimum [%d]'",
    ),
    Case(
        "not_leader_append",
        "[2020-03-03 03:03:03,303] ERROR [ReplicaManager broker=1] Error processing append operation on partition orders-7 (kafka.server.ReplicaManager)\norg.apache.kafka.common.errors.NotLeaderForPartitionException: This server is not the leader for that topic-partition.",
        "not_leader",
        {"topic": "orders", "partition": 7, "broker_id": "1"},
        "Kafka 2.x ReplicaManager with NotLeaderForPartitionException",
    ),
    Case(
        "not_leader_client_seed",
        "ERROR 2019-05-15 23:05:23,221 [kafka-producer-network-thread | producer-1] A failure occurred sending a message to Kafka.\norg.apache.kafka.common.errors.NotLeaderForPartitionException: This server is not the leader for that topic-partition.",
        "not_leader",
        {"level": "ERROR", "ts": "2019-05-15T23:05:23.221"},
        "seed 002 (a client log, level-first layout)",
    ),
    Case(
        "not_leader_or_follower_code",
        "[2023-01-01 00:00:00,000] WARN [Producer clientId=p-1] Got error produce response with correlation id 12 on topic-partition orders-1, retrying (2 attempts left). Error: NOT_LEADER_OR_FOLLOWER (org.apache.kafka.clients.producer.internals.Sender)",
        "not_leader",
        {"topic": "orders", "partition": 1},
        "Kafka 2.7+ client Sender",
    ),
    Case(
        "not_leader_remote_broker_2_0",
        "[2018-11-14 10:08:32,602] INFO [ReplicaFetcher replicaId=1, leaderId=3, fetcherId=0] Remote broker is not the leader for partition orders-3, which could indicate that the partition is being moved (kafka.server.ReplicaFetcherThread)",
        "not_leader",
        {"topic": "orders", "partition": 3, "broker_id": "1", "level": "INFO"},
        "Kafka 1.1-2.0 AbstractFetcherThread (INFO; DEBUG 2.1+): a 2.0 follower's only line for a NOT_LEADER_FOR_PARTITION fetch answer (tag 2.0.1)",
    ),
    Case(
        "not_leader_epoch_retry_2_0",
        "[2018-11-14 10:01:19,896] INFO [ReplicaFetcher replicaId=1, leaderId=3, fetcherId=0] Retrying leaderEpoch request for partition orders-3 as the leader reported an error: NOT_LEADER_FOR_PARTITION (kafka.server.ReplicaFetcherThread)",
        "not_leader",
        {"topic": "orders", "partition": 3, "broker_id": "1"},
        "Kafka 1.0-2.0 ReplicaFetcherThread.maybeTruncate (2.1-3.x AbstractFetcherThread), the Errors name of the OffsetsForLeaderEpoch answer (tag 2.0.1); was malformed",
    ),
    Case(
        "epoch_retry_other_error_2_0",
        "[2018-11-14 10:01:19,896] INFO [ReplicaFetcher replicaId=1, leaderId=3, fetcherId=0] Retrying leaderEpoch request for partition orders-3 as the leader reported an error: UNKNOWN_TOPIC_OR_PARTITION (kafka.server.ReplicaFetcherThread)",
        "unrecognised",
        {},
        "the same Kafka 2.0 wording with another error: not a not_leader",
    ),
    Case(
        "not_leader_leader_not_local_0_8",
        "[2015-03-10 11:20:31,452] WARN [KafkaApi-1] Produce request with correlation id 12345 from client producer-1 on partition [orders,3] failed due to Leader not local for partition [orders,3] on broker 1 (kafka.server.KafkaApis)",
        "not_leader",
        {"topic": "orders", "partition": 3, "level": "WARN"},
        "Kafka 0.8.2 KafkaApis (WARN) quoting NotLeaderForPartitionException's message 'Leader not local for partition [%s,%d] on broker %d' (tag 0.8.2.2)",
    ),
    Case(
        "not_leader_leader_not_local_2_0",
        "[2018-11-14 10:08:32,610] DEBUG [KafkaApi-3] Offset request with correlation id 52 from client consumer-1 on partition orders-3 failed due to Leader not local for partition orders-3 on broker 3 (kafka.server.KafkaApis)",
        "not_leader",
        {"topic": "orders", "partition": 3, "level": "DEBUG"},
        "Kafka 0.10-2.x KafkaApis ListOffsets (DEBUG) '... on partition %s failed due to %s' with the exception's message (tag 2.0.1)",
    ),
    Case(
        "not_leader_kafka_apis_produce_2_0",
        "[2018-11-14 10:08:32,611] DEBUG [KafkaApi-3] Produce request with correlation id 42 from client producer-1 on partition orders-3 failed due to org.apache.kafka.common.errors.NotLeaderForPartitionException (kafka.server.KafkaApis)",
        "not_leader",
        {"topic": "orders", "partition": 3},
        "Kafka 0.10-2.x KafkaApis produce callback (DEBUG) '... failed due to %s' with Errors.exceptionName (tag 2.0.1)",
    ),
    Case(
        "not_leader_producer_code_2_0",
        "[2018-11-14 10:08:32,650] WARN [Producer clientId=producer-1] Got error produce response with correlation id 8812 on topic-partition orders-3, retrying (2 attempts left). Error: NOT_LEADER_FOR_PARTITION (org.apache.kafka.clients.producer.internals.Sender)",
        "not_leader",
        {"topic": "orders", "partition": 3, "level": "WARN"},
        "Kafka 2.0 client Sender 'Got error produce response with correlation id {} on topic-partition {}, retrying ({} attempts left). Error: {}' (tag 2.0.1)",
    ),
    Case(
        "not_leader_producer_invalid_metadata_2_0",
        "[2018-11-14 10:08:32,651] WARN [Producer clientId=producer-1] Received invalid metadata error in produce request on partition orders-3 due to org.apache.kafka.common.errors.NotLeaderForPartitionException: This server is not the leader for that topic-partition.. Going to request metadata update now (org.apache.kafka.clients.producer.internals.Sender)",
        "not_leader",
        {"topic": "orders", "partition": 3},
        "Kafka 2.0 client Sender 'Received invalid metadata error in produce request on partition {} due to {}. Going to request metadata update now' (tag 2.0.1)",
    ),
    Case(
        "fetch_error_unknown_topic_2_0",
        "[2018-10-17 12:57:18,400] ERROR [ReplicaFetcher replicaId=10, leaderId=30, fetcherId=0] Error for partition test-3-0 at offset 0 (kafka.server.ReplicaFetcherThread)\norg.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition.",
        "unrecognised",
        {},
        "real Kafka 2.0.0 broker (elastic/beats filebeat/module/kafka/log/test/server-2.0.0.log): a fetch error that is not a not_leader",
    ),
    Case(
        "processor_seed",
        "[2017-10-12 16:52:38,141] ERROR Processor got uncaught exception. (kafka.network.Processor)\njava.lang.ArrayIndexOutOfBoundsException: 18\n        at org.apache.kafka.common.protocol.ApiKeys.forId(ApiKeys.java:68)",
        "processor_uncaught_exception",
        {"level": "ERROR", "ts": "2017-10-12T16:52:38.141"},
        "seed 000 (Kafka 0.9 SocketServer)",
    ),
    Case(
        "load_start_seed",
        "[2017-10-12 17:10:00,000] INFO Loading offsets and group metadata from [__consumer_offsets,19] (kafka.coordinator.GroupMetadataManager)",
        "coordinator_load_start",
        {"topic": "__consumer_offsets", "partition": 19},
        "seed 000 (0.9 GroupMetadataManager; timestamp added)",
    ),
    Case(
        "load_finish_seed",
        "[2017-10-12 17:10:01,205] INFO Finished loading offsets from [__consumer_offsets,27] in 1205 milliseconds. (kafka.coordinator.GroupMetadataManager)",
        "coordinator_load_finish",
        {"topic": "__consumer_offsets", "partition": 27},
        "seed 000 (0.9 GroupMetadataManager; timestamp added)",
    ),
    Case(
        "load_start_1_1",
        "[2019-01-01 00:00:00,000] INFO [GroupMetadataManager brokerId=3] Scheduling loading of offsets and group metadata from __consumer_offsets-12 (kafka.coordinator.group.GroupMetadataManager)",
        "coordinator_load_start",
        {"topic": "__consumer_offsets", "partition": 12, "broker_id": "3"},
        "Kafka 1.1-3.x GroupMetadataManager",
    ),
    Case(
        "load_finish_2_8",
        "[2022-01-01 00:00:00,000] INFO [GroupMetadataManager brokerId=3] Finished loading offsets and group metadata from __consumer_offsets-12 in 35 milliseconds for epoch 4, of which 2 milliseconds was spent in the scheduler. (kafka.coordinator.group.GroupMetadataManager)",
        "coordinator_load_finish",
        {"topic": "__consumer_offsets", "partition": 12, "leader_epoch": 4},
        "Kafka 2.8-3.x GroupMetadataManager",
    ),
    Case(
        "load_start_runtime",
        "[2025-01-01 00:00:00,000] INFO [GroupCoordinator id=1] Scheduling loading of metadata from __consumer_offsets-3 with epoch 7 (org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime)",
        "coordinator_load_start",
        {"topic": "__consumer_offsets", "partition": 3, "leader_epoch": 7},
        "Kafka 3.6-4.x CoordinatorRuntime",
    ),
    Case(
        "load_finish_runtime",
        "[2025-01-01 00:00:00,020] INFO [GroupCoordinator id=1] Finished loading of metadata from __consumer_offsets-3 with epoch 7 in 20ms where 1ms was spent in the scheduler. Loaded 10 records which total to 1000 bytes. (org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime)",
        "coordinator_load_finish",
        {"topic": "__consumer_offsets", "partition": 3, "leader_epoch": 7},
        "Kafka 4.x CoordinatorRuntime",
    ),
    # A group coordinator's rebalance lines: real 2.x lines of seeds 001 and 004, the others
    # formatted as each version's coordinator formats them (GroupCoordinator.scala at the
    # tags named; the 4.x wording from the kafka-group-coordinator 3.9.1 and 4.1.1 jars'
    # string constants, after CoordinatorRuntime.CoordinatorContext's log context).
    Case(
        "group_rebalance_seed_heartbeat",
        "[2021-04-16 17:51:05,707] INFO [GroupCoordinator 3]: Preparing to rebalance group TEST-REALTIME-SZL in state PreparingRebalance with old generation 1 (__consumer_offsets-49) (reason: removing member consumer-1-416c9379-0f89-48f4-b125-eadf648d57c7 on heartbeat expiration) (kafka.coordinator.group.GroupCoordinator)",
        "group_rebalance_start",
        {
            "group": "TEST-REALTIME-SZL",
            "generation": 1,
            "topic": "__consumer_offsets",
            "partition": 49,
            "members": None,
            "level": "INFO",
            "ts": "2021-04-16T17:51:05.707",
        },
        "seed 001 (real Kafka 2.x line, GroupCoordinator.prepareRebalance 2.1-3.x)",
    ),
    Case(
        "group_rebalance_seed_new_member",
        "[2021-04-15 08:24:20,809] INFO [GroupCoordinator 3]: Preparing to rebalance group XXXX-SZL in state PreparingRebalance with old generation 0 (__consumer_offsets-28) (reason: Adding new member consumer-1-11aac9d7-8a72-44fe-bf5c-0519941bbb6a) (kafka.coordinator.group.GroupCoordinator)",
        "group_rebalance_start",
        {"group": "XXXX-SZL", "generation": 0, "topic": "__consumer_offsets", "partition": 28},
        "seed 001 (real Kafka 2.x line)",
    ),
    Case(
        "group_stabilized_seed",
        "[2021-04-15 08:24:20,811] INFO [GroupCoordinator 3]: Stabilized group XXX-SZL generation 1 (__consumer_offsets-28) (kafka.coordinator.group.GroupCoordinator)",
        "group_stabilized",
        {
            "group": "XXX-SZL",
            "generation": 1,
            "topic": "__consumer_offsets",
            "partition": 28,
            "members": None,
        },
        "seed 001 (real Kafka 2.x line, GroupCoordinator.onCompleteJoin 0.11-2.7)",
    ),
    Case(
        "group_member_failed_seed",
        "[2022-03-16 17:14:07,063] INFO [GroupCoordinator 1]: Member consumer-2-f852e86d-7db8-4943-b378-097fe08415f8 in group TEST-SZL has failed, removing it from the group (kafka.coordinator.group.GroupCoordinator)",
        "group_member_failed",
        {"group": "TEST-SZL", "generation": None, "topic": None},
        "seed 004 (real Kafka 2.x line, GroupCoordinator.onMemberFailure 0.11-3.x)",
    ),
    Case(
        "group_empty_seed",
        "[2022-03-16 17:14:07,065] INFO [GroupCoordinator 1]: Group TEST-SZL with generation 2 is now empty (__consumer_offsets-43) (kafka.coordinator.group.GroupCoordinator)",
        "group_empty",
        {"group": "TEST-SZL", "generation": 2, "topic": "__consumer_offsets", "partition": 43},
        "seed 004 (real Kafka 2.x line, GroupCoordinator.onCompleteJoin 0.11-3.x)",
    ),
    Case(
        "group_rebalance_0_10",
        "[2017-06-01 10:00:00,000] INFO [GroupCoordinator 1]: Preparing to restabilize group console-consumer-4711 with old generation 3 (kafka.coordinator.GroupCoordinator)",
        "group_rebalance_start",
        {"group": "console-consumer-4711", "generation": 3, "topic": None, "partition": None},
        "kafka.coordinator.GroupCoordinator.prepareRebalance 0.9-0.10 (tags 0.9.0.1, 0.10.2.2)",
    ),
    Case(
        "group_stabilized_0_10",
        "[2017-06-01 10:00:01,000] INFO [GroupCoordinator 1]: Stabilized group console-consumer-4711 generation 4 (kafka.coordinator.GroupCoordinator)",
        "group_stabilized",
        {"group": "console-consumer-4711", "generation": 4, "topic": None, "partition": None},
        "kafka.coordinator.GroupCoordinator.onCompleteJoin 0.9-0.10: no offsets partition (the "
        "logger's own parentheses are not one)",
    ),
    Case(
        "group_empty_0_10",
        "[2017-06-01 10:05:00,000] INFO [GroupCoordinator 1]: Group console-consumer-4711 with generation 5 is now empty (kafka.coordinator.GroupCoordinator)",
        "group_empty",
        {"group": "console-consumer-4711", "generation": 5, "topic": None},
        "kafka.coordinator.GroupCoordinator.onCompleteJoin 0.10.1-0.10.2 (tag 0.10.2.2)",
    ),
    Case(
        "group_rebalance_1_1",
        "[2018-06-01 10:00:00,000] INFO [GroupCoordinator 2]: Preparing to rebalance group payments with old generation 7 (__consumer_offsets-11) (kafka.coordinator.group.GroupCoordinator)",
        "group_rebalance_start",
        {"group": "payments", "generation": 7, "topic": "__consumer_offsets", "partition": 11},
        "kafka.coordinator.group.GroupCoordinator.prepareRebalance 0.11-2.0 (tags 0.11.0.2, "
        "1.1.1, 2.0.1)",
    ),
    Case(
        "group_rebalance_3_x_new_member",
        "[2023-05-01 10:00:00,100] INFO [GroupCoordinator 2]: Preparing to rebalance group payments in state PreparingRebalance with old generation 7 (__consumer_offsets-11) (reason: Adding new member consumer-payments-1-6a4cbd1e-2f43-4f6d-9b52-7c1f0a8e2b1d with group instance id None; client reason: need to re-join with the given member-id: consumer-payments-1-6a4cbd1e-2f43-4f6d-9b52-7c1f0a8e2b1d) (kafka.coordinator.group.GroupCoordinator)",
        "group_rebalance_start",
        {"group": "payments", "generation": 7, "topic": "__consumer_offsets", "partition": 11},
        "kafka.coordinator.group.GroupCoordinator 3.x (tag 3.6.2: 'Adding new member %s with "
        "group instance id %s; client reason: %s'; the client's reason from AbstractCoordinator "
        "3.6.2)",
    ),
    Case(
        "group_stabilized_2_8_members",
        "[2023-05-01 10:00:03,120] INFO [GroupCoordinator 2]: Stabilized group payments generation 8 (__consumer_offsets-11) with 3 members (kafka.coordinator.group.GroupCoordinator)",
        "group_stabilized",
        {
            "group": "payments",
            "generation": 8,
            "topic": "__consumer_offsets",
            "partition": 11,
            "members": 3,
        },
        "kafka.coordinator.group.GroupCoordinator.onCompleteJoin 2.8-3.x (tags 2.8.2, 3.8.0)",
    ),
    Case(
        "group_with_spaces",
        "[2023-05-01 10:00:03,120] INFO [GroupCoordinator 2]: Stabilized group my group (test) generation 2 (__consumer_offsets-30) with 1 members (kafka.coordinator.group.GroupCoordinator)",
        "group_stabilized",
        {"group": "my group (test)", "generation": 2, "partition": 30, "members": 1},
        "a group id is any string (spaces, parentheses): GroupCoordinator 2.8-3.x",
    ),
    Case(
        "group_rebalance_4_x",
        "[2025-11-20 09:14:03,512] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=17] Preparing to rebalance group orders in state PreparingRebalance with old generation 12 (reason: removing member consumer-orders-1-8c0b0b5e-3b6f-4f70-9d0e-1c2a6c8e9f41 on heartbeat expiration.). (org.apache.kafka.coordinator.group.GroupMetadataManager)",
        "group_rebalance_start",
        {
            "group": "orders",
            "generation": 12,
            "topic": "__consumer_offsets",
            "partition": 17,
            "broker_id": "1",
        },
        "org.apache.kafka.coordinator.group.GroupMetadataManager 3.6-4.x (3.9.1, 4.1.1 jars: "
        "'Preparing to rebalance group {} in state {} with old generation {} (reason: {}).', "
        "reason 'removing member {} on heartbeat expiration.'); log context "
        "CoordinatorRuntime.CoordinatorContext '[%s topic=%s partition=%d] ' with "
        "GroupCoordinatorService's 'GroupCoordinator id=%d'",
    ),
    Case(
        "group_member_failed_4_x",
        "[2025-11-20 09:14:03,511] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=17] Member consumer-orders-1-8c0b0b5e-3b6f-4f70-9d0e-1c2a6c8e9f41 in group orders has failed, removing it from the group. (org.apache.kafka.coordinator.group.GroupMetadataManager)",
        "group_member_failed",
        {"group": "orders", "topic": "__consumer_offsets", "partition": 17},
        "GroupMetadataManager 3.6-4.x (3.9.1, 4.1.1 jars)",
    ),
    Case(
        "group_stabilized_4_x",
        "[2025-11-20 09:14:06,530] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=17] Stabilized group orders generation 13 with 2 members. (org.apache.kafka.coordinator.group.GroupMetadataManager)",
        "group_stabilized",
        {
            "group": "orders",
            "generation": 13,
            "members": 2,
            "topic": "__consumer_offsets",
            "partition": 17,
        },
        "GroupMetadataManager 3.6-4.x (3.9.1, 4.1.1 jars: 'Stabilized group {} generation {} "
        "with {} members.')",
    ),
    Case(
        "group_empty_4_x",
        "[2025-11-20 09:20:00,001] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=17] Group orders with generation 14 is now empty. (org.apache.kafka.coordinator.group.GroupMetadataManager)",
        "group_empty",
        {"group": "orders", "generation": 14, "topic": "__consumer_offsets", "partition": 17},
        "GroupMetadataManager 3.6-4.x (3.9.1, 4.1.1 jars: 'Group {} with generation {} is now "
        "empty.')",
    ),
    Case(
        "group_epoch_bump_3_9",
        "[2024-11-20 09:30:00,000] INFO [GroupCoordinator id=2 topic=__consumer_offsets partition=5] [GroupId shipments] Bumped group epoch to 8. (org.apache.kafka.coordinator.group.GroupMetadataManager)",
        "group_epoch_bump",
        {"group": "shipments", "generation": 8, "topic": "__consumer_offsets", "partition": 5},
        "GroupMetadataManager 3.6-3.9, the consumer protocol (3.6.2 and 3.7.0 sources, 3.9.1 jar: "
        "'[GroupId {}] Bumped group epoch to {}.')",
    ),
    Case(
        "group_epoch_bump_4_1",
        "[2025-11-20 09:30:00,000] INFO [GroupCoordinator id=2 topic=__consumer_offsets partition=5] [GroupId shipments] Bumped group epoch to 9 with metadata hash -4522019839034512. (org.apache.kafka.coordinator.group.GroupMetadataManager)",
        "group_epoch_bump",
        {"group": "shipments", "generation": 9, "partition": 5, "broker_id": "2"},
        "GroupMetadataManager 4.1.1 jar: '[GroupId {}] Bumped group epoch to {} with metadata "
        "hash {}.'",
    ),
    Case(
        "group_epoch_bump_streams",
        "[2025-11-20 09:31:00,000] INFO [GroupCoordinator id=2 topic=__consumer_offsets partition=9] [GroupId wordcount-app][MemberId 3f0c2d1e-5b7a-4c8e-9f10-2a3b4c5d6e7f] Bumped streams group epoch to 4 with metadata hash 7731. (org.apache.kafka.coordinator.group.GroupMetadataManager)",
        "group_epoch_bump",
        {"group": "wordcount-app", "generation": 4, "partition": 9},
        "GroupMetadataManager 4.1.1 jar, streams groups: '[GroupId {}][MemberId {}] Bumped "
        "streams group epoch to {} with metadata hash {}.'",
    ),
    Case(
        "group_fenced_4_x",
        "[2025-11-20 09:32:00,000] INFO [GroupCoordinator id=2 topic=__consumer_offsets partition=5] [GroupId shipments] Member 5d9f2a2c-1b3e-4f5a-8c7d-9e0f1a2b3c4d fenced from the group because the member session expired. (org.apache.kafka.coordinator.group.GroupMetadataManager)",
        "group_member_failed",
        {"group": "shipments", "partition": 5},
        "GroupMetadataManager 3.6-4.x, the consumer protocol (3.9.1, 4.1.1 jars: '[GroupId {}] "
        "Member {} fenced from the group because {}.', reason 'the member session expired')",
    ),
    Case(
        "group_unloaded_epoch_no_bump",
        "[2025-11-20 09:33:00,000] INFO [GroupCoordinator id=2 topic=__consumer_offsets partition=5] [GroupId=shipments] Unloaded group metadata for group epoch 9. (org.apache.kafka.coordinator.group.GroupMetadataManager)",
        "unrecognised",
        {},
        "GroupMetadataManager 3.6-4.x (4.1.1 jar) '[GroupId={}] Unloaded group metadata for "
        "group epoch {}.': not a new epoch",
    ),
    Case(
        "cleaner_died_1_x",
        "[2018-02-02 02:02:02,020] ERROR [kafka-log-cleaner-thread-0]: Error due to (kafka.log.LogCleaner)\njava.lang.IllegalArgumentException: requirement failed",
        "log_cleaner_died",
        {"level": "ERROR"},
        "Kafka 1.1-2.3 ShutdownableThread in LogCleaner",
    ),
    Case(
        "cleaner_died_0_9",
        "[2017-10-01 01:01:01,010] ERROR [kafka-log-cleaner-thread-0], Error due to  (kafka.log.LogCleaner)",
        "log_cleaner_died",
        {},
        "Kafka 0.9-1.0 ShutdownableThread logIdent '[%s], '",
    ),
    Case(
        "cleaner_uncleanable",
        "[2021-01-01 00:00:00,000] WARN [kafka-log-cleaner-thread-0]: Unexpected exception thrown when cleaning log Log(dir=/data/__consumer_offsets-7, topic=__consumer_offsets, partition=7). Marking its partition (__consumer_offsets-7) as uncleanable (kafka.log.LogCleaner)",
        "log_cleaner_died",
        {"topic": "__consumer_offsets", "partition": 7},
        "Kafka 2.4+ LogCleaner.CleanerThread",
    ),
    Case(
        "log_dir_offline_4_1",
        "[2026-12-05 05:25:14,602] WARN [ReplicaManager broker=3] Stopping serving replicas in dir /tmp/df1/cluster/broker-3/small-disk with uuid Some(98oXF-mMl44Fn-8CXzHGOQ) because the log directory has failed. (kafka.server.ReplicaManager)",
        "log_dir_offline",
        {"log_dir": "/tmp/df1/cluster/broker-3/small-disk", "broker_id": "3", "level": "WARN"},
        "4.1.1 devcluster (fault suite disk-full: a full tmpfs)",
    ),
    Case(
        "log_dir_offline_3_9_zk",
        "[2026-12-05 05:30:01,048] WARN [ReplicaManager broker=3] Stopping serving replicas in dir /tmp/df2/cluster/broker-3/small-disk with uuid None because the log directory has failed. (kafka.server.ReplicaManager)",
        "log_dir_offline",
        {"log_dir": "/tmp/df2/cluster/broker-3/small-disk", "broker_id": "3"},
        "3.9.1 devcluster, ZooKeeper mode (fault suite disk-full; no directory id)",
    ),
    Case(
        "log_dir_offline_1_0",
        "[2018-03-01 10:00:00,000] WARN [ReplicaManager broker=1] Stopping serving replicas in dir /kafka/data-1 (kafka.server.ReplicaManager)",
        "log_dir_offline",
        {"log_dir": "/kafka/data-1"},
        "Kafka 1.0-3.6 ReplicaManager.handleLogDirFailure",
    ),
    Case(
        "log_dir_offline_truncated",
        "[2026-12-05 05:30:12,345] WARN [ReplicaManager broker=3] Stopping serving replicas in dir ",
        "malformed",
        {"reason": "log_dir_offline"},
        "a cut 4.1.1 line: the trigger without the directory",
    ),
    Case(
        "log_dir_log_manager_not_counted",
        "[2026-12-05 05:25:14,644] WARN Stopping serving logs in dir /tmp/df1/cluster/broker-3/small-disk (kafka.log.LogManager)",
        "unrecognised",
        {},
        "4.1.1 devcluster, LogManager.handleLogDirFailure: the same failure as ReplicaManager's line",
    ),
    Case(
        "log_dir_halt_all_failed",
        "[2026-12-05 05:30:12,351] FATAL Shutdown broker because all log dirs in /var/kafka/logs-3a, /var/kafka/logs-3b have failed (kafka.log.LogManager)",
        "log_dir_halt",
        {"log_dir": "/var/kafka/logs-3a, /var/kafka/logs-3b", "level": "FATAL"},
        "Kafka 1.0-4.x LogManager.handleLogDirFailure (kafka_2.13 3.9.1, 4.1.1)",
    ),
    Case(
        "log_dir_halt_metadata_dir",
        "[2026-12-05 05:30:12,352] FATAL [ReplicaManager broker=3] Shutdown broker because the metadata log dir /var/kafka/logs-3a has failed (kafka.server.ReplicaManager)",
        "log_dir_halt",
        {"log_dir": "/var/kafka/logs-3a", "broker_id": "3"},
        "Kafka 3.7-4.x ReplicaManager.handleLogDirFailure, KRaft (kafka_2.13 3.9.1, 4.1.1)",
    ),
    Case(
        "log_dir_halt_offline_dir",
        "[2019-01-01 00:00:00,000] FATAL [ReplicaManager broker=1] Halting broker because dir /kafka/data-1 is offline (kafka.server.ReplicaManager)",
        "log_dir_halt",
        {"log_dir": "/kafka/data-1"},
        "Kafka 1.0-3.9 ReplicaManager.LogDirFailureHandler, inter.broker.protocol.version < 1.0",
    ),
    Case(
        "broker_started_kraft_4_1",
        "[2026-12-05 04:52:41,195] INFO [BrokerServer id=3] Transition from STARTING to STARTED (kafka.server.BrokerServer)",
        "broker_started",
        {"subject_broker_id": 3, "broker_id": "3", "level": "INFO"},
        "4.1.1 devcluster",
    ),
    Case(
        "broker_started_zk_3_9",
        "[2026-12-04 22:27:36,888] INFO [KafkaServer id=3] started (kafka.server.KafkaServer)",
        "broker_started",
        {"subject_broker_id": 3, "broker_id": "3"},
        "3.9.1 devcluster (ZooKeeper mode)",
    ),
    Case(
        "broker_started_zk_0_9",
        "[2016-01-01 00:00:00,000] INFO [Kafka Server 2], started (kafka.server.KafkaServer)",
        "broker_started",
        {"subject_broker_id": 2},
        "Kafka 0.9-1.0 KafkaServer logIdent '[Kafka Server %d], '",
    ),
    Case(
        "broker_starting_not_started",
        "[2026-12-05 04:52:40,100] INFO [BrokerServer id=3] Transition from SHUTDOWN to STARTING (kafka.server.BrokerServer)",
        "unrecognised",
        {},
        "4.1.1 BrokerServer: starting is not started",
    ),
    Case(
        "strimzi_layout",
        "2019-05-15 22:20:14,399 INFO [Partition orders-2 broker=1] Shrinking ISR from 1,2 to 1 (kafka.cluster.Partition) [ReplicaManager-1]",
        "isr_shrink",
        {"topic": "orders", "partition": 2, "level": "INFO", "ts": "2019-05-15T22:20:14.399"},
        "Strimzi layout '%d{yyyy-MM-dd HH:mm:ss,SSS} %p %m (%c) [%t]%n'",
    ),
    Case(
        "iso_offset_layout",
        "2019-05-15T22:20:14.399+0800 WARN [Partition orders-2 broker=1] Shrinking ISR from 1,2 to 1 (kafka.cluster.Partition)",
        "isr_shrink",
        {"ts": "2019-05-15T22:20:14.399+08:00", "level": "WARN"},
        "log4j2 ISO8601_OFFSET_DATE_TIME layout",
    ),
    Case(
        "plain_info",
        "[2019-05-15 22:03:49,511] INFO Rolled new log segment for 'order-KSTREAM-AGGREGATE-STATE-STORE-0000000002-repartition-196' in 1 ms. (kafka.log.Log)",
        "unrecognised",
        {"reason": "no_event"},
        "seed 002: most lines are not events",
    ),
    Case(
        "stack_frame_alone",
        "        at kafka.network.Processor$$anonfun$run$11.apply(SocketServer.scala:426)",
        "unrecognised",
        {"reason": "continuation"},
        "seed 000: an unjoined stack frame is not an event",
    ),
    Case(
        "exception_line_alone",
        "org.apache.kafka.common.errors.NotLeaderForPartitionException: This server is not the leader for that topic-partition.",
        "unrecognised",
        {"reason": "continuation"},
        "an unjoined exception line is a continuation, not a new not_leader event",
    ),
    Case(
        "session_timeout_zk_client_seed",
        "[2019-05-15 22:20:14,399] INFO Initiating client connection, connectString=192.168.x.x:2181,192.168.x.x:2181,192.168.x.x:2181 sessionTimeout=6000 watcher=org.I0Itec.zkclient.ZkClient@50a638b5 (org.apache.zookeeper.ZooKeeper)",
        "session_timeout",
        {"session_timeout_ms": 6000, "level": "INFO"},
        "seed 002 (ZooKeeper 3.4 client of a Kafka 0.9-1.0 broker, ZkClient watcher)",
    ),
    Case(
        "session_timeout_zk_client_3_9",
        "[2026-11-23 22:34:26,090] INFO Initiating client connection, connectString=127.0.0.1:34997 sessionTimeout=6000 watcher=kafka.zookeeper.ZooKeeperClient$ZooKeeperClientWatcher$@4145bad8 (org.apache.zookeeper.ZooKeeper)",
        "session_timeout",
        {"session_timeout_ms": 6000},
        "3.9.1 devcluster, ZooKeeper mode (ZooKeeper 3.8 client, Kafka 2.x-3.x ZooKeeperClient)",
    ),
    Case(
        "session_timeout_zk_client_chroot",
        "[2021-06-01 09:00:00,123] INFO Initiating client connection, connectString=zk1:2181,zk2:2181/kafka sessionTimeout=18000 watcher=kafka.zookeeper.ZooKeeperClient$ZooKeeperClientWatcher$@6d4b1c02 (org.apache.zookeeper.ZooKeeper)",
        "session_timeout",
        {"session_timeout_ms": 18000},
        "Kafka 2.x default zookeeper.session.timeout.ms with a chroot (ZooKeeper 3.5 constructor)",
    ),
    Case(
        "session_timeout_kafka_config_2_x_zookeeper",
        "[2020-03-02 10:11:12,345] INFO KafkaConfig values: \n"
        "\tadvertised.host.name = null\n"
        "\tbroker.id = 2\n"
        "\tlisteners = PLAINTEXT://:9092\n"
        "\tzookeeper.connect = zk1:2181\n"
        "\tzookeeper.connection.timeout.ms = null\n"
        "\tzookeeper.session.timeout.ms = 18000\n"
        "\tzookeeper.set.acl = false\n"
        " (kafka.server.KafkaConfig)",
        "session_timeout",
        {"session_timeout_ms": 18000, "ts": "2020-03-02T10:11:12.345"},
        "Kafka 2.4 KafkaConfig dump (AbstractConfig.logAll: 'values: ', '\\tkey = value' lines, "
        "no process.roles before 2.8), keys shortened",
    ),
    Case(
        "session_timeout_kafka_config_3_9_zookeeper",
        "[2026-11-23 22:34:27,379] INFO KafkaConfig values: \n"
        "\tadvertised.listeners = PLAINTEXT://127.0.0.1:50857\n"
        "\tbroker.session.timeout.ms = 9000\n"
        "\tprocess.roles = []\n"
        "\tzookeeper.connect = 127.0.0.1:34997\n"
        "\tzookeeper.session.timeout.ms = 6000\n"
        "\tzookeeper.ssl.truststore.type = null\n"
        " (kafka.server.KafkaConfig)",
        "session_timeout",
        {"session_timeout_ms": 6000},
        "3.9.1 devcluster, ZooKeeper mode, keys shortened (the whole dump: "
        "tests/fixtures/logs/server-3.9.1-zookeeper-startup.log): broker.session.timeout.ms is listed "
        "but process.roles is empty, so zookeeper.session.timeout.ms governs",
    ),
    Case(
        "session_timeout_kafka_config_3_x_kraft",
        "[2023-10-10 12:00:00,000] INFO KafkaConfig values: \n"
        "\tbroker.heartbeat.interval.ms = 2000\n"
        "\tbroker.id = 4\n"
        "\tbroker.session.timeout.ms = 12000\n"
        "\tnode.id = 4\n"
        "\tprocess.roles = [broker]\n"
        "\tzookeeper.connect = null\n"
        "\tzookeeper.session.timeout.ms = 18000\n"
        " (kafka.server.KafkaConfig)",
        "session_timeout",
        {"session_timeout_ms": 12000},
        "Kafka 3.x KRaft broker: the dump lists zookeeper.* defaults too; process.roles says "
        "KRaft, so broker.session.timeout.ms governs (keys shortened)",
    ),
    Case(
        "session_timeout_kafka_config_4_1_kraft",
        "[2026-11-23 22:32:56,086] INFO KafkaConfig values: \n"
        "\tadd.partitions.to.txn.retry.backoff.max.ms = 100\n"
        "\tbroker.session.timeout.ms = 9000\n"
        "\tnode.id = 1\n"
        "\tprocess.roles = [broker, controller]\n"
        "\tunstable.feature.versions.enable = false\n"
        " (org.apache.kafka.common.config.AbstractConfig)",
        "session_timeout",
        {"session_timeout_ms": 9000},
        "4.1.1 devcluster, combined KRaft node, keys shortened (the whole dump: "
        "tests/fixtures/logs/server-4.1.1-kraft-startup.log; 4.x logs the AbstractConfig logger)",
    ),
    Case(
        "session_timeout_kafka_config_cut",
        "[2026-11-23 22:32:56,086] INFO KafkaConfig values: \n"
        "\tadd.partitions.to.txn.retry.backoff.max.ms = 100\n"
        "\tadvertised.listeners = PLAINTEXT://127.0.0.1:50857",
        "malformed",
        {"reason": "session_timeout"},
        "a dump cut before any session timeout key (a shipper split it): counted, not guessed",
    ),
    Case(
        "session_timeout_consumer_config",
        "[2026-11-23 22:33:01,000] INFO ConsumerConfig values: \n"
        "\tgroup.id = mirror\n"
        "\tsession.timeout.ms = 45000\n"
        " (org.apache.kafka.clients.consumer.ConsumerConfig)",
        "unrecognised",
        {"reason": "no_event"},
        "a client's config dump (Connect, MirrorMaker in the same log) is not the broker's",
    ),
)

GC_CASES: tuple[Case, ...] = (
    Case(
        "g1_full_10_39",
        G1_FULL_10_39,
        "full_gc",
        {
            "pause_s": 10.3987109,
            "cause": "Allocation Failure",
            "heap_before_mb": 8071.0,
            "heap_after_mb": 4285.0,
            "heap_total_mb": 8192.0,
            "uptime_s": 21989402.56,
            "ts": "2019-05-15T22:25:59.422+08:00",
        },
        "seed 002 (JDK 8 G1 PrintGCDetails+PrintGCDateStamps; real=10.39 s)",
    ),
    Case(
        "g1_full_10_23",
        G1_FULL_10_23,
        "full_gc",
        {"pause_s": 10.2331784, "cause": "Allocation Failure", "heap_before_mb": 8056.0},
        "seed 002 (real=10.23 s)",
    ),
    Case(
        "g1_full_header_only",
        G1_FULL_10_39.split("\n")[0],
        "full_gc",
        {"pause_s": 10.3987109},
        "seed 002 header line alone (shipper that does not join lines)",
    ),
    Case(
        "g1_young_joined",
        G1_YOUNG_JOINED,
        "young_gc",
        {
            "pause_s": 0.0749305,
            "cause": "G1 Evacuation Pause",
            "collector": "g1",
            "heap_before_mb": 5649.6,
            "heap_after_mb": 5466.5,
            "heap_total_mb": 8192.0,
        },
        "seed 002 (JDK 8 G1 young pause with its detail block)",
    ),
    Case(
        "g1_mixed_header",
        "2019-05-15T23:51:44.433+0800: 21994547.571: [GC pause (G1 Evacuation Pause) (mixed), 0.1036003 secs]",
        "young_gc",
        {"pause_s": 0.1036003, "collector": "g1"},
        "seed 002 (JDK 8 G1 mixed)",
    ),
    Case(
        "g1_initial_mark",
        "2019-05-15T22:26:09.915+0800: 21989413.053: [GC pause (G1 Humongous Allocation) (young) (initial-mark), 0.0274477 secs]",
        "young_gc",
        {"cause": "G1 Humongous Allocation"},
        "seed 002",
    ),
    Case(
        "g1_concurrent_abort",
        "2019-05-15T22:26:09.824+0800: 21989412.962: [GC concurrent-mark-abort]",
        "unrecognised",
        {},
        "seed 002: a concurrent phase is not a pause",
    ),
    Case(
        "g1_to_space_jdk8",
        "2020-01-01T00:00:00.000+0000: 100.000: [GC pause (G1 Evacuation Pause) (young) (to-space exhausted), 0.1234567 secs]",
        "gc_failure",
        {"pause_s": 0.1234567, "collector": "g1"},
        "JDK 8 G1 G1CollectedHeap::do_collection_pause '(to-space exhausted)'",
    ),
    Case(
        "cms_failure",
        CMS_FAILURE,
        "full_gc",
        {
            "cause": "promotion failed",
            "collector": "cms",
            "pause_s": 3.361586,
            "heap_before_mb": 2620.117,
            "heap_total_mb": 3004.5,
        },
        "JDK 7 CMS quoted by an operator (promotion failed + concurrent mode failure)",
    ),
    Case(
        "cms_young",
        "2020-10-27T23:05:04.361-0800: 0.510: [GC (Allocation Failure) 2020-10-27T23:05:04.361-0800: 0.510: [ParNew: 139776K->17470K(157248K), 0.0123 secs] 387920K->290000K(459336K), 0.0124 secs] [Times: user=0.02 sys=0.00, real=0.01 secs]",
        "young_gc",
        {"collector": "cms", "cause": "Allocation Failure", "pause_s": 0.0124},
        "JDK 8 CMS ParNew (format of the GCLogAnalysis lines quoted by operators)",
    ),
    Case(
        "parallel_full",
        "2019-11-04T16:05:43.298+0800: 148.011: [Full GC (Ergonomics) [PSYoungGen: 5938K->0K(147456K)] [ParOldGen: 51610K->48605K(83968K)] 57548K->48605K(231424K), [Metaspace: 80445K->80445K(1122304K)], 0.3256949 secs] [Times: user=0.55 sys=0.00, real=0.32 secs]",
        "full_gc",
        {
            "collector": "parallel",
            "cause": "Ergonomics",
            "pause_s": 0.3256949,
            "heap_before_mb": 56.199,
        },
        "JDK 8 Parallel quoted by an operator",
    ),
    Case(
        "parallel_young",
        "[GC (Allocation Failure) [PSYoungGen: 38392K->5107K(19968K)] 84699K->63898K(107520K), 0.0040183 secs] [Times: user=0.00 sys=0.00, real=0.00 secs]",
        "young_gc",
        {"collector": "parallel", "pause_s": 0.0040183},
        "JDK 8 Parallel without date stamps",
    ),
    Case(
        "parallel_promotion_failed",
        "[GC (Allocation Failure) --[PSYoungGen: 7495K->7495K(9216K)] 15687K->15695K(19456K), 0.0027637 secs] [Times: user=0.00 sys=0.00, real=0.00 secs]",
        "gc_failure",
        {"collector": "parallel"},
        "JDK 8 Parallel '--' promotion failure",
    ),
    Case(
        "serial_young",
        "0.844: [GC 0.844: [DefNew: 17472K->2176K(19648K), 0.0188339 secs] 17472K->2375K(63360K), 0.0189186 secs] [Times: user=0.01 sys=0.00, real=0.02 secs]",
        "young_gc",
        {"collector": "serial", "uptime_s": 0.844, "pause_s": 0.0189186},
        "JDK 6-7 Serial with uptime stamps",
    ),
    Case(
        "serial_full",
        "8.259: [Full GC 8.259: [Tenured: 43711K->40302K(43712K), 0.2960477 secs] 63350K->40302K(63360K), [Perm : 17836K->17836K(32768K)], 0.2961554 secs] [Times: user=0.28 sys=0.02, real=0.30 secs]",
        "full_gc",
        {"collector": "serial", "pause_s": 0.2961554},
        "JDK 6-7 Serial",
    ),
    Case(
        "serial_full_jdk8",
        "[Full GC (Allocation Failure) [Tenured: 8192K->8192K(10240K), 0.0123 secs] 15000K->15000K(19456K), [Metaspace: 3485K->3485K(1056768K)], 0.0124 secs] [Times: user=0.01 sys=0.00, real=0.01 secs]",
        "full_gc",
        {"collector": "serial", "cause": "Allocation Failure"},
        "JDK 8 Serial",
    ),
    Case(
        "printgc_only",
        "[GC 118250K->113543K(130112K), 0.0094143 secs]",
        "young_gc",
        {"pause_s": 0.0094143},
        "JDK 6-8 -XX:+PrintGC (no details)",
    ),
    Case(
        "cms_initial_mark",
        "[GC (CMS Initial Mark) [1 CMS-initial-mark: 10812086K(11901376K)] 10887844K(12514816K), 0.0001997 secs]",
        "unrecognised",
        {},
        "JDK 8 CMS initial mark: a CMS phase, not a young or full collection",
    ),
    Case(
        "unified_g1_full_system",
        "[2026-11-22T02:37:29.362+0000][0.029s][info][gc             ] GC(0) Pause Full (System.gc()) 1M->1M(10M) 3.987ms",
        "full_gc",
        {
            "cause": "System.gc()",
            "pause_s": 0.003987,
            "uptime_s": 0.029,
            "ts": "2026-11-22T02:37:29.362+00:00",
            "heap_total_mb": 10.0,
        },
        "jdk17 G1 -Xlog:gc*:time,uptime,level,tags",
    ),
    Case(
        "unified_g1_full_dcmd",
        "[2026-11-22T02:37:53.660+0000][43.803s][info][gc             ] GC(19) Pause Full (Diagnostic Command) 105M->39M(256M) 214.670ms",
        "full_gc",
        {"cause": "Diagnostic Command", "pause_s": 0.21467},
        "4.1.1 devcluster gc.log after jcmd GC.run (JDK 17)",
    ),
    Case(
        "unified_g1_full_start",
        "[2026-11-22T02:37:53.445+0000][43.588s][info][gc,start    ] GC(19) Pause Full (Diagnostic Command)",
        "unrecognised",
        {},
        "4.1.1 devcluster: the gc,start line is not a second event",
    ),
    Case(
        "unified_g1_compaction",
        "[2.345s][info][gc] GC(2) Pause Full (G1 Compaction Pause) 450M->280M(512M) 210.000ms",
        "full_gc",
        {"collector": "g1", "cause": "G1 Compaction Pause", "pause_s": 0.21},
        "JDK 10+ G1 full GC, -Xlog:gc default decorators",
    ),
    Case(
        "unified_g1_young",
        "[2026-11-22T02:37:29.364+0000][0.032s][info][gc             ] GC(1) Pause Young (Normal) (G1 Evacuation Pause) 2M->2M(10M) 1.037ms",
        "young_gc",
        {"collector": "g1", "cause": "G1 Evacuation Pause", "pause_s": 0.001037},
        "jdk17 G1",
    ),
    Case(
        "unified_g1_mixed",
        "[0.042s][info][gc] GC(7) Pause Young (Mixed) (G1 Evacuation Pause) 24M->24M(43M) 0.992ms",
        "young_gc",
        {"collector": "g1"},
        "JDK 11+ G1 mixed",
    ),
    Case(
        "unified_g1_jdk9",
        "[39.708s][info][gc] GC(0) Pause Young (G1 Evacuation Pause) 24M->8M(256M) 6.545ms",
        "young_gc",
        {"collector": "g1", "uptime_s": 39.708},
        "JDK 9-10 G1 (GCToolkit test line)",
    ),
    Case(
        "unified_g1_evac_failure",
        "[0.075s][info][gc] GC(7) Pause Young (Normal) (G1 Evacuation Pause) (Evacuation Failure: Allocation) 36M->30M(46M) 1.922ms",
        "gc_failure",
        {"collector": "g1", "cause": "G1 Evacuation Pause", "pause_s": 0.001922},
        "JDK 21 G1 quoted by an operator",
    ),
    Case(
        "unified_comma_locale",
        "[9,740s][info ][gc] GC(26) Pause Young (Normal) (G1 Evacuation Pause) (Evacuation Failure: Allocation/Pinned) 2159M->402M(3000M) 6,108ms",
        "gc_failure",
        {"pause_s": 0.006108, "uptime_s": 9.74},
        "JDK 22 G1 in a comma-decimal locale (Oracle docs example)",
    ),
    Case(
        "unified_to_space",
        "[1.234s][info][gc] GC(12) To-space exhausted",
        "gc_failure",
        {"collector": "g1", "uptime_s": 1.234},
        "jdk17 G1",
    ),
    Case(
        "unified_parallel_full",
        "[0.052s][info][gc] GC(1) Pause Full (Ergonomics) 60M->30M(61M) 12.120ms",
        "full_gc",
        {"cause": "Ergonomics", "pause_s": 0.01212},
        "jdk17 Parallel -Xlog:gc",
    ),
    Case(
        "unified_parallel_young",
        "[0.052s][info][gc] GC(0) Pause Young (System.gc()) 0M->0M(61M) 4.979ms",
        "young_gc",
        {"cause": "System.gc()"},
        "jdk17 Parallel",
    ),
    Case(
        "unified_serial_full",
        "[2026-11-22T02:37:35.722+0000][0.172s][info][gc             ] GC(0) Pause Full (System.gc()) 1M->0M(61M) 1.707ms",
        "full_gc",
        {"cause": "System.gc()", "heap_after_mb": 0.0},
        "jdk17 Serial",
    ),
    Case(
        "unified_serial_young",
        "[0.301s][info][gc] GC(4) Pause Young (Allocation Failure) 17M->17M(61M) 3.300ms",
        "young_gc",
        {"cause": "Allocation Failure"},
        "jdk17 Serial",
    ),
    Case(
        "shenandoah_degenerated",
        "[2026-11-22T02:37:57.014+0000][0.680s][info][gc          ] GC(75) Pause Degenerated GC (Outside of Cycle) 59M->57M(64M) 2.150ms",
        "gc_failure",
        {"collector": "shenandoah", "cause": "Outside of Cycle", "pause_s": 0.00215},
        "jdk17 Shenandoah",
    ),
    Case(
        "shenandoah_init_mark",
        "[0.511s][info][gc] GC(42) Pause Init Mark (unload classes) 0.080ms",
        "unrecognised",
        {},
        "jdk17 Shenandoah: a short concurrent-cycle pause, not a young or full collection",
    ),
    Case(
        "zgc_stall",
        "[0.225s][info][gc] Allocation Stall (main) 27.632ms",
        "gc_failure",
        {"collector": "zgc", "pause_s": 0.027632, "cause": "main"},
        "jdk17 ZGC",
    ),
    Case(
        "zgc_cycle",
        "[2026-11-22T02:38:05.023+0000][0.127s][info][gc          ] GC(0) Garbage Collection (System.gc()) 2M(3%)->2M(3%)",
        "unrecognised",
        {},
        "jdk17 ZGC: a concurrent cycle is not a pause",
    ),
    Case(
        "zgc_generational_major",
        "[2025-02-11T13:06:19.580-0800][info][gc          ] GC(1) Major Collection (Metadata GC Threshold) 296M(1%)->80M(0%) 0.105s",
        "unrecognised",
        {},
        "JDK 21 generational ZGC (GCToolkit test line): concurrent, not a pause",
    ),
    Case(
        "unified_truncated",
        "[0.052s][info][gc] GC(1) Pause Full (Ergonomics) 60M->30M(",
        "malformed",
        {"reason": "full_gc"},
        "a truncated GC line is malformed",
    ),
    # Issue 59 (held-out GC logs: tests/fixtures/logs/heldout/SOURCES.md says where each
    # format comes from).
    Case(
        "jdk7_parallel_full_permgen",
        "2015-06-01T10:15:39.167+0200: 40.956: [Full GC (Ergonomics) [PSYoungGen: 74695K->0K(611840K)] [ParOldGen: 1391022K->488113K(1398272K)] 1465717K->488113K(2010112K) [PSPermGen: 48211K->47971K(131072K)], 1.4865243 secs] [Times: user=3.61 sys=0.02, real=1.49 secs]",
        "full_gc",
        {
            "collector": "parallel",
            "cause": "Ergonomics",
            "pause_s": 1.4865243,
            "heap_total_mb": 1963.0,
        },
        "JDK 7 Parallel: ' [PSPermGen: ...]' without a comma (PSOldGen::print_used_change), held-out gc-jdk7-parallel-heapatgc.log",
    ),
    Case(
        "jdk7_parallel_young_tenuring",
        "2014-02-17T03:41:21.906-0500: 12.819: [GC\nDesired survivor size 497025024 bytes, new threshold 7 (max 15)\n [PSYoungGen: 970752K->143052K(1456128K)] 970752K->176597K(3708928K), 0.2230040 secs] [Times: user=0.54 sys=0.00, real=0.22 secs] \nTotal time for which application threads were stopped: 0.2231592 seconds",
        "young_gc",
        {"collector": "parallel", "pause_s": 0.223004, "uptime_s": 12.819},
        "JDK 7 before 7u40 Parallel with -XX:+PrintTenuringDistribution (PSScavenge::invoke_no_policy prints it inside the line) and an unstamped -XX:+PrintGCApplicationStoppedTime line",
    ),
    Case(
        "jdk7_parallel_full_unloading",
        "2014-02-17T03:41:56.529-0500: 47.442: [Full GC[Unloading class sun.reflect.GeneratedMethodAccessor112]\n[Unloading class sun.reflect.GeneratedConstructorAccessor23]\n [PSYoungGen: 143052K->0K(1456128K)] [ParOldGen: 2201344K->1312877K(2252800K)] 2344396K->1312877K(3708928K) [PSPermGen: 101233K->101175K(262144K)], 3.6545400 secs] [Times: user=8.12 sys=0.03, real=3.65 secs] ",
        "full_gc",
        {"collector": "parallel", "pause_s": 3.65454},
        "JDK 6-7 -XX:+TraceClassUnloading on the JVM's stdout, inside the Full GC's line (ClassLoadingService::notify_class_unloaded)",
    ),
    Case(
        "jdk6_parallel_full_gc_time_limit",
        "3712.205: [Full GC [PSYoungGen: 419840K->411264K(839680K)] [PSOldGen: 5008922K->5008913K(5033984K)] 5428762K->5420177K(5873664K) [PSPermGen: 193275K->193275K(262144K)]      GC time would exceed GCTimeLimit of 98%\n, 31.2210475 secs] [Times: user=31.20 sys=0.02, real=31.22 secs]",
        "full_gc",
        {"collector": "parallel", "pause_s": 31.2210475},
        "JDK 6-7 Parallel: the GC overhead limit's line inside the Full GC's (garbagecat ParallelPreprocessAction)",
    ),
    Case(
        "parallel_young_comma_locale",
        "2015-09-18T18:22:41.020+0200: 596,024: [GC (Allocation Failure)\nDesired survivor size 89128960 bytes, new threshold 1 (max 30)\n [PSYoungGen: 372371K->5611K(437248K)] 451027K->97031K(699392K), 0,0291022 secs] [Times: user=0,15 sys=0,04, real=0,03 secs]",
        "young_gc",
        {"collector": "parallel", "cause": "Allocation Failure", "pause_s": 0.0291022},
        "JDK 7-8 in a locale with a decimal comma (GCViewer's SampleSun1_7_0Parallel_Tenuring_PrintGCCause.txt shape)",
    ),
    Case(
        "jdk6_cms_split_heapatgc_full",
        "61244.187: [Full GC {Heap before gc invocations=212:\n par new generation   total 785728K, used 401334K [0x00002aabdaab0000, 0x00002aac0aab0000, 0x00002aac0aab0000)\n  eden space 785024K,  51% used [0x00002aabdaab0000, 0x00002aabf34fd8b8, 0x00002aac0a950000)\n concurrent mark-sweep generation total 3407872K, used 1701012K [0x00002aac0aab0000, 0x00002aacdaab0000, 0x00002aacdaab0000)\n concurrent-mark-sweep perm gen total 786432K, used 509117K [0x00002aacdaab0000, 0x00002aad0aab0000, 0x00002aad0aab0000)\n61244.188: [CMS: 1701012K->1588303K(3407872K), 10.8120417 secs] 2102346K->1588303K(4193600K), [CMS Perm : 509117K->500981K(786432K)]Heap after gc invocations=213:\n par new generation   total 785728K, used 0K [0x00002aabdaab0000, 0x00002aac0aab0000, 0x00002aac0aab0000)\n concurrent mark-sweep generation total 3407872K, used 1588303K [0x00002aac0aab0000, 0x00002aacdaab0000, 0x00002aacdaab0000)\n}\n, 10.8137702 secs]",
        "full_gc",
        {"collector": "cms", "pause_s": 10.8137702},
        "early JDK 6 -XX:+PrintHeapAtGC inside the collection's line, the CMS generation's line its own stamped line (garbagecat's 'split PrintHeapAtGC', dataset6)",
    ),
    Case(
        "jdk6_cms_remark",
        "2013-11-04T16:02:58.514+0000: 47.002: [GC[YG occupancy: 161203 K (306688 K)]47.002: [Rescan (parallel) , 0.0521930 secs]47.054: [weak refs processing, 0.0019812 secs] [1 CMS-remark: 315976K(3853312K)] 465976K(4160000K), 0.0581742 secs] [Times: user=0.17 sys=0.01, real=0.06 secs] ",
        "unrecognised",
        {},
        "JDK 6-7 CMS remark: a CMS phase, not a young collection (as JDK 8's '[GC (CMS Final Remark)')",
    ),
    Case(
        "jdk6_cms_initial_mark",
        "2013-11-04T16:02:53.711+0000: 42.199: [GC [1 CMS-initial-mark: 315976K(3853312K)] 376976K(4160000K), 0.0244410 secs] [Times: user=0.06 sys=0.00, real=0.02 secs] ",
        "unrecognised",
        {},
        "JDK 6-7 CMS initial mark: a CMS phase, not a young collection",
    ),
    Case(
        "g1_system_gc_concurrent",
        "2016-05-09T14:26:37.728+0200: 2793.826: [GC pause (System.gc()) (young) (initial-mark)\nDesired survivor size 826277888 bytes, new threshold 15 (max 15)\n- age   1:    4211370 bytes,    4211370 total\n- age   2:    2306140 bytes,    6517510 total\n, 0.2124664 secs]\n   [Parallel Time: 174.2 ms, GC Workers: 8]\n   [Eden: 8944.0M(12.1G)->0.0B(12.1G) Survivors: 144.0M->376.0M Heap: 22.9G(30.0G)->14.3G(30.0G)]\n [Times: user=1.21 sys=0.03, real=0.21 secs] ",
        "young_gc",
        {"collector": "g1", "cause": "System.gc()", "pause_s": 0.2124664, "heap_total_mb": 30720.0},
        "JDK 8 G1 -XX:+ExplicitGCInvokesConcurrent: System.gc() as a young initial-mark pause, not a Full GC; -XX:+PrintTenuringDistribution before the pause (GCViewer's SampleSun1_8_0G1SystemGcYoung.txt shape)",
    ),
    Case(
        "g1_cleanup_jdk8",
        "2016-05-09T14:28:08.152+0200: 2884.251: [GC cleanup 22G->21G(30G), 0.0022879 secs]",
        "unrecognised",
        {},
        "JDK 8 G1 cleanup pause: a figure, but no collection (Spark runs the young regex without its trigger)",
    ),
    Case(
        "g1_full_histogram",
        "2018-09-03T22:12:24.896+0000: 427.256: [Full GC (Allocation Failure) 2018-09-03T22:12:24.897+0000: 427.257: [Class Histogram (before full gc): \n num     #instances         #bytes  class name\n----------------------------------------------\n   1:      70806323     2832252920  [B\n   2:      39871234     1594849360  [C\n   3:      11302113      271250712  java.lang.String\nTotal     121979670     4698352992\n, 0.8123457 secs]\n 8109M->3902M(8192M), 9.8765432 secs]\n   [Eden: 0.0B(400.0M)->0.0B(400.0M) Survivors: 0.0B->0.0B Heap: 8109.6M(8192.0M)->3902.3M(8192.0M)], [Metaspace: 52311K->52011K(1095680K)]",
        "full_gc",
        {
            "collector": "g1",
            "cause": "Allocation Failure",
            "pause_s": 9.8765432,
            "heap_before_mb": 8109.0,
        },
        "JDK 8 G1 -XX:+PrintClassHistogramBeforeFullGC: CollectedHeap::pre_full_gc_dump inside the Full GC's line (a histogram of a few rows kept)",
    ),
    Case(
        "g1_full_heap_dump_stdout",
        "2019-01-28T06:51:39.238+0000: 7236.907: [Full GC (Allocation Failure) 2019-01-28T06:51:39.240+0000: 7236.909: [Heap Dump (before full gc): Dumping heap to /var/lib/kafka/dumps/java_pid2481.hprof ...\nHeap dump file created [7604512330 bytes in 41.207 secs]\n, 41.2091000 secs] 8182M->4285M(8192M), 52.0987109 secs]",
        "full_gc",
        {"collector": "g1", "pause_s": 52.0987109},
        "JDK 8 G1 -XX:+HeapDumpBeforeFullGC, GC log on stdout (HeapDumper::dump's lines inside the Full GC's)",
    ),
    Case(
        "g1_full_heap_dump_file",
        "2019-01-28T06:51:39.238+0000: 7236.907: [Full GC (Allocation Failure) 2019-01-28T06:51:39.240+0000: 7236.909: [Heap Dump (before full gc): , 41.2091000 secs] 8182M->4285M(8192M), 52.0987109 secs]",
        "full_gc",
        {"collector": "g1", "pause_s": 52.0987109},
        "JDK 8 G1 -XX:+HeapDumpBeforeFullGC with -Xloggc (HeapDumper writes its lines to stdout, not to the GC log)",
    ),
    Case(
        "full_gc_histogram_cut",
        "2018-09-03T22:12:58.803+0000: 461.164: [Full GC (Allocation Failure) 2018-09-03T22:12:58.804+0000: 461.165: [Class Histogram (before full gc): \n num     #instances         #bytes  class name\n----------------------------------------------\n   1:      70806323     2832252920  [B",
        "full_gc",
        {"cause": "Allocation Failure"},
        "a Full GC whose class histogram outruns the scanned text: counted, pause unknown",
    ),
    Case(
        "unified_cms_initial_mark",
        "[2020-02-04T09:30:29.739+0100][17.322s][info][gc           ] GC(4) Pause Initial Mark 649M->649M(4062M) 0.287ms",
        "unrecognised",
        {},
        "JDK 9-13 CMS: a CMS phase without a cause (G1's 'Pause Initial Mark (G1 Evacuation Pause)' is a young pause)",
    ),
)

# Other log4j layouts, older Kafka wordings and JDK 7/8 GC variants (issue 13). The layouts are
# log4j 1.x PatternLayout conversion patterns operators use instead of Kafka's "[%d] %p %m (%c)%n":
# "%d %p [%t] %c - %m%n", "%d{ISO8601}"-style ISO dates, "[%t] %d %p %c{1}: %m%n" (thread first,
# logger abbreviated), "%t %p %d %c{1.} - %m%n" (no brackets at all).
LAYOUT_CASES: tuple[Case, ...] = (
    Case(
        "layout_date_level_thread_logger",
        "2015-05-19 16:52:48,758 ERROR [kafka-log-cleaner-thread-0] kafka.log.LogCleaner - [kafka-log-cleaner-thread-0], Error due to",
        "log_cleaner_died",
        {"ts": "2015-05-19T16:52:48.758", "level": "ERROR"},
        "log4j '%d %p [%t] %c - %m%n' + LogCleaner 0.8-1.0 ShutdownableThread wording",
    ),
    Case(
        "layout_thread_first_iso",
        "[ReplicaFetcherThread-0-2] 2019-05-15T22:20:14.399+0800 WARN  ReplicaFetcherThread: [ReplicaFetcherThread-0-2]: Error for partition [orders,3] to broker 2:org.apache.kafka.common.errors.NotLeaderForPartitionException: This server is not the leader for that topic-partition.",
        "not_leader",
        {"ts": "2019-05-15T22:20:14.399+08:00", "level": "WARN", "topic": "orders", "partition": 3},
        "log4j '[%t] %d{ISO8601} %-5p %c{1}: %m%n' + ReplicaFetcherThread 0.9-1.0",
    ),
    Case(
        "layout_iso_utc_no_brackets",
        "2019-05-15T14:20:14.399Z INFO k.c.Partition Partition [orders,3] on broker 1: Shrinking ISR from 1,2,3 to 1",
        "isr_shrink",
        {"ts": "2019-05-15T14:20:14.399Z", "topic": "orders", "isr_after": [1]},
        "log4j '%d{yyyy-MM-dd'T'HH:mm:ss.SSS'Z'} %p %c{1.} %m%n' + Partition 0.11-1.0",
    ),
    Case(
        "layout_thread_level_date",
        "kafka-scheduler-4 INFO  2019-05-15 22:20:14,399 k.c.Partition - [Partition orders-3 broker=1] Shrinking ISR from 1,2 to 1",
        "isr_shrink",
        {"ts": "2019-05-15T22:20:14.399", "level": "INFO", "broker_id": "1"},
        "log4j '%t %-5p %d %c{1.} - %m%n' (no brackets)",
    ),
    Case(
        "layout_log4j_date",
        "19 May 2015 16:52:48,758 ERROR [kafka-log-cleaner-thread-0] LogCleaner - [kafka-log-cleaner-thread-0], Error due to ",
        "log_cleaner_died",
        {"ts": "2015-05-19T16:52:48.758", "level": "ERROR"},
        "log4j 1.x '%d{DATE} %p [%t] %c{1} - %m%n' (PatternLayout: DATE is 'dd MMM yyyy "
        "HH:mm:ss,SSS') + LogCleaner 0.8-1.0",
    ),
    Case(
        "become_leader_1_x",
        "[2018-09-14 16:11:27,413] INFO [Partition test-0 broker=0] test-0 starts at Leader Epoch 0 from offset 0. Previous Leader Epoch was: -1 (kafka.cluster.Partition)",
        "leader_change",
        {"topic": "test", "partition": 0, "leader_epoch": 0, "leader": 0, "broker_id": "0"},
        "Partition.makeLeader 1.1-2.3, line quoted from a public broker log",
    ),
    Case(
        "become_leader_1_0",
        "[2017-11-02 10:00:00,000] INFO Partition [orders,3] on broker 2: orders-3 starts at Leader Epoch 7 from offset 1200. Previous Leader Epoch was: 6 (kafka.cluster.Partition)",
        "leader_change",
        {"topic": "orders", "partition": 3, "leader_epoch": 7},
        "Partition.makeLeader 1.0 (logIdent 'Partition [%s,%d] on broker %d: ', as quoted from "
        "a public 1.0 log)",
    ),
    Case(
        "offline_selector_0_9",
        '[2016-03-01 10:00:00,123] INFO [OfflinePartitionLeaderSelector]: Selected new leader and ISR {"leader":2,"leader_epoch":5,"isr":[2,3]} for offline partition [orders,3] (kafka.controller.OfflinePartitionLeaderSelector)',
        "leader_change",
        {"topic": "orders", "partition": 3, "leader": 2, "leader_epoch": 5, "isr_after": [2, 3]},
        "OfflinePartitionLeaderSelector.selectLeader 0.8.1-1.0 (Kafka sources of that era)",
    ),
    Case(
        "offline_selector_0_8_0",
        '[2013-05-01 10:00:00,123] INFO [OfflinePartitionLeaderSelector]: Selected new leader and ISR {"leader":1,"leader_epoch":2,"isr":[1]} for offline partition [orders, 0] (kafka.controller.OfflinePartitionLeaderSelector)',
        "leader_change",
        {"topic": "orders", "partition": 0, "leader": 1, "isr_after": [1]},
        "OfflinePartitionLeaderSelector 0.8.0: 'for offline partition [%s, %d]'",
    ),
    Case(
        "become_leader_trace_0_9",
        "[2016-03-01 10:00:00,123] TRACE Broker 2 completed LeaderAndIsr request correlationId 7 from controller 1 epoch 4 for the become-leader transition for partition [orders,3] (state.change.logger)",
        "leader_change",
        {"topic": "orders", "partition": 3, "leader": 2},
        "ReplicaManager.makeLeaders 0.8-1.0 (found in apache/kafka sources of that era)",
    ),
    Case(
        "become_leader_trace_2_x",
        "[2023-10-01 13:57:29,788] TRACE [Broker id=1001] Completed LeaderAndIsr request correlationId 1 from controller 1001 epoch 1 for the become-leader transition for partition kafka-ckpt-0 (state.change.logger)",
        "leader_change",
        {"topic": "kafka-ckpt", "partition": 0, "leader": 1001},
        "ReplicaManager.makeLeaders 1.1-3.x, line quoted from a public docker-compose log",
    ),
    Case(
        "become_follower_trace_2_x",
        "[2020-08-23 23:54:53,593] TRACE [Broker id=1] Completed LeaderAndIsr request correlationId 15 from controller 2 epoch 1 for the become-follower transition for partition roleplay-0 with leader 3 (state.change.logger)",
        "leader_change",
        {"topic": "roleplay", "partition": 0, "leader": 3},
        "ReplicaManager.makeFollowers 2.4-3.x, line quoted from a public log",
    ),
    Case(
        "zk_expired_controller_0_8",
        "[2015-06-01 12:00:00,001] INFO [SessionExpirationListener on 1], ZK expired; shut down all controller components and try to re-elect (kafka.controller.KafkaController$SessionExpirationListener)",
        "zk_session_expired",
        {},
        "KafkaController.SessionExpirationListener 0.8-1.0",
    ),
    Case(
        "coordinator_load_0_8",
        "[2015-06-01 12:00:00,001] INFO Loading offsets from [__consumer_offsets,12] (kafka.server.OffsetManager)",
        "coordinator_load_start",
        {"topic": "__consumer_offsets", "partition": 12},
        "kafka.server.OffsetManager 0.8.2 loadOffsets",
    ),
    Case(
        "parallel_gcid_young",
        "2015-05-26T14:45:37.987-0200: 151.126: #12: [GC (Allocation Failure) [PSYoungGen: 65536K->10720K(76288K)] 65536K->10728K(251392K), 0.0123456 secs] [Times: user=0.03 sys=0.00, real=0.01 secs]",
        "young_gc",
        {"collector": "parallel", "pause_s": 0.0123456, "uptime_s": 151.126},
        "JDK 8u -XX:+PrintGCID (GCTraceTime prints '#%u: ' after the date and uptime stamps)",
    ),
    Case(
        "parallel_gcid_full",
        "151.300: #13: [Full GC (Ergonomics) [PSYoungGen: 10720K->0K(76288K)] [ParOldGen: 170000K->90000K(175104K)] 180720K->90000K(251392K), [Metaspace: 2611K->2611K(1056768K)], 0.4123456 secs] [Times: user=0.80 sys=0.01, real=0.41 secs]",
        "full_gc",
        {"collector": "parallel", "pause_s": 0.4123456, "cause": "Ergonomics"},
        "JDK 8u Parallel with -XX:+PrintGCID, no date stamps",
    ),
    Case(
        "stopped_time_line",
        "151.140: Total time for which application threads were stopped: 0.0131234 seconds, Stopping threads took: 0.0000234 seconds",
        "unrecognised",
        {},
        "JDK 8u -XX:+PrintGCApplicationStoppedTime (RuntimeService::record_safepoint_end): a safepoint, not a collection",
    ),
    Case(
        "cms_concurrent_mode_failure_jdk8",
        "2020-01-01T10:00:00.000+0000: 40.100: [Full GC (Allocation Failure) 2020-01-01T10:00:00.000+0000: 40.100: [CMS2020-01-01T10:00:00.500+0000: 40.600: [CMS-concurrent-mark: 0.400/0.500 secs] [Times: user=0.80 sys=0.01, real=0.50 secs]\n (concurrent mode failure): 1398144K->1398143K(1398144K), 4.0012345 secs] 2027263K->1850000K(2027264K), [Metaspace: 6741K->6741K(1056768K)], 4.0023456 secs] [Times: user=4.00 sys=0.00, real=4.00 secs]",
        "full_gc",
        {"collector": "cms", "cause": "concurrent mode failure", "pause_s": 4.0023456},
        "JDK 8 CMS: concurrent mode failure inside a Full GC, CMS-concurrent-mark interleaved (CMSCollector::acquire_control_and_collect)",
    ),
    Case(
        "cms_promotion_failed_jdk8",
        "2020-01-01T10:00:10.000+0000: 50.000: [GC (Allocation Failure) 2020-01-01T10:00:10.000+0000: 50.000: [ParNew (promotion failed): 139776K->139776K(157248K), 0.1234567 secs]2020-01-01T10:00:10.123+0000: 50.123: [CMS: 1300000K->900000K(1398144K), 2.5000000 secs] 1439776K->900000K(1555392K), [Metaspace: 6741K->6741K(1056768K)], 2.6300000 secs] [Times: user=2.60 sys=0.01, real=2.63 secs]",
        "full_gc",
        {"collector": "cms", "cause": "promotion failed", "pause_s": 2.63},
        "JDK 8 CMS ParNew ' (promotion failed)' then the CMS full collection in the same entry",
    ),
    Case(
        "g1_full_interleaved_inline",
        "2019-05-15T22:25:59.422+0800: 21989402.560: [Full GC (Allocation Failure) 2019-05-15T22:25:59.480+0800: 21989402.618: [GC concurrent-root-region-scan-end, 0.0580 secs]\n 8071M->4285M(8192M), 10.3987109 secs]\n   [Eden: 0.0B(408.0M)->0.0B(408.0M) Survivors: 0.0B->0.0B Heap: 8071.2M(8192.0M)->4285.7M(8192.0M)], [Metaspace: 32321K->32321K(1077248K)]",
        "full_gc",
        {
            "collector": "g1",
            "cause": "Allocation Failure",
            "pause_s": 10.3987109,
            "heap_after_mb": 4285.0,
        },
        "JDK 8 G1 Full GC with the concurrent mark thread's line written into it (G1CollectedHeap::do_full_collection vs ConcurrentMarkThread)",
    ),
    Case(
        "g1_full_interleaved_header_only",
        "2019-05-15T22:26:49.312+0800: 21989452.450: [Full GC (Allocation Failure) 2019-05-15T22:26:49.330+0800: 21989452.468: [GC concurrent-mark-start]",
        "full_gc",
        {"collector": "g1", "cause": "Allocation Failure"},
        "JDK 8 G1: the figures land after later concurrent lines (another entry); the Full GC still counts",
    ),
)

# log4j JSON layouts (parsing/jsonlayout.py): one object per entry, its fields as each layout's
# documentation names them; the Kafka wording inside is a supported one, the time is the
# layout's own (ISO text, epoch milliseconds, or log4j 2.11+'s instant).
JSON_LAYOUT_CASES: tuple[Case, ...] = (
    Case(
        "json_ecs_template",
        '{"@timestamp":"2019-05-15T14:20:14.399Z","ecs.version":"1.2.0","log.level":"INFO","message":"[Partition orders-3 broker=1] Shrinking ISR from 1,2,3 to 1. Leader: (highWatermark: 10, endOffset: 12). Out of sync replicas: (brokerId: 2, endOffset: 10) (brokerId: 3, endOffset: 11).","process.thread.name":"kafka-scheduler-4","log.logger":"kafka.cluster.Partition"}',
        "isr_shrink",
        {
            "ts": "2019-05-15T14:20:14.399Z",
            "level": "INFO",
            "topic": "orders",
            "partition": 3,
            "isr_after": [1],
            "broker_id": "1",
        },
        "log4j2 JsonTemplateLayout classpath:EcsLayout.json (logging.apache.org/log4j/2.x/manual/"
        "json-template-layout.html: @timestamp, ecs.version, log.level, message, "
        "process.thread.name, log.logger) + Partition 2.4+",
    ),
    Case(
        "json_layout_time_millis",
        '{"timeMillis":1557930014399,"thread":"main-SendThread(zk-1:2181)","level":"WARN","loggerName":"org.apache.zookeeper.ClientCnxn","message":"Unable to reconnect to ZooKeeper service, session 0x167772767ad92fd has expired","endOfBatch":false,"loggerFqcn":"org.apache.logging.slf4j.Log4jLogger","threadId":23,"threadPriority":5}',
        "zk_session_expired",
        {"ts": "2019-05-15T14:20:14.399Z", "level": "WARN", "session_id": "0x167772767ad92fd"},
        "log4j2 JsonLayout compact=true eventEol=true (logging.apache.org/log4j/2.x/manual/"
        "layouts.html#JSONLayout: timeMillis, thread, level, loggerName, message, endOfBatch, "
        "loggerFqcn) + ZooKeeper ClientCnxn 3.4",
    ),
    Case(
        "json_layout_instant_thrown",
        '{"instant":{"epochSecond":1557930014,"nanoOfSecond":399000000},"thread":"ReplicaFetcherThread-0-2","level":"WARN","loggerName":"kafka.server.ReplicaFetcherThread","message":"[ReplicaFetcher replicaId=1, leaderId=2, fetcherId=0] Error for partition orders-3 at offset 120","thrown":{"commonElementCount":0,"localizedMessage":"This server is not the leader for that topic-partition.","message":"This server is not the leader for that topic-partition.","name":"org.apache.kafka.common.errors.NotLeaderForPartitionException","extendedStackTrace":[]},"endOfBatch":false,"loggerFqcn":"org.apache.logging.slf4j.Log4jLogger","threadId":40,"threadPriority":5}',
        "not_leader",
        {"ts": "2019-05-15T14:20:14.399Z", "topic": "orders", "partition": 3},
        "log4j2 2.11+ JsonLayout: 'instant' {epochSecond, nanoOfSecond} and 'thrown' {name, "
        "message} (layouts.html#JSONLayout) + ReplicaFetcherThread 2.x 'Error for partition %s "
        "at offset %d' with the exception only in the thrown object",
    ),
    Case(
        "json_layout_pretty",
        '{\n  "timeMillis" : 1557930014399,\n  "thread" : "controller-event-thread",\n  "level" : "INFO",\n  "loggerName" : "kafka.controller.KafkaController",\n  "message" : "[Controller id=1] 1 successfully elected as the controller. Epoch incremented to 5 and epoch zk version is now 4",\n  "endOfBatch" : false,\n  "loggerFqcn" : "org.apache.logging.slf4j.Log4jLogger",\n  "threadId" : 31,\n  "threadPriority" : 5\n}',
        "controller_change",
        {"ts": "2019-05-15T14:20:14.399Z", "level": "INFO", "subject_broker_id": 1},
        "log4j2 JsonLayout's default (compact=false: indented, one field a line; layouts.html"
        "#JSONLayout) + KafkaController 2.4+",
    ),
    Case(
        "json_event_layout_v1",
        '{"@timestamp":"2015-05-19T16:52:48.758Z","source_host":"kafka-1","file":"Logging.scala","method":"error","level":"ERROR","line_number":"76","thread_name":"kafka-log-cleaner-thread-0","@version":1,"logger_name":"kafka.log.LogCleaner","message":"[kafka-log-cleaner-thread-0], Error due to ","class":"kafka.utils.Logging$class","mdc":{},"exception":{"exception_class":"java.lang.IllegalArgumentException","exception_message":"requirement failed: 1 messages in segment","stacktrace":"java.lang.IllegalArgumentException: requirement failed"}}',
        "log_cleaner_died",
        {"ts": "2015-05-19T16:52:48.758Z", "level": "ERROR"},
        "log4j 1.x JSONEventLayoutV1 (github.com/logstash/log4j-jsonevent-layout: @timestamp, "
        "level, logger_name, thread_name, message, exception{exception_class, "
        "exception_message}) + LogCleaner 0.8-1.0",
    ),
    Case(
        "json_layout_without_message",
        '{"timeMillis":1557930014399,"level":"WARN","loggerName":"x","note":"Shrinking ISR from 1,2 to 1"}',
        "malformed",
        {"reason": "isr_shrink"},
        "a JSON object without a message field is read as it is (the wording in it is seen, "
        "not trusted)",
    ),
)

ALL_CASES: tuple[Case, ...] = KAFKA_CASES + GC_CASES + LAYOUT_CASES + JSON_LAYOUT_CASES


def case_lines() -> list[bytes]:
    """The real lines the hostile ones are made of (:mod:`kafka_health.parsing.hostile`): the
    table's, for ``benchmarks/hostile_logs.py``, ``benchmarks/fuzz_job.py`` and the tests."""
    return lines_of(c.text for c in ALL_CASES)
