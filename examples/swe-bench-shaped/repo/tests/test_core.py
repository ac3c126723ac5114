"""One test class per function of textkit.core: `python3 -m unittest tests.test_core.TestAdd`."""
import unittest

from textkit import core


class TestAdd(unittest.TestCase):
    def test_add(self):
        self.assertEqual(core.add(2, 3), 5)


class TestIsEven(unittest.TestCase):
    def test_is_even(self):
        self.assertTrue(core.is_even(4))


class TestClamp(unittest.TestCase):
    def test_clamp(self):
        self.assertEqual(core.clamp(5, 0, 3), 3)


class TestMean(unittest.TestCase):
    def test_mean(self):
        self.assertEqual(core.mean([1, 2, 3]), 2)


class TestSlugify(unittest.TestCase):
    def test_slugify(self):
        self.assertEqual(core.slugify("Hello World"), "hello-world")


class TestReverseWords(unittest.TestCase):
    def test_reverse_words(self):
        self.assertEqual(core.reverse_words("a b c"), "c b a")


class TestCountVowels(unittest.TestCase):
    def test_count_vowels(self):
        self.assertEqual(core.count_vowels("you"), 2)


class TestFactorial(unittest.TestCase):
    def test_factorial(self):
        self.assertEqual(core.factorial(4), 24)


class TestFib(unittest.TestCase):
    def test_fib(self):
        self.assertEqual(core.fib(6), 8)


class TestLast(unittest.TestCase):
    def test_last(self):
        self.assertEqual(core.last([1, 2, 3]), 3)


class TestCapitalizeFirst(unittest.TestCase):
    def test_capitalize_first(self):
        self.assertEqual(core.capitalize_first("delta"), "Delta")


class TestCelsiusToFahrenheit(unittest.TestCase):
    def test_celsius_to_fahrenheit(self):
        self.assertEqual(core.celsius_to_fahrenheit(100), 212)


class TestIsPalindrome(unittest.TestCase):
    def test_is_palindrome(self):
        self.assertFalse(core.is_palindrome("ab"))


class TestMaxOf(unittest.TestCase):
    def test_max_of(self):
        self.assertEqual(core.max_of([3, 9, 1]), 9)


class TestPercent(unittest.TestCase):
    def test_percent(self):
        self.assertEqual(core.percent(1, 4), 25)


class TestStripPrefix(unittest.TestCase):
    def test_strip_prefix(self):
        self.assertEqual(core.strip_prefix("v1.2", "v"), "1.2")


if __name__ == "__main__":
    unittest.main()
