"""The array API namespace protocol against NumPy's: inspection, devices, DLPack, signatures."""

import inspect

import numpy as np
import pytest

import hassium


def test_namespace_info_is_numpys_for_the_same_dtypes():
    h, n = hassium.__array_namespace_info__(), np.__array_namespace_info__()
    assert h.capabilities() == n.capabilities()
    assert h.default_device() == n.default_device() == "cpu"
    assert h.devices() == n.devices()
    assert h.default_dtypes() == n.default_dtypes()
    assert h.default_dtypes(device="cpu") == n.default_dtypes(device="cpu")
    for kind in [None, "bool", "signed integer", "unsigned integer", "integral", "real floating",
                 "complex floating", "numeric", ("bool", "real floating")]:
        assert h.dtypes(kind=kind) == n.dtypes(kind=kind)
    with pytest.raises(ValueError, match="Device not understood"):
        h.dtypes(device="gpu")
    with pytest.raises(ValueError):
        n.dtypes(device="gpu")
    assert hassium.__array_api_version__ == np.__array_api_version__


def test_array_namespace_and_device():
    a = hassium.arange(6.0).reshape(2, 3) * 2
    assert a.__array_namespace__() is hassium
    assert a.__array_namespace__(api_version="2023.12") is hassium
    with pytest.raises(ValueError):
        a.__array_namespace__(api_version="1999.01")
    assert a.device == "cpu"
    assert a.to_device("cpu") is a
    with pytest.raises(ValueError):
        a.to_device("cuda:0")
    assert str(inspect.signature(a.to_device)) == str(inspect.signature(np.zeros(1).to_device))


def test_dlpack_both_ways_shares_memory():
    a = hassium.arange(6.0).reshape(2, 3) * 2  # pending: the export flushes it
    assert a.__dlpack_device__() == np.zeros(1).__dlpack_device__()
    n = np.from_dlpack(a)
    np.testing.assert_array_equal(n, np.arange(6.0).reshape(2, 3) * 2)
    n[0, 0] = 42.0  # the same memory
    assert float(a[0, 0]) == 42.0
    src = np.arange(4, dtype=np.int32)
    h = hassium.from_dlpack(src)
    assert isinstance(h, hassium.ndarray) and h.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(h + 1), src + 1)
    assert hassium.from_dlpack(a) is a
    c = hassium.from_dlpack(src, copy=True)
    src[0] = 7
    assert int(c[0]) == 0


def test_ufuncs_have_numpys_signature():
    # recorded ufuncs and the ones that fall back have NumPy's signatures (inspect, the array
    # API suite)
    for name in ["add", "sin", "copysign", "logaddexp", "signbit", "ldexp", "frexp"]:
        assert inspect.signature(getattr(hassium, name)) == inspect.signature(getattr(np, name))


def test_int64_exports_as_numpys_int64():
    # the buffer protocol's format is NumPy's own character: int64 arrays become numpy.int64
    # ("l"), not longlong, whose scalars are another type
    for dt in [np.int64, np.uint64, np.int32, np.float64, np.complex64, np.bool_]:
        n = np.asarray(hassium.zeros(2, dt))
        assert n.dtype == np.dtype(dt) and n.dtype.char == np.dtype(dt).char
        assert type(n[0]) is np.dtype(dt).type
    # and NumPy's other names of the same numbers are taken as those dtypes
    x = hassium.arange(3.0)
    for s in [np.longlong(2), np.ulonglong(2), np.array([1, 2, 3], dtype=np.longlong)]:
        r = x + s
        assert isinstance(r, hassium.ndarray)
        np.testing.assert_array_equal(np.asarray(r), np.arange(3.0) + s)
