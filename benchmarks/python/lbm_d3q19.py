"""Lattice Boltzmann D3Q19 (BGK): body-force-driven flow past a sphere in a periodic box.

--size X*Y*Z*I: lattice extents, time steps. Paper-like: --size 120*120*120*20
"""
import argparse
import time

import numpy as np

TAU = 0.8  # relaxation time: kinematic viscosity (TAU - 1/2) / 3
FORCE = 1e-5  # body force along x per unit density
# The 19 lattice velocities: rest, 6 faces, 12 edges; and their weights.
VELOCITIES = [(0, 0, 0)] + [
    v for v in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))
] + [(a, b, 0) for a in (1, -1) for b in (1, -1)] + [(a, 0, b) for a in (1, -1) for b in (1, -1)] + [
    (0, a, b) for a in (1, -1) for b in (1, -1)]
WEIGHTS = [1.0 / 3.0] + [1.0 / 18.0] * 6 + [1.0 / 36.0] * 12
OPPOSITE = [VELOCITIES.index((-a, -b, -c)) for a, b, c in VELOCITIES]


def parse_size(parser, text, names):
    try:
        fields = [int(field) for field in text.split("*")]
    except ValueError:
        fields = []
    if len(fields) != len(names) or min(fields) < 1:
        parser.error(f"--size must be {'*'.join(names)} (positive integers), got {text!r}")
    return fields


def signed_sum(signs, arrays):
    """sum(s * a), written with additions and subtractions only (each sign is -1, 0 or 1)."""
    total = 0.0
    for sign, array in zip(signs, arrays):
        if sign:
            total = total + array if sign > 0 else total - array
    return total


def equilibrium(q, rho, ux, uy, uz, usq):
    cu = signed_sum(VELOCITIES[q], (ux, uy, uz))
    return (WEIGHTS[q] * rho) * (1.0 + 3.0 * cu + 4.5 * cu * cu - 1.5 * usq)


def step(f, solid, fluid):
    """Stream (periodic), bounce back inside the sphere, then BGK-collide the fluid nodes."""
    streamed = []
    for q, c in enumerate(VELOCITIES):
        axes = [axis for axis in range(3) if c[axis]]
        streamed.append(np.roll(f[q], [c[axis] for axis in axes], axis=axes) if axes else f[q])
    f = [streamed[q] * fluid + streamed[OPPOSITE[q]] * solid for q in range(19)]
    rho = sum(f)
    ux, uy, uz = (signed_sum([c[axis] for c in VELOCITIES], f) / rho for axis in range(3))
    ux = ux + TAU * FORCE  # forcing by shifting the equilibrium velocity
    usq = ux * ux + uy * uy + uz * uz
    return [f[q] - (fluid / TAU) * (f[q] - equilibrium(q, rho, ux, uy, uz, usq)) for q in range(19)]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="32*32*32*10", help="X*Y*Z*I: extents, time steps")
    parser.add_argument("--dtype", default="float64", help="float dtype of the distributions")
    args = parser.parse_args()
    nx, ny, nz, steps = parse_size(parser, args.size, ["X", "Y", "Z", "I"])

    start = time.perf_counter()
    x = np.arange(nx, dtype=args.dtype).reshape(nx, 1, 1) - 0.5 * (nx - 1)
    y = np.arange(ny, dtype=args.dtype).reshape(1, ny, 1) - 0.5 * (ny - 1)
    z = np.arange(nz, dtype=args.dtype).reshape(1, 1, nz) - 0.5 * (nz - 1)
    radius = 0.2 * min(nx, ny, nz)
    solid = (x * x + y * y + z * z <= radius * radius).astype(args.dtype)
    fluid = 1.0 - solid
    f = [np.full((nx, ny, nz), w, dtype=args.dtype) for w in WEIGHTS]  # rest, density 1
    for _ in range(steps):
        f = step(f, solid, fluid)
    mass = np.sum(sum(f))
    momentum_x = np.sum(signed_sum([c[0] for c in VELOCITIES], f))
    checksum = float(mass + momentum_x)
    elapsed = time.perf_counter() - start

    print(f"mass {float(mass):.12g} (lattice {nx * ny * nz}), mean velocity x {float(momentum_x / mass):.6e}")
    print(f"elapsed: {elapsed:.6f} s")
    print(f"checksum: {checksum!r}")


if __name__ == "__main__":
    main()
