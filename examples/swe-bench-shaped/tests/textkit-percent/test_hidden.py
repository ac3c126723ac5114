import unittest

from textkit.core import percent


class TestPercentHidden(unittest.TestCase):
    def test_thirds(self):
        self.assertAlmostEqual(percent(1, 3), 100 / 3)

    def test_whole(self):
        self.assertEqual(percent(7, 7), 100)
