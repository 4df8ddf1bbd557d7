"""Shallow water: a drop in a square basin with reflecting walls, two-step Lax-Wendroff scheme.

--size H*W*I: interior rows, columns, time steps. Paper-like: --size 2000*2000*50
"""
import argparse
import time

import numpy as np

GRAVITY = 9.8
DT, DX, DY = 0.02, 1.0, 1.0  # stable for depths around 1 (CFL ~ 0.06)


def parse_size(parser, text, names):
    try:
        fields = [int(field) for field in text.split("*")]
    except ValueError:
        fields = []
    if len(fields) != len(names) or min(fields) < 1:
        parser.error(f"--size must be {'*'.join(names)} (positive integers), got {text!r}")
    return fields


def reflect(h, u, v):
    """Ghost cells mirror the edge cells; the normal momentum changes sign (a solid wall)."""
    for field, sign_rows, sign_cols in ((h, 1.0, 1.0), (u, -1.0, 1.0), (v, 1.0, -1.0)):
        field[0, :] = sign_rows * field[1, :]
        field[-1, :] = sign_rows * field[-2, :]
        field[:, 0] = sign_cols * field[:, 1]
        field[:, -1] = sign_cols * field[:, -2]


def step(h, u, v):
    """u is the momentum along axis 0 (rows), v along axis 1; all arrays carry ghost cells."""
    reflect(h, u, v)
    # Half step at the midpoints between rows (axis 0), over interior columns.
    hc, uc, vc = h[:, 1:-1], u[:, 1:-1], v[:, 1:-1]
    fh, fu, fv = uc, uc * uc / hc + 0.5 * GRAVITY * hc * hc, uc * vc / hc
    c = 0.5 * DT / DX
    hx = 0.5 * (hc[1:] + hc[:-1]) - c * (fh[1:] - fh[:-1])
    ux = 0.5 * (uc[1:] + uc[:-1]) - c * (fu[1:] - fu[:-1])
    vx = 0.5 * (vc[1:] + vc[:-1]) - c * (fv[1:] - fv[:-1])
    # Half step at the midpoints between columns (axis 1), over interior rows.
    hr, ur, vr = h[1:-1, :], u[1:-1, :], v[1:-1, :]
    gh, gu, gv = vr, ur * vr / hr, vr * vr / hr + 0.5 * GRAVITY * hr * hr
    c = 0.5 * DT / DY
    hy = 0.5 * (hr[:, 1:] + hr[:, :-1]) - c * (gh[:, 1:] - gh[:, :-1])
    uy = 0.5 * (ur[:, 1:] + ur[:, :-1]) - c * (gu[:, 1:] - gu[:, :-1])
    vy = 0.5 * (vr[:, 1:] + vr[:, :-1]) - c * (gv[:, 1:] - gv[:, :-1])
    # Full step from the fluxes at the midpoints.
    fh, fu, fv = ux, ux * ux / hx + 0.5 * GRAVITY * hx * hx, ux * vx / hx
    gh, gu, gv = vy, uy * vy / hy, vy * vy / hy + 0.5 * GRAVITY * hy * hy
    cx, cy = DT / DX, DT / DY
    h[1:-1, 1:-1] -= cx * (fh[1:] - fh[:-1]) + cy * (gh[:, 1:] - gh[:, :-1])
    u[1:-1, 1:-1] -= cx * (fu[1:] - fu[:-1]) + cy * (gu[:, 1:] - gu[:, :-1])
    v[1:-1, 1:-1] -= cx * (fv[1:] - fv[:-1]) + cy * (gv[:, 1:] - gv[:, :-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="400*400*20", help="H*W*I: rows, columns, time steps")
    parser.add_argument("--dtype", default="float64", help="float dtype of the fields")
    args = parser.parse_args()
    rows, cols, steps = parse_size(parser, args.size, ["H", "W", "I"])

    start = time.perf_counter()
    r = np.arange(rows + 2, dtype=args.dtype).reshape(rows + 2, 1) - 0.35 * (rows + 1)
    c = np.arange(cols + 2, dtype=args.dtype).reshape(1, cols + 2) - 0.45 * (cols + 1)
    width = 0.05 * min(rows, cols) + 1.0
    h = 1.0 + 0.2 * np.exp(-(r * r + c * c) / (2.0 * width * width))  # water depth, with a drop
    u = np.zeros_like(h)
    v = np.zeros_like(h)
    mass0 = np.sum(h[1:-1, 1:-1])
    for _ in range(steps):
        step(h, u, v)
    hi, ui, vi = h[1:-1, 1:-1], u[1:-1, 1:-1], v[1:-1, 1:-1]
    checksum = float(np.sum(hi * hi) + np.sum(ui * ui + vi * vi))
    elapsed = time.perf_counter() - start

    drift = (np.sum(hi) - mass0) / mass0
    print(f"relative mass drift: {float(drift):.3e}, max depth {float(np.max(hi)):.6f}")
    print(f"elapsed: {elapsed:.6f} s")
    print(f"checksum: {checksum!r}")


if __name__ == "__main__":
    main()
