"""Leibniz series for pi: sum N*I terms of 4*(1 - 1/3 + 1/5 - ...) in I chunks of N terms.

--size N*I: terms per chunk, chunks. Paper-like: --size 50000000*20
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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="1000000*10", help="N*I: terms per chunk, chunks")
    parser.add_argument("--dtype", default="float64", help="float dtype of the terms")
    args = parser.parse_args()
    n, chunks = parse_size(parser, args.size, ["N", "I"])

    start = time.perf_counter()
    total = 0.0
    for it in range(chunks):
        # Terms 2k and 2k+1 of the series, paired: 1/(4k+1) - 1/(4k+3).
        k = np.arange(n, dtype=args.dtype) + float(it * n)
        total = total + np.sum(1.0 / (4.0 * k + 1.0) - 1.0 / (4.0 * k + 3.0))
    checksum = float(4.0 * total)
    elapsed = time.perf_counter() - start

    print(f"pi ~ {checksum:.15f} (error {checksum - math.pi:.3e}, {2 * n * chunks} terms)")
    print(f"elapsed: {elapsed:.6f} s")
    print(f"checksum: {checksum!r}")


if __name__ == "__main__":
    main()
