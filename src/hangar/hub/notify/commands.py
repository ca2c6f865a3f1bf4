"""The IM commands of the seed: ``/notify on|off|status`` and ``/通知 开|关|状态``.

:func:`parse` accepts the whole text (``/notify on``) or a slash command's name and its text
apart (Slack sends ``command=/notify`` and ``text=on``); case and surrounding blanks do not
matter. The answer names the action and the language to reply in; anything else is ``None``
(the caller answers with the usage line in the command's language).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Action = Literal["on", "off", "status"]
Language = Literal["en", "zh"]

_ENGLISH: dict[str, Action] = {"on": "on", "off": "off", "status": "status"}
_CHINESE: dict[str, Action] = {
    "开": "on",
    "開": "on",
    "关": "off",
    "關": "off",
    "状态": "status",
    "狀態": "status",
}
COMMANDS: dict[str, tuple[Language, dict[str, Action]]] = {
    "/notify": ("en", _ENGLISH),
    "/通知": ("zh", _CHINESE),
}

USAGE = {"en": "usage: /notify on | off | status", "zh": "用法：/通知 开 | 关 | 状态"}


@dataclass(frozen=True)
class Command:
    action: Action | None
    language: Language


def parse(text: str, command: str | None = None) -> Command | None:
    """The command in ``text`` (``None`` when it is not a notify command at all)."""
    words = text.strip().split()
    if command is None:
        if not words:
            return None
        command, words = words[0], words[1:]
    found = COMMANDS.get(command.strip().lower())
    if found is None:
        return None
    language, actions = found
    action = actions.get(words[0].lower()) if len(words) == 1 else None
    return Command(action, language)


def reply(command: Command, enabled: bool, targets: int, failing: int) -> str:
    """The answer to send back to the IM session."""
    if command.action is None:
        return USAGE[command.language]
    if command.language == "zh":
        state = "已开启" if enabled else "已关闭"
        text = f"运行时任务通知{state}（{targets} 个通知目标）"
        return text + (f"，{failing} 条投递失败" if failing else "")
    state = "on" if enabled else "off"
    text = f"runtime task notifications are {state} ({targets} target(s))"
    return text + (f"; {failing} delivery failure(s)" if failing else "")
