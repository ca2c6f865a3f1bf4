"""Secret redaction for run messages (used by the CLI before sending and again by the hub).

Contract: :func:`redact_text` replaces every match of the known secret shapes with ``****``
(keeping a non-secret prefix such as ``Bearer`` or ``API_KEY=`` where that helps a reader) and
is idempotent: ``redact_text(redact_text(s)) == redact_text(s)``. :func:`redact_value` applies it
to every string inside JSON-like data without changing the structure.
"""

from __future__ import annotations

import re
from typing import Any

MASK = "****"

_WHOLE: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
        re.S,
    ),
    re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}\b"),
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}\b"),
    re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}"),
    re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
    re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}"),
    re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
)

# Patterns whose first group is kept (a label a reader needs) and whose rest is masked.
_KEEP_PREFIX: tuple[re.Pattern[str], ...] = (
    re.compile(r"(\b[Bb]earer\s+)(?!\*\*\*\*)[A-Za-z0-9._~+/=\-]{8,}"),
    re.compile(
        r"(\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql)"
        r"://[^:/\s@]+:)(?!\*\*\*\*@)[^@\s]+(?=@)"
    ),
    re.compile(
        r"(\b[A-Za-z0-9_]*(?:API_KEY|APIKEY|SECRET|TOKEN|PASSWORD|PASSWD|PRIVATE_KEY)"
        r"[A-Za-z0-9_]*\s*[=:]\s*[\"']?)(?!\*\*\*\*)[^\s\"'&;,]{4,}",
        re.I,
    ),
)

_HOME_USER = re.compile(r"(/(?:home|Users)/)(?!\*\*\*\*)([^/\s\"':]+)")


def redact_text(text: str) -> str:
    """``text`` with every recognised secret (and home-directory user name) masked."""
    for pattern in _WHOLE:
        text = pattern.sub(MASK, text)
    for pattern in _KEEP_PREFIX:
        text = pattern.sub(lambda m: m.group(1) + MASK, text)
    return _HOME_USER.sub(lambda m: m.group(1) + MASK, text)


def redact_value(value: Any) -> Any:
    """Redact every string inside dicts/lists/tuples; other values are returned unchanged."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {key: redact_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(item) for item in value]
    return value
