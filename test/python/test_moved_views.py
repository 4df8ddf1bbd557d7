"""Flushes that repeat with their views moved (a loop over the columns or rows of a matrix) or
reshaped (shrinking trailing updates): the plan of the first one runs again (profile
`plans_reused`; reshaped, with its kernels planned for the new extents) where its partition is
legal for the new views, and is planned afresh where they make two views overlap; values as
NumPy's."""
import numpy as np

import hassium


def gramschmidt(xp, A):
    Q = xp.zeros_like(A)
    R = xp.zeros((A.shape[1], A.shape[1]), dtype=A.dtype)
    for k in range(A.shape[1]):
        nrm = xp.dot(A[:, k], A[:, k])
        R[k, k] = xp.sqrt(nrm)
        Q[:, k] = A[:, k] / R[k, k]
        for j in range(k + 1, A.shape[1]):
            R[k, j] = xp.dot(Q[:, k], A[:, j])
            A[:, j] -= Q[:, k] * R[k, j]
    return Q, R


def test_column_sweep_replays_its_plan():
    a = np.random.default_rng(5).random((300, 40))
    ref = a.copy()
    h = hassium.asarray(a.copy())
    before = hassium.profile()
    for j in range(1, 40):
        ref[:, j] = ref[:, j - 1] * 0.5 + ref[:, j]
        h[:, j] = h[:, j - 1] * 0.5 + h[:, j]
        assert float(h[7, j]) == ref[7, j]  # a flush per column
    after = hassium.profile()
    np.testing.assert_array_equal(np.asarray(h), ref)
    # Every column after the first few (the cache learns the structure) replays the plan.
    assert after["plans_reused"] - before["plans_reused"] >= 30


def test_gramschmidt_matches_numpy():
    a = np.random.default_rng(6).random((120, 30))
    q_ref, r_ref = gramschmidt(np, a.copy())
    h = hassium.asarray(a.copy())
    q, r = gramschmidt(hassium, h)
    np.testing.assert_allclose(np.asarray(q), q_ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.asarray(r), r_ref, rtol=1e-10, atol=1e-12)


def test_a_move_into_overlap_is_planned_afresh():
    """`x[b:b+4] = x[0:4] * 2 + 1`: with b = 8 the read and the write are disjoint and fuse into
    one loop; with b = 1, 2, 3 they overlap, and a loop that wrote x[b:] while reading x[:4]
    would read its own results (NumPy evaluates the right-hand side first)."""
    ref = np.arange(16.0)
    h = hassium.asarray(ref.copy())
    for b in [8, 8, 2, 8, 3, 1, 8, 2, 2, 9]:
        ref[b:b + 4] = ref[0:4] * 2 + 1
        h[b:b + 4] = h[0:4] * 2 + 1
        hassium.flush()
        np.testing.assert_array_equal(np.asarray(h), ref)


def test_shrinking_updates_replay_with_new_extents():
    """Gauss elimination with a flush per pivot: every step has the same structure on smaller
    views (each flush's extents differ from the last one's)."""
    n = 48
    a = np.random.default_rng(7).random((n, n)) + n * np.eye(n)
    ref = a.copy()
    h = hassium.asarray(a.copy())
    before = hassium.profile()
    for k in range(n - 1):
        for xp, m in ((np, ref), (hassium, h)):
            m[k + 1:, k:] -= (m[k + 1:, k] / m[k, k])[:, None] * m[k:k + 1, k:]
        assert float(h[n - 1, n - 1]) == ref[n - 1, n - 1]  # a flush per pivot
    after = hassium.profile()
    np.testing.assert_array_equal(np.asarray(h), ref)
    assert after["plans_reused"] - before["plans_reused"] >= n - 8
    assert after["plans_reshaped"] - before["plans_reshaped"] >= n - 8


def test_reshaped_replays_alternate_with_exact_ones():
    """Rows of two lengths in turn: each change of extents replans the kept plan's kernels, and
    the values stay NumPy's whichever extents the plan last ran with."""
    ref = np.random.default_rng(8).random((6, 40))
    h = hassium.asarray(ref.copy())
    for i, width in enumerate([40, 40, 17, 40, 17, 17, 3, 40, 3]):
        r = i % 6
        for m in (ref, h):
            m[r, :width] = m[(r + 1) % 6, :width] * 0.5 + m[r, :width]
        assert float(h[r, 0]) == ref[r, 0]
        np.testing.assert_array_equal(np.asarray(h), ref)


def replayed(run):
    """Runs `run` (a loop recording many flushes) twice, flushing after each. The first run lets
    the flush policy find the loop's phase (it may start from an anchor that earlier code left,
    which takes a few forced cuts to drop) and plans the loop's flushes; in the second, at least
    10 flushes, and all but the first and the last (partial) replay a kept plan. The profile's
    differences over the second run."""
    run()
    hassium.flush()
    before = hassium.profile()
    run()
    hassium.flush()
    after = hassium.profile()
    counts = {k: after[k] - before[k] for k in ("flushes", "plans_reused", "plan_checks")}
    assert counts["flushes"] >= 10
    assert counts["plans_reused"] >= counts["flushes"] - 2
    return counts


def test_reads_that_coincide_differently_replay_the_plan():
    """Rows picked by data (`G[idx[t]]`, as NPBench's scattering_self_energies does): within one
    flush the same row is read twice or not, differently from flush to flush. Which reads
    coincide decides nothing about legality, so every flush after the first few replays the
    plan; values as NumPy's, including reads that coincide with each other in one block."""
    rng = np.random.default_rng(8)
    g = rng.random((12, 4, 4))
    v = rng.random((12, 4))
    idx = rng.integers(0, 12, 4000)
    out_ref = np.zeros((8, 4))
    out = hassium.zeros((8, 4))
    hg, hv = hassium.asarray(g), hassium.asarray(v)

    def run():
        for t in range(len(idx)):
            a, b = int(idx[t]), int(idx[(t * 7) % len(idx)])
            for o, gg, vv in ((out_ref, g, v), (out, hg, hv)):
                o[t % 8] += (gg[a] @ vv[b]) * vv[a] + vv[b] * vv[b]

    replayed(run)
    np.testing.assert_allclose(np.asarray(out), out_ref, rtol=1e-12)


def test_matrix_temporaries_replay_without_checks():
    """4x4 products added into a stack of matrices (NPBench's scattering_self_energies): each
    product is a 2-D view of its temporary's base, FREEd as the whole 1-D base. No two views of
    a written base share an element (a FREE accesses none), so the replays of moved views need
    no check of the partition against them."""
    rng = np.random.default_rng(9)
    g = rng.random((12, 4, 4))
    idx = rng.integers(0, 12, 3000)
    out_ref = np.zeros((8, 4, 4))
    out = hassium.zeros((8, 4, 4))
    hg = hassium.asarray(g)

    def run():
        for t in range(len(idx)):
            a, b = int(idx[t]), int(idx[(t * 5) % len(idx)])
            for o, gg in ((out_ref, g), (out, hg)):
                o[t % 8] += (gg[a] @ gg[b]) * 0.5

    counts = replayed(run)
    np.testing.assert_allclose(np.asarray(out), out_ref, rtol=1e-12)
    assert counts["plan_checks"] == 0


def test_replays_whose_constants_stop_agreeing():
    # A fused block's equal constants are one kernel parameter: x * c + y * 0.5 with c == 0.5
    # runs a kernel with one constant. The same flush replayed with c != 0.5 (and with the
    # views moved) must not run that kernel; every step's values are NumPy's.
    a = np.random.default_rng(7).random((50, 64))
    ref = a.copy()
    h = hassium.asarray(a.copy())
    for j, c in enumerate([0.5, 0.5, 2.0, 0.5, -0.0, 0.0, 3.0, 0.5] * 3):
        k = 1 + j % 40
        ref[k] = ref[k - 1] * c + ref[k] * 0.5
        h[k] = h[k - 1] * c + h[k] * 0.5
        assert float(h[k, 3]) == ref[k, 3]  # a flush per step
        np.testing.assert_array_equal(np.asarray(h[k]), ref[k])
    np.testing.assert_array_equal(np.asarray(h), ref)
