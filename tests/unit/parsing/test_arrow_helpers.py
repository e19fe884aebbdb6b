"""The pure helpers of the Arrow parse: the JSON reader against what Spark's ``from_json`` and
``get_json_object`` give (values measured on Spark 4.2, JDK 17), dates and times, Spark's
rounding and casts, the null rules."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from kafka_health.parsing.arrow.arrays import concat_ws, scatter, utf8_from_code_points
from kafka_health.parsing.arrow.fields import half_up, heap_mb, isr_list, seconds, to_int
from kafka_health.parsing.arrow.jsontext import Documents, get_json_object, is_json_value
from kafka_health.parsing.arrow.layout import layout_text, try_long
from kafka_health.parsing.arrow.matching import first_line
from kafka_health.parsing.arrow.times import iso_from_millis, iso_of_log4j_date, millis_of_iso
from kafka_health.parsing.jsonlayout import py_layout_text

# text -> what Spark's from_json puts in the string field "message" (None: null), and whether
# the record is bad JSON.
FROM_JSON = [
    ('{"message":"a"}', "a", False),
    ('{"message":"a"}x', "a", False),
    ('{"message":"x"}]', "x", False),
    ('{"message":1.50}', "1.5", False),
    ('{"message":1e2}', "100.0", False),
    ('{"message":-0}', "0", False),
    ('{"message":NaN}', '"NaN"', False),
    ('{"message":+INF}', '"Infinity"', False),
    ('{"message":-Infinity}', '"-Infinity"', False),
    ("{'message':'x'}", "x", False),
    ('{"message":"a\\u0041\\/b"}', "aA/b", False),
    ('{"message":null}', None, False),
    ('{"message":true}', "true", False),
    ('{"message":"a",}', None, True),
    ('{"message":"a" "b":1}', None, True),
    ('{"message":"a\tb"}', None, True),
    ('{"message":01}', None, True),
    ('{"message":"x","message":"y"}', "y", False),
    ('{"mes\\u0073age":"k"}', "k", False),
    ('{"message":[1,{"a":null}]}', '[1,{"a":null}]', False),
    ('{ "message" : { "message" : "z" , "level":"I" } }', '{"message":"z","level":"I"}', False),
    ('{"message":12345678901234567890123}', "12345678901234567890123", False),
    ('{"message":0.1e-2}', "0.001", False),
    ('{"message":1e7}', "1.0E7", False),
    ('{"message":0.0001}', "1.0E-4", False),
    ('{"message":123456789.125}', "1.23456789125E8", False),
    ('{"message":1e400}', '"Infinity"', False),
    ('{"message":"\\ud83d\\ude00"}', "\U0001f600", False),
    ('{"message":"\\ud800"}', "?", False),
    ('{"message":{"a":"\\u0000\\u007f\\u0080"}}', '{"a":"\\u0000\x7f\x80"}', False),
    ("{\"message\":{'a':'b\"c'}}", '{"a":"b\\"c"}', False),
    ('{"message":{"a":1.50,"b":-0,"c":-0.0,"d":1E2}}', '{"a":1.5,"b":0,"c":-0.0,"d":100.0}', False),
    ('{"message":' + "[" * 998 + "]" * 998 + "}", "[" * 998 + "]" * 998, False),
    ('{"message":' + "[" * 1000 + "]" * 1000 + "}", None, True),
    ('{"message":' + "1" * 1001 + "}", None, True),
    ('{"a":1', None, True),
    ("{}", None, False),
]


@pytest.mark.parametrize(("text", "message", "bad"), FROM_JSON, ids=range(len(FROM_JSON)))
def test_documents_read_as_from_json(text: str, message: str | None, bad: bool) -> None:
    docs = Documents(pa.array([text]))
    assert docs.get("message").to_pylist() == [message]
    assert bool(docs.parsed.valid[0]) is not bad


GET_JSON_OBJECT = [
    ('{"a":null}', None, None),
    ('{"a":1.50}', "1.5", None),
    ('{"a":{"b":[1, 2]}}', '{"b":[1,2]}', "[1,2]"),
    (' {"a":"x"} junk', "x", None),
    ('{"a":"x"', None, None),
    ('{"a":"x","a":"y"}', "x", None),
    ("{'a':'q'}", "q", None),
    ('{"a":NaN}', None, None),
    ("[1]", None, None),
]


@pytest.mark.parametrize(("text", "a", "ab"), GET_JSON_OBJECT, ids=range(len(GET_JSON_OBJECT)))
def test_get_json_object(text: str, a: str | None, ab: str | None) -> None:
    assert get_json_object(pa.array([text]), ("a",)).to_pylist() == [a]
    assert get_json_object(pa.array([text]), ("a", "b")).to_pylist() == [ab]


def test_is_json_value() -> None:
    texts = pa.array(['{"a":1}', "[1, 2]", "[INFO] x [a]", '{"a":NaN}', "{"])
    assert is_json_value(texts).tolist() == [True, True, False, False, False]


def test_layout_text_as_the_reference_writes_it() -> None:
    texts = [
        '{"timeMillis":1557930014399,"level":"warn","loggerName":"k.C","message":"m"}',
        '{"instant":{"epochSecond":1557930014,"nanoOfSecond":399000000},"level":"INFO",'
        '"loggerName":"L","message":"Shrinking","thrown":{"name":"E","message":"disk"}}',
        '{"@timestamp":"2017-05-25T19:56:23.370Z","log.level":"ERROR","message":"x",'
        '"log.logger":"a.B","error.type":"T"}',
        '{"level":"INFO"}',
        "plain [1]",
    ]
    want = [py_layout_text(t) or t for t in texts]
    want[0] = want[0].replace("+00:00", "Z")
    want[1] = want[1].replace("+00:00", "Z")
    assert layout_text(pa.array(texts)).to_pylist() == want


def test_times() -> None:
    assert iso_from_millis(pa.array([1557930014399, None, -1, 253402300800000])).to_pylist() == [
        "2019-05-15T14:20:14.399Z",
        None,
        "1969-12-31T23:59:59.999Z",
        "+10000-01-01T00:00:00.000Z",
    ]
    iso = [
        "2019-05-15T22:20:14.399",
        "2019-05-15T22:20:14.399+08:00",
        "2019-02-30T00:00:00",
        "2019-05-15T24:00:00",
        "2019-05-15T22:20:14.123456789",
        "2016-02-29T01:02:03Z",
        None,
    ]
    assert millis_of_iso(pa.array(iso), "UTC").to_pylist() == [
        1557958814399,
        1557930014399,
        None,
        None,
        1557958814123,
        1456707723000,
        None,
    ]
    assert millis_of_iso(pa.array(iso[:1]), "Asia/Shanghai").to_pylist() == [1557930014399]
    dates = ["15 May 2019 22:20:14,399", "15 May 2019 22:20:14", "31 Feb 2019 22:20:14", None]
    assert iso_of_log4j_date(pa.array(dates)).to_pylist() == [
        "2019-05-15T22:20:14.399",
        "2019-05-15T22:20:14.000",
        None,
        None,
    ]


def test_spark_round_and_casts() -> None:
    assert half_up(
        pa.array([0.0070220000000000005, 1.0005, 2.0005, -2.0005, None]), 3
    ).to_pylist() == [0.007, 1.001, 2.001, -2.001, None]
    assert half_up(pa.array([1.6048769999999999]), 9).to_pylist() == [1.604877]
    assert to_int(pa.array(["007", "2147483647", "2147483648", "", None])).to_pylist() == [
        7,
        2147483647,
        None,
        None,
        None,
    ]
    assert try_long(pa.array([" 5\n", "+5", "5.7", "9223372036854775808"])).to_pylist() == [
        5,
        5,
        None,
        None,
    ]
    assert isr_list(pa.array(["3,1,4", "[1, 2]", "Set(99999999999, 1)", None])).to_pylist() == [
        [3, 1, 4],
        [1, 2],
        [None, 1],
        None,
    ]
    assert heap_mb(pa.array(["8071M", "272640K", "1,5G", "64B"])).to_pylist() == [
        8071.0,
        266.25,
        1536.0,
        0.0,
    ]
    assert seconds(pa.array(["1,922", "5"]), pa.array(["ms", "secs"])).to_pylist() == [
        0.001922,
        5.0,
    ]


def test_first_line_drops_the_carriage_returns_javas_pattern_does() -> None:
    lines = ["a\r\nb", "a\r\r", "a\r\r\r", "a\u2028\r", "a"]
    assert first_line(pa.array(lines), 100).to_pylist() == ["a", "a", "a\r", "a\u2028", "a"]


def test_arrays() -> None:
    a, b = pa.array(["x", None, "y"]), pa.array([None, None, "z"])
    assert concat_ws(": ", a, b).to_pylist() == ["x", "", "y: z"]
    assert scatter(4, np.array([3, 1]), pa.array(["p", "q"])).to_pylist() == [None, "q", None, "p"]
    assert utf8_from_code_points(np.array([65, 0xE9, 0x1F600, 0])).to_pylist() == [
        "A",
        "é",
        "\U0001f600",
        "\x00",
    ]
