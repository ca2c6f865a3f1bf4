"""Telling the human request apart from context Codex injects into user messages.

Codex writes several things as ``role: user`` (or ``developer``) messages that the user never
typed: ``<environment_context>``, AGENTS.md instructions, ``<user_instructions>``, turn-abort
markers, and (from the Codex App) a leading ``<application_context>`` block and a
``# Files mentioned by the user:`` prefix whose ``## name: path`` entries are attachments and
whose request follows ``## My request for Codex:``. :func:`visible_request` returns only what
the user asked, plus those attachments (RW-227, RW-230).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hangar.model import Attachment

_INJECTED_TAGS = (
    "environment_context",
    "user_instructions",
    "turn_aborted",
    "permissions",
    "skills_instructions",
    "developer_instructions",
    "subagent_notification",
    "collaboration_mode",
    "world_state",
    "user_shell_command_output",
)
_INJECTED_PREFIXES = (
    "# AGENTS.md instructions",
    "# agents.md instructions",
    "<INSTRUCTIONS>",
    # An injected tag opens the text: ``<environment_context>`` or ``<permissions mode=…>``.
    *(f"<{tag}{after}" for tag in _INJECTED_TAGS for after in " >"),
)
_APP_CONTEXT = re.compile(r"^\s*<application_context>.*?</application_context>\s*", re.S)
_FILES_HEADER = "# Files mentioned by the user:"
_REQUEST_HEADER = "## My request for Codex:"
_FILE_ENTRY = re.compile(r"^##\s+(?P<name>[^:\n]+):\s*(?P<path>\S.*?)\s*$", re.M)
# Codex 0.171 wraps each local image of a request in two input_text parts around its
# input_image: ``<image name=[Image #1] path="/abs/shot.png">`` … ``</image>``.
_IMAGE_OPEN = re.compile(r'^\s*<image\b(?P<attrs>(?:[^>"]|"[^"]*")*)>\s*$')
_IMAGE_PATH = re.compile(r'\bpath="(?P<path>[^"]*)"')
_IMAGE_CLOSE = re.compile(r"^\s*</image>\s*$")


@dataclass
class VisibleRequest:
    text: str
    attachments: list[Attachment] = field(default_factory=list)


def _is_injected(text: str) -> bool:
    return text.lstrip().startswith(_INJECTED_PREFIXES)


def visible_request(text: str) -> VisibleRequest | None:
    """The user's own words in one ``input_text`` part, or ``None`` if it is all context."""
    if _is_injected(text):
        return None
    text = _APP_CONTEXT.sub("", text, count=1)
    attachments: list[Attachment] = []
    if text.lstrip().startswith(_FILES_HEADER):
        head, sep, request = text.partition(_REQUEST_HEADER)
        for match in _FILE_ENTRY.finditer(head):
            if match.group("name").strip() == "My request for Codex":
                continue
            attachments.append(Attachment(name=match.group("name").strip(), path=match["path"]))
        text = request if sep else ""
    text = text.strip()
    if not text and not attachments:
        return None
    return VisibleRequest(text, attachments)


def image_wrapper(text: str) -> tuple[bool, str | None]:
    """``(is_wrapper, path)`` for an ``input_text`` part: Codex's opening ``<image …>`` tag of
    a local image (with its path when it names one) or its closing ``</image>``."""
    if _IMAGE_CLOSE.match(text):
        return True, None
    match = _IMAGE_OPEN.match(text)
    if match is None:
        return False, None
    path = _IMAGE_PATH.search(match.group("attrs"))
    return True, (path.group("path") or None) if path else None


def image_attachment(path: str) -> Attachment:
    """The attachment of a local image the record names by path (named by its file name)."""
    return Attachment(name=path.replace("\\", "/").rsplit("/", 1)[-1] or "image", path=path)


def signature(text: str) -> str:
    """Whitespace-collapsed text used to merge duplicate user messages of one turn."""
    return " ".join(text.split())
