"""``python -m hangar`` runs the ``hangar`` command."""

from hangar.cli.main import main

main()
