"""Scalar reads and stores. a[i, j] (a Python int or NumPy integer per dim), float(), an element
used as an index: read at once when the array's values are ready, as NumPy's scalar, with no
flush though other work is pending (NPBench's scattering_self_energies indexes with
`neigh_idx[a, b]` inside its loop); an array with a write pending, or sharing memory with one,
is flushed first ([python] scalar_reads = flush; `lazy` returns a 0-d array computed later).
a[i, j] = scalar: stored into memory at once when nothing pending reads or writes the array,
with NumPy's conversions and errors; else recorded. Values as NumPy's."""
import os

import numpy as np
import pytest

import hassium
from helpers import same_error_message

pending = hassium._hassium.pending


def test_reading_an_input_array_does_not_flush_pending_work():
    idx_np = np.array([3, 1, 2, 0, 3], dtype=np.int32)
    idx = hassium.asarray(idx_np)
    acc = hassium.zeros(4)
    ref = np.zeros(4)
    hassium.flush()
    other = hassium.ones(3) * 2.0  # pending work the loop does not touch
    before = pending()
    for i in range(5):
        assert type(idx[i]) is np.int32
        acc[idx[i]] += 1.0  # the element of idx as an index
        acc[int(idx[i])] *= 2.0
        ref[idx_np[i]] += 1.0
        ref[int(idx_np[i])] *= 2.0
        assert float(idx[i]) == float(idx_np[i])
    # nothing of the loop recorded or flushed (the NumPy reference executor's memory is all the
    # frontend's own, foreign to the runtime: a direct store into it waits until nothing at all
    # is pending, Runtime::uses_pending, so there the stores are recorded and reads flush them)
    if os.environ.get("HASSIUM_TEST_BACKEND") != "reference":
        assert pending() == before
    np.testing.assert_array_equal(np.asarray(acc), ref)
    np.testing.assert_array_equal(np.asarray(other), 2.0)


def test_an_element_is_copied_when_read(scalar_reads):
    n = np.arange(12.0).reshape(3, 4)
    h = hassium.asarray(n.copy())
    hassium.flush()
    s = h[1, 2]  # read now: the base holds its values
    assert type(s) is np.float64
    h[1, 2] = 50.0  # stored now: nothing pending touches h
    assert pending() == 0
    h2 = h * 1.0  # pending work reading h
    h[1, 2] = 55.0  # recorded after it
    assert pending() > 1
    t = h[1, 2]  # its write is pending: flushed (flush), or a lazy copy (lazy)
    assert (type(t) is np.float64) == (scalar_reads == "flush")
    h[1, 2] = 60.0
    assert float(s) == 6.0 and float(t) == 55.0 and float(h[1, 2]) == 60.0
    assert float(h2[1, 2]) == 50.0
    assert repr(s) == repr(n[1, 2])


@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "uint16", "uint64", "float32",
                                   "float64", "complex64", "complex128"])
def test_element_reads_and_stores_are_numpy_s(dtype):
    n = (np.arange(12) % 5).reshape(3, 4).astype(dtype)
    h = hassium.asarray(n.copy())
    hassium.flush()
    for key in [(1, 2), (-1, -4), (np.int64(2), 3), (np.uint8(0), np.int32(-1))]:
        assert repr(h[key]) == repr(n[key])
    values = [True, 3, 7.9, -2, np.float32(2.5), np.int8(-3), np.uint64(9), np.bool_(True)]
    if np.dtype(dtype).kind == "c":
        values.append(1 + 2j)
    for v in values:
        m = n.copy()
        try:
            m[2, 1] = v
        except Exception as e:  # NumPy refuses (a negative into unsigned): so does hassium
            with pytest.raises(type(e)):
                h[2, 1] = v
            continue
        h[2, 1] = v
        n = m
        assert repr(h[2, 1]) == repr(n[2, 1])
    assert pending() == 0
    np.testing.assert_array_equal(np.asarray(h), n)


def test_element_store_errors_are_numpy_s_and_lose_nothing():
    h = hassium.asarray(np.arange(6, dtype=np.int8).reshape(2, 3))
    hassium.flush()
    for key, value in [((0, 3), 1), ((2, 0), 1), ((0, 0), 300), ((0, 0), float("nan")),
                       ((0, 0), float("inf")), ((0, 0), 1j)]:
        n = np.arange(6, dtype=np.int8).reshape(2, 3)
        same_error_message(lambda m: m.__setitem__(key, value), n, h)
    np.testing.assert_array_equal(np.asarray(h), np.arange(6).reshape(2, 3))


def test_a_write_pending_on_shared_memory_is_seen():
    """Two hassium arrays on one NumPy buffer: a write recorded through one is flushed before
    a scalar read of the other's memory (float() of a 0-d array reads it directly)."""
    n = np.array(5.0)
    a = hassium.asarray(n)
    b = hassium.asarray(n)
    hassium.flush()
    b[()] = 100.0
    assert float(a) == 100.0
    m = np.arange(8)
    whole = hassium.asarray(m)
    part = hassium.asarray(m[2:3].reshape(()))  # one element of the same buffer
    acc = hassium.zeros(8)
    hassium.flush()
    whole[2] = 6
    acc[part] = 1.0  # the index is read after the pending write to `whole`
    assert int(np.asarray(acc).argmax()) == 6


def test_reads_beside_pending_writes_do_not_flush():
    """A loop that writes column j and then reads column j + 1 (gramschmidt): the pending
    writes are tracked by view (a run of columns is one entry), so reading an element or taking
    a dot of a column no pending write reaches flushes nothing; reading a written one does."""
    n = np.arange(48.0).reshape(6, 8)
    h = hassium.asarray(n.copy())
    q = np.linspace(0.5, 1.0, 6)
    hq = hassium.asarray(q.copy())
    hassium.flush()
    for j in range(6):
        s = hassium.dot(hq, h[:, j + 1])  # column j + 1: no pending write reaches it
        e = h[3, j + 2]
        assert type(s) is np.float64 and type(e) is np.float64
        h[:, j] -= hq * s  # recorded
        sn = np.dot(q, n[:, j + 1])
        assert s == sn and e == n[3, j + 2]
        n[:, j] -= q * sn
    assert pending() > 6  # nothing of the loop flushed
    assert h[2, 4] == n[2, 4]  # a written element: flushed first
    assert pending() == 0
    np.testing.assert_array_equal(np.asarray(h), n)
