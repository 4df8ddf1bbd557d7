"""Rosenbrock: I steps of gradient descent on the N-dimensional Rosenbrock function.

--size N*I: dimensions, iterations. Paper-like: --size 50000000*10
"""
import argparse
import time

import numpy as np

LEARNING_RATE = 2e-4  # below 2 / (largest Hessian eigenvalue) for |x_i| <= 1.3


def parse_size(parser, text, names):
    try:
        fields = [int(field) for field in text.split("*")]
    except ValueError:
        fields = []
    if len(fields) != len(names) or min(fields) < 1:
        parser.error(f"--size must be {'*'.join(names)} (positive integers), got {text!r}")
    return fields


def rosenbrock(x):
    """f(x) = sum_i 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2, minimum 0 at x = (1, ..., 1)."""
    head, tail = x[:-1], x[1:]
    return np.sum(100.0 * (tail - head * head) ** 2 + (1.0 - head) ** 2)


def gradient(x):
    head, tail = x[:-1], x[1:]
    bend = tail - head * head
    grad = np.zeros_like(x)
    grad[:-1] = -400.0 * head * bend - 2.0 * (1.0 - head)
    grad[1:] += 200.0 * bend
    return grad


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="500000*20", help="N*I: dimensions, iterations")
    parser.add_argument("--dtype", default="float64", help="float dtype of the point")
    args = parser.parse_args()
    n, iterations = parse_size(parser, args.size, ["N", "I"])
    if n < 2:
        parser.error("--size: the Rosenbrock function needs N >= 2")

    start = time.perf_counter()
    x = 1.2 * np.cos(0.37 * np.arange(n, dtype=args.dtype))  # start in [-1.2, 1.2]
    f0 = rosenbrock(x)
    for _ in range(iterations):
        x = x - LEARNING_RATE * gradient(x)
    f = rosenbrock(x)
    checksum = float(f)
    elapsed = time.perf_counter() - start

    print(f"f/N: start {float(f0) / n:.6f}, after {iterations} steps {checksum / n:.6f}")
    print(f"elapsed: {elapsed:.6f} s")
    print(f"checksum: {checksum!r}")


if __name__ == "__main__":
    main()
