"""pytest setup for the hassium Python tests: which backend runs the flushes.

With the execution stack compiled in, hassium runs on it (the CPU engine). Without it, or with
HASSIUM_TEST_BACKEND=reference, flushes run through the NumPy reference executor
(reference_backend.py), which checks the frontend's bytecode against NumPy on its own.
"""

import os
import warnings

import pytest

import hassium
from hassium import _hassium

if not _hassium.have_stack or os.environ.get("HASSIUM_TEST_BACKEND") == "reference":
    import reference_backend

    _hassium._install_python_backend(reference_backend.execute)

# Fallback warnings are checked where they are the subject; elsewhere they are noise.
warnings.filterwarnings("ignore", category=hassium.FallbackWarning)


@pytest.fixture(params=["flush", "lazy"])
def scalar_reads(request):
    """Runs the test under both [python] scalar_reads modes; `lazy` also records every scalar
    product ([python] eager_max_elements = 0), so that element loops are recorded whole."""
    saved = _hassium.flush_scalar_reads(), _hassium.eager_max_elements()
    _hassium.set_flush_scalar_reads(request.param == "flush")
    if request.param == "lazy":
        _hassium.set_eager_max_elements(0)
    yield request.param
    _hassium.set_flush_scalar_reads(saved[0])
    _hassium.set_eager_max_elements(saved[1])


@pytest.fixture
def lazy_scalar_reads():
    """[python] scalar_reads = lazy and eager_max_elements = 0 for the test."""
    saved = _hassium.flush_scalar_reads(), _hassium.eager_max_elements()
    _hassium.set_flush_scalar_reads(False)
    _hassium.set_eager_max_elements(0)
    yield
    _hassium.set_flush_scalar_reads(saved[0])
    _hassium.set_eager_max_elements(saved[1])
