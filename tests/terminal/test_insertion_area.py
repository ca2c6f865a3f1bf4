"""The insertion area on the fake terminal: margin, anchor, cleanup, cursor, both screens."""

from __future__ import annotations

from hangar.localrun.terminal.area import MARGIN

from .fake_terminal import Driver


def fill_history(driver: Driver, count: int) -> None:
    for n in range(count):
        driver.type(f"line {n}", "\r")


def test_menu_goes_below_two_margin_rows_and_leaves_everything_else() -> None:
    """LR-047..LR-051, LR-054, LR-055: candidates + help inserted after the two
    provider-owned rows; the rows above and the margin rows are untouched; closing deletes
    exactly the inserted rows and puts the cursor back on its row and column."""
    driver = Driver(rows=24, columns=80)
    fill_history(driver, 3)
    driver.provider_writes("\x1b7\r\n\x1b[2Kstatus: provider row one\r\n"
                           "\x1b[2Kstatus: provider row two\x1b8")  # fmt: skip
    driver.settle()
    driver.type("/hangar")
    cursor = driver.terminal.cursor
    during = driver.lines()
    row = cursor[0]
    inserted = range(row + MARGIN + 1, row + MARGIN + 1 + 3)  # 2 candidates + 1 help row
    assert [during[r - 1][:20] for r in inserted] == [
        "> /hangarcreateissue",
        "  /hangarhelp       ",
        "  ↑/↓ select · Enter",
    ]
    assert during[row] == "status: provider row one"  # margin rows: provider-owned
    assert during[row + 1] == "status: provider row two"
    assert driver.terminal.cursor == cursor  # parked where the provider left it
    driver.type("\x1b")
    driver.settle()
    after = driver.lines()
    assert driver.terminal.cursor == cursor
    outside = [i for i in range(24) if i + 1 not in inserted]
    assert [after[i] for i in outside[: len(outside) - 3]] == [
        during[i] for i in outside[: len(outside) - 3]
    ]
    assert after[row] == "status: provider row one"
    assert after[row + 1] == "status: provider row two"
    assert not driver.menu_shown()


def test_at_the_bottom_the_screen_scrolls_instead_of_overwriting() -> None:
    """LR-055: with the cursor on the last row the content moves up into the
    scroll-back (nothing overwritten) and the cursor stays on its text after closing."""
    driver = Driver(rows=12, columns=60)
    fill_history(driver, 8)  # the prompt is now on the last row
    assert driver.terminal.cursor[0] == 12
    before = driver.lines()
    driver.type("/hangar")
    assert driver.menu_shown()
    driver.type("\x1b")
    driver.settle()
    after = driver.lines()
    scrolled = driver.terminal.scrollback()
    history = [*scrolled, *after]
    assert "> /hangar" in after
    prompt_row = after.index("> /hangar") + 1
    assert driver.terminal.cursor == (prompt_row, 10)
    kept = [line for line in before if line]
    assert all(line in history for line in kept[:-1])  # every earlier line still exists
    assert not any("/hangarcreateissue" in line for line in history)


def test_cleanup_is_idempotent_and_runs_on_close() -> None:
    """LR-053, LR-099: close() removes the area with the same anchor; a second close and
    the provider's exit change nothing more."""
    driver = Driver(rows=20, columns=70)
    fill_history(driver, 2)
    driver.type("/hangar")
    driver.engine.close()
    once = (driver.lines(), driver.terminal.cursor)
    driver.engine.close()
    driver.engine.provider_exited()
    assert (driver.lines(), driver.terminal.cursor) == once
    assert not driver.menu_shown()


def test_hangar_never_switches_to_the_alternate_screen() -> None:
    """LR-056: nothing hangar writes switches screens."""
    driver = Driver()
    driver.type("/hangar", "\x1b[B", "\x1b")
    driver.settle()
    provider_start = driver.draw_times[0][1]
    ours = b"".join(data for _, data in driver.draw_times[1:])
    assert b"\x1b[?1049" not in ours and b"\x1b[?47" not in ours and b"\x1b[?1047" not in ours
    assert b"\x1b[?1049" not in provider_start


def test_alternate_screen_provider_is_shrunk_and_repaints() -> None:
    """On the alternate screen (Codex, Claude Code) the provider's PTY is made shorter by the
    area's rows, the area is drawn in the freed bottom rows, and closing gives the full
    height back; the provider's repaint then equals the screen before."""
    driver = Driver(rows=20, columns=70, alternate=True)
    fill_history(driver, 2)
    driver.type("/hangar", "\x1b[B", "\x1b[A")
    assert driver.provider_sizes == [(17, 70)]
    lines = driver.lines()
    assert lines[17].startswith("> /hangarcreateissue")
    assert lines[19].startswith("  ↑/↓ select")
    assert lines[14] == "› /hangar"  # the provider's input box, three rows above its bottom
    assert lines[16] == "? for shortcuts"  # its own rows stay its own
    driver.type("\x1b")
    driver.settle()
    assert driver.provider_sizes == [(17, 70), (20, 70)]
    assert driver.lines()[17] == "› /hangar"
    assert not driver.menu_shown()
    assert driver.terminal.cursor == (18, 10)


def test_resize_while_open_redraws_at_the_new_size() -> None:
    """A terminal resize while the menu is open: the area is removed with its old anchor and
    drawn again for the new size; the provider gets the new width."""
    driver = Driver(rows=20, columns=70, alternate=True)
    driver.type("/hangar")
    driver.resize(16, 50)
    assert driver.provider_sizes[-1] == (13, 50)
    lines = driver.lines()
    assert lines[13].startswith("> /hangarcreateissue")
    assert all(len(line) <= 50 for line in lines)
    driver.type("\x1b")
    driver.settle()
    assert driver.provider_sizes[-1] == (16, 50)


def test_forty_columns_fit() -> None:
    """A 40-column terminal: every menu row fits (cut with …), nothing wraps onto the next."""
    driver = Driver(rows=20, columns=40)
    driver.type("/hangar")
    lines = driver.lines()
    first = next(i for i, line in enumerate(lines) if line.startswith("> /hangarcreateissue"))
    assert lines[first + 1].startswith("  /hangarhelp")
    assert lines[first + 2].startswith("  ↑/↓ select")
    assert all(len(line) <= 40 for line in lines)
    assert lines[first].endswith("…")


def test_provider_queries_are_answered_while_its_output_is_held() -> None:
    """A TUI that asks the terminal something while the menu is up (cursor position, device
    attributes) is answered at once; the rest of its output waits for the menu to close."""
    driver = Driver(rows=20, columns=70)
    driver.type("/hangar")
    sent = len(driver.provider.received)
    driver.provider_writes("\x1b[6nhidden text\x1b[c")
    driver.settle()
    assert driver.menu_shown()
    assert "hidden text" not in driver.text()
    replies = bytes(driver.provider.received)[sent:]
    assert replies.startswith(b"\x1b[1;10R")  # the cursor is the provider's between draws
    driver.type("\x1b")
    driver.settle()
    assert "hidden text" in driver.text()


def test_keys_wait_for_the_repaint_after_the_full_height_comes_back() -> None:
    """Alternate screen: Tab's Ctrl+U and command reach the provider only after its repaint
    at full height has settled, in one piece."""
    driver = Driver(rows=20, columns=70, alternate=True)
    driver.type("/hangar")
    driver.keys("\t")
    assert driver.provider_sizes[-1] == (20, 70)
    assert bytes(driver.provider.received) == b"/hangar"
    driver.settle()
    assert bytes(driver.provider.received) == b"/hangar\x15/hangarcreateissue"
    assert driver.provider.line == "/hangarcreateissue"
