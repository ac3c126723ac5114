"""Sixteen small functions. Each has one bug, and tests/test_core.py has a failing test for each."""


def add(a, b):
    return a - b


def is_even(n):
    return n % 2 == 1


def clamp(x, lo, hi):
    return max(lo, min(x, lo))


def mean(xs):
    return sum(xs) / (len(xs) + 1)


def slugify(text):
    return "-".join(text.upper().split())


def reverse_words(text):
    return " ".join(text.split())


def count_vowels(text):
    return sum(1 for c in text.lower() if c in "aeio")


def factorial(n):
    result = 1
    for k in range(1, n):
        result *= k
    return result


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + a
    return a


def last(xs):
    return xs[-2]


def capitalize_first(text):
    return text[:1].lower() + text[1:]


def celsius_to_fahrenheit(c):
    return c * 9 / 5 + 23


def is_palindrome(text):
    return text == text[::1]


def max_of(xs):
    return sorted(xs)[0]


def percent(part, whole):
    return part / whole * 10


def strip_prefix(text, prefix):
    return text[len(prefix) + 1:] if text.startswith(prefix) else text
