"""Which items are one entity, for an inferred design (:mod:`singletable.design._infer`).

Three questions, answered from the sampled items alone:

- what the keys are **split on**: of ``# | / ~ $ :``, the one most table keys hold *after their first
  character* (ElectroDB's keys open with ``$`` and split on ``#``), ``:`` only where no key holds a time;
- which attribute, if any, is the **type attribute**: on most items, few distinct short values, and the
  values follow the items' shapes -- the labels of their keys, or (for an attribute named like a type:
  ``type``, ``kind``, ``entity``, ``model``, ``class``, ``cls``, ElectroDB's ``__edb_e__``) the labels and
  the set of attributes the item holds, since two types may share one key shape (a user and an
  organization both keyed ``ACCOUNT#<login>``);
- without one, the **key-prefix families**: items grouped by the labels of their keys, a label being a
  word (``ORDER``), a word glued to a number (``EMPLOYEE1`` -> ``EMPLOYEE*``) or, first in a key of several
  parts, any word or word ending in ``_``/``-`` (``account``, ``employee_<id>`` -> ``employee_*``), unless the
  table's keys open with so many different words that they are values (usernames).
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import Any

from singletable.design._infer_keys import InferredEntity, key_text

Item = dict[str, dict[str, Any]]
DELIMITERS = ("#", "|", "/", "~", "$", ":")  # what keys are split on: the one most keys hold
_TIME = re.compile(r"\d{2}:\d{2}")  # a key holding a time of day is never split on ":"
_TYPE_VALUE = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]{0,39}")
# Names that say "type", likeliest first (a tie between two goes to the earlier word); DynamoDB-Toolbox's
# "_et" only as the whole name.
_TYPE_NAMES = ("type", "kind", "__edb_e__", "_et", "entity", "model", "discriminator", "cls", "class")
_WORD = re.compile(r"[A-Z][A-Z_-]*")  # an upper-case label: ORDER, HR-CONFIDENTIAL
_GLUED = re.compile(r"([A-Z][A-Z_-]*?)[0-9]+")  # a label glued to a number: EMPLOYEE1
_FIRST_WORD = re.compile(r"[A-Za-z_$][A-Za-z_$-]*")  # first in a key: account, $taskapp
_FIRST_GLUED = re.compile(r"([A-Za-z_$][A-Za-z_$-]*?(?:[0-9]+$|[_-](?=.)))")  # v0, employee_<id>
_MANY = 50  # more distinct first-part labels than this are values, not labels (as for type values)
_GUARD_EXTRA = 2  # a guard item holds its key and at most this many other attributes


def choose_delimiter(items: list[Item], table_keys: list[str]) -> str:
    """What the keys are split on: of ``# | / ~ $ :``, the one the most table keys hold after their first
    character (``#`` on a tie, or when none is in a tenth of them); ``:`` (``user:42``) only when no key
    holds a time of day, whose colons are no separators."""
    texts = [text for item in items for k in table_keys if (text := key_text(item.get(k)))]
    counts = Counter(d for text in texts for d in DELIMITERS if d in text[1:])
    if any(_TIME.search(text) for text in texts):
        counts.pop(":", None)
    best = max(DELIMITERS, key=lambda d: (counts[d], d == "#"))
    return best if counts[best] * 10 >= len(items) else "#"


def label(part: str, first: bool, alone: bool = False) -> str:
    """A key part as a label (``ORDER``, ``EMPLOYEE*`` for ``EMPLOYEE1``), or ``*`` for a value. A
    lower-case word is a label only first in a key of several parts (``account#...``): alone, it is a
    value (a name, a title)."""
    if _WORD.fullmatch(part):
        return part
    if match := _GLUED.fullmatch(part):
        return match[1] + "*"
    if first and not alone and _FIRST_WORD.fullmatch(part):
        return part
    if first and (match := _FIRST_GLUED.match(part)):
        return match[1] + "*"
    return "*"


def shape(value: str | None, delimiter: str, placeholders: bool = False, words_first: bool = True) -> str:
    """A key's labels: ``ORDER#o1#ITEM#3`` -> ``ORDER#ITEM`` (``ORDER#*#ITEM#*`` with ``placeholders``);
    ``words_first=False`` when the table's first parts are values (see :func:`words_first`)."""
    if value is None:
        return ""
    parts = value.split(delimiter)
    kept = [label(p, i == 0 and words_first, len(parts) == 1) for i, p in enumerate(parts)]
    if placeholders:
        return delimiter.join(kept)
    return delimiter.join(p.rstrip("*") for p in kept if p != "*")


def words_first(items: list[Item], attribute: str | None, delimiter: str) -> bool:
    """Whether a key's first part, when a lower-case or mixed-case word, is a label (``account#...``,
    ``employee_<id>``) rather than a value (a username as the whole key): labels are few, so more than
    _MANY distinct ones say the first parts are values."""
    if attribute is None:
        return True
    seen: set[str] = set()
    for item in items:
        if (text := key_text(item.get(attribute))) is not None:
            parts = text.split(delimiter)
            seen.add(label(parts[0], True, len(parts) == 1))
            if len(seen) > _MANY:
                return False
    return True


def looks_like_guard(item: Item, pk: str, sk: str | None, delimiter: str) -> bool:
    key = key_text(item.get(pk))
    if key is None or delimiter not in key:
        return False
    if sk is not None and key_text(item.get(sk)) != key:
        return False
    return len([a for a in item if a not in (pk, sk)]) <= _GUARD_EXTRA


def find_type_attribute(items: list[Item], pk: str, sk: str | None, delimiter: str) -> tuple[str | None, str]:
    """The attribute naming each item's entity type, and the evidence; (None, why) when none fits.

    It is on most items (guard items, which hold little but a key, are not counted), its values are few
    and short, and they follow the items' shapes nine times in ten -- a status or a category, which varies
    among items of one shape, is not a type. An attribute named like a type may instead follow the shapes
    together with the attributes each item holds."""
    counts: dict[str, Counter[str]] = {}
    by_shape: dict[tuple[str, str, str], int] = {}  # (attribute, key shape, value) -> items
    by_holding: dict[tuple[str, str, frozenset[str], str], int] = {}  # ... and the attributes held
    shapes: dict[tuple[str | None, str | None], str] = {}
    kept = [i for i in items if not looks_like_guard(i, pk, sk, delimiter)]
    words = words_first(kept, pk, delimiter), words_first(kept, sk, delimiter)
    for item in kept:
        keys = (key_text(item.get(pk)), key_text(item.get(sk)) if sk else None)
        if (key_shape := shapes.get(keys)) is None:
            pk_shape, sk_shape = (shape(k, delimiter, True, w) for k, w in zip(keys, words, strict=True))
            key_shape = shapes[keys] = f"{pk_shape} {sk_shape}"
        holding = frozenset(item)
        for name, value in item.items():
            text = value.get("S")
            if text is None or name in (pk, sk):
                continue
            if (found := counts.get(name)) is None:
                found = counts[name] = Counter()
            found[text] += 1
            by_shape[name, key_shape, text] = by_shape.get((name, key_shape, text), 0) + 1
            if _rank(name) < len(_TYPE_NAMES):
                held = (name, key_shape, holding, text)
                by_holding[held] = by_holding.get(held, 0) + 1
    candidates = []
    for name, values in counts.items():
        present = sum(values.values())
        if present * 2 <= len(kept) or len(values) > 50 or len(values) >= max(2, present):
            continue
        if not all(_TYPE_VALUE.fullmatch(v) for v in values):
            continue
        rank = _rank(name)
        named = rank < len(_TYPE_NAMES)
        if not _follows(by_shape, name, present) and not (named and _follows(by_holding, name, present)):
            continue
        candidates.append((rank, -present, len(values), name))
    if not candidates:
        return None, (
            f"no attribute is on most of the {len(kept)} sampled items (guards aside) with few distinct "
            "short values that follow the keys' shapes"
        )
    *_, best = min(candidates)
    values = counts[best]
    return best, (
        f"on {sum(values.values())} of {len(kept)} sampled items (guards aside), {len(values)} distinct "
        "short values, one per key shape" + ("" if _follows(by_shape, best, sum(values.values())) else
                                             " and set of attributes held")
    )  # fmt: skip


@lru_cache(maxsize=4096)
def _rank(name: str) -> int:
    """How surely a name says "type": the index of the first type word it holds, or len(_TYPE_NAMES)."""
    lowered = name.lower()
    return next(
        (n for n, word in enumerate(_TYPE_NAMES) if (word == lowered if word == "_et" else word in lowered)),
        len(_TYPE_NAMES),
    )


def _follows(counted: dict[Any, int], name: str, present: int) -> bool:
    """Whether one value of ``name`` is on nine in ten of the items of every group, the groups being what
    ``counted``'s keys hold between the attribute name and the value."""
    most: dict[Any, int] = {}
    for key, count in counted.items():
        if key[0] == name:
            group = key[1:-1]
            most[group] = max(most.get(group, 0), count)
    return sum(most.values()) * 10 >= present * 9


def families(items: list[Item], pk: str, sk: str | None, delimiter: str) -> dict[str, list[Item]]:
    """Items with no type grouped by the labels of their keys: ``USER#u1``/``PROFILE`` -> USER."""
    found: dict[tuple[str, str], list[Item]] = {}
    pk_words, sk_words = words_first(items, pk, delimiter), words_first(items, sk, delimiter)
    for item in items:
        pk_shape = shape(key_text(item.get(pk)), delimiter, words_first=pk_words)
        sk_shape = shape(key_text(item.get(sk)) if sk else None, delimiter, words_first=sk_words)
        found.setdefault((pk_shape, sk_shape), []).append(item)
    named: dict[str, list[Item]] = {}
    for (pk_shape, sk_shape), members in sorted(found.items(), key=lambda f: -len(f[1])):
        constant_sk = len({key_text(m.get(sk)) for m in members}) == 1 if sk else True
        name = (pk_shape if constant_sk or not sk_shape else sk_shape) or pk_shape or "ITEM"
        if name in named and pk_shape and sk_shape:
            name = f"{pk_shape}{delimiter}{sk_shape}"
        while name in named:
            name += "_"
        named[name] = members
    return named


def other_formats(entities: list[InferredEntity], typed: set[str]) -> None:
    """A family of untyped items whose keys spell a typed entity's labels another way (``user-1`` /
    ``order-9`` beside ``USER#1`` / ``ORDER#9``) is most likely that entity's items from an older key
    format: both stay in the module, and the family's evidence names the entity it resembles."""
    spelled = {e.type: _labels(e) for e in entities if e.type in typed}
    for family in entities:
        if family.type in typed:
            continue
        words = _labels(family)
        match = next((t for t, labels in spelled.items() if labels and labels == words), None)
        if match is not None:
            family.evidence += (
                f"; the labels of type {match!r} spelled another way: items in an older key format? "
                "Migrate them, or keep this entity to read them"
            )


def _labels(entity: InferredEntity) -> tuple[str, ...]:
    """The words of an entity's table keys, case, separators aside: USER#{id} / PROFILE -> user profile."""
    words = []
    for key in list(entity.keys.values())[:2]:
        text = re.sub(r"\{[^}]*\}", " ", key.template)
        words += [w.lower() for w in re.split(r"[^A-Za-z]+", text) if w]
    return tuple(words)
