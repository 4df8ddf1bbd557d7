"""Random NumPy programs (hypothesis), run with NumPy and with hassium; every array must agree.

The generator is program_gen.py (what the programs cover, and how values are compared, is
documented there); difftest.py runs the same generator at scale, under every partition
algorithm. CI runs 300 programs per run here, derandomized (the same 300 each time).
"""

from hypothesis import HealthCheck, given, settings

import hassium
import program_gen


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True)
@given(program=program_gen.programs())
def test_random_programs_match_numpy(program):
    program_gen.check(program, hassium)
