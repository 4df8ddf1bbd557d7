"""Scalar reads (a[i, j], float(), an element used as an index) of an array whose values are
ready: no flush, though other work is pending (NPBench's scattering_self_energies indexes with
`neigh_idx[a, b]` inside its loop); an array with a write pending, or sharing memory with one,
is flushed first. Values as NumPy's."""
import numpy as np

import hassium

pending = hassium._hassium.pending


def test_reading_an_input_array_does_not_flush_pending_work():
    idx_np = np.array([3, 1, 2, 0, 3], dtype=np.int32)
    idx = hassium.asarray(idx_np)
    acc = hassium.zeros(4)
    ref = np.zeros(4)
    hassium.flush()
    for i in range(5):
        acc[idx[i]] += 1.0  # the element of idx as an index
        acc[int(idx[i])] *= 2.0
        ref[idx_np[i]] += 1.0
        ref[int(idx_np[i])] *= 2.0
        assert float(idx[i]) == float(idx_np[i])
    assert pending() > 0  # nothing of the loop flushed
    np.testing.assert_array_equal(np.asarray(acc), ref)


def test_an_element_is_copied_when_read():
    n = np.arange(12.0).reshape(3, 4)
    h = hassium.asarray(n.copy())
    hassium.flush()
    s = h[1, 2]  # copied now: the base holds its values
    h[1, 2] = 50.0
    t = h[1, 2]  # recorded: the write is pending
    h[1, 2] = 60.0
    assert float(s) == 6.0 and float(t) == 50.0 and float(h[1, 2]) == 60.0
    assert repr(s) == repr(n[1, 2])


def test_a_write_pending_on_shared_memory_is_seen():
    """Two hassium arrays on one NumPy buffer: a write recorded through one is flushed before
    a scalar read of the other's memory (float() of a 0-d array reads it directly)."""
    n = np.array(5.0)
    a = hassium.asarray(n)
    b = hassium.asarray(n)
    hassium.flush()
    b[()] = 100.0
    assert float(a) == 100.0
    m = np.arange(8)
    whole = hassium.asarray(m)
    part = hassium.asarray(m[2:3].reshape(()))  # one element of the same buffer
    acc = hassium.zeros(8)
    hassium.flush()
    whole[2] = 6
    acc[part] = 1.0  # the index is read after the pending write to `whole`
    assert int(np.asarray(acc).argmax()) == 6
