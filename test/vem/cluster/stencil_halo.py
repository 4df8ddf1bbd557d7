"""Run by test_cluster_mpi.py under `mpirun -np P` (and as one process): counts the bytes the
cluster VEM exchanges for a 2-D 5-point stencil step (and the elements it computes before and
after waiting for them), for fused stencil-free steps and for reads
of single elements of the grid the ranks keep rewriting (a pivot loop), and prints full
reductions and the elements read (their repr, exact) for comparison across P."""
import sys

import hassium as np


def exchanged():
    p = np.profile()
    return p["cluster_bytes_sent"], p["cluster_messages_sent"], p["cluster_ranks"]


def overlapped():
    p = np.profile()
    return p["cluster_overlap_elements"], p["cluster_boundary_elements"]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    grid = np.zeros((n, n))
    grid[0, :] = 1.0
    grid[:, 0] = -2.0
    grid += np.arange(n * n, dtype=np.float64).reshape(n, n) * 1e-6
    np.flush()
    b0, m0, ranks = exchanged()
    o0, a0 = overlapped()
    # One step: the interior from its four neighbours.
    grid[1:-1, 1:-1] = 0.25 * (grid[:-2, 1:-1] + grid[2:, 1:-1] + grid[1:-1, :-2] + grid[1:-1, 2:])
    np.flush()
    o1, a1 = overlapped()
    b1, m1, _ = exchanged()
    # k element-wise steps, no neighbours: nothing to exchange.
    for _ in range(5):
        grid *= 0.5
        grid += 1.0
    np.flush()
    b2, m2, _ = exchanged()
    # Pivot reads: the ranks rewrite the grid, rank 0 reads one element after each step: that
    # element comes over (from its owner), not the grid.
    pivots = []
    for k in range(0, n, n // 8):
        grid *= 1.0001
        pivots.append(float(grid[k, k]))
    b3, m3, _ = exchanged()
    print(f"ranks {ranks}")
    print(f"stencil step: {b1 - b0} bytes in {m1 - m0} messages")
    print(f"element-wise steps: {b2 - b1} bytes in {m2 - m1} messages")
    print(f"pivot reads: {len(pivots)} reads, {b3 - b2} bytes in {m3 - m2} messages")
    print(f"stencil overlap: {o1 - o0} elements before the wait, {a1 - a0} after")
    print(f"pivots {pivots!r}")
    print(f"sum {float(grid.sum())!r}")
    print(f"sum axis 0 {float(grid.sum(axis=0)[7])!r}")
    print(f"max {float(grid.max())!r} min {float(np.min(grid[1:, 3:]))!r}")
    print(f"prod {float(np.prod(grid[::7, 5] * 0.01 + 1.0))!r}")
    print(f"mean of squares {float((grid * grid).mean())!r}")
    print(f"int sum {int(np.arange(3 * n * n, dtype=np.int64).sum())}")
    print(f"checksum {float(grid[n // 2, n // 3])!r} {float(grid[-1, -1])!r}")


if __name__ == "__main__":
    main()
