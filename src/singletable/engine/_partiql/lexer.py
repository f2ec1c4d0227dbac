"""PartiQL tokens with their line and column, which DynamoDB's positional error messages quote."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import malformed

# Words that can never be a bare attribute name (quote them: "value").
RESERVED = frozenset(
    (
        "SELECT",
        "FROM",
        "WHERE",
        "AND",
        "OR",
        "NOT",
        "IN",
        "IS",
        "BETWEEN",
        "LIKE",
        "ORDER",
        "BY",
        "INSERT",
        "INTO",
        "VALUE",
        "VALUES",
        "UPDATE",
        "SET",
        "REMOVE",
        "DELETE",
        "RETURNING",
        "MISSING",
        "NULL",
        "TRUE",
        "FALSE",
        "EXISTS",
        "LIMIT",
        "OFFSET",
        "GROUP",
        "HAVING",
        "AS",
        "AT",
        "DISTINCT",
        "ASC",
        "DESC",
        "ESCAPE",
        "PIVOT",
        "UNION",
        "INTERSECT",
        "EXCEPT",
        "JOIN",
        "ON",
        "CASE",
        "WHEN",
        "THEN",
        "ELSE",
        "END",
    )
)

# Token kinds: 'id' (bare identifier or keyword), 'qid' (double-quoted identifier), 'str', 'num', 'ion'
# (a backtick literal, which DynamoDB rejects later), 'op' (punctuation and operators), 'eof'.
_TOKEN = re.compile(
    r"""
    (?P<ws>\s+|--[^\n]*|/\*.*?\*/)
  | (?P<num>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<id>[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<qid>"(?:[^"]|"")*")
  | (?P<str>'(?:[^']|'')*')
  | (?P<ion>`[^`]*`)
  | (?P<op><<|>>|<=|>=|<>|!=|\|\||[-+*/%=<>()\[\]{},.:;?])
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class Token:
    kind: str
    text: str  # the value: keywords as written, strings and quoted identifiers unescaped
    line: int
    column: int
    length: int

    @property
    def upper(self) -> str:
        return self.text.upper() if self.kind == "id" else ""


def tokenize(statement: str) -> list[Token]:
    """Split ``statement``; anything that is not a token makes the whole statement malformed."""
    tokens: list[Token] = []
    position = 0
    line, line_start = 1, 0
    size = len(statement)
    while position < size:
        match = _TOKEN.match(statement, position)
        if match is None:
            raise malformed(statement)
        kind = match.lastgroup or ""
        raw = match.group()
        if kind != "ws":
            text = raw
            if kind == "qid":
                text = raw[1:-1].replace('""', '"')
            elif kind == "str":
                text = raw[1:-1].replace("''", "'")
            tokens.append(Token(kind, text, line, position - line_start + 1, len(raw)))
        newlines = raw.count("\n")
        if newlines:
            line += newlines
            line_start = position + raw.rindex("\n") + 1
        position = match.end()
    tokens.append(Token("eof", "", line, position - line_start + 1, 0))
    return tokens
