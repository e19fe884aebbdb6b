"""stop_aware: a Java interruption under a foreachBatch body is told in a few words; any
other error passes unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from kafka_health.job.interruption import BatchInterrupted, interruption_of, stop_aware


class JavaException:
    """A Java exception's class name and cause, as py4j shows them."""

    def __init__(self, name: str, cause: JavaException | None = None) -> None:
        self.name, self.cause = name, cause
        self._target_id = "o1"

    def getClass(self) -> Any:
        name = self.name
        return type("Class", (), {"getName": lambda _: name})()

    def getCause(self) -> JavaException | None:
        return self.cause


def py4j_error(java: JavaException) -> Exception:
    from py4j.protocol import Py4JJavaError

    error: Exception = Py4JJavaError("An error occurred while calling o42.collectToPython.\n", java)
    return error


def failing(exc: BaseException) -> Any:
    def body(batch: Any, batch_id: int) -> None:
        raise exc

    return stop_aware(body)


def test_an_interruption_in_the_cause_chain_becomes_a_few_words() -> None:
    cause = JavaException("java.io.InterruptedIOException")
    error = py4j_error(JavaException("org.apache.spark.SparkException", cause))
    with pytest.raises(BatchInterrupted) as raised:
        failing(error)(None, 1)
    assert str(raised.value) == (
        "py4j.protocol.Py4JJavaError: An error occurred while calling o42.collectToPython.\n"
        ": java.io.InterruptedIOException"
    )
    assert raised.value.__suppress_context__


def test_any_other_error_passes_unchanged() -> None:
    error = py4j_error(JavaException("org.apache.spark.SparkException"))
    with pytest.raises(type(error)) as raised:
        failing(error)(None, 1)
    assert raised.value is error
    with pytest.raises(KeyError):
        failing(KeyError("x"))(None, 1)


def test_the_cause_chain_is_walked_to_a_bound() -> None:
    deep = JavaException("java.lang.InterruptedException")
    for _ in range(40):
        deep = JavaException("java.util.concurrent.ExecutionException", deep)
    assert interruption_of(deep) is None
    assert interruption_of(JavaException("x", JavaException("java.lang.InterruptedException"))) == (
        "java.lang.InterruptedException"
    )


def test_py4j_does_not_log_a_stop_as_an_error_but_logs_any_other(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """py4j's callback server logs what a callback raised, with its traceback, at ERROR; a
    query's own stop is not one."""
    import py4j.clientserver
    import py4j.java_gateway

    def raised_in_callback(exc: BaseException) -> None:
        for module in (py4j.clientserver, py4j.java_gateway):
            try:
                failing(exc)(None, 7)
            except Exception:  # as py4j's _call_proxy does
                module.logger.exception("There was an exception while executing the Python Proxy")

    with caplog.at_level("ERROR"):
        raised_in_callback(py4j_error(JavaException("java.lang.InterruptedException")))
        assert caplog.records == []
        raised_in_callback(RuntimeError("disk full"))
    assert [r.name for r in caplog.records] == ["py4j.clientserver", "py4j.java_gateway"]
    assert all(isinstance(r.exc_info[1], RuntimeError) for r in caplog.records if r.exc_info)
    assert all(r.exc_info for r in caplog.records)
