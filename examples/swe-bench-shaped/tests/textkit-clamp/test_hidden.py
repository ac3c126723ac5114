import unittest

from textkit.core import clamp


class TestClampHidden(unittest.TestCase):
    def test_inside(self):
        self.assertEqual(clamp(2, 0, 3), 2)

    def test_below(self):
        self.assertEqual(clamp(-1, 0, 3), 0)

    def test_at_the_bounds(self):
        self.assertEqual(clamp(0, 0, 3), 0)
        self.assertEqual(clamp(3, 0, 3), 3)
