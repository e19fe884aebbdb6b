"""Dates and times of the parse, as Spark reads and writes them, in numpy arithmetic: epoch
milliseconds to ISO text (``date_format`` in UTC), ISO text to epoch milliseconds
(``try_to_timestamp`` then ``unix_millis``), log4j 1.x's ``%d{DATE}``.

Proleptic Gregorian calendar, as Spark 3+ (days from a civil date by H. Hinnant's algorithms).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kafka_health.parsing.arrow.arrays import STRING, truth

MS_PER_DAY = 86_400_000
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
MAX_MILLIS = 9_223_372_036_854_775
"""Spark's ``timestamp_millis`` holds microseconds in a long: past this it overflows."""


def days_from_civil(y: np.ndarray, m: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Days since 1970-01-01 of each date."""
    y = y - (m <= 2)
    era = np.floor_divide(y, 400)
    yoe = y - era * 400
    doy = (153 * (m + np.where(m > 2, -3, 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return np.asarray(era * 146097 + doe - 719468, dtype=np.int64)


def civil_from_days(z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Year, month and day of each count of days since 1970-01-01."""
    z = z + 719468
    era = np.floor_divide(z, 146097)
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + np.where(mp < 10, 3, -9)
    return y + (m <= 2), m, d


def days_in_month(y: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Days of each month."""
    leap = ((y % 4 == 0) & (y % 100 != 0)) | (y % 400 == 0)
    table = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])
    return np.asarray(table[np.clip(m, 0, 12)] + ((m == 2) & leap), dtype=np.int64)


def _pad(values: np.ndarray, width: int) -> pa.Array:
    return pc.utf8_lpad(pa.array(values, type=pa.int64()).cast(STRING), width, "0")


def iso_from_millis(ms: pa.Array) -> pa.Array:
    """``date_format(timestamp_millis(ms), "yyyy-MM-dd'T'HH:mm:ss.SSSXXX")`` in UTC: null for a
    null, and for a time Spark's microseconds cannot hold."""
    valid = truth(pc.is_valid(ms))
    raw = np.asarray(pc.fill_null(ms, 0).to_numpy(zero_copy_only=False), dtype=np.int64)
    valid &= np.abs(raw) <= MAX_MILLIS
    v = np.where(valid, raw, 0)
    days, rest = np.divmod(v, MS_PER_DAY)
    y, m, d = civil_from_days(days)
    year = _pad(np.abs(y), 4)
    year = pc.if_else(pa.array(y > 9999), pc.binary_join_element_wise("+", year, ""), year)
    year = pc.if_else(pa.array(y < 0), pc.binary_join_element_wise("-", year, ""), year)
    text = pc.binary_join_element_wise(
        year,
        "-",
        _pad(m, 2),
        "-",
        _pad(d, 2),
        "T",
        _pad(rest // 3_600_000, 2),
        ":",
        _pad(rest // 60_000 % 60, 2),
        ":",
        _pad(rest // 1000 % 60, 2),
        ".",
        _pad(rest % 1000, 3),
        "Z",
        "",
    )
    return pc.if_else(pa.array(valid), text, pa.scalar(None, STRING))


ISO = (
    r"^(?P<y>\d{4})-(?P<mo>\d\d)-(?P<d>\d\d)T(?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d)"
    r"(?:\.(?P<f>\d{1,9}))?(?P<z>Z|[+-]\d\d:\d\d)?$"
)


def _ints(arr: pa.Array) -> np.ndarray:
    return np.asarray(
        pc.fill_null(pc.cast(pc.if_else(pc.equal(arr, ""), "0", arr), pa.int64()), 0).to_numpy(
            zero_copy_only=False
        ),
        dtype=np.int64,
    )


def millis_of_iso(ts: pa.Array, timezone: str) -> pa.Array:
    """Epoch milliseconds of the parse's ISO texts (``event_ms``): with an offset, that
    instant; without, the wall time in ``timezone``. Null where Spark's cast gives none."""
    parts = pc.extract_regex(pc.fill_null(ts, ""), ISO)
    shaped = truth(pc.is_valid(parts)) & truth(pc.is_valid(ts))
    y, mo, d, h, mi, s = (
        _ints(pc.struct_field(parts, k)) for k in ("y", "mo", "d", "h", "mi", "s")
    )
    frac = pc.utf8_rpad(pc.fill_null(pc.struct_field(parts, "f"), ""), 9, "0")
    nanos = _ints(frac)
    zone = pc.fill_null(pc.struct_field(parts, "z"), "")
    zone_text = pc.fill_null(zone, "")
    sign = np.where(truth(pc.starts_with(zone_text, "-")), -1, 1)
    zh = _ints(pc.utf8_slice_codeunits(zone_text, 1, 3))
    zm = _ints(pc.utf8_slice_codeunits(zone_text, 4, 6))
    has_offset = truth(pc.not_equal(zone_text, "")) & ~truth(pc.equal(zone_text, "Z"))
    ok = shaped & (mo >= 1) & (mo <= 12) & (d >= 1) & (d <= days_in_month(y, mo)) & (h <= 23)
    ok &= (mi <= 59) & (s <= 59)
    ok &= ~has_offset | ((zh * 60 + zm <= 18 * 60) & (zm <= 59))
    local = (
        days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s
    ) * 1000 + nanos // 1_000_000
    offset = np.where(has_offset, sign * (zh * 3600 + zm * 60) * 1000, 0)
    instant = local - offset
    out = pa.array(np.where(ok, instant, 0), type=pa.int64())
    wall = ok & truth(pc.equal(zone_text, ""))
    if timezone not in ("UTC", "Z", "GMT", "Etc/UTC") and wall.any():
        out = _from_wall_time(out, wall, timezone)
    return pc.if_else(pa.array(ok), out, pa.scalar(None, pa.int64()))


def _from_wall_time(ms: pa.Array, wall: np.ndarray, timezone: str) -> pa.Array:
    """Wall times (as if UTC) read in ``timezone`` (``to_utc_timestamp``)."""
    stamps = pc.cast(ms, pa.timestamp("ms"))
    zoned = pc.assume_timezone(
        stamps, timezone=timezone, ambiguous="earliest", nonexistent="latest"
    )
    shifted = pc.cast(pc.cast(zoned, pa.timestamp("ms", "UTC")), pa.int64())
    return pc.if_else(pa.array(wall), shifted, ms)


LOG4J_PARTS = (
    r"^(?P<d>\d\d) (?P<mon>[A-Z][a-z][a-z]) (?P<y>\d{4}) (?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d)"
    r"(?:,(?P<f>\d{3}))?$"
)


def iso_of_log4j_date(text: pa.Array) -> pa.Array:
    """log4j 1.x ``%d{DATE}`` ("19 May 2015 16:52:48,758") as ``yyyy-MM-dd'T'HH:mm:ss.SSS``;
    null where the date is none (``try_to_timestamp``)."""
    parts = pc.extract_regex(pc.fill_null(text, ""), LOG4J_PARTS)
    shaped = truth(pc.is_valid(parts)) & truth(pc.is_valid(text))
    month = (
        np.asarray(
            pc.fill_null(
                pc.index_in(pc.struct_field(parts, "mon"), value_set=pa.array(MONTHS)), -1
            ).to_numpy(zero_copy_only=False)
        )
        + 1
    )
    y, d, h, mi, s = (_ints(pc.struct_field(parts, k)) for k in ("y", "d", "h", "mi", "s"))
    frac = pc.fill_null(pc.struct_field(parts, "f"), "")
    ok = shaped & (month >= 1) & (d >= 1) & (d <= days_in_month(y, month)) & (h <= 23)
    ok &= (mi <= 59) & (s <= 59)
    iso = pc.binary_join_element_wise(
        _pad(y, 4),
        "-",
        _pad(month, 2),
        "-",
        _pad(d, 2),
        "T",
        _pad(h, 2),
        ":",
        _pad(mi, 2),
        ":",
        _pad(s, 2),
        ".",
        pc.if_else(pc.equal(frac, ""), "000", frac),
        "",
    )
    return pc.if_else(pa.array(ok), iso, pa.scalar(None, STRING))
