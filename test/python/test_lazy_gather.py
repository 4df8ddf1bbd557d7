"""x[idx], x[idx] = v and x[idx] op= v with a hassium integer array idx on axis 0 stay lazy
(indexing.cpp lazy_index): the index normalization, GATHER and SCATTER are recorded without a
flush, and an index out of bounds is NumPy's IndexError when the flush runs. Values against
NumPy for every integer index dtype, negative and duplicate indices, n-d x, empty indices. A
small gather of ready values ([python] eager_max_elements) is done at once on the host instead
(bridge/common/gather.h), with NumPy's values and errors."""

import gc

import numpy as np
import pytest

import hassium
from helpers import assert_same

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def lazy(a):
    """A hassium array computed lazily from a: (a + 0) is pending until read."""
    return hassium.array(a) + a.dtype.type(0)


def numpy_error(fn):
    try:
        fn()
    except IndexError as e:
        return str(e)
    raise AssertionError("NumPy raised nothing")


@pytest.mark.parametrize("dt", INT_DTYPES)
def test_gather_every_index_dtype(dt):
    x = np.arange(10.0) * 1.5
    i = np.array([3, 0, 9, 3, 5], dtype=dt)
    if np.dtype(dt).kind == "i":
        i[1] = -1
    assert_same(hassium.array(x)[lazy(i)], x[i])


@pytest.mark.parametrize("dt", INT_DTYPES)
def test_scatter_every_index_dtype(dt):
    x = np.arange(10, dtype=np.int32)
    i = np.array([3, 0, 9, 5], dtype=dt)
    if np.dtype(dt).kind == "i":
        i[1] = -2
    h = hassium.array(x)
    h[lazy(i)] = np.array([10, 20, 30, 40])
    x[i] = np.array([10, 20, 30, 40])
    assert_same(h, x)


def test_computed_index_negative_and_duplicates():
    n = 7
    a = np.arange(12)
    i = (a * 5) % n - 3  # negatives, duplicates
    x = np.arange(n) * 2.0
    assert_same(hassium.array(x)[(hassium.array(a) * 5) % n - 3], x[i])


def test_index_array_of_any_shape():
    x = np.arange(6.0)
    i = np.array([[1, -1, 2], [0, 0, 5]])
    assert_same(hassium.array(x)[lazy(i)], x[i])


@pytest.mark.parametrize(
    "rest",
    [(), (slice(None),), (2,), (-1,), (slice(1, 3),), (slice(None, None, -2),), (1, slice(0, 2)),
     (slice(None), 0), (0, 0)],
    ids=repr,
)
def test_nd_first_axis(rest):
    x = np.arange(5 * 4 * 3).reshape(5, 4, 3).astype(np.float32)
    i = np.array([4, -5, 0, 2, 2, -1])
    h = hassium.array(x)
    assert_same(h[(lazy(i),) + rest], x[(i,) + rest])
    # assignment of a scalar, then of an array broadcast over the result
    h[(lazy(i),) + rest] = 7
    x[(i,) + rest] = 7
    assert_same(h, x)
    v = np.arange(np.prod(x[(i,) + rest].shape[1:], dtype=int)).reshape(x[(i,) + rest].shape[1:])
    h[(lazy(i),) + rest] = v
    x[(i,) + rest] = v
    assert_same(h, x)


def test_nd_view_source():
    x = np.arange(60.0).reshape(6, 10)[1::2, ::3]  # a strided view
    i = np.array([2, 0, -1])
    assert_same(hassium.array(np.arange(60.0).reshape(6, 10))[1::2, ::3][lazy(i)], x[i])


def test_assignment_duplicates_last_wins():
    # NumPy keeps the last of duplicate indices for plain assignment (the eager path too).
    x = np.zeros(5)
    i = np.array([1, 3, 1, -4, 3])
    v = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    h = hassium.zeros(5)
    h[lazy(i)] = v
    x[i] = v
    assert_same(h, x)
    assert float(h[1]) == 4.0


@pytest.mark.parametrize("op", ["+=", "-=", "*=", "//="])
def test_inplace_duplicates_applied_once(op):
    # NumPy's x[i] += v is buffered: a duplicate index gets one update, not one per occurrence.
    x = np.arange(1, 9) * 10
    i = np.array([2, 2, 5, -1, 5, 2])
    h = hassium.array(x)
    hi = lazy(i)
    exec(f"h[hi] {op} 3")
    exec(f"x[i] {op} 3")
    assert_same(h, x)


def test_inplace_nd_and_array_value():
    x = np.arange(12.0).reshape(4, 3)
    i = np.array([0, 3, 0])
    v = np.array([1.0, 2.0, 3.0])  # broadcast over the gathered rows
    h = hassium.array(x)
    h[lazy(i)] += hassium.array(v)
    x[i] += v
    assert_same(h, x)


def test_assignment_casts_and_broadcasts():
    x = np.zeros((4, 3), dtype=np.int16)
    i = np.array([3, 1])
    h = hassium.array(x)
    h[lazy(i)] = np.array([1.9, -2.7, 300.2])  # float to int16, broadcast over the rows
    x[i] = np.array([1.9, -2.7, 300.2])
    assert_same(h, x)
    h[lazy(i)] = 5.5
    x[i] = 5.5
    assert_same(h, x)


def test_assignment_value_shape_mismatch_is_numpy_error():
    h = hassium.zeros(5)
    with pytest.raises(ValueError, match="shape mismatch"):
        h[lazy(np.array([1, 2]))] = np.array([1.0, 2.0, 3.0])


def test_index_is_the_target():
    # x[x] = v: the indices are read before the scatter writes.
    x = np.array([3, 0, 2, 1])
    h = hassium.array(x)
    h[h] = hassium.array([10, 11, 12, 13])
    x[x.copy()] = np.array([10, 11, 12, 13])
    assert_same(h, x)


def test_empty_index():
    x = np.arange(12.0).reshape(4, 3)
    i = np.array([], dtype=np.int64)
    h = hassium.array(x)
    assert_same(h[lazy(i)], x[i])
    h[lazy(i)] = 1.0
    assert_same(h, x)
    assert_same(hassium.zeros(0)[lazy(i)], np.zeros(0)[i])


@pytest.mark.parametrize(
    "shape,index", [((5,), 10), ((5,), -6), ((5,), 5), ((5,), -17), ((4, 3), 4), ((4, 3), -5),
                    ((0,), 0), ((0, 3), -1)],
    ids=repr,
)
def test_out_of_bounds_is_numpy_index_error_at_the_flush(shape, index):
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    i = np.array([0, index, 0][: 3 if shape[0] else 0] or [index])
    want = numpy_error(lambda: x[i])
    h = hassium.array(x)
    y = h[lazy(i)]  # recorded, not checked yet
    with pytest.raises(IndexError) as e:
        np.asarray(y)
    assert str(e.value) == want
    # Reading the failed array again repeats the error; the runtime goes on working.
    with pytest.raises(IndexError, match="out of bounds for axis 0"):
        np.asarray(y)
    assert_same(h[lazy(np.array([-1]))] if x.size else h[lazy(np.array([], int))],
                x[np.array([-1])] if x.size else x[np.array([], int)])


def test_a_failed_array_stays_failed_through_other_flushes_until_written():
    # Reading it again repeats its error even when other work is pending and flushes then (the
    # FREEs of garbage the collector found; here an array computed meanwhile); a write makes it
    # usable again.
    h = hassium.array(np.arange(5.0))
    y = h[lazy(np.array([0, 9]))]
    with pytest.raises(IndexError):
        np.asarray(y)
    z = hassium.arange(4.0) * 2.0  # pending
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 0 with size 5"):
        np.asarray(y)
    assert hassium._hassium.pending() == 0  # z's work ran in that read's flush
    assert_same(z, np.arange(4.0) * 2.0)
    hassium.flush()
    with pytest.raises(IndexError):
        np.asarray(y)
    y[...] = 1.5
    assert_same(y, np.array([1.5, 1.5]))


def test_out_of_bounds_assignment_and_inplace():
    x = np.arange(5.0)
    want = numpy_error(lambda: x.copy().__setitem__(np.array([1, 7]), 0.0))
    h = hassium.array(x)
    h[lazy(np.array([1, 7]))] = 0.0
    with pytest.raises(IndexError) as e:
        hassium.flush()
    assert str(e.value) == want
    h = hassium.array(x)
    h[lazy(np.array([-9]))] += 1
    with pytest.raises(IndexError, match="index -9 is out of bounds for axis 0 with size 5"):
        hassium.flush()
    h = hassium.array(x)
    h[lazy(np.array([4, -5]))] += 1
    x[np.array([4, -5])] += 1
    assert_same(h, x)


def test_out_of_bounds_in_a_loop_then_usable():
    x = hassium.arange(10.0)
    idx = hassium.arange(10)
    acc = hassium.zeros(10)
    for _ in range(5):
        idx = idx * 3 + 1  # leaves the bounds on the second pass
        acc += x[idx]
    with pytest.raises(IndexError, match=r"^index \d+ is out of bounds for axis 0 with size 10"):
        float(acc.sum())
    assert float((x[hassium.arange(10) % 10]).sum()) == 45.0


def test_no_flush_at_the_gather_or_scatter():
    n = 1000
    x = hassium.arange(n) * 0.5
    a = hassium.arange(n)
    f0 = hassium.profile()["flushes"]  # runs what is pending
    idx = (a * 7) % n
    y = x[idx]
    x[idx] = y + 1.0
    x[idx] += 2.0
    assert hassium._hassium.pending() > 0
    # profile() flushes once for what is pending: the recording above flushed nothing.
    assert hassium.profile()["flushes"] == f0 + 1
    xn = np.arange(n) * 0.5
    i = (np.arange(n) * 7) % n
    yn = xn[i]
    xn[i] = yn + 1.0
    xn[i] += 2.0
    assert_same(y, yn)
    assert_same(x, xn)


def test_nd_gather_no_flush():
    x = hassium.arange(40.0).reshape(10, 4)
    f0 = hassium.profile()["flushes"]
    idx = (hassium.arange(6) * 3) % 10 - 5
    y = x[idx, 1:]
    assert hassium.profile()["flushes"] == f0 + 1
    i = (np.arange(6) * 3) % 10 - 5
    assert_same(y, np.arange(40.0).reshape(10, 4)[i, 1:])


def test_loop_matches_numpy():
    n = 1000
    res = []
    for m in (np, hassium):
        x = m.arange(n, dtype=m.float64) * 0.5
        idx = m.arange(n, dtype=m.int64)
        acc = m.zeros(n)
        for _ in range(50):
            idx = (idx * 5 + 3) % n
            acc += x[idx]
            acc[idx[:10]] += 1.0
        res.append(acc)
    assert_same(res[1], res[0])


def test_small_gathers_of_ready_values_are_numpy_s_at_once():
    # [python] eager_max_elements: a gather of few elements whose index and source are computed
    # runs through NumPy now (a consumer that needs values then flushes nothing), values, dtype
    # and errors NumPy's; pending operands or more elements: recorded as above.
    xn = np.arange(24.0).reshape(6, 4) * 1.5
    x = hassium.array(xn)
    hassium.flush()
    kept = []  # (a result's FREE, when it goes, is recorded)
    for idx in (np.array([5, -1, 0, 5]), np.array([[1, 2], [3, 0]], dtype=np.uint8)):
        i = hassium.array(idx)
        hassium.flush()
        for key, nkey in (((i,), (idx,)), ((i, 2), (idx, 2)),
                          ((i, slice(1, None)), (idx, slice(1, None)))):
            before = hassium._hassium.pending()
            kept.append(x[key])
            assert hassium._hassium.pending() == before  # nothing recorded
            assert_same(kept[-1], xn[nkey])
    i = hassium.array(np.array([2, 9]))
    with pytest.raises(IndexError) as e:
        x[i]  # at once, as NumPy
    assert str(e.value) == numpy_error(lambda: xn[np.array([2, 9])])
    # The spmv idiom: a row's gather and dot, one scalar stored per row, nothing recorded: the
    # gathers' results are NumPy's, used by no instruction (they die without a FREE), an empty
    # row's product needs no values (no flush for its base without memory), and y, np.empty's,
    # takes its memory at the first element store and every store directly.
    rows, cols = np.array([0, 2, 2, 3, 6]), np.array([1, 4, 0, 2, 3, 5])
    vals, v = hassium.array(np.arange(6.0) + 1), hassium.arange(6.0)
    y = hassium.empty(4)
    c = hassium.array(cols)
    hassium.flush()
    f0 = hassium.profile()["flushes"]
    for r in range(4):
        y[r] = vals[rows[r]:rows[r + 1]] @ v[c[rows[r]:rows[r + 1]]]
    assert hassium._hassium.pending() == 0
    assert hassium.profile()["flushes"] == f0
    yn = [(np.arange(6.0) + 1)[rows[r]:rows[r + 1]] @ np.arange(6.0)[cols[rows[r]:rows[r + 1]]]
          for r in range(4)]
    assert_same(y, np.array(yn))


@pytest.mark.parametrize("dt", INT_DTYPES)
def test_small_gathers_on_the_host_every_dtype_and_layout(dt):
    # The host's gather (bridge/common/gather.h) against NumPy's: every index dtype, sources of
    # every element size with strided, reversed and non-contiguous rows, index views that are
    # strided, reversed or n-d; nothing recorded, no flush. (With the collector off after a
    # collection: an earlier test's cyclic garbage collected in the middle records FREEs.)
    gc.collect()
    gc.disable()
    try:
        check_small_gathers_on_the_host(dt)
    finally:
        gc.enable()


def check_small_gathers_on_the_host(dt):
    idx_n = np.array([5, 0, 3, 3, 1, 4, 2, 5], dtype=dt)
    if np.dtype(dt).kind == "i":
        idx_n[[1, 6]] = [-6, -1]
    sources = [np.arange(60.0).reshape(6, 10) * 0.5,
               (np.arange(60) - 30).astype(np.int16).reshape(6, 10),
               (np.arange(60) % 3 == 0).reshape(6, 10),
               (np.arange(60) + 1j * np.arange(60)[::-1]).reshape(6, 10)]
    for xn in sources:
        x = hassium.array(xn)
        i = hassium.array(idx_n)
        hassium.flush()
        f0 = hassium.profile()["flushes"]
        for (hk, nk) in (((i,), (idx_n,)), ((i[::-2],), (idx_n[::-2],)),
                         ((i.reshape(2, 4),), (idx_n.reshape(2, 4),)),
                         ((i[1:7].reshape(3, 2).T,), (idx_n[1:7].reshape(3, 2).T,))):
            for hs, ns in ((x, xn), (x[::-1, ::3], xn[::-1, ::3]), (x[:, 7], xn[:, 7]),
                           (x[1:, 2:5], xn[1:, 2:5])):
                if ns.shape[0] < 6:
                    continue
                before = hassium._hassium.pending()
                got = hs[hk]
                assert hassium._hassium.pending() == before
                assert_same(got, ns[nk])
        assert hassium.profile()["flushes"] == f0
    x = hassium.array(np.arange(5.0))
    hassium.flush()
    for bad in ([7], [-6], [2, 5]) if np.dtype(dt).kind == "i" else ([7], [2, 5]):
        b = np.array(bad, dtype=dt)
        with pytest.raises(IndexError) as e:
            x[hassium.array(b)]
        assert str(e.value) == numpy_error(lambda: np.arange(5.0)[b])
    if dt == "uint64":  # NumPy reads it as intp: -1
        b = np.array([2**64 - 1], dtype=np.uint64)
        assert_same(x[hassium.array(b)], np.arange(5.0)[b])
    assert_same(x[hassium.array(np.array([4], dtype=dt))], np.array([4.0]))  # usable after


def test_empty_products_and_unused_bases_record_nothing():
    # An empty slice's product is NumPy's 0 at once (its operands' bases may have no memory);
    # a base no instruction used dies without a FREE; one that was used still gets its FREE.
    # The collector stays off: a collection here of an earlier test's cyclic garbage would
    # record its arrays' FREEs in the middle (seen once under ASan's timing).
    gc.collect()
    gc.disable()
    try:
        a = hassium.empty(5)  # no memory yet
        b = hassium.arange(5.0)
        hassium.flush()
        before = hassium._hassium.pending()
        f0 = hassium.profile()["flushes"]
        r = a[2:2] @ b[3:3]
        assert hassium.profile()["flushes"] == f0
        assert hassium._hassium.pending() == before
        assert_same(r, np.empty(5)[2:2] @ np.arange(5.0)[3:3])
        del a
        assert hassium._hassium.pending() == before
        t = b * 2.0  # recorded: its FREE is recorded too
        del t
        assert hassium._hassium.pending() == before + 2
    finally:
        gc.enable()


def test_pending_or_long_gathers_are_recorded(lazy_scalar_reads):
    x = hassium.arange(10.0)
    hassium.flush()
    before = hassium._hassium.pending()
    x[hassium.array(np.array([1, 2]))]  # eager_max_elements = 0 here: recorded
    assert hassium._hassium.pending() > before
    hassium.flush()
    hassium._hassium.set_eager_max_elements(100)
    before = hassium._hassium.pending()
    x[lazy(np.array([1, 2]))]  # the index is pending: recorded
    assert hassium._hassium.pending() > before
    hassium.flush()
    before = hassium._hassium.pending()
    x[hassium.array(np.arange(101) % 10)]  # more than eager_max_elements
    assert hassium._hassium.pending() > before
