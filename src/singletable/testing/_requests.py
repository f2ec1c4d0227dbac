"""What a fault plan reads of a DynamoDB request: the tables it names, and the items it writes.

Kept apart from the plan (:mod:`singletable.testing.faults`) because both the fault rules and the lagging
index (:mod:`singletable.testing._lagging`) need them, from the request's decoded parameters as the wire
delivered them (``wire.decode_request``: attribute values in DynamoDB JSON, ``B`` as bytes).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple

# A PartiQL statement's table: after FROM (SELECT, DELETE, EXISTS), INTO (INSERT) or the verb (UPDATE), as a
# double-quoted or bare identifier.
_VERB = re.compile(r"\s*(SELECT|INSERT|UPDATE|DELETE|EXISTS)\b", re.IGNORECASE)
_TABLE = r'\s*(?:"((?:[^"]|"")+)"|([A-Za-z0-9_.\-]+))'
_AFTER_VERB = {
    "SELECT": re.compile(r".*?\bFROM" + _TABLE, re.IGNORECASE | re.DOTALL),
    "EXISTS": re.compile(r".*?\bFROM" + _TABLE, re.IGNORECASE | re.DOTALL),
    "DELETE": re.compile(r"\s+FROM" + _TABLE, re.IGNORECASE),
    "INSERT": re.compile(r"\s+INTO" + _TABLE, re.IGNORECASE),
    "UPDATE": re.compile(_TABLE),
}
_WRITE_VERBS = frozenset({"INSERT", "UPDATE", "DELETE"})

KeyId = tuple[tuple[str, str | None, Any], ...]  # (name, type or None when not an AttributeValue, value)


class Request(NamedTuple):
    """One API request as the plan handles it: its operation, decoded parameters, the body as sent, and
    the tables it names (in the order they appear; a table named twice appears once)."""

    operation: str
    params: dict[str, Any]
    body: bytes
    tables: tuple[str, ...]


def table_name(name: Any) -> str | None:
    """A TableName as the request gave it, or the table of an ARN (``arn:...:table/NAME``)."""
    if not isinstance(name, str):
        return None
    if name.startswith("arn:"):
        _, _, rest = name.partition(":table/")
        return rest.partition("/")[0] or None
    return name


def statement_table(statement: Any) -> tuple[str | None, bool]:
    """The table a PartiQL statement reads or writes, and whether it writes (INSERT, UPDATE, DELETE)."""
    if not isinstance(statement, str):
        return None, False
    verb = _VERB.match(statement)
    if verb is None:
        return None, False
    name = verb.group(1).upper()
    found = _AFTER_VERB[name].match(statement, verb.end())
    if found is None:
        return None, False
    quoted, bare = found.groups()
    table = quoted.replace('""', '"') if quoted is not None else bare.split(".")[0]
    return table, name in _WRITE_VERBS


def statements(params: dict[str, Any]) -> list[str]:
    """The PartiQL statements of ExecuteStatement, BatchExecuteStatement or ExecuteTransaction."""
    if isinstance(params.get("Statement"), str):
        return [params["Statement"]]
    found: list[Any] = []
    for member in ("Statements", "TransactStatements"):
        listed = params.get(member)
        if isinstance(listed, list):
            found.extend(s.get("Statement") for s in listed if isinstance(s, dict))
    return [s for s in found if isinstance(s, str)]


def tables_of(params: dict[str, Any]) -> tuple[str, ...]:
    """Every table a request names: its TableName, a batch's RequestItems, a transaction's actions, the
    tables of its PartiQL statements."""
    names: list[str | None] = [table_name(params.get("TableName"))]
    batch = params.get("RequestItems")
    if isinstance(batch, dict):
        names.extend(table_name(name) for name in batch)
    actions = params.get("TransactItems")
    if isinstance(actions, list):
        for action in actions:
            if isinstance(action, dict):
                for inner in action.values():
                    if isinstance(inner, dict):
                        names.append(table_name(inner.get("TableName")))
    names.extend(statement_table(statement)[0] for statement in statements(params))
    return tuple(dict.fromkeys(name for name in names if name))


def action_tables(params: dict[str, Any]) -> list[str | None]:
    """A transaction's table per action, in order (TransactItems, or ExecuteTransaction's statements)."""
    actions = params.get("TransactItems")
    if isinstance(actions, list):
        found: list[str | None] = []
        for action in actions:
            inner = next(iter(action.values()), None) if isinstance(action, dict) and action else None
            found.append(table_name(inner.get("TableName")) if isinstance(inner, dict) else None)
        return found
    listed = params.get("TransactStatements")
    if isinstance(listed, list):
        return [statement_table(s.get("Statement") if isinstance(s, dict) else None)[0] for s in listed]
    return []


def key_id(key: dict[str, Any]) -> KeyId:
    """A hashable identity for a key (``{"pk": {"S": "a"}}``); numbers compare by value (``1`` is ``1.0``)."""
    parts: list[tuple[str, str | None, Any]] = []
    for name in sorted(key):
        value = key[name]
        (kind, raw), *_ = value.items() if isinstance(value, dict) and value else ((None, value),)
        if kind == "N":
            try:
                raw = Decimal(raw).normalize()
            except (InvalidOperation, TypeError):
                pass
        parts.append((name, kind, raw))
    return tuple(parts)


def key_of(item: Any, key_names: tuple[str, ...]) -> dict[str, Any] | None:
    """The key attributes of ``item`` (or of a ``Key``), or None when one is missing."""
    if not isinstance(item, dict) or any(name not in item for name in key_names):
        return None
    return {name: item[name] for name in key_names}


class ItemWrite(NamedTuple):
    """One item a request writes: its table and key."""

    table: str
    key: dict[str, Any]


def item_writes(operation: str, params: dict[str, Any], key_names: Any) -> list[ItemWrite] | None:
    """The items a PutItem, UpdateItem, DeleteItem, BatchWriteItem or TransactWriteItems writes (keys by
    ``key_names(table)``, None for an unknown table); None for any other operation. A request whose keys
    cannot be read writes nothing (the engine refuses it)."""
    found: list[ItemWrite] = []

    def add(table: Any, source: Any) -> None:
        name = table_name(table)
        names = key_names(name) if name else None
        key = key_of(source, names) if names else None
        if key is not None:
            found.append(ItemWrite(name, key))  # type: ignore[arg-type]  # name is set: key_of ran only with names

    if operation == "PutItem":
        add(params.get("TableName"), params.get("Item"))
    elif operation in ("UpdateItem", "DeleteItem"):
        add(params.get("TableName"), params.get("Key"))
    elif operation == "BatchWriteItem":
        for table, requests in _dict(params.get("RequestItems")).items():
            for request in requests if isinstance(requests, list) else ():
                put = _dict(_dict(request).get("PutRequest"))
                add(table, put.get("Item") if put else _dict(_dict(request).get("DeleteRequest")).get("Key"))
    elif operation == "TransactWriteItems":
        for action in params.get("TransactItems") or ():
            for kind, member in (("Put", "Item"), ("Update", "Key"), ("Delete", "Key")):
                inner = _dict(_dict(action).get(kind))
                if inner:
                    add(inner.get("TableName"), inner.get(member))
    else:
        return None
    return found


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
