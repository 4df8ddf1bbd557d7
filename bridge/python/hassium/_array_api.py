"""The array API standard's namespace protocol: __array_namespace_info__, devices, DLPack.

hassium's namespace is an array-API namespace the way NumPy 2's main namespace is one: the
same dtypes (NumPy's dtype objects), one device ("cpu", where the CPU engine's memory lives),
and DLPack exchange through the memory a flush leaves (no copy).
"""

import sys

import numpy as _np

from . import _hassium

ndarray = _hassium.ndarray
DEVICE = "cpu"


def _check_device(device):
    if device not in (None, DEVICE):
        raise ValueError(f'Device not understood. Only "{DEVICE}" is allowed, but received: {device}')


class __array_namespace_info__:
    """What the namespace offers (array API 2023.12 inspection functions)."""

    __module__ = "hassium"

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self):
        return DEVICE

    def devices(self):
        return [DEVICE]

    def default_dtypes(self, *, device=None):
        _check_device(device)
        return _np.__array_namespace_info__().default_dtypes()

    def dtypes(self, *, device=None, kind=None):
        # hassium holds exactly the array API's dtypes, as NumPy's objects.
        _check_device(device)
        return _np.__array_namespace_info__().dtypes(kind=kind)


def _namespace(self, /, *, api_version=None):
    if api_version is not None and api_version not in ("2021.12", "2022.12", "2023.12"):
        raise ValueError(f"Version \"{api_version}\" of the Array API Standard is not supported.")
    return sys.modules["hassium"]


def _to_device(self, device, /, *, stream=None):
    if stream is not None:
        raise ValueError("The stream argument in to_device() is not supported")
    _check_device(device)
    return self


def _dlpack(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
    # A flush, then NumPy's DLPack export of a view of the same memory (the view keeps it alive).
    kwargs = {"stream": stream}
    if max_version is not None:
        kwargs["max_version"] = max_version
    if dl_device is not None:
        kwargs["dl_device"] = dl_device
    if copy is not None:
        kwargs["copy"] = copy
    return self._numpy().__dlpack__(**kwargs)


def _dlpack_device(self, /):
    return self._numpy().__dlpack_device__()


ndarray.__array_namespace__ = _namespace
ndarray.device = property(lambda self: DEVICE, doc='The device the array lives on: "cpu".')
ndarray.to_device = _to_device
ndarray.__dlpack__ = _dlpack
ndarray.__dlpack_device__ = _dlpack_device


def from_dlpack(x, /, *, device=None, copy=None):
    """A hassium array over the memory of an object that exports DLPack (no copy unless asked)."""
    _check_device(device)
    if isinstance(x, ndarray):
        return x.copy() if copy else x
    arr = _np.from_dlpack(x, copy=copy)
    wrapped = _hassium.from_numpy(arr, not arr.flags.writeable)
    if wrapped is None:
        raise TypeError(f"hassium does not hold arrays of dtype {arr.dtype}")
    return wrapped
