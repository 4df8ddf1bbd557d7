"""Water-ice: seasonal freezing and melting of a 2-D lake section (enthalpy method heat equation).

--size H*W*I: depth cells, horizontal cells, time steps. Paper-like: --size 2000*2000*100

Model (grid units, dx = 1): each cell holds its enthalpy E (heat per volume, relative to
ice at 0 C). Ice (E < 0) has T = E / C_ICE; water (E > LATENT) has T = (E - LATENT) / C_WATER;
in between the cell is slush at 0 C with liquid fraction E / LATENT. Heat conducts with the
phase-weighted conductivity: dE/dt = div(k grad T), explicit Euler. Row 0 touches the air,
whose temperature falls across the lake (a latitude gradient) and follows the seasons;
the bottom sits on water at 4 C; the sides are insulated. The lake starts as water at 4 C
in the coldest part of winter.
"""
import argparse
import math
import time

import numpy as np

C_ICE, C_WATER, LATENT = 0.5, 1.0, 80.0  # volumetric heat capacities and latent heat
K_ICE, K_WATER = 1.0, 0.25  # conductivities
DT = 0.1  # stable: DT * 4 * max(k / c) = 0.8 < 1
YEAR = 100.0  # time units per seasonal cycle (1000 steps)
BOTTOM_T = 4.0


def parse_size(parser, text, names):
    try:
        fields = [int(field) for field in text.split("*")]
    except ValueError:
        fields = []
    if len(fields) != len(names) or min(fields) < 1:
        parser.error(f"--size must be {'*'.join(names)} (positive integers), got {text!r}")
    return fields


def temperature(e):
    return np.minimum(e, 0.0) / C_ICE + np.maximum(e - LATENT, 0.0) / C_WATER


def liquid_fraction(e):
    return np.minimum(np.maximum(e / LATENT, 0.0), 1.0)


def air_temperature(columns, t):
    """Air over the lake: -4 C .. -16 C across it on average, +-10 C over the year."""
    return -4.0 - 12.0 * columns - 10.0 * math.cos(2.0 * math.pi * t / YEAR)


def step(e, columns, t):
    temp = temperature(e)
    k = K_ICE + (K_WATER - K_ICE) * liquid_fraction(e)
    # Vertical fluxes through the H + 1 horizontal faces, air and bottom included.
    air = air_temperature(columns, t)
    t_pad = np.concatenate([air, temp, np.full_like(air, BOTTOM_T)], axis=0)
    k_pad = np.concatenate([k[:1], k, k[-1:]], axis=0)
    flux = 0.5 * (k_pad[1:] + k_pad[:-1]) * (t_pad[1:] - t_pad[:-1])
    change = flux[1:] - flux[:-1]
    # Horizontal fluxes through the W - 1 interior vertical faces (the sides are insulated).
    side = 0.5 * (k[:, 1:] + k[:, :-1]) * (temp[:, 1:] - temp[:, :-1])
    change[:, :-1] += side
    change[:, 1:] -= side
    return e + DT * change


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="200*200*100", help="H*W*I: depth, width, time steps")
    parser.add_argument("--dtype", default="float64", help="float dtype of the enthalpy field")
    args = parser.parse_args()
    depth, width, steps = parse_size(parser, args.size, ["H", "W", "I"])

    start = time.perf_counter()
    columns = np.linspace(0.0, 1.0, width, dtype=args.dtype).reshape(1, width)
    e = np.full((depth, width), LATENT + C_WATER * BOTTOM_T, dtype=args.dtype)
    for it in range(steps):
        e = step(e, columns, it * DT)
    ice = np.mean(1.0 - liquid_fraction(e))
    checksum = float(np.sum(e))
    elapsed = time.perf_counter() - start

    print(f"ice fraction {float(ice):.6f}, mean temperature {float(np.mean(temperature(e))):.6f} C "
          f"after {steps * DT / YEAR:.3f} years")
    print(f"elapsed: {elapsed:.6f} s")
    print(f"checksum: {checksum!r}")


if __name__ == "__main__":
    main()
