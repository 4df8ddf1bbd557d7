"""A NumPy reference executor of hassium bytecode, for the tests.

conftest.py installs it (through _hassium._install_python_backend) when the module was built
without an execution stack, or when HASSIUM_TEST_BACKEND=reference. Each flush hands over the
program as (opcode name, operands): views are NumPy arrays over the bases' memory, constants
NumPy scalars; this runs them in order with NumPy, each opcode meaning what core/opcodes.def
says. It checks the frontend's bytecode against NumPy without any engine, and can serve as the
reference an engine is compared with.
"""

import numpy as np

_BINARY = {
    "ADD": np.add, "SUBTRACT": np.subtract, "MULTIPLY": np.multiply, "DIVIDE": np.divide,
    "FLOOR_DIVIDE": np.floor_divide, "MOD": np.remainder, "FMOD": np.fmod, "POWER": np.power,
    "MAXIMUM": np.maximum, "MINIMUM": np.minimum, "ARCTAN2": np.arctan2, "HYPOT": np.hypot,
    "LEFT_SHIFT": np.left_shift, "RIGHT_SHIFT": np.right_shift, "BITWISE_AND": np.bitwise_and,
    "BITWISE_OR": np.bitwise_or, "BITWISE_XOR": np.bitwise_xor, "LOGICAL_AND": np.logical_and,
    "LOGICAL_OR": np.logical_or, "LOGICAL_XOR": np.logical_xor, "EQUAL": np.equal,
    "NOT_EQUAL": np.not_equal, "GREATER": np.greater, "GREATER_EQUAL": np.greater_equal,
    "LESS": np.less, "LESS_EQUAL": np.less_equal, "COPYSIGN": np.copysign, "FMAX": np.fmax,
    "FMIN": np.fmin, "LOGADDEXP": np.logaddexp, "LOGADDEXP2": np.logaddexp2,
    "HEAVISIDE": np.heaviside, "NEXTAFTER": np.nextafter, "GCD": np.gcd, "LCM": np.lcm,
}
_UNARY = {
    "NEGATIVE": np.negative, "ABSOLUTE": np.absolute, "SIGN": np.sign,
    "LOGICAL_NOT": np.logical_not, "INVERT": np.invert, "SQRT": np.sqrt, "EXP": np.exp,
    "EXP2": np.exp2, "EXPM1": np.expm1, "LOG": np.log, "LOG2": np.log2, "LOG10": np.log10,
    "LOG1P": np.log1p, "SIN": np.sin, "COS": np.cos, "TAN": np.tan, "ARCSIN": np.arcsin,
    "ARCCOS": np.arccos, "ARCTAN": np.arctan, "SINH": np.sinh, "COSH": np.cosh, "TANH": np.tanh,
    "ARCSINH": np.arcsinh, "ARCCOSH": np.arccosh, "ARCTANH": np.arctanh, "FLOOR": np.floor,
    "CEIL": np.ceil, "TRUNC": np.trunc, "RINT": np.rint, "ISNAN": np.isnan, "ISINF": np.isinf,
    "ISFINITE": np.isfinite, "CONJ": np.conjugate, "CBRT": np.cbrt, "SIGNBIT": np.signbit,
    "SPACING": np.spacing,
}
_REDUCE = {
    "ADD_REDUCE": np.add, "MULTIPLY_REDUCE": np.multiply, "MINIMUM_REDUCE": np.minimum,
    "MAXIMUM_REDUCE": np.maximum, "LOGICAL_AND_REDUCE": np.logical_and,
    "LOGICAL_OR_REDUCE": np.logical_or, "LOGICAL_XOR_REDUCE": np.logical_xor,
    "BITWISE_AND_REDUCE": np.bitwise_and, "BITWISE_OR_REDUCE": np.bitwise_or,
    "BITWISE_XOR_REDUCE": np.bitwise_xor,
}
_SCAN = {"ADD_ACCUMULATE": np.add, "MULTIPLY_ACCUMULATE": np.multiply}

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)
_MASK = np.uint64(0xFFFFFFFF)


def philox4x32_bits(seed, counter, n):
    """uint64 bits of element i: the first two words of Philox4x32-10 with counter
    (counter + i as two words, 0, 0) and key (seed low word, seed high word)."""
    ctr = np.uint64(counter) + np.arange(n, dtype=np.uint64)
    c0, c1 = ctr & _MASK, ctr >> np.uint64(32)
    c2 = np.zeros(n, np.uint64)
    c3 = np.zeros(n, np.uint64)
    k0, k1 = np.uint64(seed) & _MASK, np.uint64(seed) >> np.uint64(32)
    for r in range(10):
        if r:
            k0, k1 = (k0 + _W0) & _MASK, (k1 + _W1) & _MASK
        p0, p1 = _M0 * c0, _M1 * c2
        hi0, lo0 = p0 >> np.uint64(32), p0 & _MASK
        hi1, lo1 = p1 >> np.uint64(32), p1 & _MASK
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    return c0 | (c1 << np.uint64(32))


def _check_index(index, bound):
    """The engine's bounds check (indices in [0, bound)): IndexError(message, index, bound), which
    the Python backend (python_backend.cpp) raises on as the engine's IndexOutOfBounds."""
    bad = (index < 0) | (index >= bound)
    if np.any(bad):
        v = int(index[bad].flat[0])
        raise IndexError(f"index {v} is out of bounds for size {bound}", v, int(bound))


def _run(op, ops):
    out = ops[0]
    if op in _BINARY:
        _BINARY[op](ops[1], ops[2], out=out)
    elif op in _UNARY:
        _UNARY[op](ops[1], out=out)
    elif op == "IDENTITY":
        np.copyto(out, ops[1], casting="unsafe")
    elif op == "REAL":
        np.copyto(out, np.real(ops[1]))
    elif op == "IMAG":
        np.copyto(out, np.imag(ops[1]))
    elif op in _REDUCE:
        _REDUCE[op].reduce(ops[1], axis=int(ops[2]), dtype=out.dtype, out=out)
    elif op in _SCAN:
        _SCAN[op].accumulate(ops[1], axis=int(ops[2]), dtype=out.dtype, out=out)
    elif op == "RANGE":
        np.copyto(out, np.arange(out.size).reshape(out.shape), casting="unsafe")
    elif op == "RANDOM":
        out[...] = philox4x32_bits(int(ops[1]), int(ops[2]), out.size).reshape(out.shape)
    elif op == "GATHER":
        _check_index(ops[2], ops[1].size)
        out[...] = ops[1].reshape(-1)[ops[2]]
    elif op == "SCATTER":
        _check_index(ops[2], out.size)
        out.flat[ops[2].reshape(-1)] = ops[1].reshape(-1)
    elif op == "COND_SCATTER":
        mask = ops[3].reshape(-1)
        _check_index(ops[2].reshape(-1)[mask], out.size)
        out.flat[ops[2].reshape(-1)[mask]] = ops[1].reshape(-1)[mask]
    elif op.endswith("_AT"):  # ADD_AT and friends: NumPy's ufunc.at on out's positions
        idx = ops[2].reshape(-1)
        _check_index(idx, out.size)
        getattr(np, op[:-3].lower()).at(out, np.unravel_index(idx, out.shape), ops[1].reshape(-1))
    elif op == "WHERE":
        np.copyto(out, np.where(ops[1], ops[2], ops[3]), casting="unsafe")
    elif op in ("SORT", "ARGSORT"):
        f = np.sort if op == "SORT" else np.argsort
        np.copyto(out, f(ops[1], axis=int(ops[2]), kind="stable"), casting="unsafe")
    elif op.startswith("SEARCHSORTED_"):
        side = op.rsplit("_", 1)[1].lower()
        np.copyto(out, np.searchsorted(ops[1], ops[2], side=side), casting="unsafe")
    elif op == "MATMUL":
        np.matmul(ops[1], ops[2], out=out)
    elif op in ("FREE", "SYNC"):
        pass
    else:
        raise NotImplementedError(f"reference backend: no opcode {op}")


def execute(instrs):
    import warnings

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for op, ops in instrs:
            _run(op, ops)
