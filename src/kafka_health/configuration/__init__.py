"""The configuration engine: YAML to typed dataclasses with every problem named by its key
path (:mod:`.engine`), secrets referenced, never inline (:mod:`.secrets`), and the effective
config printed with secrets redacted (:mod:`.redact`). Each section's schema lives beside the
part it configures; :class:`kafka_health.config.MonitorConfig` assembles them."""
