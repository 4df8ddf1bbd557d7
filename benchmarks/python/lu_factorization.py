"""LU factorization (Doolittle, in place, no pivoting) of a dense diagonally dominant N x N matrix.

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


def matrix(n, dtype):
    """A deterministic, strictly diagonally dominant matrix (so LU exists without pivoting)."""
    i = np.arange(n, dtype=dtype).reshape(n, 1)
    j = np.arange(n, dtype=dtype).reshape(1, n)
    return np.cos(0.5 * i - 0.25 * j) / (1.0 + 0.1 * np.abs(i - j)) + 2.0 * float(n) * (i == j).astype(dtype)


def factorize(a):
    """Return M holding L below the diagonal (unit diagonal implied) and U on and above it."""
    n = a.shape[0]
    m = a.copy()
    for k in range(n - 1):
        m[k + 1:, k] /= m[k, k]
        m[k + 1:, k + 1:] -= m[k + 1:, k:k + 1] * m[k:k + 1, k + 1:]
    return m


def split(m):
    n = m.shape[0]
    i = np.arange(n).reshape(n, 1)
    j = np.arange(n).reshape(1, n)
    lower = np.where(i > j, m, 0.0) + (i == j).astype(m.dtype)
    upper = np.where(i <= j, m, 0.0)
    return lower, upper


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="400", help="N: matrix order")
    parser.add_argument("--dtype", default="float64", help="float dtype of the matrix")
    args = parser.parse_args()
    (n,) = parse_size(parser, args.size, ["N"])

    start = time.perf_counter()
    a = matrix(n, args.dtype)
    m = factorize(a)
    checksum = float(np.sum(m))
    elapsed = time.perf_counter() - start

    lower, upper = split(m)
    error = np.max(np.abs(lower @ upper - a)) / np.max(np.abs(a))
    print(f"relative reconstruction error max|LU-A|/max|A|: {float(error):.3e}")
    print(f"elapsed: {elapsed:.6f} s")
    print(f"checksum: {checksum!r}")


if __name__ == "__main__":
    main()
