"""Device side: the LocalTask index, search, RPC handlers and background workers."""
