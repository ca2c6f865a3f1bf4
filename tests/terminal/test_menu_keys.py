"""The menu's drawing, keys and timing, on the fake terminal with an injectable clock."""

from __future__ import annotations

from hangar.localrun.terminal.commands import Command, CommandRegistry
from hangar.localrun.terminal.timing import MENU_CAP, MENU_QUIET

from .fake_terminal import Driver, sample_commands


def menu_rows(driver: Driver) -> list[int]:
    return [i + 1 for i, line in enumerate(driver.lines()) if "/hangar" in line and "  " in line]


def test_candidates_in_registration_order_with_marker_and_blue() -> None:
    """LR-033..LR-036: every candidate in registration order, the current one with `>` and
    SGR 94 reset by SGR 39, no reverse video, no background."""
    driver = Driver()
    driver.type("/hangar")
    lines = driver.lines()
    first = next(i for i, line in enumerate(lines) if "/hangarcreateissue" in line)
    assert lines[first].startswith("> /hangarcreateissue")
    assert lines[first + 1].startswith("  /hangarhelp")
    assert "Esc close" in lines[first + 2]
    written = b"".join(data for _, data in driver.draw_times)
    assert b"\x1b[94m> /hangarcreateissue" in written
    assert b"\x1b[39m" in written.split(b"\x1b[94m> /hangarcreateissue", 1)[1]
    for char in driver.terminal.row_chars(first + 1)[:20]:
        assert char.fg == "brightblue"
        assert not char.reverse
        assert char.bg == "default"
    for char in driver.terminal.row_chars(first + 2)[:12]:
        assert char.fg == "default"
        assert not char.reverse


def test_up_and_down_cycle() -> None:
    """LR-037: ↓ past the last item wraps to the first, ↑ from the first to the last."""
    driver = Driver()
    driver.type("/hangar")
    driver.type("\x1b[A")
    assert any(line.startswith("> /hangarhelp") for line in driver.lines())
    driver.type("\x1b[B")
    assert any(line.startswith("> /hangarcreateissue") for line in driver.lines())
    driver.type("\x1b[B", "\x1b[B")
    assert any(line.startswith("> /hangarcreateissue") for line in driver.lines())


def test_enter_runs_the_selected_command() -> None:
    """LR-038: Enter runs the current candidate (and clears the provider's edit line)."""
    driver = Driver()
    driver.type("/hangar", "\x1b[B", "\r")
    assert driver.started == ["/hangarhelp"]
    assert not driver.menu_shown()
    assert bytes(driver.provider.received) == b"/hangar\x15"
    assert b"\r" not in bytes(driver.provider.received)


def test_escape_closes_and_keeps_the_input() -> None:
    """LR-039: Esc closes the menu; the provider still has `/hangar`, nothing more sent."""
    driver = Driver()
    driver.type("/hangar", "\x1b")
    driver.settle()
    assert not driver.menu_shown()
    assert bytes(driver.provider.received) == b"/hangar"
    assert driver.provider.line == "/hangar"
    assert driver.started == []


def test_tab_completes_with_ctrl_u_then_the_full_name() -> None:
    """LR-040..LR-042: Tab runs nothing; Ctrl+U then the whole canonical name go to the
    provider, so the result does not depend on what it had consumed."""
    driver = Driver()
    driver.type("/hangar", "\t")
    assert driver.started == []
    assert bytes(driver.provider.received) == b"/hangar\x15/hangarcreateissue"
    assert driver.provider.line == "/hangarcreateissue"
    assert not driver.menu_shown()
    driver.type("\r")  # the full name typed (here: completed) and Enter runs it
    assert driver.started == ["/hangarcreateissue"]


def test_typing_closes_the_menu_and_goes_on_to_the_provider() -> None:
    driver = Driver()
    driver.type("/hangar", "c")
    assert not driver.menu_shown()
    assert driver.provider.line == "/hangarc"


def test_menu_waits_for_ten_ms_of_quiet_after_the_echo() -> None:
    """LR-027, LR-028: the input goes to the provider first; the menu is drawn only after
    the echo is on screen and 10 ms of quiet followed it."""
    driver = Driver(echo_delay=0.004, answer_delay=0.0)
    typed_at = driver.clock.now()
    driver.keys("/hangar")
    driver.settle()
    drawn = driver.first_draw_time(b"/hangarcreateissue")
    assert drawn is not None
    assert abs(drawn - (typed_at + 0.004 + MENU_QUIET)) < 1e-6


def test_a_cursor_only_frame_is_not_the_echo() -> None:
    """LR-028: the wait starts at new *visible* output. A TUI that answers a key at once with
    a frame that only moves the cursor and echoes the character 22 ms later (as Codex does)
    gets the menu 10 ms after the echo, not 10 ms after the cursor move."""
    driver = Driver(echo_delay=0.022, answer_delay=0.0)
    typed_at = driver.clock.now()
    driver.provider_writes("\x1b[?2026h\x1b[0m\x1b[1;8H\x1b[?25h\x1b[?2026l", delay=0.001)
    driver.keys("/hangar")
    driver.settle()
    drawn = driver.first_draw_time(b"/hangarcreateissue")
    assert drawn is not None
    assert abs(drawn - (typed_at + 0.022 + MENU_QUIET)) < 1e-6


def test_no_output_still_opens_at_the_cap() -> None:
    """LR-029, LR-030: a provider that echoes nothing: the menu opens at 100 ms."""
    driver = Driver(echo_delay=10.0, answer_delay=0.0)  # the echo never comes in time
    typed_at = driver.clock.now()
    driver.keys("/hangar")
    driver.settle(limit=1.0)
    drawn = driver.first_draw_time(b"/hangarcreateissue")
    assert drawn is not None
    assert abs(drawn - (typed_at + MENU_CAP)) < 1e-6


def test_endless_output_still_opens_at_the_cap() -> None:
    """LR-031, LR-032: output every 5 ms forever: the menu opens at 100 ms and the provider's
    output is held (not drawn) while it is open."""
    driver = Driver(answer_delay=0.0)
    typed_at = driver.clock.now()
    for n in range(60):
        driver.provider_writes(f"\x1b7\x1b[1;1Htick {n:02d}\x1b8", delay=0.005 * n)
    driver.keys("/hangar")
    driver.settle(limit=0.12)
    drawn = driver.first_draw_time(b"/hangarcreateissue")
    assert drawn is not None
    assert abs(drawn - (typed_at + MENU_CAP)) < 1e-6
    shown = driver.lines()[0]
    driver.run_for(0.1)
    assert driver.lines()[0] == shown  # paused: later ticks are not on screen
    driver.type("\x1b")
    driver.settle()
    assert driver.lines()[0].startswith("tick 59")  # released after closing


def test_without_a_menu_tab_and_the_typed_command_still_work() -> None:
    """LR-044, LR-045: no menu (non-interactive or not pausable), but `/hangar…` + Tab
    completes and the full command + Enter runs."""
    driver = Driver(menu=False)
    driver.type("/hangar")
    assert not driver.menu_shown()
    driver.type("c", "\t")
    assert driver.provider.line == "/hangarcreateissue"
    driver.type("\r")
    assert driver.started == ["/hangarcreateissue"]
    driver.type("/hangarhelp", "\r")
    assert driver.started == ["/hangarcreateissue", "/hangarhelp"]


def test_a_terminal_that_never_reports_the_cursor_gets_no_menu() -> None:
    """LR-043: the cursor report never comes: after its timeout, no menu (and none later),
    held output is released, Tab still completes."""
    driver = Driver(answers_cursor=False)
    driver.type("/hangar")
    driver.settle(limit=1.0)
    assert not driver.menu_shown()
    assert driver.provider.line == "/hangar"
    driver.type("\t")
    assert driver.provider.line == "/hangarcreateissue"


def test_run_offers_no_menu_without_commands() -> None:
    """`hangar run` with an empty registry: `/hangar` is ordinary input."""
    driver = Driver(commands=CommandRegistry())
    driver.type("/hangar", "\t")
    assert not driver.menu_shown()
    assert bytes(driver.provider.received) == b"/hangar\t"


def test_registry_refuses_bad_names() -> None:
    registry = sample_commands([])
    for name in ("/hangar", "/other", "/hangarhelp"):
        try:
            registry.register(Command(name, "x", lambda host: None))
        except Exception as exc:
            assert "/hangar" in str(exc)
        else:
            raise AssertionError(f"{name} accepted")
