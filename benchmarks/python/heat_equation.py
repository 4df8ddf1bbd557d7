"""Heat equation: Jacobi iteration towards the steady temperature of a plate heated on one edge.

--size H*W*I: interior rows, columns, iterations. Paper-like: --size 5000*5000*100
"""
import argparse
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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="500*500*50", help="H*W*I: rows, columns, iterations")
    parser.add_argument("--dtype", default="float64", help="float dtype of the grid")
    parser.add_argument("--check", action="store_true", help="print the error against the steady state")
    args = parser.parse_args()
    rows, cols, iterations = parse_size(parser, args.size, ["H", "W", "I"])

    start = time.perf_counter()
    grid = np.zeros((rows + 2, cols + 2), dtype=args.dtype)  # edges are fixed boundary values
    grid[0, :] = 100.0 * np.sin(np.pi / (cols + 1) * np.arange(cols + 2, dtype=args.dtype))
    for it in range(iterations):
        new = 0.25 * (grid[:-2, 1:-1] + grid[2:, 1:-1] + grid[1:-1, :-2] + grid[1:-1, 2:])
        if it == iterations - 1:
            delta = np.max(np.abs(new - grid[1:-1, 1:-1]))
        grid[1:-1, 1:-1] = new
    checksum = float(np.sum(grid))
    elapsed = time.perf_counter() - start

    print(f"last update (max abs change): {float(delta):.6e}")
    if args.check:
        print(f"max error vs steady state: {float(np.max(np.abs(grid - steady_state(rows, cols)))):.6e}")
    print(f"elapsed: {elapsed:.6f} s")
    print(f"checksum: {checksum!r}")


if __name__ == "__main__":
    main()
