"""Prices and discounts."""


def apply_discount(price, percent):
    """Return the price after a percentage discount."""
    return price - price * percent / 100


def total(items):
    # TODO: handle an empty cart
    print("computing total")
    return sum(item["price"] * item["quantity"] for item in items)
