"""27-point stencil: repeated 3x3x3 box averaging of the interior of a 3-D grid with fixed faces.

--size X*Y*Z*I: interior extents, iterations. Paper-like: --size 256*256*256*15
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


def initial_grid(nx, ny, nz, dtype):
    """A smooth deterministic field including its boundary layer (kept fixed)."""
    x = np.arange(nx + 2, dtype=dtype).reshape(nx + 2, 1, 1)
    y = np.arange(ny + 2, dtype=dtype).reshape(1, ny + 2, 1)
    z = np.arange(nz + 2, dtype=dtype).reshape(1, 1, nz + 2)
    return np.sin(0.11 * x) * np.cos(0.07 * y) + 0.01 * z + 0.5 * np.sin(0.05 * (x + y + z))


def step(grid, measure):
    """Replace every interior point by the mean of its 3x3x3 neighbourhood (Jacobi style);
    if `measure`, return the largest change."""
    nx, ny, nz = (extent - 2 for extent in grid.shape)
    total = None
    for dx in range(3):
        for dy in range(3):
            for dz in range(3):
                block = grid[dx:dx + nx, dy:dy + ny, dz:dz + nz]
                total = block if total is None else total + block
    new = total * (1.0 / 27.0)
    delta = np.max(np.abs(new - grid[1:-1, 1:-1, 1:-1])) if measure else None
    grid[1:-1, 1:-1, 1:-1] = new
    return delta


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="80*80*80*10", help="X*Y*Z*I: extents, iterations")
    parser.add_argument("--dtype", default="float64", help="float dtype of the grid")
    args = parser.parse_args()
    nx, ny, nz, iterations = parse_size(parser, args.size, ["X", "Y", "Z", "I"])

    start = time.perf_counter()
    grid = initial_grid(nx, ny, nz, args.dtype)
    for it in range(iterations):
        delta = step(grid, it == iterations - 1)
    checksum = float(np.sum(grid))
    elapsed = time.perf_counter() - start

    print(f"last update (max abs change): {float(delta):.6e}")
    print(f"elapsed: {elapsed:.6f} s")
    print(f"checksum: {checksum!r}")


if __name__ == "__main__":
    main()
