#!/usr/bin/env python3
"""Tests of the comparer of run_case.py: what it accepts and what it must reject."""
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from run_case import compare, element_close  # noqa: E402

EXACT = (0.0, 0.0)


class ElementTests(unittest.TestCase):
    def test_ints_and_bools_exact(self):
        self.assertTrue(element_close("-128", "-128", EXACT))
        self.assertFalse(element_close("-127", "-128", EXACT))
        self.assertTrue(element_close("18446744073709551615", "18446744073709551615", EXACT))
        self.assertFalse(element_close("18446744073709551614", "18446744073709551615", EXACT))
        self.assertTrue(element_close("true", "true", EXACT))
        self.assertFalse(element_close("1", "true", EXACT))
        self.assertFalse(element_close("false", "0", EXACT))

    def test_floats_exact_unless_tolerated(self):
        self.assertTrue(element_close("0.10000000000000001", "0.10000000000000001", EXACT))
        self.assertFalse(element_close("0.10000000000000002", "0.10000000000000001", EXACT))
        self.assertTrue(element_close("0.10000000000000002", "0.10000000000000001",
                                      (1e-12, 0)))
        self.assertTrue(element_close("-0", "0", EXACT))
        self.assertTrue(element_close("nan", "nan", EXACT))
        self.assertFalse(element_close("nan", "1", (1, 1)))
        self.assertFalse(element_close("inf", "-inf", (1, 1)))
        self.assertFalse(element_close("1e308", "inf", (1, 1)))
        self.assertTrue(element_close("1.0000001", "1", (1e-6, 0)))
        self.assertFalse(element_close("1.00001", "1", (1e-6, 0)))

    def test_complex_part_by_part(self):
        self.assertTrue(element_close("(1,-2)", "(1,-2)", EXACT))
        self.assertFalse(element_close("(1,2)", "(1,-2)", EXACT))
        self.assertTrue(element_close("(nan,1)", "(nan,1)", EXACT))
        self.assertFalse(element_close("1", "(1,0)", EXACT))

    def test_garbage_is_a_difference(self):
        self.assertFalse(element_close("abc", "1", EXACT))


class LineTests(unittest.TestCase):
    def test_names_counts_and_values(self):
        self.assertEqual(compare(["A: 1 2"], ["A: 1 2"], {}), [])
        self.assertEqual(compare(["E:"], ["E:"], {}), [])
        self.assertTrue(compare(["A: 1 2"], ["B: 1 2"], {}))
        self.assertTrue(compare(["A: 1"], ["A: 1 2"], {}))
        self.assertTrue(compare([], ["A: 1"], {}))
        self.assertTrue(compare(["A: 1 3"], ["A: 1 2"], {}))
        self.assertEqual(compare(["A: 1 1030"], ["A: 1 1024"], {"A": (0, 10)}), [])


if __name__ == "__main__":
    unittest.main()
