"""DynamoDB's PartiQL dialect: statements parsed here, then run through the ordinary item operations.

:func:`parse_statement` turns text into a statement tree (:mod:`.ast`); :mod:`.translate` maps its
expressions onto the shared DynamoDB expression AST, and :mod:`.run` executes it by calling Query, Scan,
PutItem, UpdateItem and DeleteItem, so PartiQL has no evaluator or write path of its own.
"""

from __future__ import annotations

from .parser import parse_statement

__all__ = ["parse_statement"]
