"""The streaming health job: Kafka topics in, health signals out (Spark Structured Streaming)."""
