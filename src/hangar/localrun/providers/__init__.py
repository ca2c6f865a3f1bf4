"""Local-run providers: one module per agent CLI, all registered in :mod:`.registry`."""
