# syntax=docker/dockerfile:1
# The kafka-health image: the streaming job (default command), the canary and the log shipper
# (`docker compose` runs all three from it; see docker-compose.yml).
#
#   docker build -t kafka-health .
#   docker run --rm -v "$PWD/conf/compose/monitor.yaml:/etc/kafka-health/monitor.yaml:ro" \
#     kafka-health run --config /etc/kafka-health/monitor.yaml
#
# Python 3.11 and OpenJDK 17 (PySpark 4.x runs on Java 17+). The bookworm variant of
# python:3.11-slim, because Debian 13 (trixie, the newer default) has no OpenJDK 17.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    SPARK_LOCAL_IP=127.0.0.1

# The JRE (openjdk's postinst needs the man folder the slim image leaves out); procps for
# Spark's scripts. The containers run as kafka-health; state goes to /var/lib/kafka-health.
RUN mkdir -p /usr/share/man/man1 \
 && apt-get update \
 && apt-get install -y --no-install-recommends openjdk-17-jre-headless procps \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --uid 10001 --create-home --home-dir /home/kafka-health --shell /usr/sbin/nologin \
      kafka-health \
 && install -d -o kafka-health -g kafka-health /var/lib/kafka-health /etc/kafka-health

WORKDIR /opt/kafka-health
COPY pyproject.toml README.md ./
COPY src ./src
# pyproject.toml's package-data leaves out spark/spark-kafka.pom.xml (the connector's Maven
# descriptor); until it lists spark/*.xml, put it beside the installed package (a no-op after).
RUN pip install . \
 && pkg="$(python -c 'import kafka_health.spark as s, os; print(os.path.dirname(s.__file__))')" \
 && { [ -f "$pkg/spark-kafka.pom.xml" ] || cp src/kafka_health/spark/spark-kafka.pom.xml "$pkg/"; } \
 && rm -rf build src/*.egg-info

# Spark's Kafka connector, resolved once by Maven (what `kafka-health run` does on first start),
# and the parser's jar, built by Maven with a JDK from the installed package's Java sources,
# into the default cache of the kafka-health user (spark.cache_dir: ~/.cache/kafka-health/spark),
# so the job starts offline. Maven, the JDK's compiler and Maven's repository are not kept.
RUN apt-get update \
 && apt-get install -y --no-install-recommends maven openjdk-17-jdk-headless \
 && HOME=/home/kafka-health kafka-health connector-jars \
 && chown -R kafka-health:kafka-health /home/kafka-health \
 && apt-get purge -y --auto-remove maven openjdk-17-jdk-headless \
 && rm -rf /var/lib/apt/lists/* /root/.m2 /home/kafka-health/.m2

# The default alert rules (a mounted /etc/kafka-health/alerts.yaml replaces them).
COPY conf/alerts.yaml /etc/kafka-health/alerts.yaml

USER kafka-health
WORKDIR /var/lib/kafka-health
EXPOSE 9308 9309 9310
ENTRYPOINT ["kafka-health"]
CMD ["run", "--config", "/etc/kafka-health/monitor.yaml"]
