"""N-body "nice": a sun with P planets (all interacting) and A massless asteroids they pull on.

--size P*A*I: planets, asteroids, time steps. Paper-like: --size 100*200000*20
"""
import argparse
import time

import numpy as np

SOFTENING2 = 1e-6  # squared softening length for near misses
DT = 0.002  # the innermost orbit (radius 1, period 2 pi) takes about 3000 steps


def parse_size(parser, text, names):
    try:
        fields = [int(field) for field in text.split("*")]
    except ValueError:
        fields = []
    if len(fields) != len(names) or min(fields) < 1:
        parser.error(f"--size must be {'*'.join(names)} (positive integers), got {text!r}")
    return fields


def circular_orbits(radius, phase, tilt):
    """Positions and velocities on circular orbits around a unit mass at the origin (G = 1)."""
    speed = 1.0 / np.sqrt(radius)
    pos = [radius * np.cos(phase), radius * np.sin(phase), radius * tilt]
    vel = [-speed * np.sin(phase), speed * np.cos(phase), 0.0 * radius]
    return pos, vel


def initial_state(planets, asteroids, dtype):
    """Body 0 is the sun (mass 1); planets at radii 1 .. 5 with masses ~1e-5 .. 1e-3;
    asteroids in a belt between radii 2.2 and 3.3."""
    p = np.arange(planets + 1, dtype=dtype)
    radius = 1.0 + 4.0 * np.maximum(p - 1.0, 0.0) / max(planets - 1, 1)  # the sun: 1, unused
    planet_pos, planet_vel = circular_orbits(radius, 2.399963229728653 * p, 0.01 * np.sin(p))
    planet_pos = [c * (p > 0) for c in planet_pos]  # the sun sits at the origin, at rest
    planet_vel = [c * (p > 0) for c in planet_vel]
    mass = (p == 0) + (p > 0) * (1e-5 + 1e-3 * (0.5 + 0.5 * np.cos(1.7 * p)))
    k = np.arange(asteroids, dtype=dtype)
    belt = 2.2 + 1.1 * (0.6180339887498949 * k - np.floor(0.6180339887498949 * k))
    rock_pos, rock_vel = circular_orbits(belt, 2.399963229728653 * k, 0.05 * np.sin(7.0 * k))
    return planet_pos, planet_vel, mass.astype(dtype), rock_pos, rock_vel


def pull(targets, sources, mass):
    """Gravitational acceleration on each target point from all (softened) source masses."""
    d = [s.reshape(1, -1) - t.reshape(-1, 1) for t, s in zip(targets, sources)]
    r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + SOFTENING2
    weight = mass.reshape(1, -1) / (r2 * np.sqrt(r2))
    return [np.sum(dc * weight, axis=1) for dc in d]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="20*50000*10", help="P*A*I: planets, asteroids, time steps")
    parser.add_argument("--dtype", default="float64", help="float dtype of the state")
    args = parser.parse_args()
    planets, asteroids, steps = parse_size(parser, args.size, ["P", "A", "I"])

    start = time.perf_counter()
    pp, pv, mass, ap, av = initial_state(planets, asteroids, args.dtype)
    belt0 = np.mean(np.sqrt(ap[0] ** 2 + ap[1] ** 2))
    momentum0 = [np.sum(mass * v) for v in pv]
    pa, aa = pull(pp, pp, mass), pull(ap, pp, mass)
    for _ in range(steps):  # kick-drift-kick leapfrog for both populations
        pv = [v + (0.5 * DT) * a for v, a in zip(pv, pa)]
        av = [v + (0.5 * DT) * a for v, a in zip(av, aa)]
        pp = [x + DT * v for x, v in zip(pp, pv)]
        ap = [x + DT * v for x, v in zip(ap, av)]
        pa, aa = pull(pp, pp, mass), pull(ap, pp, mass)
        pv = [v + (0.5 * DT) * a for v, a in zip(pv, pa)]
        av = [v + (0.5 * DT) * a for v, a in zip(av, aa)]
    belt = np.mean(np.sqrt(ap[0] ** 2 + ap[1] ** 2))
    checksum = float(sum(np.sum(x * x) for x in pp) + sum(np.sum(x * x) for x in ap) / asteroids)
    elapsed = time.perf_counter() - start

    drift = max(abs(float(np.sum(mass * v) - m0)) for v, m0 in zip(pv, momentum0))
    print(f"planet momentum drift: {drift:.3e}, mean belt radius {float(belt0):.6f} -> {float(belt):.6f}")
    print(f"elapsed: {elapsed:.6f} s")
    print(f"checksum: {checksum!r}")


if __name__ == "__main__":
    main()
