"""PartiQL tokens with their line and column, which DynamoDB's positional error messages quote.

DynamoDB's PartiQL lexer sorts every word into a class, and the parser's error messages name the class of the
token it could not use ("Unexpected keyword", "Unexpected operator", "Unexpected term"), so the classes here
follow PartiQL's: the language's keywords, the word-shaped operators (``AND``, ``IS``, ``LIKE``...), the
literal words (``NULL``, ``MISSING``, ``TRUE``, ``FALSE``), identifiers, and punctuation. Runs of words that
PartiQL reads as one token (``INSERT INTO``, ``NOT IN``, ``ALL NEW``) are merged here as PartiQL merges them.

Anything the lexer cannot read (a character outside the language, a ``#`` comment, an unterminated string or
comment, a number whose exponent or scale does not fit a 32-bit integer) makes the statement malformed with
nothing after the colon: DynamoDB's lexer errors carry no detail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import lexer_error
from .keywords import KEYWORDS, MERGED, WORD_OPERATORS

_WHITESPACE = " \t\n\r\x0b\x0c"
_IDENT_START = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$"
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_DIGITS = re.compile(r"[0-9]+")
_EXPONENT = re.compile(r"[eE]([+-]?[0-9]+)")
_PUNCTUATION = frozenset("()[]{}:,*;?")
_INT32 = (-(2**31), 2**31 - 1)


@dataclass(frozen=True, slots=True)
class Token:
    """One token. ``kind`` is one of: ``kw`` (keyword), ``op`` (operator, symbol or word), ``id``
    (identifier), ``qid`` (double-quoted identifier), ``str``, ``num``, ``ion`` (a backtick literal),
    ``punct`` (``( ) [ ] { } : , * ; ? . << >>``) and ``eof``.

    ``text`` is the value: keywords and word operators lower-cased (merged runs joined by ``_``), strings
    and quoted identifiers unescaped, anything else as written. ``raw`` is the source text.
    """

    kind: str
    text: str
    line: int
    column: int
    length: int
    raw: str = ""

    def is_kw(self, *words: str) -> bool:
        return self.kind == "kw" and self.text in words

    def is_op(self, *ops: str) -> bool:
        return self.kind == "op" and self.text in ops

    def is_punct(self, *marks: str) -> bool:
        return self.kind == "punct" and self.text in marks


def _number_end(statement: str, start: int) -> int:
    """Where the number starting at ``start`` ends; raises for an exponent with no digits, or one that (with
    the digits after the point) leaves an exponent or scale beyond a 32-bit integer, as Java's BigDecimal
    refuses them."""
    position = start
    fraction = 0
    digits = _DIGITS.match(statement, position)
    if digits is not None:
        position = digits.end()
        if statement.startswith(".", position):
            more = _DIGITS.match(statement, position + 1)
            if more is None:
                return position + 1  # "1." ends here; an "e" after it starts a word
            fraction = more.end() - position - 1
            position = more.end()
    else:  # ".5"
        more = _DIGITS.match(statement, position + 1)
        assert more is not None
        fraction = more.end() - position - 1
        position = more.end()
    if position < len(statement) and statement[position] in "eE":
        exponent = _EXPONENT.match(statement, position)
        if exponent is None:
            raise lexer_error()
        value = int(exponent.group(1))
        if not (_INT32[0] <= value <= _INT32[1] and _INT32[0] <= fraction - value <= _INT32[1]):
            raise lexer_error()
        return exponent.end()
    return position


def _quoted_end(statement: str, start: int, quote: str) -> int:
    """The end of a quoted string or identifier (a doubled quote is one quote character)."""
    position = start + 1
    while True:
        found = statement.find(quote, position)
        if found < 0:
            raise lexer_error()
        if statement.startswith(quote * 2, found):
            position = found + 2
            continue
        return found + 1


def _ion_end(statement: str, start: int) -> int:
    """The end of a backtick literal: strings inside it may hold a backtick."""
    position = start + 1
    size = len(statement)
    while position < size:
        char = statement[position]
        if char == "`":
            return position + 1
        if char in "\"'":
            position += 1
            while position < size and statement[position] != char:
                position += 2 if statement[position] == "\\" else 1
        position += 1
    raise lexer_error()


def _symbol_end(statement: str, start: int) -> int:
    two = statement[start : start + 2]
    if two in ("<=", ">=", "<>", "!=", "||", "<<", ">>"):
        return start + 2
    if statement[start] in "+-/%=<>@~":
        return start + 1
    raise lexer_error()  # a lone "!" or "|", "^", "#", "&", or any character outside the language


def _add(tokens: list[Token], token: Token) -> None:
    """Append ``token``, merging it with the word before it where PartiQL reads the two as one token."""
    if tokens and token.kind in ("kw", "op") and tokens[-1].kind in ("kw", "op"):
        previous = tokens[-1]
        merged = MERGED.get((previous.text, token.text))
        if merged is not None:
            same_line = token.line == previous.line
            length = token.column + token.length - previous.column if same_line else previous.length
            raw = previous.raw + " " + token.raw
            tokens[-1] = Token(merged[0], merged[1], previous.line, previous.column, length, raw)
            return
    tokens.append(token)


def tokenize(statement: str) -> list[Token]:
    """Split ``statement`` into tokens, ending with an ``eof`` token."""
    tokens: list[Token] = []
    position = 0
    line, line_start = 1, 0
    size = len(statement)
    while position < size:
        char = statement[position]
        start = position
        if char in _WHITESPACE:
            end = position + 1
        elif statement.startswith("--", position):
            newline = statement.find("\n", position)
            end = size if newline < 0 else newline
        elif statement.startswith("/*", position):
            close = statement.find("*/", position + 2)
            if close < 0:
                raise lexer_error()
            end = close + 2
        else:
            kind, text, end = _read_token(statement, position)
            raw = statement[start:end]
            _add(tokens, Token(kind, text, line, start - line_start + 1, end - start, raw))
        newlines = statement.count("\n", start, end)
        if newlines:
            line += newlines
            line_start = statement.rindex("\n", start, end) + 1
        position = end
    tokens.append(Token("eof", "", line, position - line_start + 1, 0))
    return tokens


def _read_token(statement: str, position: int) -> tuple[str, str, int]:
    char = statement[position]
    if char in _IDENT_START:
        match = _IDENT.match(statement, position)
        assert match is not None
        word = match.group()
        lower = word.lower()
        if lower in WORD_OPERATORS:
            return "op", lower, match.end()
        if lower in KEYWORDS:
            return "kw", lower, match.end()
        return "id", word, match.end()
    starts_number = char in "0123456789" or (char == "." and statement[position + 1 : position + 2].isdigit())
    if starts_number:
        end = _number_end(statement, position)
        return "num", statement[position:end], end
    if char == '"':
        end = _quoted_end(statement, position, '"')
        return "qid", statement[position + 1 : end - 1].replace('""', '"'), end
    if char == "'":
        end = _quoted_end(statement, position, "'")
        return "str", statement[position + 1 : end - 1].replace("''", "'"), end
    if char == "`":
        end = _ion_end(statement, position)
        return "ion", statement[position:end], end
    if char == ".":
        return "punct", ".", position + 1
    if char in _PUNCTUATION:
        return "punct", char, position + 1
    end = _symbol_end(statement, position)
    text = statement[position:end]
    if text in ("<<", ">>"):
        return "punct", text, end
    return "op", "<>" if text == "!=" else text, end
