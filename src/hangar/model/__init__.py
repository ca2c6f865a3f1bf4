"""Normalized types shared by every layer; no I/O here.

JSON produced from these types uses camelCase (``msgspec`` ``rename="camel"``); optional
fields left at their default are omitted.
"""

from hangar.model.checklist import Checklist, ChecklistItem
from hangar.model.messages import (
    Attachment,
    Block,
    ChecklistBlock,
    CompactionBlock,
    FileChange,
    FileChangesBlock,
    ImageBlock,
    Message,
    PlanBlock,
    PresentationReference,
    TextBlock,
    ThinkingBlock,
    ToolBlock,
    Usage,
)
from hangar.model.tasks import ContextUsage, EarlierChecklist, LocalTask, Transcript
from hangar.model.usage import TokenUse, UsageEvent

__all__ = [
    "Attachment",
    "Block",
    "Checklist",
    "ChecklistBlock",
    "ChecklistItem",
    "CompactionBlock",
    "ContextUsage",
    "EarlierChecklist",
    "FileChange",
    "FileChangesBlock",
    "ImageBlock",
    "LocalTask",
    "Message",
    "PlanBlock",
    "PresentationReference",
    "TextBlock",
    "ThinkingBlock",
    "TokenUse",
    "ToolBlock",
    "Transcript",
    "Usage",
    "UsageEvent",
]
