"""hangar: a local-first control plane for coding-agent CLIs."""

__version__ = "0.1.0"
