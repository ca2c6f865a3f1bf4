from shop.catalog import PRICES


def cart_total(items: dict[str, int]) -> int:
    """Total price in cents of {name: quantity}."""
    return sum(PRICES[name] * qty for name, qty in items.items())
