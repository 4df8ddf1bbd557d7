"""Two matrix-vector products of one matrix in one flush run as one pass over the matrix
(ve/cpu/paired_matvec.h; profile `matvecs_paired`) when nothing between them writes what the
second reads, and apart otherwise; values as NumPy's either way (to rounding: the paired pass
sums in its own order, as BLAS sums in its own)."""
import numpy as np
import pytest

import hassium

RTOL = 1e-12


def paired(run):
    """Runs `run()` (which flushes) and returns how many products it paired."""
    before = hassium.profile()["matvecs_paired"]
    run()
    return hassium.profile()["matvecs_paired"] - before


def data(n=300, m=None, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    m = n if m is None else m
    return (rng.random((n, m)).astype(dtype), rng.random(m).astype(dtype),
            rng.random(n).astype(dtype), rng.random(n).astype(dtype), rng.random(m).astype(dtype))


def close(h, ref):
    np.testing.assert_allclose(np.asarray(h), ref, rtol=RTOL, atol=0)


def test_mvt_pattern_pairs_a_row_and_a_column_product():
    a, y1, y2, x1, x2 = data(300, 300)
    h = [hassium.asarray(v.copy()) for v in (a, y1, y2, x1, x2)]
    ha, hy1, hy2, hx1, hx2 = h

    def run():
        hx1[...] += ha @ hy1
        hx2[...] += hy2 @ ha
        hassium.flush()

    assert paired(run) == 1
    close(hx1, x1 + a @ y1)
    close(hx2, x2 + y2 @ a)


def test_replays_of_the_flush_pair_every_time():
    a, y1, y2, x1, x2 = data(257, 130, seed=1)
    ha, hy1, hy2 = (hassium.asarray(v) for v in (a, y1, y2))
    hx1, hx2 = hassium.asarray(x1.copy()), hassium.asarray(np.zeros(130))
    rx1, rx2 = x1.copy(), np.zeros(130)

    def run():
        for _ in range(5):
            hx1[...] += ha @ hy1
            hx2[...] += hy2 @ ha
            hassium.flush()

    assert paired(run) == 5
    for _ in range(5):
        rx1 += a @ y1
        rx2 += y2 @ a
    close(hx1, rx1)
    close(hx2, rx2)


@pytest.mark.parametrize("order", ["rows", "columns", "column_first"])
def test_other_pairs(order):
    a, u, w, p, q = data(200, 260, seed=2)
    ha = hassium.asarray(a)
    if order == "rows":  # two products with vectors of the columns' length
        v1, v2 = u, np.linspace(0, 1, 260)
        f = [lambda m, x=v1: m @ x, lambda m, x=v2: m @ x]
    elif order == "columns":  # two weighted sums of the rows
        f = [lambda m, x=w: x @ m, lambda m, x=p: x @ m]
    else:  # bicg: s = r A first, then q = A p
        f = [lambda m, x=w: x @ m, lambda m, x=u: m @ x]
    results = []

    def run():
        results.extend(g(ha) for g in f)
        hassium.flush()

    assert paired(run) == 1
    for g, r in zip(f, results):
        close(r, g(a))


def test_a_product_of_the_first_ones_result_does_not_pair():
    a, x, _, _, _ = data(150, 150, seed=3)
    ha, hx = hassium.asarray(a), hassium.asarray(x)
    out = []

    def run():  # atax: (A x) A reads the first product's result
        t = ha @ hx
        out.append(t @ ha)
        hassium.flush()

    assert paired(run) == 0
    close(out[0], (a @ x) @ a)


def test_a_write_between_to_the_matrix_or_the_vector_keeps_them_apart():
    a, x, y, _, _ = data(180, 180, seed=4)
    ha, hx, hy = hassium.asarray(a.copy()), hassium.asarray(x), hassium.asarray(y.copy())
    out = []

    def matrix_written():
        out.append(ha @ hx)
        ha[3:7, :] *= 2.0
        out.append(hy @ ha)
        hassium.flush()

    def vector_written():
        out.append(ha @ hx)
        hy[...] += 1.0
        out.append(hy @ ha)
        hassium.flush()

    assert paired(matrix_written) == 0
    ra = a.copy()
    r1 = ra @ x
    ra[3:7, :] *= 2.0
    close(out[0], r1)
    close(out[1], y @ ra)
    out.clear()
    assert paired(vector_written) == 0
    close(out[0], ra @ x)
    close(out[1], (y + 1.0) @ ra)


def test_a_transposed_matrix_float32_and_strided_vectors():
    a, x, y, _, _ = data(120, 120, seed=5)
    ha = hassium.asarray(a)
    hat = ha.T  # rows not contiguous: BLAS each, as before
    out = []

    def transposed():
        out.append(hat @ hassium.asarray(x))
        out.append(hassium.asarray(y) @ hat)
        hassium.flush()

    assert paired(transposed) == 0
    close(out[0], a.T @ x)
    close(out[1], y @ a.T)

    a32, x32, y32, _, _ = data(100, 100, seed=6, dtype=np.float32)
    h32 = hassium.asarray(a32)
    r = [h32 @ hassium.asarray(x32), hassium.asarray(y32) @ h32]
    hassium.flush()
    np.testing.assert_allclose(np.asarray(r[0]), a32 @ x32, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(r[1]), y32 @ a32, rtol=1e-5)

    # Strided vectors (every other element, one reversed) pair: they are copied into the pass.
    big = np.random.default_rng(7).random(400)
    hb = hassium.asarray(big)
    out.clear()

    def strided():
        out.append(ha @ hb[::2][:120][::-1])
        out.append(hb[1::3][:120] @ ha)
        hassium.flush()

    assert paired(strided) == 1
    close(out[0], a @ big[::2][:120][::-1])
    close(out[1], big[1::3][:120] @ a)


def test_the_second_output_is_written_when_its_block_runs():
    # The second product writes into an array read before it (in the same flush): the read
    # sees the old values, the product's values land after.
    a, x, y, _, _ = data(90, 90, seed=8)
    ha, hx, hy = (hassium.asarray(v) for v in (a, x, y))
    target = hassium.asarray(np.arange(90.0))
    snapshots = []

    def run():
        first = ha @ hx
        snapshots.append(target * 1.0)  # reads target before the second product writes it
        hassium.matmul(hy, ha, out=target)
        snapshots.append(first)
        hassium.flush()

    n = paired(run)
    close(snapshots[0], np.arange(90.0))
    close(snapshots[1], a @ x)
    close(target, y @ a)
    assert n in (0, 1)  # whether `out=` keeps the product a MATMUL of its own block


def test_a_vector_without_memory_yet_keeps_them_apart():
    # np.empty's base gets memory only when a block first reads it (the second product's), so
    # the first block's pass cannot read it: each product runs alone.
    a, x, _, _, _ = data(100, 80, seed=9)
    ha, hx = hassium.asarray(a), hassium.asarray(x)
    hassium.flush()
    out = []

    def run():
        out.append(ha @ hx)
        out.append(hassium.empty(100) @ ha)
        hassium.flush()

    assert paired(run) == 0
    close(out[0], a @ x)
    assert np.asarray(out[1]).shape == (80,)

