"""Gaussian elimination: solve a dense diagonally dominant N x N system Ax = b (no pivoting needed).

--size N: matrix order. Paper-like: --size 2500
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


def system(n, dtype):
    """A deterministic, strictly diagonally dominant A and b = A @ x_true."""
    i = np.arange(n, dtype=dtype).reshape(n, 1)
    j = np.arange(n, dtype=dtype).reshape(1, n)
    a = 1.0 / (1.0 + np.abs(i - j)) + 0.1 * np.sin(0.3 * i + 0.7 * j) + float(n) * (i == j).astype(dtype)
    x_true = np.cos(0.01 * np.arange(n, dtype=dtype))
    b = np.sum(a * x_true.reshape(1, n), axis=1)
    return a, b, x_true


def solve(a, b):
    """Forward elimination on [A | b], then column-oriented back substitution."""
    n = a.shape[0]
    m = np.concatenate([a, b.reshape(n, 1)], axis=1)
    for k in range(n - 1):
        factors = m[k + 1:, k:k + 1] / m[k, k]
        m[k + 1:, k:] -= factors * m[k:k + 1, k:]
    rhs = m[:, n].copy()
    x = np.zeros(n, dtype=a.dtype)
    for k in range(n - 1, -1, -1):
        x[k] = rhs[k] / m[k, k]
        rhs[:k] -= m[:k, k] * x[k]
    return x


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="400", help="N: matrix order")
    parser.add_argument("--dtype", default="float64", help="float dtype of the matrix")
    args = parser.parse_args()
    (n,) = parse_size(parser, args.size, ["N"])

    start = time.perf_counter()
    a, b, x_true = system(n, args.dtype)
    x = solve(a, b)
    checksum = float(np.sum(x))
    elapsed = time.perf_counter() - start

    residual = np.max(np.abs(np.sum(a * x.reshape(1, n), axis=1) - b)) / np.max(np.abs(b))
    print(f"relative residual max|Ax-b|/max|b|: {float(residual):.3e}")
    print(f"max error vs known solution: {float(np.max(np.abs(x - x_true))):.3e}")
    print(f"elapsed: {elapsed:.6f} s")
    print(f"checksum: {checksum!r}")


if __name__ == "__main__":
    main()
