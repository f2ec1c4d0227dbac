"""Derived items: one-to-many items an entity owns and keeps in step with itself.

Seed 000 writes one ``SITE#id`` / ``TAG#tag`` item per tag so sites can be queried by tag; seed 004 writes a
``CATEGORY#parent`` / ``CHILD#child`` item per subcategory. Declared on the owner, they are written, rewritten
and removed in the same transaction as the owner, so the "by tag" index can never disagree with the tags.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from singletable.model._entity_meta import EntityMeta
from singletable.model._errors import DeclarationError


@dataclass(eq=False)
class Derived:
    """``Derived(SiteTag, each="tags", as_="tag")``: one SiteTag per element of ``tags``.

    Fields the target shares by name with the owner (``site_id``) are copied; ``as_`` receives the element.
    For other shapes give ``build(owner) -> entity | list | None``. ``on`` lists the owner fields that
    change the derived items (defaults: ``each`` and the shared fields; with ``build``, every field).
    """

    target: type[Any]
    each: str | None = None
    as_: str | None = None
    build: Callable[[Any], Any] | None = None
    on: tuple[str, ...] | None = None
    name: str = field(default="", init=False)

    def bind(self, meta: EntityMeta, name: str) -> Derived:
        self.name, self.owner = name, meta
        target = self.target.model_entity()
        if self.build is None:
            if self.each is None or self.as_ is None:
                raise DeclarationError(f"{meta.cls.__name__}.{name}: give each= and as_=, or build=")
            if self.each not in meta.fields:
                raise DeclarationError(f"{meta.cls.__name__}.{name}: each={self.each!r} is not a field")
            if self.as_ not in target.fields:
                raise DeclarationError(f"{meta.cls.__name__}.{name}: {target.type} has no field {self.as_!r}")
            self.shared = tuple(n for n in target.fields if n in meta.fields and n != self.as_)
            if self.on is None:
                self.on = (self.each, *self.shared)
        elif self.on is None:
            self.on = tuple(meta.fields)
        return self

    def items(self, owner: Mapping[str, Any]) -> list[Any]:
        """The derived entities for an owner's field values (empty when the owner has none)."""
        if self.build is not None:
            built = self.build(self.owner.cls.model_construct(**owner))
            if built is None:
                return []
            return [built] if isinstance(built, BaseModel) else list(built)
        assert self.each is not None and self.as_ is not None  # bind() requires them without build=
        elements = owner.get(self.each) or ()
        common = {n: owner.get(n) for n in self.shared}
        return [self.target(**common, **{self.as_: element}) for element in elements]

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "target": self.target.model_entity().type,
            "each": self.each,
            "as": self.as_,
            "custom_build": self.build is not None,
            "on": list(self.on or ()),
        }
