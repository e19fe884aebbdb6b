"""Small whole-array helpers over pyarrow and numpy: Spark's null rules (``when``, ``coalesce``,
three-valued booleans), taking rows out of an array and putting results back.

Each runs compiled kernels over a whole array; none loops in Python over records.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

STRING = pa.string()


def nulls(n: int, dtype: pa.DataType = STRING) -> pa.Array:
    """``n`` nulls of ``dtype``."""
    return pa.nulls(n, dtype)


def const(n: int, value: Any, dtype: pa.DataType = STRING) -> pa.Array:
    """``value`` ``n`` times."""
    return pa.repeat(pa.scalar(value, dtype), n)


def truth(mask: pa.Array | np.ndarray) -> np.ndarray:
    """A boolean array as numpy, null as False (Spark's ``WHEN`` reads a null as not true)."""
    if isinstance(mask, np.ndarray):
        return mask.astype(bool)
    return np.asarray(pc.fill_null(mask, False).to_numpy(zero_copy_only=False), dtype=bool)


def when(cond: pa.Array | np.ndarray, value: Any, dtype: pa.DataType = STRING) -> pa.Array:
    """``value`` where ``cond`` is true, else null."""
    if isinstance(value, pa.Array):
        dtype = value.type
    else:
        value = pa.scalar(value, dtype)
    return pc.if_else(pa.array(truth(cond)), value, pa.scalar(None, dtype))


def otherwise(cond: pa.Array | np.ndarray, value: Any, rest: pa.Array) -> pa.Array:
    """``value`` where ``cond`` is true, else ``rest``."""
    if not isinstance(value, pa.Array):
        value = pa.scalar(value, rest.type)
    return pc.if_else(pa.array(truth(cond)), value, rest)


def coalesce(*arrays: pa.Array) -> pa.Array:
    """The first non-null value of each row."""
    return arrays[0] if len(arrays) == 1 else pc.coalesce(*arrays)


def empty_to_null(arr: pa.Array) -> pa.Array:
    """``arr``, null where it is the empty text."""
    return pc.if_else(pc.equal(arr, ""), pa.scalar(None, arr.type), arr)


def take(arr: pa.Array, rows: np.ndarray) -> pa.Array:
    """The rows ``rows`` of ``arr``."""
    return arr.take(pa.array(rows, type=pa.int64()))


def scatter(n: int, rows: np.ndarray, values: pa.Array) -> pa.Array:
    """An array of ``n`` rows: ``values[i]`` at ``rows[i]``, null elsewhere."""
    where = np.full(n, -1, dtype=np.int64)
    where[rows] = np.arange(len(rows), dtype=np.int64)
    index = pa.array(where, mask=where < 0)
    return values.take(index)


def put(base: pa.Array, rows: np.ndarray, values: pa.Array) -> pa.Array:
    """``base`` with ``values`` at ``rows`` (each given row replaced, even by a null)."""
    if len(rows) == 0:
        return base
    mask = np.zeros(len(base), dtype=bool)
    mask[rows] = True
    return pc.if_else(pa.array(mask), scatter(len(base), rows, values.cast(base.type)), base)


def rows_of(mask: pa.Array | np.ndarray) -> np.ndarray:
    """The indices where ``mask`` is true."""
    return np.flatnonzero(truth(mask))


def string_from_bytes(data: np.ndarray, offsets: np.ndarray) -> pa.Array:
    """A string array over ``data`` (uint8) cut at ``offsets`` (int64, one more than rows)."""
    buffers = [None, pa.py_buffer(offsets.astype(np.int64)), pa.py_buffer(data.astype(np.uint8))]
    return pa.Array.from_buffers(pa.large_string(), len(offsets) - 1, buffers).cast(STRING)


def string_parts(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """``arr``'s (string or binary, no nulls needed) bytes and int64 offsets as numpy."""
    arr = arr.cast(pa.large_binary()) if not pa.types.is_large_binary(arr.type) else arr
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    offsets = np.frombuffer(
        arr.buffers()[1], dtype=np.int64, count=len(arr) + 1, offset=arr.offset * 8
    )
    data_buffer = arr.buffers()[2]
    data = (
        np.frombuffer(data_buffer, dtype=np.uint8)
        if data_buffer is not None
        else np.zeros(0, np.uint8)
    )
    return data, offsets


def lengths(arr: pa.Array) -> np.ndarray:
    """Bytes of each string (0 for null)."""
    return np.asarray(
        pc.fill_null(pc.binary_length(arr), 0).to_numpy(zero_copy_only=False), dtype=np.int64
    )


def any_per_row(n: int, parents: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """For each of ``n`` rows, whether any of its items (``parents``: their rows) is flagged."""
    return np.bincount(parents[flags], minlength=n) > 0


def utf8_from_code_points(cps: np.ndarray) -> pa.Array:
    """One string per code point (UTF-8 encoded with numpy, no Python per item)."""
    cps = cps.astype(np.int64)
    size = np.where(cps < 0x80, 1, np.where(cps < 0x800, 2, np.where(cps < 0x10000, 3, 4)))
    offsets = np.zeros(len(cps) + 1, dtype=np.int64)
    np.cumsum(size, out=offsets[1:])
    data = np.zeros(int(offsets[-1]), dtype=np.uint8)
    start = offsets[:-1]
    for width in (1, 2, 3, 4):
        sel = size == width
        s, c = start[sel], cps[sel]
        if width == 1:
            data[s] = c
            continue
        lead = {2: 0xC0, 3: 0xE0, 4: 0xF0}[width]
        data[s] = lead | (c >> (6 * (width - 1)))
        for k in range(1, width):
            data[s + k] = 0x80 | ((c >> (6 * (width - 1 - k))) & 0x3F)
    return string_from_bytes(data, offsets)


def concat_ws(sep: str, *parts: pa.Array) -> pa.Array:
    """Spark's ``concat_ws``: the non-null parts of each row joined by ``sep`` ("" where all
    are null). Through a list per row: pyarrow 26's ``binary_join_element_wise`` with
    ``null_handling="skip"`` drops a row whose parts are all null."""
    n = len(parts[0])
    columns = [p.cast(STRING) for p in parts]
    order = np.arange(n * len(columns)).reshape(len(columns), n).T.ravel()
    flat = pa.concat_arrays(columns).take(pa.array(order))
    valid = truth(pc.is_valid(flat))
    counts = valid.reshape(n, len(columns)).sum(axis=1)
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(counts, out=offsets[1:])
    lists = pa.ListArray.from_arrays(pa.array(offsets), flat.filter(pa.array(valid)))
    return pc.binary_join(lists, sep)
