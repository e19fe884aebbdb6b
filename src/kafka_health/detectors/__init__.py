"""Detectors: small pure modules that turn the monitor's evidence into signals.

Each detector is ``state + events + now -> state + signals`` (Burrow's evaluator model): it
folds a :class:`~kafka_health.detectors.inputs.Batch` of decoded records at a time ``now``
(:meth:`fold`), says its signals at any time (:meth:`signals`, so silences are evaluated on
the clock, not only when data arrives), and its whole state is plain JSON
(:meth:`state` / :meth:`restore`), so the job can persist it with the batch id it includes.
No Spark here: the streaming job, the unit tests (on a fake clock) and a replay of archived
logs run the very same code.
"""
