"""The CLI side of ``hangar run``: PTY runner, child environment, redaction, reporter, providers.

See ``docs/local-runs.md`` for the whole picture and the provider contract.
"""
