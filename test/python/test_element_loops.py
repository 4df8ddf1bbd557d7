"""Loops over elements, as NPBench's lu, cholesky, trmm and seidel_2d write them: NumPy's values
under both [python] scalar_reads modes. `flush` (the default): elements are read as NumPy scalars
(a pending write flushed first), stored straight into memory when nothing pending touches the
array, and the small dots of ready rows run through NumPy ([python] eager_max_elements): such a
loop records (almost) nothing. `lazy` with eager_max_elements = 0: every element update is
recorded, and the runtime's two mechanisms for that bytecode work: a flush of scalars and short
rows is partitioned by `linear` ([fuser] search_min_bytes; counted as small_flushes), and the
element copies of `A[i, j] -= x` are forwarded (the forward_copies filter) without changing any
value."""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import hassium


def lu(xp, A):
    for i in range(A.shape[0]):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, A.shape[0]):
            A[i, j] -= A[i, :i] @ A[:i, j]


def cholesky(xp, A):
    A[0, 0] = xp.sqrt(A[0, 0])
    for i in range(1, A.shape[0]):
        for j in range(i):
            A[i, j] -= xp.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= xp.dot(A[i, :i], A[i, :i])
        A[i, i] = xp.sqrt(A[i, i])


def trmm(xp, alpha, A, B):
    for i in range(B.shape[0]):
        for j in range(B.shape[1]):
            B[i, j] += xp.dot(A[i + 1:, i], B[i + 1:, j])
    B *= alpha


def seidel(xp, steps, A):
    n = A.shape[0]
    for _ in range(steps):
        for i in range(1, n - 1):
            A[i, 1:-1] += (A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] + A[i, 2:] +
                           A[i + 1, :-2] + A[i + 1, 1:-1] + A[i + 1, 2:])
            for j in range(1, n - 1):
                A[i, j] += A[i, j - 1]
                A[i, j] /= 9.0


def spd(n):
    rng = np.random.default_rng(3)
    m = rng.random((n, n))
    return m @ m.T + n * np.eye(n)


@pytest.mark.parametrize("name", ["lu", "cholesky", "trmm", "seidel"])
def test_element_loops_match_numpy(name, scalar_reads):
    n = 24
    ref = spd(n)
    if name == "trmm":
        args_np = (1.5, np.tril(ref), ref.copy())
        args_hs = (1.5, hassium.asarray(np.tril(ref)), hassium.asarray(ref.copy()))
    elif name == "seidel":
        args_np = (2, ref.copy())
        args_hs = (2, hassium.asarray(ref.copy()))
    else:
        args_np = (ref.copy(),)
        args_hs = (hassium.asarray(ref.copy()),)
    kernel = globals()[name]
    before = hassium.profile()
    kernel(np, *args_np)
    kernel(hassium, *args_hs)
    np.testing.assert_allclose(np.asarray(args_hs[-1]), args_np[-1], rtol=1e-12, atol=1e-12)
    after = hassium.profile()
    recorded = after["instructions"] - before["instructions"]
    if scalar_reads == "flush":
        if name in ("lu", "cholesky"):
            # every element and dot of the ready matrix computed at once, nothing recorded: the
            # values are NumPy's own to the bit
            np.testing.assert_array_equal(np.asarray(args_hs[-1]), args_np[-1])
            assert recorded == 0
        elif name == "trmm":
            assert recorded <= 2  # B *= alpha (and its flush's SYNC)
        else:  # seidel: each row update is recorded, and flushed by the row's first element read
            rows = 2 * (ref.shape[0] - 2)
            assert after["flushes"] - before["flushes"] >= rows
            assert recorded <= 16 * rows  # 7 adds, 6 FREEs of temporaries, a SYNC
        return
    assert after["flushes"] > before["flushes"]
    assert recorded > 3 * ref.shape[0]  # the element updates themselves
    # Arrays of 24 elements: every flush of the loop is too small for the greedy search (the
    # NumPy reference executor of HASSIUM_TEST_BACKEND=reference does not fuse).
    if os.environ.get("HASSIUM_TEST_BACKEND") != "reference":
        assert after["small_flushes"] - before["small_flushes"] >= 1


def test_element_copies_of_lu_are_forwarded(tmp_path):
    """The bytecode that reaches the fuser (the trace filter, last in the list) when lu's element
    updates are recorded ([python] scalar_reads = lazy, eager_max_elements = 0): its element
    updates and divisor reads are recorded as copies, and forward_copies leaves none (but where
    a flush cuts an update in two)."""
    script = textwrap.dedent('''
        import numpy as np, hassium
        A = hassium.asarray(np.eye(12) * 12 + 1.0)
        for i in range(12):
            for j in range(i):
                A[i, j] -= A[i, :j] @ A[:j, j]
                A[i, j] /= A[j, j]
            for j in range(i, 12):
                A[i, j] -= A[i, :i] @ A[:i, j]
        float(A.sum())
    ''')
    counts = {}
    for filters in ("expand_power", "expand_power,forward_copies"):
        trace = tmp_path / (filters.replace(",", "_") + ".hsb")
        env = dict(os.environ, HASSIUM_STACK_FILTERS=filters + ",trace",
                   HASSIUM_FILTERS_TRACE_FILE=str(trace), HASSIUM_PYTHON_SCALAR_READS="lazy",
                   HASSIUM_PYTHON_EAGER_MAX_ELEMENTS="0")
        subprocess.run([sys.executable, "-c", script], env=env, check=True)
        lines = trace.read_text().splitlines()
        # copies of views (an empty product's IDENTITY fill of 0.0 is no copy)
        counts[filters] = (sum(re.match(r"IDENTITY \S+, \w+\{", line) is not None
                               for line in lines),
                           sum(not line.startswith((".base", "#")) for line in lines),
                           sum(line.startswith("# flush") for line in lines))
    copies, instrs, _ = counts["expand_power"]
    assert copies >= 3 * 66  # per (i, j) below the diagonal: element, divisor, store back
    fwd_copies, fwd_instrs, flushes = counts["expand_power,forward_copies"]
    # Only an update whose FREE falls into the next flush keeps its copy and store.
    assert fwd_copies <= 2 * flushes
    assert fwd_instrs <= instrs - copies + fwd_copies


def test_an_empty_array_filled_by_elements_stores_directly():
    """np.empty's array takes memory at its first element store; while no pending instruction
    uses it, every store writes memory at once though other work is pending (symm's
    `temp2[j] = B[:i, j] @ A[i, :i]` beside its pending column updates). Once its memory is
    shared with NumPy, a store waits for any pending work (NumPy's view may be wrapped again)."""
    n = 6
    other = hassium.ones(n) + 1  # pending work the stores do not touch
    y = hassium.empty(n)
    pending = hassium._hassium.pending()
    for j in range(n):
        y[j] = j * 1.5
    assert hassium._hassium.pending() == pending
    t = other * y  # reads y: pending until flushed
    y[0] = -1.0  # recorded after the read of y
    assert hassium._hassium.pending() > pending + 1
    np.testing.assert_array_equal(np.asarray(t), 2 * np.arange(n) * 1.5)
    shared = np.asarray(y)  # y's memory handed to NumPy
    expected = np.arange(n) * 1.5
    expected[0] = -1.0
    np.testing.assert_array_equal(shared, expected)
    more = hassium.ones(n) * 3  # pending, unrelated to y
    before = hassium._hassium.pending()
    y[1] = 7.0
    assert hassium._hassium.pending() == before + 1  # recorded: y's memory is shared now
    assert float(y[1]) == 7.0 and float(more.sum()) == 18.0


def test_an_element_store_into_an_empty_array_too_big_for_memory():
    """An np.empty array too big to take memory at its first element store (over 1 GiB: its
    memory comes from the engine's pool at the flush): the store is recorded, and the flush
    reports NumPy's MemoryError; the runtime stays usable."""
    a = hassium.empty(10**12)
    with pytest.raises(MemoryError, match=r"Unable to allocate 7\.28 TiB for an array with "
                       r"1000000000000 elements of data type float64"):
        a[0] = 1.0
        float(a[0])
    assert float(hassium.ones(3).sum()) == 3.0
