"""The item a whole entity is written as, by a function generated once per entity class.

Every create, put, batch write and transaction turns an entity's values into its item
(:meth:`EntityMeta.to_item <singletable.model._entity_meta.EntityMeta.to_item>`): each stored field through
its codec, the entity's declared validation, every key rendered from its template, the type attribute. The
careful way to do it (:meth:`EntityMeta.checked_item`) loops over fields and key template parts and names
the entity, field and value of anything it refuses; on a put that loop is a fifth of the model's own work.

The function made here writes the same item in one straight line for the usual case: a ``str``, ``int`` or
``float`` of exactly its declared class is encoded inline (other values call their codec), and a key whose
template is plain text and slots (no slice, filter, condition or alternative) is rendered inline. It checks
everything the careful way checks; what it does not settle itself -- a None in a required field, a value
of another class than its codec takes, an empty key, a slot holding the key delimiter, a key that does
not apply -- raises, and the item is made again the careful way, which refuses it with its message (or
makes it: a value of another class may still be one its codec takes). So the two always agree; a property
test holds them together. Generated from the entity's own declaration: names and literal key text are
passed as constants, never spliced into code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from singletable.model._field_checks import check_entity, needs_entity_check
from singletable.model._field_keys import empty_key_value
from singletable.model._field_values import (
    AV,
    MAX_DIGITS,
    _dump_float,
    _dump_int,
    _dump_text,
    _key_number,
    _key_text,
)
from singletable.model._templates import BoundKey

if TYPE_CHECKING:  # annotations only: that module imports this one
    from singletable.model._entity_meta import EntityMeta

ItemWriter = Callable[[Mapping[str, Any]], dict[str, AV]]


class Careful(Exception):
    """Raised inside a generated writer at anything it does not settle: the careful way decides."""


# The inline form of a value whose codec is one of these, when the value is of exactly the declared class;
# any other value calls the codec (``D{i}``), which converts it or raises. Each is what the codec returns.
_INLINE_VALUES: dict[Callable[[Any], AV | None], str] = {
    _dump_text: "{{'S': x{i}}} if x{i}.__class__ is str else D{i}(x{i})",
    _dump_int: "{{'N': t}} if x{i}.__class__ is int and len(t := str(x{i})) <= MAX_DIGITS else D{i}(x{i})",
    # a float DynamoDB can store; 0.0, NaN, an infinity or one out of range: the codec decides
    _dump_float: "{{'N': repr(x{i})}} if x{i}.__class__ is float and 1e-130 <= abs(x{i}) < 1e126 "
    "else D{i}(x{i})",
}
# The inline text of a key slot (without, with a format spec) whose field's codec renders keys with one of
# these, for a value of exactly that class; any other value calls the codec's key function (``{k}``).
_INLINE_SLOTS: dict[Callable[[Any, str], str], tuple[str, str]] = {
    _key_text: (
        "{x} if {x}.__class__ is str else {k}({x}, '')",
        "format({x}, {s}) if {x}.__class__ is str else {k}({x}, {s})",
    ),
    _key_number: (
        "str({x}) if {x}.__class__ is int else {k}({x}, '')",
        "format({x}, {s}) if {x}.__class__ is int else {k}({x}, {s})",
    ),
}
_CALLED_SLOT = ("{k}({x}, '')", "{k}({x}, {s})")


def item_writer(meta: EntityMeta) -> ItemWriter:
    """The generated writer of ``meta``'s items; it raises (:class:`Careful`, or a codec's error) where
    :meth:`EntityMeta.checked_item` must decide."""
    env: dict[str, Any] = {
        "Careful": Careful,
        "MAX_DIGITS": MAX_DIGITS,
        "meta": meta,
        "check_entity": check_entity,
        "empty": empty_key_value,
        "TA": meta.table.type_attribute,
        "TAV": meta.type_av,
    }
    local: dict[str, str] = {}  # field name -> the local holding its value
    lines = ["def write(v):", "    get = v.get", "    item = {}"]
    for i, spec in enumerate(meta.fields.values()):
        local[spec.name] = f"x{i}"
        env[f"N{i}"], env[f"A{i}"], env[f"D{i}"] = spec.name, spec.attribute, spec.codec.dump
        lines.append(f"    x{i} = get(N{i})")
        if spec.stored:
            lines += _field_lines(i, spec.codec.dump, spec.required)
    if needs_entity_check(meta):
        lines.append("    check_entity(meta, v)")
    for name in meta.field_keys:
        env[f"E_{name}"] = name
        value = local.get(name, f"get(E_{name})")
        lines += [f"    if empty({value}):", "        raise Careful"]
    primary = [meta.pk] if meta.sk is None else [meta.pk, meta.sk]
    for k, key in enumerate([*primary, *meta.secondary_keys]):
        lines += _key_lines(env, k, key, local)
        if k < len(primary):  # a primary key that does not apply: the careful way names what it misses
            lines += ["    else:", "        raise Careful"]
    lines += ["    item[TA] = TAV", "    return item"]
    exec("\n".join(lines), env)
    writer: ItemWriter = env["write"]
    return writer


def _field_lines(i: int, dump: Any, required: bool) -> list[str]:
    """The lines storing field ``i`` (its value in ``x{i}``)."""
    inline = _INLINE_VALUES.get(dump)
    if inline is not None:
        lines = [f"    if x{i} is not None:", f"        item[A{i}] = {inline.format(i=i)}"]
    else:  # a codec that may store nothing (an empty set): a required field must store something
        lines = [f"    if x{i} is not None:", f"        av = D{i}(x{i})", "        if av is not None:",
                 f"            item[A{i}] = av"]  # fmt: skip
        if required:
            lines += ["        else:", "            raise Careful"]
    if required:
        lines += ["    else:", "        raise Careful"]
    return lines


def _key_lines(env: dict[str, Any], k: int, key: BoundKey, local: dict[str, str]) -> list[str]:
    """The lines writing key ``k`` where it applies: inline for a plain template, else through the key's
    own methods. They end in an ``if`` block, which a primary key follows with its ``else``."""
    env[f"K{k}"] = key.attribute
    if not _plain(key, local):
        env[f"KA{k}"], env[f"KV{k}"] = key.applies, key.value
        return [f"    if KA{k}(v):", f"        item[K{k}] = KV{k}(v)"]
    present = " and ".join(f"{local[name]} is not None" for name in key.template.fields)
    lines = [f"    if {present or 'True'}:"]
    texts = []
    for p, part in enumerate(key.template.parts):
        if isinstance(part, str):
            env[f"L{k}_{p}"] = part
            texts.append(f"L{k}_{p}")
            continue
        codec = key.codecs[part.field]
        env[f"F{k}_{p}"], env[f"S{k}_{p}"] = codec.key, part.spec
        form = _INLINE_SLOTS.get(codec.key, _CALLED_SLOT)[1 if part.spec else 0]
        lines.append(f"        t{p} = " + form.format(x=local[part.field], k=f"F{k}_{p}", s=f"S{k}_{p}"))
        if key.delimiter:  # a slot holding the delimiter would parse back wrongly: the careful way refuses
            env[f"DL{k}"] = key.delimiter
            lines += [f"        if DL{k} in t{p}:", "            raise Careful"]
        texts.append(f"t{p}")
    text = " + ".join(texts) or "''"
    if not any(isinstance(part, str) and part for part in key.template.parts):  # it may render empty
        lines += [f"        text = {text}", "        if not text:", "            raise Careful"]
        text = "text"
    lines.append(f"        item[K{k}] = {{'S': {text}}}")
    return lines


def _plain(key: BoundKey, local: dict[str, str]) -> bool:
    """Whether ``key`` renders inline: an S key of literal text and plain slots of the entity's fields, with
    no condition or alternative (any other goes through the key's own methods)."""
    if key.key_type != "S" or key.when is not None or key.otherwise is not None:
        return False
    return all(
        isinstance(part, str)
        or (part.start is None and part.stop is None and not part.filters and part.field in local)
        for part in key.template.parts
    )
