"""Remote executors of a team hub (``hangar executor --hub URL`` on each device).

- :mod:`.registry`: registered devices, their tokens and their one connection, in the hub DB;
- :mod:`.replicas`: the replicas sharing the database and which are alive;
- :mod:`.connection`: one executor's WebSocket (handshake, frames) on this replica;
- :mod:`.ws_link`: the :class:`~hangar.hub.executor_link.ExecutorLink` over that socket;
- :mod:`.mailbox`: calls routed through the database to the replica holding a socket;
- :mod:`.directory`: every device as the routes see it; :mod:`.service` wires it all.
"""
