"""A user message's text with its skill and plugin tags, combined at the render boundary.

The agent's ``content`` is the only body (RW-232); ``presentationReferences`` say where a tag
stands in it (UTF-16 offsets) and what it names (RW-233). :func:`tagged_markdown` renders the
body as Markdown with each reference shown as a tag — ``review:security`` for the typed
``$review:security``, ``Figma`` for ``@Figma`` — so a reopened finished task never shows the raw
token (RW-236). References that do not fit the text (out of range, overlapping, not in order)
are ignored: the text is shown as the agent recorded it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from markupsafe import Markup, escape

_OPEN, _CLOSE = "\ue000", "\ue001"  # private-use marks: Markdown leaves them as text


def _python_index(text: str) -> dict[int, int]:
    """UTF-16 offset → index into ``text`` for every character boundary."""
    index: dict[int, int] = {}
    units = 0
    for i, char in enumerate(text):
        index[units] = i
        units += 2 if ord(char) > 0xFFFF else 1
    index[units] = len(text)
    return index


def _spans(text: str, references: Any) -> list[tuple[int, int, str]]:
    index = _python_index(text)
    spans: list[tuple[int, int, str]] = []
    last = 0
    for ref in references if isinstance(references, list) else ():
        if not isinstance(ref, dict):
            continue
        start, end = index.get(ref.get("start", -1)), index.get(ref.get("end", -1))
        href = ref.get("href")
        if start is None or end is None or not isinstance(href, str) or not last <= start < end:
            continue
        spans.append((start, end, href))
        last = end
    return spans


def _tag(token: str, href: str) -> str:
    kind = "plugin" if href.startswith("plugin:") else "skill"
    label = token[1:] if token[:1] in ("$", "@") else token
    return (
        f'<span class="ref-tag ref-{kind}" title="{escape(href)}" data-href="{escape(href)}">'
        f"{escape(label)}</span>"
    )


def tagged_markdown(message: dict[str, Any], render: Callable[[str], Markup]) -> Markup:
    """``message.content`` as Markdown HTML with its references as tags."""
    text = str(message.get("content") or "")
    spans = _spans(text, message.get("presentationReferences"))
    if not spans or _OPEN in text or _CLOSE in text:
        return render(text)
    marked: list[str] = []
    tags: list[str] = []
    cursor = 0
    for start, end, href in spans:
        marked.append(text[cursor:start])
        marked.append(f"{_OPEN}{len(tags)}{_CLOSE}")
        tags.append(_tag(text[start:end], href))
        cursor = end
    marked.append(text[cursor:])
    html = str(render("".join(marked)))
    for number, tag in enumerate(tags):
        html = html.replace(f"{_OPEN}{number}{_CLOSE}", tag)
    return Markup(html)
