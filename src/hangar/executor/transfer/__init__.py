"""Copying tasks to another device: the package, the git patch, the executor's side."""
