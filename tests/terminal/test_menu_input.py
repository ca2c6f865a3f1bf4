"""The menu's trigger and input tracking, on the fake terminal (a pyte screen) with a scripted
line-editor provider: every input class the issue lists."""

from __future__ import annotations

import pytest

from .fake_terminal import Driver

PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


def csi_u(text: str) -> str:
    return "".join(f"\x1b[{ord(c)}u" for c in text)


def test_exact_trigger_opens_and_shorter_prefixes_do_not() -> None:
    """LR-011, LR-012: only an edit line equal to `/hangar` from its start opens the menu."""
    driver = Driver()
    assert not driver.menu_shown()
    for typed in ("/", "h", "a", "n", "g", "a"):
        driver.type(typed)
        assert not driver.menu_shown(), f"menu open after {typed!r}"
    driver.type("r")
    assert driver.menu_shown()


def test_enter_on_empty_line_and_longer_lines_do_not_open() -> None:
    """LR-011 (reading A), LR-012: `/hangarx`, ` /hangar` and an empty Enter never open it."""
    driver = Driver()
    driver.type("\r")
    assert not driver.menu_shown()
    driver.type("/hangarx")
    assert not driver.menu_shown()
    driver.type("\x15", " /hangar")
    assert not driver.menu_shown()


def test_backspace_from_longer_input_reopens() -> None:
    """LR-013, LR-014: Backspace from `/hangarcr` back to `/hangar` opens the menu again."""
    driver = Driver()
    driver.type("/hangarcr")
    assert not driver.menu_shown()
    driver.type("\x7f")
    assert not driver.menu_shown()  # `/hangarc`
    driver.type("\x7f")
    assert driver.menu_shown()


def test_clearing_and_retyping_after_close_reopens() -> None:
    """LR-015: Esc closes; Ctrl+U and typing `/hangar` again opens it again."""
    driver = Driver()
    driver.type("/hangar")
    assert driver.menu_shown()
    driver.type("\x1b")
    driver.settle()
    assert not driver.menu_shown()
    driver.type("\x15")
    driver.type("/hangar")
    assert driver.menu_shown()


@pytest.mark.parametrize(
    "chunks",
    [
        ["/hangar"],
        list("/hangar"),
        ["/ha", "ngar"],
        ["/", "hanga", "r"],
    ],
)
def test_chunked_input_opens_the_same_way(chunks: list[str]) -> None:
    """LR-016: `/hangar` in arbitrary chunks opens the menu like typed at once."""
    driver = Driver()
    driver.type(*chunks)
    assert driver.menu_shown()
    assert bytes(driver.provider.received) == b"/hangar"


def test_csi_u_characters_and_backspace_count() -> None:
    """LR-013: CSI-u encoded characters and a CSI-u Backspace re-check the trigger."""
    driver = Driver()
    driver.type(csi_u("/hangar"))
    assert driver.menu_shown()
    driver.type("\x1b")
    driver.settle()
    driver.type(csi_u("x"))
    assert not driver.menu_shown()
    driver.type("\x1b[127u")
    assert driver.menu_shown()


def test_paste_opens_only_after_the_whole_end_frame() -> None:
    """LR-017, LR-018: no pause during the paste; the complete ESC[201~ reaches the
    provider (even when it arrives split) before the menu opens after the echo."""
    driver = Driver()
    driver.type(PASTE_START + "/hangar")
    assert not driver.menu_shown()
    driver.keys("\x1b[20")  # the rest of the frame is a read away
    assert not driver.menu_shown()
    assert not bytes(driver.provider.received).endswith(b"\x1b[20")  # held, not half-sent
    driver.keys("1~")
    frame_sent = driver.clock.now()
    assert bytes(driver.provider.received).endswith(PASTE_END.encode())
    assert not driver.menu_shown()  # the echo is awaited first
    driver.settle()
    assert driver.menu_shown()
    drawn = driver.first_draw_time(b"/hangarcreateissue")
    assert drawn is not None and drawn > frame_sent


def test_paste_end_rechecks_a_line_completed_by_the_paste() -> None:
    """LR-013: a paste that completes `/hangar` after typed `/han` opens at its end."""
    driver = Driver()
    driver.type("/han", PASTE_START, "gar")
    assert not driver.menu_shown()
    driver.type(PASTE_END)
    assert driver.menu_shown()


CONTROL_STRINGS = [
    "\x1b]11;rgb:0000/0000/0000\x07",  # OSC, BEL
    "\x1b]10;rgb:ffff/ffff/ffff\x1b\\",  # OSC, ST
    "\x1bP1$r0m\x1b\\",  # DCS, ST
    "\x1bP>|xterm(1)\x07",  # DCS, BEL
    "\x1b_Gi=1;OK\x1b\\",  # APC (kitty graphics reply), ST
    "\x1b_Gi=2;OK\x07",  # APC, BEL
    "\x1b^private\x1b\\",  # PM, ST
    "\x1b^private\x07",  # PM, BEL
    "\x1bXstring\x07",  # SOS, BEL
    "\x1bXstring\x1b\\",  # SOS, ST
]
REPLIES = [
    "\x1b[12;40R",  # CPR
    "\x1b[?1;2c",  # DA1
    "\x1b[>0;276;0c",  # DA2
    "\x1b[0n",  # DSR
    "\x1b[?2004;1$y",  # DECRPM mode report
    "\x1b[8;24;80t",  # window size
    "\x1b[?1u",  # keyboard flags
]


@pytest.mark.parametrize("sequence", CONTROL_STRINGS + REPLIES)
def test_control_strings_and_replies_pass_through_untouched(sequence: str) -> None:
    """LR-019..LR-022: replies and control strings, whole or split, reach the
    provider unchanged and never enter the edit line: `/hangar` typed around them opens."""
    driver = Driver()
    half = len(sequence) // 2
    driver.keys("/han", sequence[:half], sequence[half:], "gar")
    driver.settle()
    assert sequence.encode() in bytes(driver.provider.received)
    assert driver.engine.line.text == "/hangar"
    assert driver.menu_shown()


@pytest.mark.parametrize("sequence", CONTROL_STRINGS + REPLIES)
def test_replies_never_close_an_open_menu(sequence: str) -> None:
    """LR-021, LR-023: a reply arriving while the menu is open goes to the provider and the
    menu stays open."""
    driver = Driver()
    driver.type("/hangar")
    before = len(driver.provider.received)
    driver.type(sequence)
    assert driver.menu_shown()
    assert bytes(driver.provider.received)[before:] == sequence.encode()


FOCUS_AND_MOUSE = ["\x1b[I", "\x1b[O", "\x1b[<0;10;5M", "\x1b[<0;10;5m", "\x1b[M !!"]


@pytest.mark.parametrize("event", FOCUS_AND_MOUSE)
def test_focus_and_mouse_events_are_ignored_while_open(event: str) -> None:
    """LR-025, LR-026 (reading A: dropped): focus and SGR/X10 mouse events keep the menu open,
    leave the input state alone and are never forwarded, not even after closing."""
    driver = Driver()
    driver.type("/hangar")
    before = bytes(driver.provider.received)
    driver.type(event)
    assert driver.menu_shown()
    assert driver.engine.line.text == "/hangar"
    driver.type("\x1b")
    driver.settle()
    assert not driver.menu_shown()
    assert bytes(driver.provider.received) == before


def test_a_question_and_answer_round_leaves_tracking_reliable() -> None:
    """LR-024: after a round with the provider (input, replies, output), the first `/hangar`
    opens the menu."""
    driver = Driver()
    driver.type("explain the plan", "\x1b[5;1R", "\r")
    driver.provider_writes("the model answers at length\r\n> ", delay=0.05)
    driver.settle()
    driver.type("\x1b]11;rgb:1111/1111/1111\x1b\\", "/hangar")
    assert driver.menu_shown()


def test_untracked_movement_keys_do_not_fake_a_trigger() -> None:
    """After history recall (Up) the line content is unknown: `/hangar` typed then does not
    pretend to be the whole line; Ctrl+U makes it known again."""
    driver = Driver()
    driver.type("\x1b[A", "/hangar")
    assert not driver.menu_shown()
    driver.type("\x15", "/hangar")
    assert driver.menu_shown()
