"""The plan's Markdown as terminal lines for the card's first page (LR-076).

Parsed with markdown-it-py (CommonMark plus tables). Headings are bold, paragraphs wrap at
word boundaries, lists keep their markers and indentation, code blocks and tables keep their
lines (a line wider than the card is split, never cut), quotes get a bar. Every word of the
plan appears in the lines: the view is for checking the whole plan before it becomes the
issue's description.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.token import Token

from hangar.localrun.terminal import ansi

_PARSER = MarkdownIt("commonmark").enable("table")


def plan_lines(markdown: str, columns: int) -> list[str]:
    tokens = _PARSER.parse(markdown)
    source = markdown.splitlines()
    out: list[str] = []
    lists: list[list[int]] = []  # per open list: [next number or -1 for bullets]
    prefix = ""
    pending_marker: str | None = None
    index = 0
    while index < len(tokens):
        token = tokens[index]
        kind = token.type
        if kind == "heading_open":
            text = _inline(tokens[index + 1])
            level = int(token.tag[1:])
            _gap(out)
            mark = "#" * level + " "
            out.extend(ansi.bold(line) for line in ansi.wrap(mark + text, columns))
            index += 3
            continue
        if kind in ("bullet_list_open", "ordered_list_open"):
            start = int(str(token.attrs.get("start", 1))) if kind == "ordered_list_open" else -1
            if not lists:
                _gap(out)
            lists.append([start])
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif kind == "list_item_open":
            counter = lists[-1]
            if counter[0] < 0:
                pending_marker = "• "
            else:
                pending_marker = f"{counter[0]}. "
                counter[0] += 1
        elif kind == "blockquote_open":
            prefix += "│ "
        elif kind == "blockquote_close":
            prefix = prefix[:-2]
        elif kind == "inline":
            indent = "  " * max(len(lists) - 1, 0)
            marker = pending_marker or ""
            lead = prefix + indent + marker
            hang = prefix + indent + " " * len(marker)
            if not lists:
                _gap(out)
            pending_marker = None
            for paragraph in _inline(token).split("\n"):
                for n, line in enumerate(ansi.wrap(paragraph, max(columns - ansi.width(lead), 8))):
                    out.append((lead if n == 0 else hang) + line)
                lead = hang
        elif kind in ("fence", "code_block"):
            _gap(out)
            for line in token.content.rstrip("\n").split("\n"):
                out.extend(prefix + "    " + part for part in _hard_wrap(line, columns - 4))
        elif kind == "table_open" and token.map:
            _gap(out)
            for line in source[token.map[0] : token.map[1]]:
                out.extend(prefix + part for part in _hard_wrap(line, columns))
            while tokens[index].type != "table_close":
                index += 1
        elif kind == "hr":
            _gap(out)
            out.append("─" * max(min(columns, 40), 1))
        elif kind == "html_block":
            _gap(out)
            for line in token.content.rstrip("\n").split("\n"):
                out.extend(prefix + part for part in _hard_wrap(line, columns))
        index += 1
    return out or ["(the plan is empty)"]


def _gap(out: list[str]) -> None:
    if out and out[-1] != "":
        out.append("")


def _inline(token: Token) -> str:
    parts: list[str] = []
    links: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "html_inline"):
            parts.append(child.content)
        elif child.type == "code_inline":
            parts.append(f"`{child.content}`")
        elif child.type == "softbreak":
            parts.append(" ")
        elif child.type == "hardbreak":
            parts.append("\n")
        elif child.type == "image":
            parts.append(f"[image: {child.content}]")
        elif child.type == "link_open":
            links.append(str(child.attrs.get("href", "")))
        elif child.type == "link_close" and links:
            href = links.pop()
            if href and parts[-1:] != [href]:
                parts.append(f" <{href}>")
    return "".join(parts)


def _hard_wrap(line: str, columns: int) -> list[str]:
    columns = max(columns, 1)
    pieces: list[str] = []
    current = ""
    for char in line.expandtabs(4):
        if ansi.width(current + char) > columns:
            pieces.append(current)
            current = ""
        current += char
    pieces.append(current)
    return pieces
