"""Tokenizer shared by all five expression kinds.

DynamoDB lexes every kind with one vocabulary: ``SET`` is a keyword inside a ConditionExpression and
``AND`` inside an UpdateExpression, so both are syntax errors there rather than reserved-word errors. The
lexer never fails: a character it does not know becomes a one-character UNKNOWN token, because DynamoDB
reports such characters as the offending token of a syntax error (``token: "$"``) with the usual context.
"""

from __future__ import annotations

from dataclasses import dataclass

# Token kinds.
NAME = "NAME"  # attribute or function name: [A-Za-z][A-Za-z0-9_]*
NAME_PLACEHOLDER = "NAME_PLACEHOLDER"  # #[A-Za-z0-9_]+
VALUE_PLACEHOLDER = "VALUE_PLACEHOLDER"  # :[A-Za-z0-9_]+
NUMBER = "NUMBER"  # 0 | [1-9][0-9]*  ("01" is two tokens, as in DynamoDB)
KEYWORD = "KEYWORD"  # text upper-cased in ``value``
COMPARATOR = "COMPARATOR"  # = <> < <= > >=
PUNCT = "PUNCT"  # ( ) [ ] . , + -
UNKNOWN = "UNKNOWN"
EOF = "EOF"

KEYWORDS = frozenset({"AND", "OR", "NOT", "BETWEEN", "IN", "SET", "REMOVE", "ADD", "DELETE"})

# Only these four separate tokens; vertical tab, form feed and NBSP are syntax errors in DynamoDB.
_WHITESPACE = frozenset(" \t\r\n")
_PUNCT = frozenset("()[].,+-")
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")
_WORD_CHARS = _ASCII_LETTERS | _DIGITS | {"_"}


@dataclass(frozen=True, slots=True)
class Token:
    """One token; ``start``/``end`` index the source so error messages can quote it verbatim."""

    kind: str
    text: str
    start: int
    end: int

    @property
    def value(self) -> str:
        """Keywords compare case-insensitively; everything else by exact text."""
        return self.text.upper() if self.kind == KEYWORD else self.text

    def is_(self, kind: str, value: str | None = None) -> bool:
        return self.kind == kind and (value is None or self.value == value)


def _scan_word(text: str, pos: int) -> int:
    end = pos
    while end < len(text) and text[end] in _WORD_CHARS:
        end += 1
    return end


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens, always ending with an EOF token spanning the trailing whitespace."""
    tokens: list[Token] = []
    pos = 0
    length = len(text)
    while True:
        while pos < length and text[pos] in _WHITESPACE:
            pos += 1
        if pos >= length:
            break
        char = text[pos]
        if char in _ASCII_LETTERS:
            end = _scan_word(text, pos)
            word = text[pos:end]
            kind = KEYWORD if word.upper() in KEYWORDS else NAME
        elif char in "#:":
            end = _scan_word(text, pos + 1)
            if end == pos + 1:
                kind, end = UNKNOWN, pos + 1  # a bare '#' or ':' is itself the offending token
            else:
                kind = NAME_PLACEHOLDER if char == "#" else VALUE_PLACEHOLDER
        elif char in _DIGITS:
            end = pos + 1
            if char != "0":
                while end < length and text[end] in _DIGITS:
                    end += 1
            kind = NUMBER
        elif char in "<>=":
            kind, end = COMPARATOR, pos + 1
            if text.startswith(("<>", "<=", ">="), pos):
                end = pos + 2
        elif char in _PUNCT:
            kind, end = PUNCT, pos + 1
        else:
            kind, end = UNKNOWN, pos + 1
        tokens.append(Token(kind, text[pos:end], pos, end))
        pos = end
    tokens.append(Token(EOF, "<EOF>", length, length))
    return tokens


def near_text(text: str, tokens: list[Token], index: int) -> str:
    """The context DynamoDB quotes for an offending token.

    It runs from the start of the token before the offending one (or the start of the text) to the end
    of the token after it (or of the offending token itself), so it includes the whitespace in between
    and, when the next token is EOF, any trailing whitespace.
    """
    start = tokens[index - 1].start if index > 0 else 0
    end = tokens[index + 1].end if index + 1 < len(tokens) else tokens[index].end
    if tokens[index].kind == EOF:
        end = len(text)
    return text[start:end]
