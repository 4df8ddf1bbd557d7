"""The runtime under foreign code and threads: no self-deadlock when a flush releases Python
objects (issue 14's hang), threads recording and reading concurrently, the GIL released while a
flush runs. Programs that could hang run in a subprocess with a timeout, so a regression fails
instead of stopping the suite."""

import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np

import hassium

TIMEOUT = 120


def run_isolated_process(code, **env):
    """Runs code in a fresh interpreter with this one's path and `env` added; fails on a hang or
    an error; returns the finished process (stdout, stderr)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), **env)
    try:
        r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, text=True,
                           capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"hung for {TIMEOUT} s:\n{code}") from None
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def run_isolated(code):
    """run_isolated_process(code)'s stdout."""
    return run_isolated_process(code).stdout


def test_flush_releasing_numpy_memory_does_not_deadlock():
    # The stack of the hang: a flush FREEs a base borrowed from a NumPy array; dropping that
    # array drops the capsule of an exported hassium array, whose owner records a FREE.
    out = run_isolated("""
        import gc, numpy
        import hassium as hs
        total = 0
        for i in range(300):
            a = hs.arange(10.0) + i          # hassium memory
            n = numpy.asarray(a)             # exported: n's capsule owns a's base
            w = hs.asarray(n)                # wrapped back: w's base borrows n's memory
            del a, n
            w2 = w * 2
            del w                            # the next flush FREEs w's base, releasing n
            if i % 7 == 0:
                gc.collect()
            total += int(w2[1])              # a read flushes
        print(total)
    """)
    assert int(out) == sum(2 * (1 + i) for i in range(300))


def test_release_inside_flush_while_gc_runs_from_finalizers():
    # Finalizers that read hassium values run during the releases a flush defers.
    out = run_isolated("""
        import gc, numpy
        import hassium as hs
        reads = []
        class Holder:
            def __init__(self, arr):
                self.arr = arr
                self.me = self              # a cycle: only the GC frees it
            def __del__(self):
                reads.append(float(self.arr.sum()))
        gc.disable()
        for i in range(200):
            h = Holder(hs.asarray(numpy.asarray(hs.ones(4) * i)))
            del h
            x = hs.ones(3) + i
            if i % 10 == 0:
                gc.collect()
            int(x[0])
        gc.collect()
        print(len(reads), sum(reads))
    """)
    count, total = out.split()
    assert int(count) == 200 and float(total) == 4 * sum(range(200))


def test_two_threads_record_and_read_concurrently():
    errors = []

    def worker(seed):
        try:
            rng = np.random.default_rng(seed)
            ref = rng.random(1000)
            h = hassium.asarray(ref.copy())
            for i in range(300):
                c = float(i % 5)
                ref = np.sqrt(ref * 0.5 + c) - 0.25
                h = hassium.sqrt(h * 0.5 + c) - 0.25
                if i % 3 == 0:
                    got = float(h[i % 1000])    # a read: sync of this thread's base
                    if got != ref[i % 1000]:
                        errors.append((seed, i, got, ref[i % 1000]))
                if i % 50 == 0:
                    np.testing.assert_allclose(np.asarray(h), ref, rtol=1e-12)
        except Exception as e:  # noqa: BLE001
            errors.append((seed, repr(e)))

    threads = [threading.Thread(target=worker, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
        assert not t.is_alive(), "a thread hung"
    assert errors == []


def test_gil_is_released_while_a_flush_runs():
    # A pure-Python counter in a second thread advances only while the GIL is free. Held
    # through a flush, the GIL would let it run at most a switch interval or two (5 ms each);
    # released, it runs through most of the flush.
    stop = threading.Event()
    counter = [0]

    def spin():
        while not stop.is_set():
            counter[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    c0 = counter[0]
    time.sleep(0.2)
    rate = (counter[0] - c0) / 0.2                 # increments per second with the GIL free
    threshold = hassium._hassium.flush_threshold()
    hassium._hassium.set_flush_threshold(10**6)      # the whole chain in the one flush below
    try:
        x = hassium.arange(4_000_000) * 1e-7
        for _ in range(100):
            x = hassium.sin(x) * 1.0001 + hassium.cos(x)
        before = counter[0]
        t0 = time.perf_counter()
        hassium.flush()
        elapsed = time.perf_counter() - t0
    finally:
        hassium._hassium.set_flush_threshold(threshold)
    during = counter[0] - before
    stop.set()
    t.join()
    assert elapsed > 0.1, f"the flush ({elapsed:.3f} s) was too short to tell"
    assert during > 0.2 * rate * elapsed, (
        f"{during} increments during a {elapsed:.3f} s flush; {rate:.0f}/s with the GIL free")
    assert np.isfinite(float(x[12345]))


def test_exit_while_a_daemon_thread_flushes():
    # The interpreter exits while a daemon thread's flush still runs (without the GIL): the exit
    # hook waits for that flush (up to 10 s) and then tears the runtime down, which the profile
    # it prints shows; the daemon thread waits for the process to end; the process ends cleanly.
    code = """
        import threading, time
        import hassium as hs
        hs._hassium.set_flush_threshold(10**6)
        started = threading.Event()
        def work():
            x = hs.arange(4_000_000) * 1e-7
            for _ in range(60):
                x = hs.sin(x) * 1.0001 + hs.cos(x)
            started.set()
            hs.flush()                   # still running when the main thread exits
        threading.Thread(target=work, daemon=True).start()
        started.wait()
        time.sleep(0.05)
        print("main exits", flush=True)
    """
    # Before without_gil took the GIL back in plain code, the daemon thread was ended inside
    # pybind11's gil_scoped_release destructor: "terminate called without an active exception",
    # SIGABRT, in about one run of three (a race with the process's exit): three runs.
    for _ in range(3):
        r = run_isolated_process(code, HASSIUM_PROFILE="1")
        assert r.stdout == "main exits\n"
        assert "hassium profile:" in r.stderr, r.stderr
