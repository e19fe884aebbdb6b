"""Causes named: which brokers host an alert's partitions, and the root of a chain of causes.

An alert's details may list its partitions as ``{"topic", "partition", "replicas": [ids],
"isr": [ids]}`` (the job's ISR signals do); that is how a broker's failure or maintenance is
known to explain an under-replicated partition, and a partition it does not host is known not
to be explained by it.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from typing import Any

from kafka_health.alerting.engine import Alert, render
from kafka_health.alerting.rule_config import HostedMode


def partition_replicas(alert: Alert) -> list[set[str]] | None:
    """The replica sets of the alert's partitions, or None when its details do not say.

    Details give them as ``partitions: [{"topic", "partition", "replicas": [ids]}]``, or as
    ``partitions: ["topic-0", ...]`` with ``replicas: {"topic-0": [ids], ...}``.
    """
    partitions = alert.details.get("partitions")
    mapping = alert.details.get("replicas")
    if not isinstance(partitions, list) or not partitions:
        return None
    result = []
    for p in partitions:
        if isinstance(p, Mapping):
            replicas = p.get("replicas")
        else:
            replicas = mapping.get(p) if isinstance(mapping, Mapping) else None
        if not isinstance(replicas, list):
            return None
        result.append({str(r) for r in replicas})
    return result


def only_listed_values(alert: Alert, allowed: Mapping[str, list[str]]) -> bool:
    """Whether, for each label of ``allowed``, the alert's triggering series have values of it
    and every one is listed (an inhibit rule's ``target_only``, a rule's
    ``maintenance_only``)."""
    for label, listed in allowed.items():
        values = set(alert.label_values.get(label, []))
        if not values or not values <= set(listed):
            return False
    return True


def hosted_by(alert: Alert, brokers: Set[str], mode: HostedMode) -> bool:
    """Whether every partition of ``alert`` has a replica on one of ``brokers``.

    ``no``: not asked, always true; ``if_known``: true when the details do not say;
    ``required``: false when the details do not say.
    """
    if mode == "no" or alert.broker_id in brokers:
        return True
    replicas = partition_replicas(alert)
    if replicas is None:
        return mode == "if_known"
    return all(r & brokers for r in replicas)


def root_of(fp: str, explained_by: Mapping[str, str]) -> str:
    """Follow ``target -> source`` links to the first alert nothing explains."""
    seen = {fp}
    while fp in explained_by and explained_by[fp] not in seen:
        fp = explained_by[fp]
        seen.add(fp)
    return fp


def name_causes(
    alerts: Mapping[str, Alert], explained_by: Mapping[str, str], cause_texts: Mapping[str, str]
) -> dict[str, dict[str, str]]:
    """Extra annotations per fingerprint: ``cause`` on each explained alert (the root cause's
    summary) and on each root (its own cause text), ``explains`` on each root (its symptoms).

    ``cause_texts`` maps a target fingerprint to the cause template of the inhibit rule that
    explained it; a root's cause is the template of a rule that explains one of its direct
    targets (not a symptom of a symptom), rendered with the root's labels.
    """
    extra: dict[str, dict[str, str]] = {}
    symptoms: dict[str, list[str]] = {}
    for target_fp in sorted(explained_by, key=lambda f: alerts[f].starts_at):
        root_fp = root_of(target_fp, explained_by)
        root, target = alerts[root_fp], alerts[target_fp]
        root_summary = root.annotations.get("summary", root.rule)
        extra.setdefault(target_fp, {})["cause"] = root_summary
        symptoms.setdefault(root_fp, []).append(target.annotations.get("summary", target.rule))
        text = cause_texts.get(target_fp, "")
        if text and explained_by[target_fp] == root_fp:  # the rule linking the root itself
            values: dict[str, Any] = {**root.labels, "value": root.value}
            extra.setdefault(root_fp, {}).setdefault("cause", render(text, values))
    for root_fp, items in symptoms.items():
        extra.setdefault(root_fp, {}).setdefault(
            "cause", alerts[root_fp].annotations.get("summary", "")
        )
        extra[root_fp]["explains"] = "; ".join(dict.fromkeys(items))
    return extra
