"""One module per agent CLI, each registering the facets it implements.

Built-in agents register through the same :mod:`hangar.agents.registry` a plugin uses; no
code outside this package branches on a runtime name.
"""
