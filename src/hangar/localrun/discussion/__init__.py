"""``hangar discuss -- CLI …``: the talk before the issue, its plan and the hand-off to a run.

See ``docs/discussions.md``. :mod:`.session` is the entry point; :mod:`.recorder` decides what
a discussion keeps; :mod:`.binding` turns the confirmed card into the issue and, when the work
goes on in the same CLI, the run; :mod:`.handoff` serves a CLI's own implement-plan action.
"""
