"""pytest setup for the hassium Python tests: which backend runs the flushes.

With the execution stack compiled in, hassium runs on it (the CPU engine). Without it, or with
HASSIUM_TEST_BACKEND=reference, flushes run through the NumPy reference executor
(reference_backend.py), which checks the frontend's bytecode against NumPy on its own.
"""

import os
import warnings

import hassium
from hassium import _hassium

if not _hassium.have_stack or os.environ.get("HASSIUM_TEST_BACKEND") == "reference":
    import reference_backend

    _hassium._install_python_backend(reference_backend.execute)

# Fallback warnings are checked where they are the subject; elsewhere they are noise.
warnings.filterwarnings("ignore", category=hassium.FallbackWarning)
