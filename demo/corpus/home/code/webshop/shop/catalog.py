PRICES = {"apple": 120, "pear": 95}
