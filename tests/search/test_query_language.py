"""The query compiler: phrases, prefixes, CJK, and clear errors for bad input."""

from __future__ import annotations

import pytest

from hangar.errors import UsageError
from hangar.executor.search_text import clean_snippet, compile_query, prepare_text


def test_words_are_anded_and_quoted_literally() -> None:
    assert compile_query("deploy script") == '"deploy" AND "script"'


def test_phrase_and_prefix() -> None:
    assert compile_query('"tool output" deplo*') == '"tool output" AND "deplo"*'
    assert compile_query('"tool out"*') == '"tool out"*'


def test_fts_operators_and_syntax_are_searched_as_text() -> None:
    """User text never becomes FTS5 syntax (no injection, no traceback)."""
    assert compile_query("foo OR bar") == '"foo" AND "OR" AND "bar"'
    assert compile_query("NEAR(a b) -x ^y col:z") == (
        '"NEAR a" AND "b" AND "x" AND "y" AND "col z"'
    )
    assert compile_query("a.b/c") == '"a b c"'


def test_cjk_runs_become_character_phrases() -> None:
    assert compile_query("全文搜索") == '"全 文 搜 索"'
    assert compile_query("日本語のテスト") == '"日 本 語 の テ ス ト"'
    assert compile_query("构建build") == '"构 建 build"'


def test_prepare_text_splits_cjk_and_leaves_ascii_alone() -> None:
    assert prepare_text("plain ascii") == "plain ascii"
    assert prepare_text("中文").replace("\u200b", "|") == "|中||文|"
    assert clean_snippet(prepare_text("«中»«文» ok")) == "«中文» ok"


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("", "empty query"),
        ("   ", "empty query"),
        ('"unclosed phrase', "unbalanced quote"),
        ("*** ((( )))", "no letters or digits"),
        ('""', "no letters or digits"),
        (None, "must be a string"),
        (42, "must be a string"),
        ("x" * 1001, "too long"),
    ],
)
def test_bad_queries_are_clear_bad_requests(query: object, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        compile_query(query)
    assert message in str(caught.value)
    assert caught.value.code == "bad_request"
