"""The device side of a team hub: ``hangar executor --hub URL``.

This device's executor connects *out* to a hub over a WebSocket and serves every RPC of
:mod:`hangar.protocol.methods` on it (:mod:`.session`), reconnecting with backoff and jitter
(:mod:`.client`), with the device token kept 0600 in ``$HANGAR_HOME`` (:mod:`.credentials`).
Nothing here imports the hub, the web stack or the ORM.
"""
