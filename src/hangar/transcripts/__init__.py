"""The transcript engine: file signatures, byte offsets, incremental projection, a bounded cache.

Layering: this package reads agent files (read-only) and drives the store facets of
:mod:`hangar.agents`; it knows nothing about the executor's database, the hub or the CLI.
"""
