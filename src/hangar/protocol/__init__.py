"""Typed messages on the executor's RPC surface, shared by both ends (DESIGN §5).

The hub and the executor exchange these msgspec Structs: in one process the struct itself is
handed over; over a wire it is JSON with camelCase names. Each request is decoded once, at the
edge it enters (the hub's HTTP route, or the executor's ``handle`` for a JSON payload), strictly
(no ``"50"`` for an integer, no unknown fields), and each field has exactly one default.
"""
