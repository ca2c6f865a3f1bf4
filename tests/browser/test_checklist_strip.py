"""The checklist strip in a real browser follows the latest turn of a growing session."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import LiveHub

pytestmark = pytest.mark.browser
LIVE = 20_000


def test_the_strip_shows_only_the_latest_turns_list(page: Any, live_hub: LiveHub) -> None:
    """CL-032, CL-064: a turn that writes a list brings the strip (read-only,
    collapsible from the keyboard); after the next turn without a list the strip is no longer
    the current list: it shows the earlier one marked "from turn 2", without a reload, and the
    older list stays on its own message."""
    page.locator("#sidebar-content a.task", has_text="Say hello").click()
    expect(page.locator("#messages article.msg").last).to_contain_text("Hello!")
    strip = page.locator("#checklist-strip")
    expect(strip).to_have_count(0)
    page.evaluate("window.__notReloaded = true")

    session = live_hub.sessions["short"]
    session.user("Plan the release").todos(
        [("Tag the release", "completed"), ("Publish notes", "in_progress")]
    )
    session.assistant("Planned.")
    expect(strip).to_contain_text("Publish notes", timeout=LIVE)
    expect(strip.locator("summary")).to_contain_text("1/2 done")
    summary = strip.locator("summary")
    summary.focus()
    page.keyboard.press("Enter")
    expect(strip.locator(".checklist-items")).to_be_hidden()
    page.keyboard.press("Enter")
    expect(strip.locator(".checklist-items")).to_be_visible()

    session.user("Thanks!").assistant("You're welcome.")
    expect(page.locator("#messages article.msg").last).to_contain_text(
        "You're welcome.", timeout=LIVE
    )
    expect(strip.locator(".from-turn")).to_have_text("from turn 2", timeout=LIVE)
    expect(strip).to_have_class("checklist-strip earlier")
    expect(strip.locator(".checklist-items")).to_contain_text("Publish notes")
    expect(page.locator("#messages .checklist-inline")).to_contain_text("Publish notes")
    assert page.evaluate("window.__notReloaded") is True


def test_the_strip_in_both_themes_narrow_and_at_200_percent(page: Any, live_hub: LiveHub) -> None:
    """CL-069: collapsible from the keyboard and readable in light and dark themes, in a
    400 px window and at 200 % zoom (a 1280 × 800 window at 200 % lays out 640 × 400 CSS px):
    the strip never scrolls sideways and its text differs from its background."""
    page.locator("#sidebar-content a.task", has_text="Set up the project").click()
    strip = page.locator("#checklist-strip")
    expect(strip).to_contain_text("Write the tests")
    colours = set()
    for scheme, width, height in (("light", 1280, 800), ("dark", 1280, 800),
                                  ("light", 400, 800), ("dark", 640, 400)):  # fmt: skip
        page.emulate_media(color_scheme=scheme)
        page.set_viewport_size({"width": width, "height": height})
        expect(strip.locator("summary")).to_be_visible()
        fits = page.eval_on_selector(
            "#checklist-strip", "el => el.scrollWidth <= el.clientWidth + 1"
        )
        assert fits, f"the strip scrolls sideways at {width}px ({scheme})"
        fg, bg = page.eval_on_selector(
            "#checklist-strip",
            """el => {
                let n = el, bg = 'rgba(0, 0, 0, 0)';
                while (n && bg === 'rgba(0, 0, 0, 0)') {
                    bg = getComputedStyle(n).backgroundColor; n = n.parentElement;
                }
                return [getComputedStyle(el.querySelector('li')).color, bg];
            }""",
        )
        assert fg != bg
        colours.add((scheme, fg, bg))
        strip.locator("summary").focus()
        page.keyboard.press("Enter")
        expect(strip.locator(".checklist-items")).to_be_hidden()
        page.keyboard.press("Enter")
        expect(strip.locator(".checklist-items")).to_be_visible()
    assert (
        len(
            {c[1:] for c in colours if c[0] == "dark"} & {c[1:] for c in colours if c[0] == "light"}
        )
        == 0
    )
