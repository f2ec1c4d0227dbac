"""A small design for the data commands' ``--design`` tests: users and their reviews, stars on a numeric GSI.

The table's name comes from ``LOOK_TABLE`` so tests on the shared servers keep apart.
"""

from __future__ import annotations

from pydantic import Field

from singletable.model import GSI, Collection, Entity, Keys, Pattern, Table, env

shop = Table(
    name=env("LOOK_TABLE", "look"),
    type_attribute="entityType",
    indexes=[GSI("byStars", pk=("stars", "N"), sk="SK")],
)


class User(Entity, table=shop, type="USER"):
    user_id: str
    name: str

    keys = Keys(PK="USER#{user_id}", SK="PROFILE")


class Review(Entity, table=shop, type="REVIEW"):
    user_id: str
    review_id: str
    stars: int = Field(ge=1, le=5)

    keys = Keys(PK="USER#{user_id}", SK="REVIEW#{review_id}", stars="{stars}")
    of_user = Pattern(doc="A user's reviews, oldest first")
    with_stars = Pattern(index="byStars", doc="Reviews with a star value")


# A user's profile and reviews in one query; a collection runs by its name (`singletable query ... page ada`).
page = Collection(shop, "page", pk="USER#{user_id}", entities=(User, Review))
