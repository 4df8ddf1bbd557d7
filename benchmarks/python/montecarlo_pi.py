"""Monte Carlo pi: the fraction of N*I points of the unit square inside the quarter circle, times 4.

--size N*I: points per iteration, iterations. Paper-like: --size 20000000*20
By default the points are the R2 low-discrepancy sequence (deterministic, identical on any
array backend); --no-deterministic draws them from np.random.default_rng(--seed) instead.
"""
import argparse
import math
import time

import numpy as np

# R2 sequence (Roberts 2018): point n is frac(0.5 + n * (1/g, 1/g^2)), g the plastic number.
# The fractions are kept as exact 32-bit fixed-point integers, so any dtype and any count work.
PLASTIC = 1.32471795724474602596
STEP1 = round(2**32 / PLASTIC)
STEP2 = round(2**32 / (PLASTIC * PLASTIC))


def parse_size(parser, text, names):
    try:
        fields = [int(field) for field in text.split("*")]
    except ValueError:
        fields = []
    if len(fields) != len(names) or min(fields) < 1:
        parser.error(f"--size must be {'*'.join(names)} (positive integers), got {text!r}")
    return fields


def r2_points(first, n, dtype):
    """Points first .. first+n-1 of the R2 sequence as two arrays in [0, 1)."""
    k = np.arange(n, dtype=np.int64)
    x = ((first * STEP1 + 2**31) % 2**32 + k * STEP1) % 2**32
    y = ((first * STEP2 + 2**31) % 2**32 + k * STEP2) % 2**32
    return x.astype(dtype) * 2.0**-32, y.astype(dtype) * 2.0**-32


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="1000000*10", help="N*I: points per iteration, iterations")
    parser.add_argument("--dtype", default="float64", help="float dtype of the coordinates")
    parser.add_argument("--deterministic", action=argparse.BooleanOptionalAction, default=True,
                        help="use the R2 sequence (default) instead of pseudo-random numbers")
    parser.add_argument("--seed", type=int, default=42, help="seed for --no-deterministic")
    args = parser.parse_args()
    n, iterations = parse_size(parser, args.size, ["N", "I"])

    start = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    inside = 0.0
    for it in range(iterations):
        if args.deterministic:
            x, y = r2_points(it * n, n, args.dtype)
        else:
            x, y = rng.random(n, dtype=args.dtype), rng.random(n, dtype=args.dtype)
        inside = inside + np.sum((x * x + y * y) <= 1.0)
    checksum = float(4.0 * inside / (n * iterations))
    elapsed = time.perf_counter() - start

    print(f"pi ~ {checksum:.9f} (error {checksum - math.pi:.3e}, {n * iterations} points)")
    print(f"elapsed: {elapsed:.6f} s")
    print(f"checksum: {checksum!r}")


if __name__ == "__main__":
    main()
