"""External local-run provider plugins (LR-130..LR-149, LR-190..LR-194).

A plugin is a folder with ``provider.json`` and an adapter executable. ``manifest`` validates
the manifest, ``discovery`` finds plugins in the seed's order, ``install`` copies and removes
them, ``events`` is the NDJSON wire, ``event_stream`` reads it, ``session`` runs an adapter
with its channels, ``handoff`` is the v2 plan handoff, and ``provider`` makes a plugin a live
provider of ``hangar run`` (and a discussion session for ``hangar discuss``). The protocol's
reference is ``docs/provider-plugins.md``.
"""
