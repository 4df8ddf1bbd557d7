"""Conway's Game of Life on an H x W board with dead borders, for I generations.

--size H*W*I: board rows, columns, generations. Paper-like: --size 4000*4000*50
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


def initial_board(rows, cols):
    """About 36% live cells from a quadratic form modulo a prime (no RNG, exact integers)."""
    i = np.arange(rows).reshape(rows, 1)
    j = np.arange(cols).reshape(1, cols)
    return ((i * i * 31 + j * j * 17 + i * j * 7 + i * 3 + j * 5) % 1009) < 360


def step(world):
    """One generation; `world` carries a border of dead cells that never changes."""
    n = (world[:-2, :-2] + world[:-2, 1:-1] + world[:-2, 2:]
         + world[1:-1, :-2] + world[1:-1, 2:]
         + world[2:, :-2] + world[2:, 1:-1] + world[2:, 2:])
    alive = world[1:-1, 1:-1]
    world[1:-1, 1:-1] = (n == 3) | ((n == 2) & (alive == 1))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="500*500*20", help="H*W*I: rows, columns, generations")
    parser.add_argument("--dtype", default="float64", help="numeric dtype of the cells (0 or 1), not bool")
    args = parser.parse_args()
    rows, cols, generations = parse_size(parser, args.size, ["H", "W", "I"])

    start = time.perf_counter()
    world = np.zeros((rows + 2, cols + 2), dtype=args.dtype)
    world[1:-1, 1:-1] = initial_board(rows, cols)
    for _ in range(generations):
        step(world)
    checksum = float(np.sum(world))
    elapsed = time.perf_counter() - start

    print(f"live cells: {int(checksum)} of {rows * cols}")
    print(f"elapsed: {elapsed:.6f} s")
    print(f"checksum: {checksum!r}")


if __name__ == "__main__":
    main()
