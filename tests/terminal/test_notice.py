"""The success notice and its 20-second protection window, timed by the manual clock."""

from __future__ import annotations

from hangar.hub_client import HubClient
from hangar.localrun.terminal.issue_draft import ExecutionMode
from hangar.localrun.terminal.notice import success_lines
from hangar.localrun.terminal.timing import NOTICE_PROTECTION, NOTICE_QUIET

from .card_kit import hub_card
from .fake_terminal import Driver
from .test_card import ENTER, focus, make_driver, open_card

LINES = success_lines("Cache the index", "HGR-22", "http://127.0.0.1:8765/issues/HGR-22")
NOTICE = "【Cache the index】Issue HGR-22 created"


def test_notice_waits_for_the_repaint_then_is_protected_for_twenty_seconds() -> None:
    """LR-101, LR-104..LR-108: the provider loses two bottom rows; the notice is drawn there
    once its output has been quiet for the notice's own window; a clear inside the window is
    followed by a redraw; after 20 s from first showing the rows are released without
    erasing; a later clear is not repaired."""
    driver = Driver(rows=20, columns=70, alternate=True)
    driver.engine.show_notice(LINES, keep_rows=True)
    assert driver.provider_sizes == [(18, 70)]
    driver.settle(limit=0.05)
    assert NOTICE not in driver.text()  # the provider's repaint comes first
    driver.settle(limit=1.0)
    shown_at = driver.first_draw_time(NOTICE.encode())
    last_output = max(t for t, data in driver.draw_times if b"for shortcuts" in data)
    assert shown_at is not None and abs(shown_at - (last_output + NOTICE_QUIET)) < 1e-6
    lines = driver.lines()
    assert lines[18] == NOTICE and lines[19] == "http://127.0.0.1:8765/issues/HGR-22"
    assert lines[15] == "›"  # the provider's input box moved up two rows

    driver.run_for(5.0)
    driver.provider_writes("\x1b[H\x1b[2J" + "repainted by the provider")
    driver.settle(limit=NOTICE_QUIET / 2)
    assert NOTICE not in driver.text()  # cleared; not yet stable
    driver.settle(limit=1.0)
    assert driver.lines()[18] == NOTICE  # drawn again once stable (LR-106)

    driver.run_for(shown_at + NOTICE_PROTECTION - driver.clock.now() - 0.01)
    assert driver.provider_sizes == [(18, 70)]
    writes = len(driver.draw_times)
    driver.run_for(0.02)
    assert driver.provider_sizes == [(18, 70), (20, 70)]  # released at 20 s (LR-105, LR-107)
    released = [data for _, data in driver.draw_times[writes:]]
    assert all(data.startswith(b"\x1b[H\x1b[2J") for data in released)  # only the provider
    driver.provider_writes("\x1b[H\x1b[2J" + "after the window")
    driver.settle(limit=2.0)
    assert NOTICE not in driver.text()  # not restored any more (LR-108)


def test_notice_is_never_sent_to_the_provider() -> None:
    """LR-110, LR-112, LR-113: only the local terminal gets it; the provider receives no
    byte and no resize beyond the two reserved rows and their release."""
    driver = Driver(rows=20, columns=70, alternate=True)
    driver.engine.show_notice(LINES, keep_rows=True)
    driver.run_for(NOTICE_PROTECTION + 5)
    assert bytes(driver.provider.received) == b""
    assert driver.provider_sizes == [(18, 70), (20, 70)]


def test_notice_on_the_main_screen_keeps_history_and_cursor() -> None:
    """LR-104 on the main screen: the content scrolls up two rows (nothing overwritten), the
    provider's scrolling is confined above the notice, the cursor stays on its text."""
    driver = Driver(rows=12, columns=60)
    for n in range(9):
        driver.type(f"q{n}", ENTER)
    before = [line for line in driver.lines() if line]
    driver.engine.show_notice(LINES, keep_rows=True)
    driver.settle(limit=1.0)
    lines = driver.lines()
    assert lines[10] == NOTICE
    assert driver.terminal.cursor == (10, 3)
    assert lines[9] == ">"
    history = driver.terminal.scrollback() + lines
    assert all(line in history for line in before)
    driver.type("next", ENTER)  # the provider scrolls inside its rows only
    assert driver.lines()[10] == NOTICE


def test_hand_off_notice_waits_for_the_provider_to_exit() -> None:
    """LR-109: "create only" / hand-off: nothing is shown while the provider runs; the
    notice follows its exit."""
    driver = Driver(rows=20, columns=70)
    driver.engine.show_notice(LINES, keep_rows=False)
    driver.run_for(2.0)
    assert NOTICE not in driver.text()
    driver.engine.provider_exited()
    assert NOTICE in driver.text()


def test_card_success_in_this_cli_shows_the_blue_link(hub: HubClient) -> None:
    """LR-102, LR-103: after creating in "continue" mode the notice names the title and key
    and shows the link in SGR 94."""
    command = hub_card(hub)
    driver = make_driver(command, rows=30, columns=90)
    open_card(driver)
    driver.type(ENTER)
    focus(driver, "create")
    driver.type(ENTER)
    driver.settle(limit=1.0)
    result = command.results[0]
    assert result.draft.mode is ExecutionMode.CONTINUE and result.issue is not None
    expected = f"【Cache the transcript index】Issue {result.issue.key} created"
    assert expected in driver.text()
    url = f"{hub.base_url}/issues/{result.issue.key}"
    written = b"".join(data for _, data in driver.draw_times)
    assert f"\x1b[94m{url}\x1b[39m".encode() in written
    assert not driver.ended


def test_create_only_ends_the_provider_and_prints_after_exit(hub: HubClient) -> None:
    """LR-092, LR-109: "only create": the provider is ended; the notice comes after exit."""
    command = hub_card(hub)
    driver = make_driver(command, rows=30, columns=90)
    open_card(driver)
    driver.type(ENTER, "\x1b[D")  # ← from "continue" wraps to "only create"
    focus(driver, "create")
    driver.type(ENTER)
    driver.settle(limit=1.0)
    assert driver.ended
    assert command.results[0].draft.mode is ExecutionMode.CREATE_ONLY
    assert "Issue HGR-" not in driver.text()
    driver.engine.provider_exited()
    assert "created" in driver.text()
