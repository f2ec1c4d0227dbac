"""The one order a set's members are kept and returned in.

AWS documents sets as unordered, but the service answers with each set in its own order, whatever order
the members were written or added in: string and binary sets bytewise (a string's UTF-8 bytes, binary
unsigned), number sets by numeric value. That is what the Parity Suite observed on AWS (``ADD`` of ``""``
onto ``{"SS": ["a"]}`` reads back ``["", "a"]``), and mostly what DynamoDB Local does: its PutItem orders
strings by UTF-16 code units (U+1F600 before U+FF5A), its UpdateExpression ``ADD`` by code point, and its
legacy ``AttributeUpdates`` ADD and PartiQL bags keep written order.

Every set the engine builds -- a validated item or ExpressionAttributeValue, the result of ``ADD`` and
``DELETE``, a PartiQL bag -- passes through :func:`ordered_members` before it is stored or returned, so stored
items already hold the order and reads pass them through unchanged. A Python ``str`` compares by code point,
which is UTF-8's byte order (lone surrogates included, as ``surrogatepass`` encodes them); ``bytes`` compare
unsigned.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any


def ordered_members(tag: str, members: list[Any]) -> list[Any]:
    """``members`` of a set of type ``tag`` (``SS``, ``NS`` or ``BS``; distinct, valid) in DynamoDB's order.

    Numbers must be valid DynamoDB numbers (they are compared as ``Decimal``); the list is sorted in place
    and returned.
    """
    if len(members) > 1:
        if tag == "NS":
            members.sort(key=Decimal)
        else:
            members.sort()
    return members
