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

# Under test/sanitize.sh the processes the tests start (signals, exits, config files) inherit the
# sanitizer runtime, without the exit-time leak check: GCC 12's LeakSanitizer tracer now and then
# faults while stopping a child's OpenMP/OpenBLAS threads at exit ("Tracer caught signal 11",
# google/sanitizers#1353), which fails the child, not a leak. Leaks stay checked in this process
# (every in-process test) and in every C++ test. This process read its options at start-up.
if "detect_leaks=1" in os.environ.get("ASAN_OPTIONS", ""):
    os.environ["ASAN_OPTIONS"] += ":detect_leaks=0"

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
