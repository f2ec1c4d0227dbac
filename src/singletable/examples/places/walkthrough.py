"""The demo's walk-through, in the order ``singletable demo places`` runs it: every access pattern the table
implies, then the writes that keep its indexes right (a new record, a renamed place, a refused duplicate).
"""

from __future__ import annotations

from collections.abc import Iterable

from singletable.examples import Example, Step
from singletable.examples.places.design import PlaceSettings, Record, places
from singletable.examples.places.sample import load, open_service
from singletable.examples.places.service import Archive


def steps(archive: Archive) -> Iterable[Step]:
    """Every access pattern the table implies, then the writes that keep its indexes right."""
    return [
        *_catalog_steps(archive),
        *_place_steps(archive),
        *_post_and_record_steps(archive),
        *_setting_and_user_steps(archive),
        *_write_steps(archive),
    ]


def _catalog_steps(a: Archive) -> list[Step]:
    """Categories and collections by name, and the links between them both ways."""
    return [
        Step("categories by name", a.categories, "GSI partition 'category', sorted by name"),
        Step("categories named 'Census'", lambda: a.categories_named("Census")),
        Step("collections by name", a.collections),
        Step("collections named 'Chapel burial books'", lambda: a.collections_named("Chapel burial books")),
        Step(
            "categories of collection 1013",
            lambda: a.categories_of("1013"),
            "links in the collection's partition, then BatchGetItem",
        ),
        Step(
            "collections in category 1002",
            lambda: a.collections_in("1002"),
            "GSI partition 'collection_category#1002', sorted by collection ID",
        ),
    ]


def _place_steps(a: Archive) -> list[Step]:
    """Places by folded name prefix, by ID, by word and by several words, and their settings."""
    return [
        Step(
            "search places 'llan'",
            lambda: a.search_places("llan"),
            "GSI partition 'place#' + first two folded characters, begins_with the folded prefix",
        ),
        Step("search places 'YNYS MÔ' (case and accents folded)", lambda: a.search_places("YNYS MÔ")),
        Step("search places 'newp' (equal names ordered by ID)", lambda: a.search_places("newp")),
        Step("search places 'aberdar', limit 1", lambda: a.search_places("aberdar", limit=1)),
        Step(
            "search places 'L' (too short)",
            lambda: a.search_places("L"),
            "one character does not pick a partition: refused before any request",
        ),
        Step("place 1028 by ID", lambda: a.place("1028"), "its sort key depends on its name: a Query"),
        Step("place word 'newport'", lambda: a.place_word("Newport")),
        Step(
            "places with words 'st davids'",
            lambda: a.places_with_words("St. Davids"),
            "word items in one BatchGetItem, IDs intersected, one Query per place",
        ),
        Step("place settings", a.place_settings),
    ]


def _post_and_record_steps(a: Archive) -> list[Step]:
    """Posts, their records and households, each through its own GSI partition."""
    return [
        Step("all posts", a.all_posts, "the single GSI partition 'post', sorted by collection ID"),
        Step("posts in collection 1011", lambda: a.posts_in("1011")),
        Step(
            "records of post 1051",
            lambda: a.records_of("1051"),
            "one GSI partition per post: 'record_post#1051'",
        ),
        Step("record 1066 by ID", lambda: a.record("1066")),
        Step("households of post 1051", lambda: a.households_of("1051")),
        Step("posts with household hh-101", lambda: a.posts_with_household("hh-101")),
    ]


def _setting_and_user_steps(a: Archive) -> list[Step]:
    """Site settings by name, and users by their identity provider's issuer and subject."""
    return [
        Step("settings by name", a.settings),
        Step("setting 'maintenance'", lambda: a.setting("maintenance")),
        Step(
            "user by issuer and subject",
            lambda: a.user_by_identity("https://accounts.google.com", "110248495921238986420"),
        ),
        Step("user by unknown identity", lambda: a.user_by_identity("https://accounts.google.com", "0")),
    ]


def _write_steps(a: Archive) -> list[Step]:
    """The writes: IDs from the sequence, a new record, a rename that moves the place's key, a duplicate."""
    return [
        Step("allocate three IDs", lambda: a.next_ids(3), "one atomic ADD on the sequence item"),
        Step(
            "add a record to post 1052",
            lambda: a.add_record(
                Record(
                    id="",
                    post_id="1052",
                    name="Mary Williams",
                    household="hh-103",
                    relationship="wife",
                    age=28,
                )
            ),
            "the record and its post's household, one transaction",
        ),
        Step(
            "rename place 1028 to 'Tyddewi'",
            lambda: a.rename_place("1028", "Tyddewi"),
            "new sort key place#ty: delete and create with the word index, one transaction",
        ),
        Step("search places 'tydd' after the rename", lambda: a.search_places("tydd")),
        Step(
            "add category 'Census' again with ID 1001",
            lambda: a.add_category("Census", id="1001"),
            "create refuses an existing key",
        ),
        Step("save place settings", lambda: a.save_place_settings(PlaceSettings(max_results=50))),
    ]


EXAMPLE = Example(
    name="places",
    title="Seed 002: places, posts and records (inverted index, sparse GSI, prefix search, sequence)",
    table=places,
    open=open_service,
    load=load,
    steps=steps,
)
