"""The entity a create or put returns: what a read of the item it wrote gives, without decoding it all again.

A write returns the entity as stored (timestamps at the stored precision, a ``float`` given to an ``int``
field as the ``int`` read back, sets in their canonical order). Decoding the whole item just written costs as
much as a read, yet most values come back exactly as they went in: a ``str``, ``int``, ``float`` or ``bool``
field's value of exactly that class is stored as its text and read back equal and of the same class (a
``float`` as its ``repr``, which reads back to the same number). Those values, immutable, are taken as they
are; every other value (datetimes, sets, lists, nested models, enums, a value of another class) is decoded
from the item as a read decodes it, so nothing mutable is shared with the caller's entity. The function
doing this is generated once per entity class, in the form of the read's own builders
(:mod:`singletable.model._read_items`). An entity whose items a read validates with pydantic (it has
validators, or fields kept only in keys), one that upgrades what it reads, and any item the decoding is
unsure of (a required attribute absent) go through :meth:`EntityMeta.from_item`, as a read would.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from singletable.model._entity_meta import EntityMeta
from singletable.model._field_values import AV
from singletable.model._read_items import _FINISH, _MISSING, _SLOTS, Fallback, _field_plan, _new

Echo = Callable[[Mapping[str, Any], Mapping[str, AV]], Any]
# The read's forms whose value, when of exactly the declared class, reads back equal and of that class.
_KEPT = {"text": str, "int": int, "float": float, "bool": bool}
_DECODED = {
    "model": "C{i}(a{i}['M'])",
    "models": "[None if 'NULL' in x else C{i}(x['M']) for x in a{i}['L']]",
}

_UNMADE = object()


def written_entity(meta: EntityMeta, values: Mapping[str, Any], item: Mapping[str, AV]) -> Any:
    """The entity a read of ``item`` returns; ``values`` are the field values ``item`` was made from."""
    echo = meta.__dict__.get("_echo", _UNMADE)
    if echo is _UNMADE:
        echo = meta.__dict__["_echo"] = _echo(meta)  # made once, kept on the entity's meta
    if echo is not None and meta.upgrades is None:
        try:
            return echo(values, item)
        except (Fallback, TypeError, KeyError, ValueError):
            pass  # the read decides, and says why if the item does not fit
    return meta.from_item(item)


def _echo(meta: EntityMeta) -> Echo | None:
    """The generated echo for ``meta``'s entity, or None when its reads validate (no builder)."""
    if meta.builder is None:
        return None
    model_fields = meta.cls.model_fields
    recoverable = {s.field for key in meta.keys.values() for s in key.template.slots if s.reversible}
    env: dict[str, Any] = {
        "cls": meta.cls,
        "new": _new,
        "MISSING": _MISSING,
        "set_dict": _SLOTS["__dict__"],
        "set_fields": _SLOTS["__pydantic_fields_set__"],
        "set_extra": _SLOTS["__pydantic_extra__"],
        "set_private": _SLOTS["__pydantic_private__"],
    }
    lines = ["def echo(v, m):", "    get = m.get", "    d = {"]
    after = ["    unset = None"]
    for i, (name, spec) in enumerate(meta.fields.items()):
        plan = _field_plan(model_fields[name], spec.codec, recoverable=name in recoverable)
        if plan is None:
            return None
        form, convert, (how, default) = plan
        env[f"A{i}"], env[f"N{i}"], env[f"C{i}"], env[f"D{i}"] = spec.attribute, name, convert, default
        decoded = _DECODED.get(form, "C{i}(a{i})").format(i=i)
        if how in ("required", "recover"):  # an absent attribute: KeyError, and the read decides
            decoded = f"{decoded.replace(f'a{i}', f'm[A{i}]')}"
        else:
            decoded = f"{decoded} if (a{i} := get(A{i})) is not None and 'NULL' not in a{i} else MISSING"
            after += [f"    if d[{name!r}] is MISSING:",
                      f"        d[{name!r}] = D{i}" + ("" if how == "value" else "()"),
                      "        unset = unset or []", f"        unset.append({name!r})"]  # fmt: skip
        if form in _KEPT:
            env[f"K{i}"] = _KEPT[form]
            decoded = f"x{i} if (x{i} := v[N{i}]).__class__ is K{i} else ({decoded})"
        lines.append(f"        {name!r}: {decoded},")
    lines += ["    }", *after, *_FINISH]
    exec("\n".join(lines), env)
    echo: Echo = env["echo"]
    return echo
