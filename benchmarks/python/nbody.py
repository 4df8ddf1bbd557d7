"""N-body: I leapfrog steps of N gravitating bodies with all-pairs (softened) forces.

--size N*I: bodies, time steps. Paper-like: --size 5000*20
"""
import argparse
import time

import numpy as np

SOFTENING2 = 0.01  # squared softening length: keeps close encounters finite
DT = 0.001


def parse_size(parser, text, names):
    try:
        fields = [int(field) for field in text.split("*")]
    except ValueError:
        fields = []
    if len(fields) != len(names) or min(fields) < 1:
        parser.error(f"--size must be {'*'.join(names)} (positive integers), got {text!r}")
    return fields


def initial_state(n, dtype):
    """A slowly rotating ball: bodies on a Fibonacci spiral with radii in [0.5, 1), total mass 1."""
    k = np.arange(n, dtype=dtype)
    z = 1.0 - (2.0 * k + 1.0) / n
    ring = np.sqrt(1.0 - z * z)
    phi = 2.399963229728653 * k  # golden angle
    radius = 0.5 + 0.5 * (0.6180339887498949 * k - np.floor(0.6180339887498949 * k))
    pos = [radius * ring * np.cos(phi), radius * ring * np.sin(phi), radius * z]
    vel = [-0.3 * pos[1], 0.3 * pos[0], 0.05 * np.sin(3.0 * k)]
    mass = (1.0 + 0.5 * np.sin(k)) / n
    return pos, vel, mass


def acceleration(pos, mass):
    """a_i = sum_j m_j (x_j - x_i) / (|x_j - x_i|^2 + eps^2)^(3/2); the j = i term is zero."""
    d = [p.reshape(1, -1) - p.reshape(-1, 1) for p in pos]  # d[c][i, j] = p_j - p_i
    r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + SOFTENING2
    weight = mass.reshape(1, -1) / (r2 * np.sqrt(r2))
    return [np.sum(dc * weight, axis=1) for dc in d]


def energy(pos, vel, mass):
    kinetic = 0.5 * np.sum(mass * (vel[0] ** 2 + vel[1] ** 2 + vel[2] ** 2))
    d = [p.reshape(1, -1) - p.reshape(-1, 1) for p in pos]
    r = np.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + SOFTENING2)
    pair = mass.reshape(1, -1) * mass.reshape(-1, 1) / r  # includes i = j terms: constant
    return float(kinetic) - 0.5 * float(np.sum(pair) - np.sum(mass * mass) / np.sqrt(SOFTENING2))


def momentum(vel, mass):
    return np.array([float(np.sum(mass * v)) for v in vel])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="800*10", help="N*I: bodies, time steps")
    parser.add_argument("--dtype", default="float64", help="float dtype of the state")
    args = parser.parse_args()
    n, steps = parse_size(parser, args.size, ["N", "I"])

    pos, vel, mass = initial_state(n, args.dtype)
    p0, e0 = momentum(vel, mass), energy(pos, vel, mass)
    start = time.perf_counter()
    pos, vel, mass = initial_state(n, args.dtype)
    acc = acceleration(pos, mass)
    for _ in range(steps):  # kick-drift-kick leapfrog
        vel = [v + (0.5 * DT) * a for v, a in zip(vel, acc)]
        pos = [p + DT * v for p, v in zip(pos, vel)]
        acc = acceleration(pos, mass)
        vel = [v + (0.5 * DT) * a for v, a in zip(vel, acc)]
    checksum = float(sum(np.sum(p * p) for p in pos) + sum(np.sum(v * v) for v in vel))
    elapsed = time.perf_counter() - start

    drift = np.abs(momentum(vel, mass) - p0).max()
    print(f"momentum drift: {drift:.3e}, relative energy drift: {(energy(pos, vel, mass) - e0) / abs(e0):.3e}")
    print(f"elapsed: {elapsed:.6f} s")
    print(f"checksum: {checksum!r}")


if __name__ == "__main__":
    main()
