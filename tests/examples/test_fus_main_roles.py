"""Seed 000 (fus-main): every role rule of the service, each tested both ways, on every target.

Sample actors: ada (Cognito role ``admin``), bob (custom group editors: ``sites:update``), cyd (book-club:
nothing), dee (curators: ``sites:create`` and ``sites:update``), plus ``gm`` added here to a group granting
``groups:manage`` and ``None`` for a visitor who is not signed in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from model_targets import ALL_TARGETS, make_target
from singletable.examples import DEMO_CLOCK
from singletable.examples.fus_main.design import fus
from singletable.examples.fus_main.sample import ADA, BOB, CYD, DEE, load, open_service
from singletable.examples.fus_main.service import Actor, NotAuthorized, NotSignedIn, SiteCatalog
from singletable.model import connect

GM = Actor("gm")
FAKE_ADMIN = Actor("mallory")  # in a *custom* group named "admin": that is not the admin role


@pytest.fixture(scope="module", params=ALL_TARGETS)
def shared(request: pytest.FixtureRequest) -> Iterator[SiteCatalog]:
    """One loaded catalog per target for the whole module: every case below uses its own ids."""
    target = make_target(request.param, request)
    db = connect(fus, target, name=f"fus_roles_{request.param}", clock=lambda: DEMO_CLOCK)
    db.create_table()
    catalog = open_service(db)
    load(catalog)
    catalog.create_group(ADA, "group-admins", permissions=["groups:manage"])
    catalog.add_member(ADA, "group-admins", "gm")
    catalog.create_group(ADA, "admin", description="a custom group, not the Cognito role")
    catalog.add_member(ADA, "admin", "mallory")
    yield catalog
    db.delete_table()


Call = Callable[[SiteCatalog, Actor | None, str], Any]

# rule -> (call(catalog, actor, unique suffix), actors allowed, actors refused)
RULES: dict[str, tuple[Call, list[Actor], list[Actor | None]]] = {
    "create a site: admin or a group granting sites:create": (
        lambda c, a, n: c.create_site(a, site_id=f"new-{n}", url="https://n.dev", title="N", tags=["n"]),
        [ADA, DEE],
        [BOB, CYD, GM, FAKE_ADMIN, None],
    ),
    "update a site: admin or a group granting sites:update": (
        lambda c, a, n: c.update_site(a, "pydocs", description=f"by {n}"),
        [ADA, BOB, DEE],
        [CYD, GM, FAKE_ADMIN, None],
    ),
    "rate a site: any signed-in user, their own rating": (
        lambda c, a, n: c.rate_site(a, "rustbook", 4),
        [ADA, BOB, CYD, DEE, GM],
        [None],
    ),
    "rate for another user: nobody, admins included": (
        lambda c, a, n: c.rate_site(a, "rustbook", 1, user_id="zed"),
        [],
        [ADA, BOB, CYD, DEE, GM, None],
    ),
    "rate for yourself, naming yourself: allowed": (
        lambda c, a, n: c.rate_site(a, "jsinfo", 2, user_id=a.user_id),
        [ADA, BOB, CYD],
        [],
    ),
    "comment: any signed-in user, their own comment": (
        lambda c, a, n: c.add_comment(a, "realpython", f"from {n}"),
        [ADA, BOB, CYD, DEE],
        [None],
    ),
    "comment as another user: nobody": (
        lambda c, a, n: c.add_comment(a, "realpython", "spoof", user_id="zed"),
        [],
        [ADA, BOB, CYD, None],
    ),
    "edit a comment: only its author": (
        lambda c, a, n: c.edit_comment(a, "mdn", "c002", f"edited by {n}", user_id="cyd"),
        [CYD],
        [ADA, BOB, DEE, None],
    ),
    "read my ratings: signed in": (lambda c, a, n: c.my_ratings(a), [ADA, CYD], [None]),
    "read my rating for a site: signed in": (lambda c, a, n: c.my_rating(a, "mdn"), [BOB], [None]),
    "manage groups (create): admin or groups:manage": (
        lambda c, a, n: c.create_group(a, f"g-{n}"),
        [ADA, GM],
        [BOB, CYD, DEE, FAKE_ADMIN, None],
    ),
    "manage groups (get, list, members): admin or groups:manage": (
        lambda c, a, n: (c.get_group(a, "editors"), c.list_groups(a), c.members(a, "editors")),
        [ADA, GM],
        [BOB, CYD, DEE, FAKE_ADMIN, None],
    ),
    "manage groups (add and remove members): admin or groups:manage": (
        lambda c, a, n: (c.add_member(a, "book-club", f"m-{n}"), c.remove_member(a, "book-club", f"m-{n}")),
        [ADA, GM],
        [BOB, CYD, DEE, FAKE_ADMIN, None],
    ),
    "read your own groups: signed in": (lambda c, a, n: c.groups_of(a), [BOB, CYD], [None]),
    "read someone else's groups: admin or groups:manage": (
        lambda c, a, n: c.groups_of(a, "dee"),
        [ADA, GM],
        [BOB, CYD, FAKE_ADMIN, None],
    ),
    "public reads: anyone, signed in or not": (
        lambda c, a, n: (
            c.get_site("mdn"),
            c.list_sites(),
            c.sites_by_tag("python"),
            c.ratings_with_stars(5),
            c.comments_for_site("mdn"),
            c.user_comments("bob", "mdn"),
        ),
        [None, CYD, ADA],
        [],
    ),
}
CASES = [
    pytest.param(
        rule,
        actor,
        allowed,
        id=f"{rule.split(':')[0]}-{actor.user_id if actor else 'anonymous'}-"
        f"{'allowed' if allowed else 'refused'}",
    )
    for rule, (_, yes, no) in RULES.items()
    for actors, allowed in ((yes, True), (no, False))
    for actor in actors
]


@pytest.mark.parametrize(("rule", "actor", "allowed"), CASES)
def test_role_rule(shared: SiteCatalog, rule: str, actor: Actor | None, allowed: bool) -> None:
    call, _, _ = RULES[rule]
    suffix = actor.user_id if actor else "anonymous"
    if allowed:
        call(shared, actor, suffix)
        return
    expected = NotSignedIn if actor is None else NotAuthorized
    with pytest.raises(expected) as caught:
        call(shared, actor, suffix)
    assert caught.value.action
    if actor is not None:
        assert actor.user_id in str(caught.value)


def test_refused_writes_change_nothing(shared: SiteCatalog) -> None:
    before = shared.get_site("realpython")
    with pytest.raises(NotAuthorized, match="may not sites:update: it needs the admin role"):
        shared.update_site(CYD, "realpython", tags=["spam"])
    assert shared.get_site("realpython") == before
    assert shared.sites_by_tag("spam") == []
    with pytest.raises(NotAuthorized, match="users write only their own"):
        shared.rate_site(BOB, "realpython", 1, user_id="dee")
    assert shared.my_rating(Actor("dee"), "realpython").stars == 3


def test_permissions_come_from_the_role_and_custom_groups(shared: SiteCatalog) -> None:
    assert shared.permissions(None) == frozenset()
    assert shared.permissions(ADA) == {"sites:create", "sites:update", "groups:manage"}
    assert shared.permissions(DEE) == {"sites:create", "sites:update"}
    assert shared.permissions(BOB) == {"sites:update"}
    assert shared.permissions(CYD) == frozenset()
    assert shared.permissions(FAKE_ADMIN) == frozenset()
    assert not FAKE_ADMIN.is_admin and ADA.is_admin


def test_leaving_a_group_revokes_its_permissions(open_db: Callable[..., Any]) -> None:
    catalog = open_service(open_db(fus, clock=lambda: DEMO_CLOCK))
    load(catalog)
    catalog.update_site(BOB, "rustbook", title="The Rust Book")
    catalog.remove_member(ADA, "editors", "bob")
    with pytest.raises(NotAuthorized):
        catalog.update_site(BOB, "rustbook", title="Rust")
    catalog.add_member(ADA, "curators", "bob")
    assert catalog.create_site(BOB, url="https://go.dev", title="Go").site_id == "s001"


def test_error_messages_say_what_is_needed(shared: SiteCatalog) -> None:
    with pytest.raises(NotSignedIn, match="sign in to rate sites"):
        shared.rate_site(None, "mdn", 5)
    with pytest.raises(NotAuthorized) as caught:
        shared.create_group(CYD, "x")
    assert caught.value.action == "groups:manage"
    assert str(caught.value) == (
        "user cyd may not groups:manage: it needs the admin role or a custom group granting groups:manage"
    )
    assert isinstance(caught.value, PermissionError)
