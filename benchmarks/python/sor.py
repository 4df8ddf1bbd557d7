"""Successive over-relaxation (red-black ordering) for the Laplace equation on a plate heated on one edge.

--size H*W*I: interior rows, columns, sweeps. Paper-like: --size 5000*5000*50
"""
import argparse
import math
import time

import numpy as np


def parse_size(parser, text, names):
    try:
        fields = [int(field) for field in text.split("*")]
    except ValueError:
        fields = []
    if len(fields) != len(names) or min(fields) < 1:
        parser.error(f"--size must be {'*'.join(names)} (positive integers), got {text!r}")
    return fields


def steady_state(rows, cols):
    """Exact solution of the discrete Laplace equation with this program's boundaries."""
    theta = np.pi / (cols + 1)
    lam = np.arccosh(2.0 - np.cos(theta))
    height = (rows + 1) - np.arange(rows + 2).reshape(rows + 2, 1)  # 0 at the bottom edge
    profile = 100.0 * np.sin(theta * np.arange(cols + 2)).reshape(1, cols + 2)
    return profile * np.sinh(lam * height) / np.sinh(lam * (rows + 1))


def relax(grid, first_row, first_col, omega):
    """Over-relax the interior points (i, j) with i = first_row, first_row + 2, ... and
    j = first_col, first_col + 2, ...; their four neighbours all have the other colour."""
    rows, cols = grid.shape[0] - 2, grid.shape[1] - 2
    r, c = first_row, first_col
    centre = grid[r:rows + 1:2, c:cols + 1:2]
    neighbours = (grid[r - 1:rows:2, c:cols + 1:2] + grid[r + 1:rows + 2:2, c:cols + 1:2]
                  + grid[r:rows + 1:2, c - 1:cols:2] + grid[r:rows + 1:2, c + 1:cols + 2:2])
    grid[r:rows + 1:2, c:cols + 1:2] = (1.0 - omega) * centre + (0.25 * omega) * neighbours


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="500*500*20", help="H*W*I: rows, columns, sweeps")
    parser.add_argument("--dtype", default="float64", help="float dtype of the grid")
    parser.add_argument("--check", action="store_true", help="print the error against the steady state")
    args = parser.parse_args()
    rows, cols, sweeps = parse_size(parser, args.size, ["H", "W", "I"])
    omega = 2.0 / (1.0 + math.sin(math.pi / (max(rows, cols) + 1)))  # optimal for the square

    start = time.perf_counter()
    grid = np.zeros((rows + 2, cols + 2), dtype=args.dtype)  # edges are fixed boundary values
    grid[0, :] = 100.0 * np.sin(np.pi / (cols + 1) * np.arange(cols + 2, dtype=args.dtype))
    for _ in range(sweeps):
        for first_row, first_col in ((1, 1), (2, 2), (1, 2), (2, 1)):  # red, then black
            relax(grid, first_row, first_col, omega)
    checksum = float(np.sum(grid))
    elapsed = time.perf_counter() - start

    if args.check:
        print(f"max error vs steady state: {float(np.max(np.abs(grid - steady_state(rows, cols)))):.6e}")
    print(f"elapsed: {elapsed:.6f} s")
    print(f"checksum: {checksum!r}")


if __name__ == "__main__":
    main()
