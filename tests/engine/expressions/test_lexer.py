"""Token boundaries, which decide the ``token``/``near`` texts DynamoDB quotes in syntax errors."""

from __future__ import annotations

import pytest

from singletable.engine._expressions.lexer import (
    COMPARATOR,
    EOF,
    KEYWORD,
    NAME,
    NAME_PLACEHOLDER,
    NUMBER,
    PUNCT,
    UNKNOWN,
    VALUE_PLACEHOLDER,
    near_text,
    tokenize,
)


def kinds_and_texts(text: str) -> list[tuple[str, str]]:
    return [(token.kind, token.text) for token in tokenize(text)]


def test_basic_tokens():
    assert kinds_and_texts("a.b[10] <= :v_1") == [
        (NAME, "a"),
        (PUNCT, "."),
        (NAME, "b"),
        (PUNCT, "["),
        (NUMBER, "10"),
        (PUNCT, "]"),
        (COMPARATOR, "<="),
        (VALUE_PLACEHOLDER, ":v_1"),
        (EOF, "<EOF>"),
    ]


def test_comparators_are_greedy_but_never_join_equals():
    assert [t.text for t in tokenize("<> <= >= < > = ==")][:-1] == ["<>", "<=", ">=", "<", ">", "=", "=", "="]
    assert [t.text for t in tokenize("=<")][:-1] == ["=", "<"]


@pytest.mark.parametrize(
    "word", ["and", "AND", "aNd", "Or", "not", "between", "IN", "set", "Remove", "add", "DELETE"]
)
def test_keywords_case_insensitive(word):
    token = tokenize(word)[0]
    assert token.kind == KEYWORD
    assert token.value == word.upper()
    assert token.text == word


def test_keywords_are_whole_words():
    assert kinds_and_texts("android ins")[:2] == [(NAME, "android"), (NAME, "ins")]


def test_placeholders():
    assert kinds_and_texts("#1 :_ #a_b")[:3] == [
        (NAME_PLACEHOLDER, "#1"),
        (VALUE_PLACEHOLDER, ":_"),
        (NAME_PLACEHOLDER, "#a_b"),
    ]
    # A lone sigil is an unknown one-character token; "-" ends a placeholder.
    assert kinds_and_texts("# :")[:2] == [(UNKNOWN, "#"), (UNKNOWN, ":")]
    assert kinds_and_texts("#a-b")[:3] == [(NAME_PLACEHOLDER, "#a"), (PUNCT, "-"), (NAME, "b")]


def test_numbers_split_leading_zero():
    assert [t.text for t in tokenize("01 007 120")][:-1] == ["0", "1", "0", "0", "7", "120"]


def test_names_start_with_ascii_letter():
    assert kinds_and_texts("_a")[:2] == [(UNKNOWN, "_"), (NAME, "a")]
    assert kinds_and_texts("1a")[:2] == [(NUMBER, "1"), (NAME, "a")]
    assert kinds_and_texts("é")[0] == (UNKNOWN, "é")


@pytest.mark.parametrize("char", ["\x0b", "\x0c", "\u00a0", "$", "!", '"', "'", "~"])
def test_unknown_characters(char):
    assert kinds_and_texts(f"a{char}")[1] == (UNKNOWN, char)


def test_whitespace():
    tokens = tokenize(" \t\r\na \n")
    assert [(t.text, t.start, t.end) for t in tokens] == [("a", 4, 5), ("<EOF>", 7, 7)]


@pytest.mark.parametrize(
    ("text", "index", "near"),
    [
        ("a = :v :w", 3, ":v :w"),
        ("a   =   :v   :w   ", 3, ":v   :w   "),
        ("a = ", 2, "= "),
        ("   ", 0, "   "),
        ("= :v", 0, "= :v"),
        ("a.#  = :v", 2, ".#  ="),
    ],
)
def test_near_text(text, index, near):
    assert near_text(text, tokenize(text), index) == near
