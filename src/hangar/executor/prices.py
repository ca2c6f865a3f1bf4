"""Prices of model calls, from a local table: never fetched.

The table ships with hangar (``executor/prices.toml``: public list prices, in US dollars per
million tokens) and can be overridden per model, or extended, by ``$HANGAR_HOME/prices.toml``
in the same format. A model key ending in ``*`` matches every model name it starts (the longest
such key wins); an exact key always wins. A model without a price is reported as unpriced,
never guessed.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from hangar.errors import CorruptFileError
from hangar.model import TokenUse

PER_TOKENS = 1_000_000


@dataclass(frozen=True)
class Price:
    input: float
    output: float
    cache_read: float
    cache_write: float

    def cost(self, tokens: TokenUse) -> float:
        return (
            tokens.input * self.input
            + tokens.cache_read * self.cache_read
            + tokens.cache_write * self.cache_write
            + tokens.output * self.output
        ) / PER_TOKENS


@dataclass(frozen=True)
class PriceTable:
    exact: dict[str, Price]
    prefixes: dict[str, Price]
    override: Path | None = None

    def price(self, model: str | None) -> Price | None:
        if not model:
            return None
        name = model.lower()
        if name in self.exact:
            return self.exact[name]
        for prefix in sorted(self.prefixes, key=len, reverse=True):
            if name.startswith(prefix):
                return self.prefixes[prefix]
        return None


def _parse(text: str, where: Path) -> dict[str, Price]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CorruptFileError(path=where, problem=f"not valid TOML: {exc}") from None
    models = data.get("models", {})
    if not isinstance(models, dict):
        raise CorruptFileError(path=where, problem="[models] must be a table")
    out: dict[str, Price] = {}
    for name, entry in models.items():
        if not isinstance(entry, dict):
            raise CorruptFileError(path=where, problem=f"models.{name} must be a table")
        try:
            value = {k: float(entry.get(k, 0.0)) for k in ("input", "output")}
            cache_read = float(entry.get("cache_read", value["input"]))
            cache_write = float(entry.get("cache_write", value["input"]))
        except (TypeError, ValueError):
            raise CorruptFileError(
                path=where, problem=f"models.{name}: prices are numbers"
            ) from None
        out[str(name).lower()] = Price(value["input"], value["output"], cache_read, cache_write)
    return out


def load_prices(hangar_home: Path) -> PriceTable:
    """The shipped table with ``$HANGAR_HOME/prices.toml`` applied on top (if it exists)."""
    shipped = resources.files("hangar.executor").joinpath("prices.toml")
    table = _parse(shipped.read_text("utf-8"), Path(str(shipped)))
    override = hangar_home / "prices.toml"
    used: Path | None = None
    if override.is_file():
        table.update(_parse(override.read_text("utf-8"), override))
        used = override
    exact = {k: v for k, v in table.items() if not k.endswith("*")}
    prefixes = {k[:-1]: v for k, v in table.items() if k.endswith("*")}
    return PriceTable(exact, prefixes, used)
