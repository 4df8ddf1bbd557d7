"""einsum, recorded: each pair of operands contracted by one product (tensordot's transposes and
reshapes around BLAS) or, where an index is shared by both and the result (a batch), by a
broadcast product summed over the contracted indices; indices only one operand has, and not the
result, are summed first. Operands are taken left to right. Ellipses, repeated indices within
an operand (diagonals) and the keyword arguments run through NumPy.
"""

import string

import numpy as _np

from . import _fallback, _hassium
from ._functions import _arr, transpose
from ._composed import tensordot

_uf = _hassium.ufuncs
_LETTERS = set(string.ascii_letters)


def _through_numpy(args, kwargs):
    return _fallback.run(_np.einsum, "einsum", args, kwargs)


def _parse(subscripts, n):
    """(input terms, output term) of an explicit or implicit subscript string; None when it has
    what this module leaves to NumPy."""
    spec = subscripts.replace(" ", "")
    if "." in spec:
        return None
    if "->" in spec:
        ins, out = spec.split("->")
    else:
        ins = spec
        counts = {}
        for c in ins.replace(",", ""):
            counts[c] = counts.get(c, 0) + 1
        out = "".join(sorted(c for c, k in counts.items() if k == 1))
    terms = ins.split(",")
    if len(terms) != n or not all(set(t) <= _LETTERS for t in terms + [out]):
        return None
    if any(len(set(t)) != len(t) for t in terms + [out]) or not set(out) <= set("".join(terms)):
        return None
    return terms, out


def _sum_to(x, term, keep):
    """x (indexed by term) summed over the indices not in keep: (array, its term)."""
    axes = tuple(k for k, c in enumerate(term) if c not in keep)
    if not axes:
        return x, term
    # in x's own dtype, as einsum sums (int8 stays int8, unlike sum())
    return x.sum(axis=axes, dtype=x.dtype), "".join(c for c in term if c in keep)


def _contract(a, ta, b, tb, keep):
    """The product of a (term ta) and b (term tb) summed over their shared indices not in
    keep: (array, its term)."""
    a, ta = _sum_to(a, ta, set(tb) | keep)
    b, tb = _sum_to(b, tb, set(ta) | keep)
    shared = [c for c in ta if c in tb]
    batch = [c for c in shared if c in keep]
    inner = [c for c in shared if c not in keep]
    if not batch:
        r = tensordot(a, b, axes=([ta.index(c) for c in inner], [tb.index(c) for c in inner]))
        return r, "".join(c for c in ta if c not in inner) + "".join(c for c in tb if c not in inner)
    # A batch index: a broadcast product over every index, summed over the inner ones.
    term = ta + "".join(c for c in tb if c not in ta)
    ea = a.reshape(a.shape + (1,) * (len(term) - len(ta)))
    order_b = [tb.index(c) if c in tb else None for c in term]
    tb_sorted = [c for c in term if c in tb]
    bt = transpose(b, [tb.index(c) for c in tb_sorted])
    eb = bt.reshape(tuple(bt.shape[tb_sorted.index(c)] if i is not None else 1
                          for c, i in zip(term, order_b)))
    p = _uf["multiply"](ea, eb)
    return _sum_to(p, term, keep)


def einsum(*operands, out=None, optimize=False, dtype=None, order="K", casting="safe"):
    if not operands or not isinstance(operands[0], str) or out is not None or \
            dtype is not None or order != "K" or casting != "safe":
        return _through_numpy(operands, dict(out=out, optimize=optimize, dtype=dtype, order=order,
                                             casting=casting))
    arrays = [_arr(x) for x in operands[1:]]
    parsed = _parse(operands[0], len(arrays))
    if parsed is None or any(a.ndim != len(t) for a, t in zip(arrays, parsed[0])):
        return _through_numpy(operands, dict(optimize=optimize))
    terms, out_term = parsed
    sizes = {}
    for a, t in zip(arrays, terms):
        for c, n in zip(t, a.shape):
            if sizes.setdefault(c, n) != n:  # (NumPy's broadcasting of 1s, or its error)
                return _through_numpy(operands, dict(optimize=optimize))
    acc, term = arrays[0], terms[0]
    for k in range(1, len(arrays)):
        later = set(out_term).union(*terms[k + 1:])
        acc, term = _contract(acc, term, arrays[k], terms[k], later)
    acc, term = _sum_to(acc, term, set(out_term))
    if term != out_term:
        acc = transpose(acc, [term.index(c) for c in out_term])
    if len(arrays) == 1 and acc is arrays[0]:
        acc = acc.copy()  # NumPy's einsum of one operand without a sum is a view; a copy here
    return acc
