"""The ``hangar`` command: thin click groups over the library."""
