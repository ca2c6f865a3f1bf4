"""Secret redaction, in time linear in the input, for run messages and everything a local run
reports (the hub and the ``hangar run`` reporter use this one module).

Contract:

- :func:`redact_text` replaces every recognised secret with ``****`` (keeping a label a reader
  needs, such as ``Bearer `` or ``API_KEY=``) and masks the user name in home-directory paths.
  It is idempotent: ``redact_text(redact_text(s)) == redact_text(s)``.
- Its cost is linear in ``len(text)`` for *any* input, and small: about a millisecond per
  megabyte and rule that can apply.

How: a few single-character searches first tell which rules can apply at all (no ``=`` or
``:``, no ``NAME=value``). Then the text is tokenized by the literal each secret shape starts
with (``ghp_``, ``sk-``,
``-----BEGIN``, ``://``, the core of a keyword such as ``oken`` for ``token``/``Token`` or
``OKEN`` for ``TOKEN``), found with a plain substring search; only there is a rule matched.
A rule never enters a word in its middle (a one-character look-behind at its start), every
repetition in it is possessive (``++``, ``{n,m}+``) so the matcher never gives characters back
and tries again, and a repetition that several starts could share (a keyword's name, a URL's
password) is bounded: :data:`MAX_NAME_CHARS`, :data:`MAX_SECRET_CHARS`. Those caps are what one
secret may hold: a longer one is not recognised.

- :func:`redact_window` redacts only the head and tail of a long text (what a bounded field
  keeps), so redacting one value never reads more than about twice the kept size.
- :func:`redact_value` applies :func:`redact_text` to every string inside JSON-like data
  without changing the structure, and masks a string whose key names a secret
  (``{"password": "…"}``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

MASK = "****"
MAX_SECRET_CHARS = 512
"""The longest URL password recognised (``scheme://user:password@host``)."""
MAX_NAME_CHARS = 16
"""How much of a name is read after its keyword (``SECRET_ACCESS_KEY``: 11)."""
CONTEXT_CHARS = 8192
"""Text read beyond a cut point (:func:`redact_window`): longer than any secret, so a secret
that straddles the cut is seen whole (an RSA-4096 PEM block is about 3,300 characters)."""

_W = "[0-9A-Z_a-z]"
_NOT_MASKED = r"(?!\*\*\*\*)"
_VALUE = rf"{_NOT_MASKED}[^ \t\r\n\f\v\"'&;,]{{4,}}+"
"""A ``NAME=value`` value: at least four characters up to a space, quote or separator."""
_AFTER_NAME = rf"{_W}{{0,{MAX_NAME_CHARS}}}+[\"']?+[ \t]{{0,8}}+[=:][ \t]{{0,8}}+[\"']?+"
"""The rest of the name, an optional closing quote (JSON), ``=`` or ``:``, an optional quote."""


_GATES = "-_:=/."
"""Characters some rules need (one single-character search each, the fastest there is): a
text without ``=`` and ``:`` holds no ``NAME=value``, one without ``-`` no key block…"""


@dataclass(frozen=True)
class _Rule:
    """Matches start with ``needle``; ``pattern`` matches the secret, or (``keep_label``) a
    label as group 1 and the secret as group 2. ``gate``: the rule can only match a text
    holding one of these characters (empty: no gate)."""

    needle: str
    pattern: re.Pattern[str]
    keep_label: bool = False
    gate: str = ""

    def apply(self, text: str, present: str) -> str:
        if self.gate and not any(c in present for c in self.gate):
            return text
        if self.needle not in text:
            return text
        if not self.keep_label:
            return self.pattern.sub(MASK, text)
        # split() keeps the groups: [text, label, secret, text, label, secret, …, text].
        # Replacing every secret there is done in C (a template would call Python per match).
        parts = self.pattern.split(text)
        parts[2::3] = [MASK] * (len(parts) // 3)
        return "".join(parts)


def _whole(needle: str, rest: str, gate: str = "") -> _Rule:
    """A secret masked whole: ``needle`` at the start of a word, then ``rest``."""
    start = re.escape(needle)
    return _Rule(needle, re.compile(rf"{start}(?<!{_W}{start}){rest}"), gate=gate)


def _keyword(core: str, *before: str, rest: str = "") -> _Rule:
    """``NAME=value`` where NAME holds a keyword: ``core`` is its literal part (``oken``),
    each of ``before`` letters allowed in front of it (``[Tt]``: token, Token; fixed width),
    ``rest`` what must follow it (``(?:ord|d)`` after ``assw``). The name's start may be
    anywhere in a word (only the value is masked)."""
    head = re.escape(core)
    behind = "|".join(f"(?<={letters}{head})" for letters in before)
    return _Rule(
        core,
        re.compile(rf"({head}(?:{behind}){rest}{_AFTER_NAME})({_VALUE})"),
        keep_label=True,
        gate="=:",
    )


_USER = r"[^/ \t\r\n\f\v\"':]++"
_PEM_END = r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----"


@dataclass(frozen=True)
class _KeyBlockRule:
    """A private key block, masked from its BEGIN line to its END line (or to the end of the
    text). The END line is found with a plain substring search, never by a pattern stepping
    through the block character by character."""

    needle: str = "-----BEGIN "
    begin: re.Pattern[str] = re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----")
    end: re.Pattern[str] = re.compile(_PEM_END)

    def apply(self, text: str, present: str) -> str:
        if "-" not in present or self.needle not in text:
            return text
        out: list[str] = []
        done = 0
        at = text.find(self.needle)
        while at != -1:
            head = self.begin.match(text, at)
            if head is None:
                at = text.find(self.needle, at + 1)
                continue
            close = text.find("-----END ", head.end())
            stop = len(text)
            while close != -1:
                found = self.end.match(text, close)
                if found is not None:
                    stop = found.end()
                    break
                close = text.find("-----END ", close + 1)
            out += [text[done:at], MASK]
            done = stop
            at = text.find(self.needle, stop)
        if not out:
            return text
        out.append(text[done:])
        return "".join(out)


_RULES: tuple[_Rule | _KeyBlockRule, ...] = (
    # A private key block, to its END line (or to the end of the text).
    _KeyBlockRule(),
    # AWS access key ids (IAM's other unique ids, AIDA…, are names, not credentials).
    _whole("AKIA", r"[0-9A-Z]{16}\b"),
    _whole("ASIA", r"[0-9A-Z]{16}\b"),
    _Rule(
        "gh",
        re.compile(
            rf"gh(?:[oprsu]_(?<!{_W}gh._)[0-9A-Za-z]{{20,}}+"
            rf"|ithub_pat_(?<!{_W}github_pat_){_W}{{20,}}+)\b"
        ),
        gate="_",
    ),
    _whole("sk-", r"(?:ant-|proj-)?+[-0-9A-Z_a-z]{16,}+", gate="-"),
    _whole("xox", r"[abposr]-[-0-9A-Za-z]{10,}+", gate="-"),
    _whole("glpat-", r"[-0-9A-Z_a-z]{20,}+", gate="-"),
    _whole("eyJ", r"[-0-9A-Z_a-z]{8,}+\.eyJ[-0-9A-Z_a-z]{8,}+\.[-0-9A-Z_a-z]{8,}+", gate="."),
    # Bearer tokens keep their label.
    _Rule(
        "earer",
        re.compile(
            rf"(earer(?<=[Bb]earer)(?<!{_W}[Bb]earer)[ \t]{{1,8}}+)"
            rf"({_NOT_MASKED}[-0-9A-Za-z._~+/=]{{8,}}+)"
        ),
        keep_label=True,
    ),
    # The password of any URL with credentials (postgres://app:pw@db, https://u:pw@host).
    _Rule(
        "://",
        re.compile(
            rf"(://[^:/ \t\r\n\f\v@?#]{{1,{MAX_SECRET_CHARS}}}+:)"
            rf"((?!\*\*\*\*@)[^@ \t\r\n\f\v/?#]{{1,{MAX_SECRET_CHARS}}}+)(?=@)"
        ),
        keep_label=True,
        gate=":",
    ),
    # NAME=value, NAME: value, "name": "value" for names holding a keyword, in the casings
    # names are written in (lower, Capitalized, UPPER, camelCase).
    _keyword("oken", "[Tt]"),
    _keyword("OKEN", "T"),
    _keyword("ecret", "[Ss]"),
    _keyword("ECRET", "S"),
    _keyword("assw", "[Pp]", rest="(?:ord|d)"),
    _keyword("ASSW", "P", rest="(?:ORD|D)"),
    _keyword("key", "[Aa]pi", "[Aa]pi_", "[Pp]rivate_"),
    _keyword("Key", "[Aa]pi", "[Aa]pi_", "[Pp]rivate", "[Pp]rivate_"),
    _keyword("KEY", "API", "API_", "PRIVATE_"),
    # The user name in a home-directory path.
    _Rule("/home/", re.compile(rf"(/home/)({_NOT_MASKED}{_USER})"), keep_label=True, gate="/"),
    _Rule("/Users/", re.compile(rf"(/Users/)({_NOT_MASKED}{_USER})"), keep_label=True, gate="/"),
)

_SECRET_KEY = re.compile(r"api_?key|secret|token|passw(?:or)?d|private_?key")


def redact_text(text: str) -> str:
    """``text`` with every recognised secret (and home-directory user name) masked."""
    present = "".join(c for c in _GATES if c in text)
    for rule in _RULES:
        text = rule.apply(text, present)
    return text


def redact_window(text: str, head: int, tail: int) -> tuple[str, str] | None:
    """The redacted first ``head`` and last ``tail`` characters of a text longer than
    ``head + tail + 2 * CONTEXT_CHARS``, or ``None`` for a shorter one (redact it whole).

    Each side is redacted with :data:`CONTEXT_CHARS` of the text beyond its cut, so a secret
    crossing the cut is masked before the cut is made; the last half of that context is never
    kept (a secret the window itself cut could sit there)."""
    if len(text) <= head + tail + 2 * CONTEXT_CHARS:
        return None
    front = redact_text(text[: head + CONTEXT_CHARS])
    back = redact_text(text[-(tail + CONTEXT_CHARS) :])
    keep_front = min(head, max(0, len(front) - CONTEXT_CHARS // 2))
    keep_back = min(tail, max(0, len(back) - CONTEXT_CHARS // 2))
    return front[:keep_front], back[len(back) - keep_back :]


def is_secret_name(name: str) -> bool:
    """Whether a key such as ``password`` or ``OPENAI_API_KEY`` names a secret."""
    return len(name) <= 4 * MAX_NAME_CHARS and _SECRET_KEY.search(name.lower()) is not None


def redact_value(value: Any) -> Any:
    """Redact every string inside dicts/lists/tuples; a string of four characters or more
    under a key that :func:`is_secret_name` becomes ``****``; the structure is kept."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {
            key: MASK
            if isinstance(item, str)
            and len(item) >= 4
            and isinstance(key, str)
            and is_secret_name(key)
            else redact_value(item)
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [redact_value(item) for item in value]
    return value
