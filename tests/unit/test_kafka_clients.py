"""kafka-python and Spark get the same client security settings from one config."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from kafka_health.config import parse_config
from kafka_health.kafka_clients import python_client_options, spark_kafka_options


def test_plaintext_settings_match() -> None:
    kafka = parse_config("kafka:\n  bootstrap_servers: [a:9092, b:9093]\n").kafka
    python = python_client_options(kafka)
    spark = spark_kafka_options(kafka)
    assert python["bootstrap_servers"] == ["a:9092", "b:9093"]
    assert spark["kafka.bootstrap.servers"] == "a:9092,b:9093"
    assert python["security_protocol"] == spark["kafka.security.protocol"] == "PLAINTEXT"
    assert "kafka.sasl.jaas.config" not in spark and "sasl_mechanism" not in python


@pytest.mark.parametrize(
    ("mechanism", "module"),
    [
        ("PLAIN", "org.apache.kafka.common.security.plain.PlainLoginModule"),
        ("SCRAM-SHA-512", "org.apache.kafka.common.security.scram.ScramLoginModule"),
    ],
)
def test_sasl_ssl_settings_match(
    mechanism: str, module: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KH_PW", 'pa"ss')
    for name in ("ca.pem", "cert.pem", "key.pem"):
        (tmp_path / name).write_text(f"-----BEGIN {name}-----\n")
    kafka = parse_config(
        f"""
kafka:
  bootstrap_servers: [broker:9094]
  client:
    security_protocol: SASL_SSL
    sasl_mechanism: {mechanism}
    sasl_username: monitor
    sasl_password: {{env: KH_PW}}
    ssl_cafile: {tmp_path / "ca.pem"}
    ssl_certfile: {tmp_path / "cert.pem"}
    ssl_keyfile: {tmp_path / "key.pem"}
    ssl_check_hostname: false
"""
    ).kafka
    python = python_client_options(kafka)
    spark = spark_kafka_options(kafka)

    assert python["security_protocol"] == spark["kafka.security.protocol"] == "SASL_SSL"
    assert python["sasl_mechanism"] == spark["kafka.sasl.mechanism"] == mechanism
    assert python["sasl_plain_username"] == "monitor"
    assert python["sasl_plain_password"] == 'pa"ss'
    assert spark["kafka.sasl.jaas.config"] == (
        f'{module} required username="monitor" password="pa\\"ss";'
    )
    assert python["ssl_cafile"] == spark["kafka.ssl.truststore.location"]
    assert spark["kafka.ssl.truststore.type"] == "PEM"
    assert spark["kafka.ssl.keystore.certificate.chain"].startswith("-----BEGIN cert.pem")
    assert spark["kafka.ssl.keystore.key"].startswith("-----BEGIN key.pem")
    assert python["ssl_check_hostname"] is False
    assert spark["kafka.ssl.endpoint.identification.algorithm"] == ""
    assert python["request_timeout_ms"] == int(spark["kafka.request.timeout.ms"]) == 30000


def test_spark_redacts_the_jaas_config_that_carries_the_sasl_password() -> None:
    """The Kafka sources' kafka.sasl.jaas.config holds the password: Spark's redaction
    patterns (conf and data source options) match it."""
    import re

    from kafka_health.config import SparkConfig
    from kafka_health.spark.session import spark_conf

    conf = spark_conf(SparkConfig(jars=[]))
    for key in ("spark.redaction.regex", "spark.sql.redaction.options.regex"):
        assert re.search(conf[key].replace("(?i)", ""), "kafka.sasl.jaas.config", re.I), key


def test_jvm_options_in_spark_conf_join_the_log_config_instead_of_replacing_it(
    tmp_path: Path,
) -> None:
    from kafka_health.config import SparkConfig
    from kafka_health.spark.session import JIT_OPTIONS, spark_conf

    jar = tmp_path / "connector.jar"
    jar.write_bytes(b"")
    conf = spark_conf(SparkConfig(jars=[str(jar)], pretouch_heap=False, native_heap_trim_s=0, conf={
        "spark.driver.extraJavaOptions": "-XX:+UseSerialGC", "spark.sql.foo": "bar",
    }))  # fmt: skip
    options = conf["spark.driver.extraJavaOptions"].split()
    assert options[0].startswith("-Dlog4j2.configurationFile=") and options[1:] == [
        JIT_OPTIONS,
        "-XX:+UseSerialGC",
    ]
    assert conf["spark.sql.foo"] == "bar"


@pytest.mark.parametrize(
    ("master", "memory", "expected"),
    [
        ("local[2]", None, ["-Xms1024m", "-XX:+AlwaysPreTouch"]),
        ("local[*]", "2g", ["-Xms2048m", "-XX:+AlwaysPreTouch"]),
        ("local[2]", "1536m", ["-Xms1536m", "-XX:+AlwaysPreTouch"]),
        ("spark://127.0.0.1:7077", None, []),  # spark-submit started the driver's JVM
    ],
)
def test_a_local_driver_commits_and_touches_its_whole_heap_at_start(
    tmp_path: Path, master: str, memory: str | None, expected: list[str]
) -> None:
    from kafka_health.config import SparkConfig
    from kafka_health.spark.session import JIT_OPTIONS, spark_conf

    jar = tmp_path / "connector.jar"
    jar.write_bytes(b"")
    extra = {"spark.driver.memory": memory} if memory else {}
    spark = SparkConfig(master=master, jars=[str(jar)], conf=extra, native_heap_trim_s=0)
    conf = spark_conf(spark)
    assert conf["spark.driver.extraJavaOptions"].split()[1:] == [JIT_OPTIONS, *expected]
    assert conf["spark.executor.extraJavaOptions"].split()[1:] == [JIT_OPTIONS]
    off = spark_conf(dataclasses.replace(spark, pretouch_heap=False))
    assert off["spark.driver.extraJavaOptions"].split()[1:] == [JIT_OPTIONS]


@pytest.mark.parametrize(
    ("master", "trim_s", "accepted", "expected"),
    [
        ("local[2]", 60.0, True, ["-XX:TrimNativeHeapInterval=60000"]),
        ("local[*]", 0.5, True, ["-XX:TrimNativeHeapInterval=500"]),
        ("local[2]", 60.0, False, []),  # a JVM before 17.0.9 would not start with it
        ("local[2]", 0.0, True, []),
        ("spark://127.0.0.1:7077", 60.0, True, []),  # spark-submit started the driver's JVM
    ],
)
def test_a_local_driver_trims_its_native_heap_where_its_jvm_can(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    master: str,
    trim_s: float,
    accepted: bool,
    expected: list[str],
) -> None:
    from kafka_health.config import SparkConfig
    from kafka_health.spark import session

    asked: list[str] = []

    def java_accepts(option: str) -> bool:
        asked.append(option)
        return accepted

    monkeypatch.setattr(session, "java_accepts", java_accepts)
    jar = tmp_path / "connector.jar"
    jar.write_bytes(b"")
    spark = SparkConfig(master=master, jars=[str(jar)], pretouch_heap=False,
                        native_heap_trim_s=trim_s)  # fmt: skip
    conf = session.spark_conf(spark)
    assert conf["spark.driver.extraJavaOptions"].split()[1:] == [session.JIT_OPTIONS, *expected]
    assert conf["spark.executor.extraJavaOptions"].split()[1:] == [session.JIT_OPTIONS]
    # The JVM is asked only when the option would be passed to it.
    assert len(asked) == (1 if trim_s > 0 and master.startswith("local") else 0)


def test_the_java_here_is_asked_for_real() -> None:
    """The probe runs this machine's ``java``: it takes the trim option (JDK 17.0.15 here, as
    the job's JVM) and refuses one that no JVM has."""
    from kafka_health.spark.session import java_accepts

    assert java_accepts("-XX:TrimNativeHeapInterval=60000")
    assert not java_accepts("-XX:KafkaHealthNoSuchOption=1")


def test_a_negative_trim_interval_names_its_key(tmp_path: Path) -> None:
    from kafka_health.config import ConfigError, load_config

    path = tmp_path / "monitor.yaml"
    path.write_text("spark:\n  native_heap_trim_s: -1\n")
    with pytest.raises(ConfigError, match=r"spark\.native_heap_trim_s"):
        load_config(path)


@pytest.mark.parametrize(
    ("size", "mib"),
    [("1g", 1024), ("2G", 2048), ("2gb", 2048), ("512m", 512), ("768", 768), ("1t", 1048576),
     ("2048k", 2), ("0g", None), ("512k", None), ("lots", None), ("1.5g", None), ("", None)],
)  # fmt: skip
def test_driver_memory_sizes_read_as_spark_reads_them(size: str, mib: int | None) -> None:
    from kafka_health.spark.config import memory_mib

    assert memory_mib(size) == mib


@pytest.mark.parametrize("uri", ["hdfs://namenode:8020/kh", "s3a://bucket/kh", "file:///var/kh"])
def test_a_checkpoint_dir_given_as_a_uri_names_its_key(tmp_path: Path, uri: str) -> None:
    from kafka_health.config import ConfigError, load_config

    config = tmp_path / "monitor.yaml"
    config.write_text(f"spark:\n  checkpoint_dir: {uri}\n")
    with pytest.raises(ConfigError) as raised:
        load_config(config)
    assert f"spark.checkpoint_dir: '{uri}' is a {uri.split(':')[0]}:// URI" in str(raised.value)


def test_a_checkpoint_dir_path_is_taken() -> None:
    from kafka_health.config import SparkConfig

    for path in ("var/checkpoints", "/mnt/nfs/kafka-health", "~/kh", "C:/kh"):
        assert SparkConfig(checkpoint_dir=path).check("spark") == []


def test_a_driver_memory_that_is_no_size_names_its_key() -> None:
    from kafka_health.config import SparkConfig

    problems = SparkConfig(conf={"spark.driver.memory": "lots"}).check("spark")
    assert [(p.path, p.reason) for p in problems] == [
        ("spark.conf.spark.driver.memory", "'lots' is not a size such as 2g or 1536m")
    ]
