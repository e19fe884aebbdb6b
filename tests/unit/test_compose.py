"""docker-compose.yml and the Dockerfile, checked without a Docker engine: every mounted file
exists, the monitor config loads and agrees with the broker, Prometheus and Grafana configs
(promtool checks Prometheus's with the real tool), and every command is a real entry point."""

from __future__ import annotations

import fnmatch
import json
import re
import shlex
import tomllib
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import yaml
from tests.support.system_tools import run, tool
from tests.unit.dashboard_support import DASHBOARD, REPO, load_dashboard

from kafka_health.alerting.rule_config import load_rules
from kafka_health.cli import build_parser
from kafka_health.config import MonitorConfig, SparkConfig, load_config

COMPOSE = yaml.safe_load((REPO / "docker-compose.yml").read_text())
SERVICES: dict[str, dict[str, Any]] = COMPOSE["services"]
MONITOR_SERVICES = ("job", "canary", "shipper")
MONITOR_CONFIG = "/etc/kafka-health/monitor.yaml"


def mounts(service: str) -> dict[str, str]:
    """Container path -> host source (relative to the repo) or volume name."""
    found = {}
    for volume in SERVICES[service].get("volumes", []):
        if isinstance(volume, dict):
            source, target = volume.get("source", ""), volume["target"]
        else:
            source, target = volume.split(":")[:2]
        found[target] = source
    return found


def host_file(service: str, container_path: str) -> Path:
    """The host file bind-mounted at ``container_path`` in ``service``."""
    source = mounts(service).get(container_path)
    assert source is not None, f"{service}: nothing is mounted at {container_path}"
    assert source.startswith("./"), f"{service}: {container_path} is not a bind mount"
    return REPO / source


def volume_at(service: str, container_path: str) -> tuple[str, str]:
    """(volume name, mount point) of the named volume holding ``container_path``."""
    path = PurePosixPath(container_path)
    for target, source in mounts(service).items():
        if not source.startswith(("./", "/")) and path.is_relative_to(target):
            return source, target
    raise AssertionError(f"{service}: {container_path} is on no volume (lost with the container)")


def monitor_config() -> MonitorConfig:
    return load_config(host_file("job", MONITOR_CONFIG))


def env(service: str) -> dict[str, str]:
    return {k: str(v) for k, v in SERVICES[service].get("environment", {}).items()}


def parse_cli(argv: list[str]) -> Any:
    try:
        return build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse exits on unknown commands and options
        raise AssertionError(f"kafka-health {shlex.join(argv)}: not a valid command") from exc


# ---------------------------------------------------------------------------------------------
# The compose file


def test_services_and_pinned_images() -> None:
    assert set(SERVICES) == {
        "kafka", "job", "canary", "shipper", "prometheus", "alertmanager", "grafana",
    }  # fmt: skip
    assert SERVICES["kafka"]["image"] == "apache/kafka:4.1.1"
    for name, service in SERVICES.items():
        image = service["image"]
        tag = image.rpartition(":")[2] if ":" in image else ""
        assert tag and tag != "latest", f"{name}: pin the image ({image})"
    for name in MONITOR_SERVICES:
        assert SERVICES[name]["build"] == ".", name
        assert SERVICES[name]["image"] == "kafka-health:local", name
        assert SERVICES[name]["depends_on"]["kafka"]["condition"] == "service_healthy", name


def test_every_mounted_file_exists_and_every_volume_is_declared() -> None:
    declared = set(COMPOSE.get("volumes") or {})
    used = set()
    for name in SERVICES:
        for target, source in mounts(name).items():
            assert target.startswith("/"), (name, target)
            if source.startswith(("./", "/")):
                assert (REPO / source).exists(), f"{name}: {source} does not exist"
            else:
                assert source in declared, f"{name}: volume {source} is not declared"
                used.add(source)
    assert used == declared, "declared volumes nobody mounts"


def test_monitor_services_run_real_commands_on_the_mounted_config() -> None:
    commands = {}
    for name in MONITOR_SERVICES:
        args = parse_cli(SERVICES[name]["command"])
        assert str(args.config) == MONITOR_CONFIG, name
        host_file(name, MONITOR_CONFIG)
        commands[name] = args.command
    assert commands == {"job": "run", "canary": "canary", "shipper": "ship-logs"}
    assert SERVICES["canary"]["command"].count("--no-cluster-state") == 0, "the prober runs too"


def test_monitor_config_loads_and_its_files_are_mounted() -> None:
    config = monitor_config()
    assert config.cluster_name == "compose"
    rules = config.alerting.rules_file
    assert load_rules(host_file("job", rules)).enabled(), "the alert rules the job reads"
    # State survives a container's re-creation: each service's is on its volume.
    volume_at("job", config.spark.checkpoint_dir)
    volume_at("job", config.alerting.state_dir)
    volume_at("canary", config.canary.state_dir)
    volume_at("shipper", config.shipper.positions_file)
    # The image resolved Spark's Kafka connector with the default settings when it was built
    # (Dockerfile: connector-jars); the job must look for it in that cache.
    default = SparkConfig()
    assert config.spark.connector == default.connector
    assert config.spark.cache_dir == default.cache_dir
    assert config.spark.jars == []


def test_monitor_config_reaches_the_broker_and_its_logs() -> None:
    config = monitor_config()
    kafka = env("kafka")
    advertised = {a.split("://")[1] for a in kafka["KAFKA_ADVERTISED_LISTENERS"].split(",")}
    for server in config.kafka.bootstrap_servers:
        assert server in advertised, server
        assert server.split(":")[0] in SERVICES
    # The broker writes its log files to LOG_DIR on a volume; the shipper reads that volume.
    log_volume, log_dir = volume_at("kafka", kafka["LOG_DIR"])
    assert log_dir == kafka["LOG_DIR"]
    (broker,) = config.shipper.brokers
    assert broker.broker_id == kafka["KAFKA_NODE_ID"]
    kinds = {f.kind for f in broker.files}
    assert kinds == {"server", "controller", "state-change", "gc"}
    for file in broker.files:
        volume, _ = volume_at("shipper", file.pattern)
        assert volume == log_volume, file.pattern
    # The broker logs through the dev cluster's Log4j 2 configuration (file appenders); its
    # health check, a client tool, must not write into those files.
    log4j = kafka["KAFKA_LOG4J_OPTS"].removeprefix("-Dlog4j2.configurationFile=")
    assert "server.log" in host_file("kafka", log4j).read_text()
    check = " ".join(SERVICES["kafka"]["healthcheck"]["test"][1:])
    assert "KAFKA_LOG4J_OPTS=" in check and f"LOG_DIR={kafka['LOG_DIR']}" not in check
    assert "LOG_DIR=" in check
    # GC pauses are judged against the broker's own session timeout, also the dashboard's.
    assert config.job.session_timeout_ms == int(kafka["KAFKA_BROKER_SESSION_TIMEOUT_MS"])
    variables = {v["name"]: v for v in load_dashboard()["templating"]["list"]}
    assert float(variables["session_timeout_s"]["query"]) * 1000 == config.job.session_timeout_ms


def test_prometheus_scrapes_the_monitor_and_evaluates_the_alert_rules(tmp_path: Path) -> None:
    config = monitor_config()
    prom_file = host_file("prometheus", "/etc/prometheus/prometheus.yml")
    prom = yaml.safe_load(prom_file.read_text())
    targets = {}
    for job in prom["scrape_configs"]:
        for static in job["static_configs"]:
            # the endpoints label their series `cluster` themselves (cluster_name)
            assert "labels" not in static, job["job_name"]
            targets.update({t.split(":")[0]: int(t.split(":")[1]) for t in static["targets"]})
    assert targets == {
        "job": config.alerting.exporter.port,
        "canary": config.canary.metrics_port,
        "shipper": config.shipper.metrics_port,
    }
    (am,) = prom["alerting"]["alertmanagers"]
    assert am["static_configs"][0]["targets"] == ["alertmanager:9093"]
    # The real promtool on the config, with the container paths of the rules replaced by the
    # files compose mounts there.
    rule_files = [str(host_file("prometheus", path)) for path in prom["rule_files"]]
    assert [Path(p).name for p in rule_files] == ["kafka-health.rules.yml"]
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump({**prom, "rule_files": rule_files}))
    result = run(tool("promtool"), "check", "config", str(tmp_path / "prometheus.yml"))
    assert result.returncode == 0, result.stdout + result.stderr
    alertmanager = SERVICES["alertmanager"]
    assert "--config.file=/etc/alertmanager/alertmanager.yml" in alertmanager["command"]
    config_file = host_file("alertmanager", "/etc/alertmanager/alertmanager.yml")
    assert config_file == REPO / "alerts" / "alertmanager.yml"


def test_grafana_is_provisioned_with_the_dashboard_and_the_prometheus_datasource() -> None:
    provisioning = "/etc/grafana/provisioning"
    grafana = mounts("grafana")
    provider_targets = [t for t in grafana if t.startswith(f"{provisioning}/dashboards/")]
    (provider_target,) = provider_targets
    provider = yaml.safe_load(host_file("grafana", provider_target).read_text())
    folder = provider["providers"][0]["options"]["path"]
    dashboards = [t for t in grafana if PurePosixPath(t).parent == PurePosixPath(folder)]
    assert [host_file("grafana", t).resolve() for t in dashboards] == [DASHBOARD.resolve()]
    home = env("grafana")["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
    assert home in dashboards
    (source_target,) = [t for t in grafana if t.startswith(f"{provisioning}/datasources/")]
    (datasource,) = yaml.safe_load(host_file("grafana", source_target).read_text())["datasources"]
    assert datasource["type"] == "prometheus" and datasource["isDefault"] is True
    assert datasource["url"] == "http://prometheus:9090"


def test_ports_are_published_on_loopback_only() -> None:
    """Kafka's PLAINTEXT listener, Alertmanager's API (silences), Prometheus, Grafana and
    /metrics have no authentication here: nothing is reachable from another machine."""
    published = {}
    for name, service in SERVICES.items():
        for port in service.get("ports", []):
            assert isinstance(port, str), f"{name}: write ports as host_ip:host:container"
            host_ip, host_port, container = port.split(":")
            assert host_ip == "127.0.0.1", f"{name}: {port} is published on every interface"
            published[name] = (int(host_port), int(container))
    assert published == {
        "kafka": (29092, 29092), "job": (9308, 9308), "prometheus": (9090, 9090),
        "alertmanager": (9093, 9093), "grafana": (3000, 3000),
    }  # fmt: skip


def test_grafana_admin_password_is_required_and_not_admin() -> None:
    """No admin/admin: compose refuses to start unless GF_ADMIN_PASSWORD is set."""
    grafana = env("grafana")
    password = grafana["GF_SECURITY_ADMIN_PASSWORD"]
    assert re.fullmatch(r"\$\{GF_ADMIN_PASSWORD:\?[^}]+\}", password), password
    assert "GF_SECURITY_ADMIN_USER" not in grafana or grafana["GF_SECURITY_ADMIN_USER"] != "admin"
    assert "admin/admin" not in (REPO / "docker-compose.yml").read_text()


# ---------------------------------------------------------------------------------------------
# The Dockerfile


def dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments), continuation lines joined, comments dropped."""
    text = (REPO / "Dockerfile").read_text()
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    found = []
    for line in joined.splitlines():
        if line.strip():
            instruction, _, rest = line.strip().partition(" ")
            found.append((instruction.upper(), rest.strip()))
    return found


def ignored(path: str) -> bool:
    patterns = [
        p.strip()
        for p in (REPO / ".dockerignore").read_text().splitlines()
        if p.strip() and not p.startswith("#")
    ]
    return any(fnmatch.fnmatch(path, p) or path.startswith(p.rstrip("/") + "/") for p in patterns)


def test_dockerfile_base_image_and_java() -> None:
    steps = dockerfile()
    (base,) = [args for op, args in steps if op == "FROM"]
    assert re.fullmatch(r"python:3\.11-slim(-bookworm)?", base), base
    runs = " ".join(args for op, args in steps if op == "RUN")
    assert "openjdk-17-jre-headless" in runs
    assert "pip install ." in runs


def test_dockerfile_commands_are_real_entry_points() -> None:
    steps = dockerfile()
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    (entrypoint,) = [json.loads(args) for op, args in steps if op == "ENTRYPOINT"]
    (cmd,) = [json.loads(args) for op, args in steps if op == "CMD"]
    assert entrypoint == ["kafka-health"] and "kafka-health" in scripts
    assert parse_cli(cmd).command == "run"
    assert cmd == SERVICES["job"]["command"]
    invoked = [
        words[1:]
        for op, args in steps
        if op == "RUN"
        for words in shell_commands(args)
        if words and words[0] == "kafka-health"
    ]
    assert invoked, "the image resolves Spark's connector at build time"
    for argv in invoked:
        assert parse_cli(argv).command == "connector-jars"


def shell_commands(script: str) -> list[list[str]]:
    """The simple commands of a RUN line (split at && || ; | and braces), without leading
    VAR=value assignments and redirections."""
    lexer = shlex.shlex(script, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    for token in lexer:
        if token in ("&&", "||", ";", "|", "{", "}"):
            commands.append([])
        elif not (token[0] in "<>" or (commands[-1] == [] and re.fullmatch(r"\w+=.*", token))):
            commands[-1].append(token)
    return [c for c in commands if c]


def test_dockerfile_copies_files_that_exist_and_are_in_the_build_context() -> None:
    copies = [shlex.split(args) for op, args in dockerfile() if op == "COPY"]
    assert copies
    for parts in copies:
        sources = [p for p in parts[:-1] if not p.startswith("--")]
        for source in sources:
            assert (REPO / source).exists(), source
            assert not ignored(source), f"{source} is left out by .dockerignore"
    # What pip needs to build the package is in the context.
    assert not ignored("pyproject.toml") and not ignored("README.md") and not ignored("src")


@pytest.mark.parametrize("path", ["tests", ".venv", "var", ".git"])
def test_dockerignore_keeps_the_context_small(path: str) -> None:
    assert ignored(path)
