"""Indexing against NumPy: basic keys make views, integer and boolean arrays gather and scatter,
setitem broadcasts, overlapping assignment copies like NumPy."""

import numpy as np
import pytest

import hassium
from helpers import assert_same, same_error, same_error_message

BASIC_KEYS = [
    0, -1, 2, slice(None), slice(1, None), slice(None, -1), slice(None, None, -1),
    slice(4, 0, -2), slice(-3, None, 2), slice(10, 20), (1, 2), (-1, -1, -1), (slice(None), 1),
    (Ellipsis, 1), (1, Ellipsis), (None, 1), (slice(None), None, slice(None, None, 2)),
    (Ellipsis, None), (1, slice(1, 3), None, -1), (), Ellipsis, (slice(0, 0),), (None, None),
    (slice(None, None, 3), slice(None, None, -1), slice(1, 2)),
]


@pytest.mark.parametrize("key", BASIC_KEYS, ids=repr)
def test_basic_getitem_matches_numpy(key):
    a = np.arange(5 * 4 * 3.0).reshape(5, 4, 3)
    h = hassium.array(a)
    assert_same(h[key], a[key])


def test_basic_getitem_is_a_view():
    a = np.arange(20.0).reshape(4, 5)
    h = hassium.array(a)
    v = h[1:3, ::2]
    v[...] = -1
    a[1:3, ::2] = -1
    assert_same(h, a)
    assert hassium._hassium.same_base(v, h)


def test_integer_index_gives_scalar_copy():
    a = np.arange(6.0)
    h = hassium.array(a)
    x = h[2]
    h[2] = 100
    assert float(x) == 2.0
    assert repr(x) == repr(a[2])
    e = h[2, ...]  # with an ellipsis NumPy returns a 0-d view
    h[2] = 7
    assert float(e) == 7.0


@pytest.mark.parametrize("key", [(5,), (0, 7), (-6,), (0, 0, 0)], ids=repr)
def test_out_of_range_and_too_many_indices(key):
    a = np.zeros((5, 4))
    e = same_error(lambda m, k: m.asarray(a)[k], key)
    n_msg = None
    try:
        a[key]
    except IndexError as ne:
        n_msg = str(ne)
    assert str(e) == n_msg


def test_bad_index_types():
    a = np.zeros((3, 3))
    for key in ["x", 1.5, (Ellipsis, Ellipsis), np.array([1.0])]:
        same_error(lambda m, k: m.asarray(a)[k], key)


FANCY_KEYS = [
    [0, 2], [[0, 1], [2, 3]], ([0, 1], [1, 2]), (slice(None), [0, 2]), (Ellipsis, [1, 0]),
    ([1], slice(1, 3), [0]), (0, slice(None), [1, 2]), (None, [0, 1]), ([-1, -5],),
    np.array([3, 0, 0]), (np.array([[0], [1]]), 0), ([], ), ([0, 1, 2], slice(None), 2),
]


@pytest.mark.parametrize("key", FANCY_KEYS, ids=repr)
def test_integer_array_getitem(key):
    a = np.arange(5 * 4 * 3).reshape(5, 4, 3)
    h = hassium.array(a)
    assert_same(h[key], a[key])


@pytest.mark.parametrize("key", FANCY_KEYS, ids=repr)
def test_integer_array_setitem(key):
    a = np.arange(5 * 4 * 3).reshape(5, 4, 3)
    h = hassium.array(a)
    h[key] = -7
    a[key] = -7
    assert_same(h, a)
    shape = a[key].shape
    vals = np.arange(int(np.prod(shape))).reshape(shape) * 10
    h[key] = hassium.array(vals)
    a[key] = vals
    assert_same(h, a)


def test_fancy_errors():
    a = np.zeros((3, 4))
    e = same_error(lambda m: m.asarray(a)[[0, 1], [0, 1, 2]])
    assert "shape mismatch: indexing arrays could not be broadcast together" in str(e)
    e = same_error(lambda m: m.asarray(a)[[5]])
    assert str(e) == "index 5 is out of bounds for axis 0 with size 3"


@pytest.mark.parametrize("key", [np.True_, np.False_, (np.True_, 0), (np.False_, 0),
                                 (np.True_, slice(1, None)), (0, np.True_), (Ellipsis, np.True_)],
                         ids=repr)
def test_numpy_bool_scalar_index_is_a_0d_mask(key):
    a = np.arange(12.0).reshape(3, 4)
    h = hassium.array(a)
    assert_same(h[key], a[key])
    b = a.copy()
    b[key] = -1.0
    h[key] = -1.0
    assert_same(h, b)


def test_boolean_mask_get_and_set():
    a = np.arange(12.0).reshape(3, 4)
    h = hassium.array(a)
    m = a > 4.5
    hm = h > 4.5
    assert_same(h[hm], a[m])
    assert_same(h[m], a[m])
    assert_same(h[np.array([True, False, True])], a[np.array([True, False, True])])
    assert_same(h[1, a[1] > 5], a[1, a[1] > 5])
    h[hm] = 0
    a[m] = 0
    assert_same(h, a)
    h[h < 3] = h[h < 3] * 10 + 1
    a[a < 3] = a[a < 3] * 10 + 1
    assert_same(h, a)
    x = hassium.array(np.arange(6.0))
    xn = np.arange(6.0)
    x[x > 2] = x[0]  # a 0-d hassium value
    xn[xn > 2] = xn[0]
    assert_same(x, xn)


def test_boolean_mask_errors():
    a = np.zeros((2, 3))
    e = same_error(lambda m: m.asarray(a)[np.array([True])])
    assert "boolean index did not match indexed array along axis 0" in str(e)


def test_setitem_broadcasting_and_casting():
    a = np.zeros((3, 4), np.int32)
    h = hassium.array(a)
    h[:, 1] = [1.7, 2.2, 3.9]
    a[:, 1] = [1.7, 2.2, 3.9]
    h[0] = np.arange(4)
    a[0] = np.arange(4)
    h[1:] = hassium.array([[5, 6, 7, 8]])
    a[1:] = np.array([[5, 6, 7, 8]])
    h[...] = h[::-1]
    a[...] = a[::-1]
    assert_same(h, a)
    e = same_error(lambda m: m.zeros((2, 3)).__setitem__((slice(None), 0), m.ones(3)))
    assert str(e) == "could not broadcast input array from shape (3,) into shape (2,)"
    same_error(lambda m: m.zeros(3, m.uint8).__setitem__(0, 300))


def test_overlapping_assignment_copies_like_numpy():
    a = np.arange(10.0)
    h = hassium.array(a)
    h[1:] = h[:-1]
    a[1:] = a[:-1]
    assert_same(h, a)
    h[:-2] = h[2:]
    a[:-2] = a[2:]
    assert_same(h, a)
    b = np.arange(16.0).reshape(4, 4)
    hb = hassium.array(b)
    hb[...] = hb.T
    b[...] = b.T.copy()
    assert_same(hb, b)
    hb[1:, 1:] += hb[:-1, :-1]
    b[1:, 1:] += b[:-1, :-1]
    assert_same(hb, b)
    c = np.arange(8)
    hc = hassium.array(c)
    hc[[1, 2, 3]] = hc[[0, 1, 2]]
    c[[1, 2, 3]] = c[[0, 1, 2]]
    assert_same(hc, c)


def test_index_with_hassium_integer_scalar():
    a = np.arange(10) * 3
    h = hassium.array(a)
    i = h.argmax()
    assert_same(h[i], a[a.argmax()])
    assert_same(h[:i], a[:a.argmax()])


def test_len_iter_and_contains():
    a = np.arange(6).reshape(3, 2)
    h = hassium.array(a)
    assert len(h) == 3
    rows = list(h)
    assert len(rows) == 3
    for r, n in zip(rows, a):
        assert_same(r, n)
    assert [int(x) for x in h[0]] == [0, 1]
    assert 5 in h and 7 not in h
    same_error(lambda m: len(m.zeros(())))
    same_error(lambda m: iter(m.zeros(())))


# --- the fast path for keys of Python ints and slices (indexing.cpp basic_view) ----------------

INT_SLICE_KEYS = [
    (1, 2, 0), (-1, -4, -3), (4, 3, 2), (2, 1), (-5, 0), (3,), 3, -2, (1, slice(None, 2)),
    (slice(None, 3), 2), (slice(None, None, -2), -1, 1), (0, slice(3, 0, -1), slice(1, 2)),
    (2, slice(0, 0)), (slice(7, 9), 1), slice(None, None, -1), (-5, slice(-100, 100), -1),
]


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint64", "float32", "float64", "complex64"])
@pytest.mark.parametrize("key", INT_SLICE_KEYS, ids=repr)
def test_int_and_slice_keys_get_and_set(dtype, key):
    a = (np.arange(5 * 4 * 3) % 7).reshape(5, 4, 3).astype(dtype)
    h = hassium.array(a)
    r = h[key]
    assert_same(r, a[key])
    assert repr(r) == repr(a[key])  # a scalar where NumPy gives one
    value = a[key] if np.ndim(a[key]) == 0 else a[key][..., ::-1]
    h[key] = hassium.array(np.asarray(value)) if np.ndim(value) else value
    a[key] = value
    assert_same(h, a)
    h[key] = 1
    a[key] = 1
    assert_same(h, a)


def test_element_is_a_copy_and_views_write_through():
    a = np.arange(12.0).reshape(3, 4)
    h = hassium.array(a)
    s, row = h[1, 2], h[1]
    h[1, 2] = -1.0
    assert float(s) == 6.0
    assert float(row[2]) == -1.0
    assert hassium._hassium.same_base(h[2, ::2], h)
    e = h[2, 3]  # NumPy's scalar, read now (its value is ready)
    assert type(e) is np.float64 and e == 11.0


# Beyond intp, NumPy raises OverflowError "Python int too large to convert to C long" for what
# fits uint64, else IndexError.
BEYOND_INTP = [2**63, 2**64 - 1, np.uint64(2**64 - 1), 2**64, -2**63 - 1, -2**64]


@pytest.mark.parametrize("key", [(3, 0), (0, 4), (-4, 0), (0, -5), (3,), -4, (2, -5), 10**20,
                                 (0, 10**20), (-10**20,), (0, 0, 0), (0, slice(1, 2), 0),
                                 (slice(1, 2, 0), 9), (9, slice(1, 2, 0))]
                         + [k for i in BEYOND_INTP for k in (i, (i, 0), (0, i))], ids=repr)
def test_int_and_slice_key_errors_are_numpy_s(key):
    a = np.zeros((3, 4))
    h = hassium.array(a)
    for op in (lambda m: m[key], lambda m: m.__setitem__(key, 1.0)):
        same_error_message(op, a, h)
    h[1, 2] = 5.0  # the array stays usable
    assert float(h[1, 2]) == 5.0


NUMPY_INT_KEYS = [
    (np.int32(1), slice(None, 2)), (np.int64(-1), np.uint8(3), slice(None, None, -1)),
    (slice(1, 4), np.int16(2)), np.intp(4), (np.int8(-5), slice(0, 0)),
    (np.uint64(2), 1, np.int32(0)),
]


@pytest.mark.parametrize("key", NUMPY_INT_KEYS, ids=repr)
def test_numpy_integer_scalars_in_basic_keys(key):
    """G[k, neigh[a, b]]: an element read of an index array (a NumPy integer scalar) beside ints
    and slices selects a view or an element as a Python int does."""
    a = (np.arange(5 * 4 * 3) * 1.5).reshape(5, 4, 3)
    h = hassium.array(a)
    assert_same(h[key], a[key])
    assert repr(h[key]) == repr(a[key])
    a[key] = -2.0
    h[key] = -2.0
    assert_same(h, a)


@pytest.mark.parametrize("key", [(np.int32(5),), (np.int64(0), np.uint8(4)),
                                 (slice(None), np.int16(-5)), (np.float64(1.0),)], ids=repr)
def test_numpy_scalar_key_errors_are_numpy_s(key):
    a = np.zeros((5, 4))
    h = hassium.array(a)
    for op in (lambda m: m[key], lambda m: m.__setitem__(key, 1.0)):
        try:
            want = op(a)
        except Exception as ne:
            with pytest.raises(type(ne)) as he:
                op(h)
            assert str(he.value) == str(ne)
        else:
            got = op(h)
            if want is not None:
                assert_same(got, want)


def test_element_assignment_values_like_numpy():
    a = np.zeros((3, 4), dtype=np.int16)
    h = hassium.array(a)
    for value in [2.7, -3.9, np.float32(5.5), True, 7, hassium.array(np.float64(9.9)),
                  hassium.array(np.complex64(4 + 0j))[()]]:
        nv = np.asarray(value) if isinstance(value, hassium.ndarray) else value
        with np.errstate(all="ignore"):
            try:
                a[1, 2] = nv
            except Exception as e:  # noqa: BLE001
                with pytest.raises(type(e)):
                    h[1, 2] = value
                continue
        h[1, 2] = value
        assert_same(h, a)
    for value, error in [(float("nan"), ValueError), (float("inf"), OverflowError),
                         (1j, TypeError), (2**40, OverflowError)]:
        same_error(lambda m, v: m.asarray(a).__setitem__((0, 0), v), value)
    f = hassium.zeros((2, 2))
    with pytest.raises(TypeError):
        f[0, 1] = 1j


def test_storing_a_view_into_itself_records_nothing():
    a = np.arange(12.0).reshape(3, 4)
    h = hassium.array(a)
    hassium.flush()
    h[1] = h[1]
    h[:, 2] = h[:, 2]
    assert hassium._hassium.pending() == 0
    h[1] += 1.0  # the op writes in place; the store of the same view adds nothing
    assert hassium._hassium.pending() == 1
    a[1] += 1.0
    assert_same(h, a)
    h[1:] = h[:-1]  # overlapping, not identical: through a copy, like NumPy
    a[1:] = a[:-1]
    assert_same(h, a)


def test_zero_dim_and_empty_keys():
    z = hassium.array(np.float64(2.5))
    assert repr(z[()]) == repr(np.asarray(2.5)[()])
    z[()] = 4.0
    assert float(z) == 4.0
    h = hassium.array(np.arange(6.0).reshape(2, 3))
    assert_same(h[()], np.arange(6.0).reshape(2, 3))
    assert_same(h[True, 0], np.arange(6.0).reshape(2, 3)[True, 0])
    assert_same(h[np.int64(1), 2], np.arange(6.0).reshape(2, 3)[1, 2])
