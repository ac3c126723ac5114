"""The shopping cart."""
from pricing import apply_discount, total


def checkout(items, discount_percent=0):
    """Total of the cart in cents, after the discount."""
    return apply_discount(total(items), discount_percent)
