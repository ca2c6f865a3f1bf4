"""Text preparation and query compilation for the FTS5 search index.

**CJK.** FTS5's ``unicode61`` tokenizer keeps a run of Chinese, Japanese or Korean characters
as one token, so "搜索" could never be found inside "全文搜索功能". Before indexing, every CJK
character is surrounded by U+200B (ZERO WIDTH SPACE, a separator for ``unicode61``), so each
character is its own token. A CJK run in a query becomes a *phrase* of its characters, which
matches exactly where the characters are adjacent in the text: substring semantics for CJK,
word semantics for everything else. Snippets drop the U+200B again and merge adjacent marks.

**Query language** (:func:`compile_query`): words are ANDed; ``"two words"`` is a phrase;
a trailing ``*`` makes a prefix (``deplo*``, ``"tool out"*``). Everything else is literal:
FTS5 operators (``AND``, ``OR``, ``NEAR``, ``:``, ``^``, ``(``, ``-``, …) are searched as
text, never interpreted. An unbalanced ``"`` or a query with nothing searchable is a
:class:`~hangar.errors.UsageError` (``bad_request``) with a message saying why.

**Marks.** Matches in snippets are wrapped in ``«`` and ``»`` (:data:`MARK_OPEN`,
:data:`MARK_CLOSE`).
"""

from __future__ import annotations

import re

from hangar.errors import UsageError

MARK_OPEN = "«"
MARK_CLOSE = "»"
ZWSP = "\u200b"

_CJK_CLASS = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31a0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003134f"
)
_CJK = re.compile(f"[{_CJK_CLASS}]")
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
MAX_QUERY_CHARS = 1000
MAX_TERMS = 32


def prepare_text(text: str) -> str:
    """Text as stored in the index: CJK characters split into single-character tokens."""
    if text.isascii() or not _CJK.search(text):
        return text
    return _CJK.sub(lambda m: ZWSP + m.group(0) + ZWSP, text)


def clean_snippet(snippet: str) -> str:
    """Undo :func:`prepare_text` in a snippet and merge marks that touch."""
    text = snippet.replace(ZWSP, "")
    return text.replace(MARK_CLOSE + MARK_OPEN, "")


def _phrase(text: str) -> str | None:
    """One FTS5 string (a phrase of the tokens in ``text``), or None when it has none."""
    prepared = prepare_text(text)
    tokens = list(_TOKEN.findall(prepared.replace(ZWSP, " ")))
    if not tokens:
        return None
    joined = " ".join(_split_cjk(tokens))
    return '"' + joined.replace('"', '""') + '"'


def _split_cjk(tokens: list[str]) -> list[str]:
    out: list[str] = []
    for token in tokens:
        if _CJK.search(token):
            out.extend(part for part in prepare_text(token).split(ZWSP) if part)
        else:
            out.append(token)
    return out


def _split_terms(query: str) -> list[tuple[str, bool]]:
    """(text, prefix) pairs: quoted phrases and bare words, in order."""
    terms: list[tuple[str, bool]] = []
    i, n = 0, len(query)
    while i < n:
        ch = query[i]
        if ch.isspace():
            i += 1
        elif ch == '"':
            end = query.find('"', i + 1)
            if end < 0:
                raise UsageError(
                    'unbalanced quote in the query: close the phrase with a second " '
                    "or remove the quote"
                )
            prefix = end + 1 < n and query[end + 1] == "*"
            terms.append((query[i + 1 : end], prefix))
            i = end + (2 if prefix else 1)
        else:
            j = i
            while j < n and not query[j].isspace() and query[j] != '"':
                j += 1
            word = query[i:j]
            prefix = word.endswith("*") and len(word.rstrip("*")) > 0
            terms.append((word.rstrip("*") if prefix else word, prefix))
            i = j
    return terms


def compile_query(query: object) -> str:
    """The FTS5 MATCH expression for a user query (see the module docstring)."""
    if not isinstance(query, str):
        raise UsageError("query must be a string")
    text = query.strip()
    if not text:
        raise UsageError("empty query: type at least one word to search for")
    if len(text) > MAX_QUERY_CHARS:
        raise UsageError(f"query too long ({len(text)} characters, at most {MAX_QUERY_CHARS})")
    parts: list[str] = []
    for term, prefix in _split_terms(text):
        phrase = _phrase(term)
        if phrase is None:
            continue
        parts.append(phrase + ("*" if prefix else ""))
    if not parts:
        raise UsageError(f"nothing to search for in {query!r}: it has no letters or digits")
    if len(parts) > MAX_TERMS:
        raise UsageError(f"too many search terms ({len(parts)}, at most {MAX_TERMS})")
    return " AND ".join(parts)
