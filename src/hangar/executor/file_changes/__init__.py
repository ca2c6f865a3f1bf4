"""Review and revert of a turn's file changes in the task's own directory (RW-242..247).

:mod:`.artifact` turns a turn's ``fileChanges`` blocks into one patch with a checksum;
:mod:`.revert` checks it against the directory and reverses it there.
"""
