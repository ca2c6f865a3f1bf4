"""The terminal engine of ``hangar run`` / ``hangar discuss``: the ``/hangar…`` inline menu,
the issue confirmation card and the success notice, between the user's terminal and the
provider's PTY. See ``docs/terminal-menu.md``.

Library first: :class:`~hangar.localrun.terminal.interposer.Interposer` is a sans-I/O state
machine driven by the PTY runner (real file descriptors) or by a fake terminal in tests;
commands register in a :class:`~hangar.localrun.terminal.commands.CommandRegistry`.
"""
