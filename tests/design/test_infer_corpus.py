"""``singletable infer`` on designs that are not ours (tests/design/infer_corpus.py).

Each design's items are written raw, never through the model -- with the engine's boto3-shaped calls into
a database file, or with a plain boto3 client over HTTP to ``singletable serve`` -- then the design is
inferred from the table alone and compared with the one its author declared: the entity types, every key
template of the table and every index (field names taken out: the data shows values, never names), every
index's keys and projection. The inferred module must load, read every item of a declared type back with the
same keys, and pass ``check`` and ``docs``. What the data cannot show is listed per design, with why, and
checked to be exactly that.
"""

from __future__ import annotations

import string
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import singletable
from draws import examples
from singletable._cli import main
from singletable._designs import load_design
from singletable.design import InferredDesign, infer, infer_items
from singletable.engine import Engine

sys.path.insert(0, str(Path(__file__).parent))
from infer_corpus import Corpus, write
from infer_corpus_libraries import electrodb, github, onetable, pynamodb
from infer_corpus_tables import aws_gaming, aws_relational, ecommerce, legacy
from infer_support import indexes, load_module, round_trip, shape, two_key_table

CORPUS: dict[str, Callable[[], Corpus]] = {
    "electrodb": electrodb,
    "onetable": onetable,
    "github": github,
    "ecommerce": ecommerce,
    "pynamodb": pynamodb,
    "aws-relational": aws_relational,
    "aws-gaming": aws_gaming,
    "legacy": legacy,
}
# What each design's data cannot show: entity -> key attribute -> (declared, inferred), and why.
CANNOT_SHOW: dict[str, dict[str, tuple[str | None, str | None]]] = {
    "aws-relational": {
        # Every quota in the sample is for 2018: the year is a literal as far as the data shows, and the
        # quarter "Q1".."Q4" a key-only value; the design's "<year>-Q<quarter>" is not visible.
        "Quota.SK": ("{}-Q{}", "{}"),
    },
}
# Entities no declared type matches, by the keys' templates: the legacy table's older key format.
EXTRA: dict[str, list[dict[str, str]]] = {
    "legacy": [
        {"PK": "user-{}", "SK": "order-{}"},
        {"PK": "user-{}", "SK": "profile"},
    ],
}
_SERVED = "onetable"  # written and read through `singletable serve`; the others in-process


def _keys(design: InferredDesign) -> list[tuple[str, dict[str, str]]]:
    """Per inferred entity: its type and its key templates without field names, with an index key that is
    a plain field (``status``, ``Data``) as ``{}``."""
    index_keys = {a for i in design.indexes for part in (i.pk, i.sk) if part for a in [part[0]]}
    found = []
    for entity in design.entities:
        keys = {a: shape(k.template) for a, k in entity.keys.items()}
        for field in entity.fields.values():
            if field.attribute in index_keys and not field.key_only:
                keys[field.attribute] = "{}"
        found.append((entity.type, keys))
    return found


def _compare(corpus: Corpus, design: InferredDesign) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """The differences from the declared design (as CANNOT_SHOW spells them) and the entities no declared
    one matches. Typed designs are matched by type; the others by their table keys' templates."""
    got = _keys(design)
    differences: dict[str, Any] = {}
    matched: list[int] = []
    table_keys = [k["AttributeName"] for k in corpus.table["KeySchema"]]
    sort_shapes = {want.get(a) for want in corpus.expected.values() for a in table_keys[1:]}
    for name, want in corpus.expected.items():
        if corpus.type_attribute:
            found = [n for n, (t, _) in enumerate(got) if t == name]
        else:  # no type names in the data: the entity whose table keys have the declared shapes, else
            # one with the declared partition key and a sort key shape no declared entity has
            found = [n for n, (_, k) in enumerate(got) if all(k.get(a) == want[a] for a in table_keys)]
            found = found or [
                n
                for n, (_, k) in enumerate(got)
                if k.get(table_keys[0]) == want[table_keys[0]]
                and all(k.get(a) not in sort_shapes for a in table_keys[1:])
            ]
        if not found:
            differences[name] = "missing"
            continue
        matched.append(found[0])
        keys = got[found[0]][1]
        for attribute in sorted(set(want) | set(keys)):
            if want.get(attribute) != keys.get(attribute):
                differences[f"{name}.{attribute}"] = (want.get(attribute), keys.get(attribute))
    return differences, [keys for n, (_, keys) in enumerate(got) if n not in matched]


def _declared_indexes(corpus: Corpus) -> list[tuple[Any, ...]]:
    """The corpus table's indexes as infer_support.indexes spells a described design's."""
    found = []
    for kind, key in (("GSI", "GlobalSecondaryIndexes"), ("LSI", "LocalSecondaryIndexes")):
        for index in corpus.table.get(key, []):
            parts = {k["KeyType"]: k["AttributeName"] for k in index["KeySchema"]}
            projection = index["Projection"]["ProjectionType"]
            found.append((index["IndexName"], kind, parts["HASH"],
                          parts.get("RANGE"), projection, ()))  # fmt: skip
    return sorted(found)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_a_design_that_is_not_ours_is_recovered_from_its_table(
    tmp_path: Path, name: str, request: Any
) -> None:
    corpus = CORPUS[name]()
    assert 500 <= len(corpus.items) <= 5000  # hundreds to a few thousand items, generated from a seed
    if name == _SERVED:
        server = request.getfixturevalue("http_server")
        target: str = server.endpoint
        table = f"{corpus.table['TableName']}-{uuid.uuid4().hex[:8]}"
        corpus = corpus._replace(table={**corpus.table, "TableName": table})
        write(corpus, server.client())
    else:
        target = str(tmp_path / f"{name}.db")
        table = corpus.table["TableName"]
        with Engine(target) as engine:
            write(corpus, engine)
    out = tmp_path / f"{name.replace('-', '_')}_inferred.py"
    design = infer(target, table, sample=10000)
    if name == _SERVED:  # the command writes the module infer() returns (the others skip inferring twice)
        result = CliRunner().invoke(main, ["infer", target, table, "-o", str(out), "--sample", "10000"])
        assert result.exit_code == 0, result.output
        assert out.read_text() == design.source
    else:
        out.write_text(design.source)
    assert design.sampled == len(corpus.items)
    assert design.type_attribute == (corpus.type_attribute or "entityType")
    differences, extra = _compare(corpus, design)
    assert differences == CANNOT_SHOW.get(name, {})
    assert extra == EXTRA.get(name, [])
    assert len(design.entities) == len(corpus.expected) + len(extra)
    guards = sorted(
        shape(u.template) + (f" holding {_attribute(e, u.owner_field)}" if u.owner_field else "")
        for e in design.entities
        for u in e.unique
    )
    assert (guards, design.unexplained) == (sorted(corpus.guards), 0)
    described = load_design(str(out)).table.describe()
    assert indexes(described) == _declared_indexes(corpus)
    # Every item of an inferred type reads into the module's entity and writes back the keys it has.
    key_attributes = {k["AttributeName"] for k in corpus.table["KeySchema"]}
    for index in corpus.table.get("GlobalSecondaryIndexes", []) + corpus.table.get(
        "LocalSecondaryIndexes", []
    ):
        key_attributes |= {k["AttributeName"] for k in index["KeySchema"]}
    key_attributes.discard(corpus.type_attribute or "")
    checked = round_trip(
        load_module(out), corpus.items, key_attributes, None if corpus.type_attribute else _family
    )
    guard_items = sum(u.count for e in design.entities for u in e.unique)  # not entities: not read back
    assert checked == len(corpus.items) - _untyped(corpus) - guard_items
    checked_lint = CliRunner().invoke(main, ["check", str(out), "--strict", "--fail-on", "error"])
    assert checked_lint.exit_code == 0, checked_lint.output
    docs = CliRunner().invoke(main, ["docs", str(out), "-o", str(tmp_path / "docs")])
    assert docs.exit_code == 0, docs.output


def _attribute(entity: Any, name: str) -> str:
    """The stored attribute of an inferred entity's field ``name``."""
    return next(f.attribute for f in entity.fields.values() if f.name == name)


def _untyped(corpus: Corpus) -> int:
    """Items of a typed design that carry no type (the legacy table's older items): not read back by type."""
    if not corpus.type_attribute:
        return 0
    return sum(corpus.type_attribute not in item for item in corpus.items)


def _family(item: dict[str, Any], entities: dict[str, Any]) -> str | None:
    """The inferred entity whose table keys' literal text this item's keys start with (designs without a
    type attribute): the longest matching literal prefixes win."""
    best, score = None, -1
    for kind, cls in entities.items():
        keys = cls.keys
        total = 0
        for attribute, key in list(keys.items())[:2]:
            text = item.get(attribute, {}).get("S", item.get(attribute, {}).get("N"))
            template = key.template
            prefix = template.split("{")[0]
            if text is None or not text.startswith(prefix):
                break
            if "{" not in template and text != template:
                break
            total += len(prefix) + (100 if "{" not in template else 0)
        else:
            if total > score:
                best, score = kind, total
    return best


def _described(corpus: Corpus) -> dict[str, Any]:
    """DescribeTable's answer for a corpus table, as far as infer reads it."""
    return {**corpus.table, "KeySchema": corpus.table["KeySchema"]}


def test_every_guess_says_what_it_rests_on() -> None:
    """The evidence written beside the guesses that matter most in these designs."""
    legacy_design = infer_items(_described(legacy()), legacy().items)
    entities = {e.type: e for e in legacy_design.entities}
    assert "UUIDs" in " ".join(entities["session"].keys["PK"].evidence)
    older = [e for e in legacy_design.entities if "older key format" in e.evidence]
    assert sorted(e.type for e in older) == ["order-", "user-"]
    assert (
        "the labels of type 'order' spelled another way"
        in next(e for e in older if e.type == "order-").evidence
    )
    total = next(f for f in entities["order-"].fields.values() if f.attribute == "total")
    assert (total.python, "numbers written as text" in total.evidence) == ("str", True)
    # Two types sharing one key shape: the type attribute still follows the attributes each item holds.
    accounts = [i for i in github().items if i["Type"]["S"] in ("User", "Organization")]  # 100 and 50
    github_design = infer_items(_described(github()), accounts)
    assert github_design.type_attribute == "Type"
    assert github_design.type_evidence.endswith("one per key shape and set of attributes held")
    assert sorted(e.type for e in github_design.entities) == ["Organization", "User"]
    # A discriminator not named "type": PynamoDB's cls.
    assert infer_items(_described(pynamodb()), pynamodb().items).type_attribute == "cls"


def test_a_key_in_two_formats_says_how_many_items_have_each() -> None:
    """Items of one type whose keys changed format: the template follows the most, the rest are counted
    with an example, never dropped silently."""
    description = two_key_table("Mixed")
    items = [
        {"PK": {"S": f"USER#{n}" if n > 10 else f"user-{n}"}, "SK": {"S": "PROFILE"}, "type": {"S": "user"},
         "name": {"S": f"n{n}"}}
        for n in range(1, 41)
    ]  # fmt: skip
    (entity,) = infer_items(description, items).entities
    assert entity.keys["PK"].template == "USER#{user_id}"
    assert "30 items have 2 '#'-separated parts; the rest do not fit (1 parts x10, e.g. 'user-1')" in (
        entity.keys["PK"].evidence
    )


_VALUE = st.text(string.ascii_letters + string.digits + " .@_-", min_size=1, max_size=10)


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    labels=st.lists(
        st.text(string.ascii_lowercase, min_size=2, max_size=6), min_size=2, max_size=2, unique=True
    ),
    values=st.lists(st.tuples(_VALUE, _VALUE), min_size=2, max_size=8, unique_by=lambda v: v[0].lower()),
    glue=st.sampled_from(["_", "-"]),
    lower=st.booleans(),
)
def test_labels_glued_to_values_and_lower_cased_keys_are_read_back(
    labels: list[str], values: list[tuple[str, str]], glue: str, lower: bool, tmp_path_factory: Any
) -> None:
    """ElectroDB-like keys over random values: ``$app#<label>_<value>``, lower-cased or not, beside the
    attribute holding the value as written. The template glues the label to the slot and the module
    writes every item's keys back."""
    first, second = labels
    cased = str.lower if lower else str
    items = [
        {"pk": {"S": f"$app#{first}{glue}{cased(a)}"}, "__edb_e__": {"S": "thing"}, "a": {"S": a},
         "sk": {"S": f"${second}{glue}1#{second}{glue}{cased(b)}"}, "b": {"S": b}}
        for a, b in values
    ]  # fmt: skip
    description = two_key_table("Glued", "pk", "sk")
    design = infer_items(description, items)
    (entity,) = design.entities
    pk = entity.keys["pk"].template
    assert pk.startswith(f"$app#{first}{glue}{{")  # the label is literal text before the slot
    filtered = {a.lower() for a, _ in values} != {a for a, _ in values}
    assert pk == f"$app#{first}{glue}{{a{'|lower' if lower and filtered else ''}}}"
    path = tmp_path_factory.mktemp("glued") / "glued_inferred.py"
    path.write_text(design.source)
    assert round_trip(load_module(path), items, {"pk", "sk"}) == len(items)


def test_a_table_keyed_by_plain_words_is_one_entity_and_a_status_is_no_type() -> None:
    """Users keyed by their names (no delimiter, no type): the names are values, not labels, so the items
    are one family, and a status on every item is not taken for a type because each name is its own shape."""
    names = [f"{first}{last}" for first in ("ana", "ben", "chloe", "dev", "eli", "fay", "gus", "hana")
             for last in ("smith", "ng", "garcia", "okafor", "kim", "rossi", "novak", "haddad")]  # fmt: skip
    items = [
        {"username": {"S": name}, "game": {"S": game}, "status": {"S": ("active", "banned")[n % 2]}}
        for n, name in enumerate(names)
        for game in ("chess", "go")
    ]
    design = infer_items(two_key_table("Players", "username", "game"), items)
    assert design.type_attribute == "entityType"  # none found
    (entity,) = design.entities
    assert {a: k.template for a, k in entity.keys.items()} == {"username": "{username}", "game": "{game}"}
    # Names opening keys of several parts (anasmith#2024-05-01): more distinct first words than labels
    # ever are, so they are values too.
    dated = [
        {**i, "username": {"S": f"{i['username']['S']}#2024-05-0{n % 9 + 1}"}} for n, i in enumerate(items)
    ]
    (entity,) = infer_items(two_key_table("Players", "username", "game"), dated).entities
    assert entity.keys["username"].template == "{id}#{username_value}"  # one entity, two key-only parts


@pytest.mark.slow  # DynamoDB Local takes a few seconds per thousand writes
@pytest.mark.parametrize("name", ["electrodb", "legacy"])
def test_dynamodb_local_gives_the_same_design(tmp_path: Path, name: str, reference_server: Any) -> None:
    """The same items in DynamoDB Local (AWS's own emulator) and in a database file: the same entities
    and key templates, read through DescribeTable, DescribeTimeToLive and Scan alone."""
    corpus = CORPUS[name]()
    table = f"{corpus.table['TableName']}-{uuid.uuid4().hex[:8]}"
    remote = corpus._replace(table={**corpus.table, "TableName": table})
    # singletable.client(URL): a plain boto3 client with the credentials and region infer's reads use
    # (DynamoDB Local keeps each access key's tables apart).
    local = singletable.client(reference_server.endpoint)
    write(remote, local)
    db = str(tmp_path / f"{name}.db")
    write(corpus, singletable.client(db))
    try:
        from_local = infer(reference_server.endpoint, table, sample=10000)
    finally:
        local.delete_table(TableName=table)
    from_file = infer(db, corpus.table["TableName"], sample=10000)
    assert _keys(from_local) == _keys(from_file)
    assert (from_local.type_attribute, from_local.ttl_attribute) == (from_file.type_attribute, corpus.ttl)


def test_dynamodb_toolbox_entity_attribute_tells_types_sharing_a_key_shape() -> None:
    """DynamoDB-Toolbox marks items with ``_et`` (and ``_ct``/``_md`` timestamps): users and admins both
    keyed ``USER#<id>`` are still two entities, told apart by what each holds."""
    items = []
    for n in range(60):
        kind = "User" if n % 3 else "Admin"
        stamp = {"S": "2024-01-01T00:00:00.000Z"}
        key = {"S": f"USER#u{n}"}
        item = {"pk": key, "sk": key, "_et": {"S": kind}, "id": {"S": f"u{n}"}, "_ct": stamp, "_md": stamp}
        if kind == "Admin":
            item["permissions"] = {"SS": ["billing"]}
        items.append(item)
    design = infer_items(two_key_table("Toolbox", "pk", "sk"), items)
    assert (design.type_attribute, sorted(e.type for e in design.entities)) == ("_et", ["Admin", "User"])
    for entity in design.entities:
        assert {a: k.template for a, k in entity.keys.items()} == {"pk": "USER#{id}", "sk": "USER#{id}"}


def test_colon_separated_keys_are_split_on_colons_unless_a_key_holds_a_time(tmp_path: Path) -> None:
    """Redis-style keys (``tenant:acme:user:4``) split on ``:``; a table whose keys hold date-times
    (``ORDER#2024-05-01T10:00:00Z``) never is, whatever else they hold."""
    items = []
    for tenant in ("acme", "globex", "initech"):
        for user in range(5):
            key = {"S": f"tenant:{tenant}:user:{user}"}
            items.append(
                {"pk": key, "sk": {"S": "profile"}, "name": {"S": f"n{user}"}, "tenant": {"S": tenant}}
            )
            items.append({"pk": key, "sk": {"S": f"order:{user}00{tenant}"}, "tenant": {"S": tenant}})
    design = infer_items(two_key_table("Colons", "pk", "sk"), items)
    assert design.delimiter == ":"
    templates = sorted(sorted((a, k.template) for a, k in e.keys.items()) for e in design.entities)
    assert templates == [
        [("pk", "tenant:{tenant}:user:{user_id}"), ("sk", "order:{order_id}")],
        [("pk", "tenant:{tenant}:user:{user_id}"), ("sk", "profile")],
    ]
    path = tmp_path / "colons_inferred.py"
    path.write_text(design.source)

    def kind(item: dict[str, Any], entities: dict[str, Any]) -> str:
        return next(
            t
            for t, cls in entities.items()
            if cls.keys["sk"].template.split(":")[0] == item["sk"]["S"].split(":")[0]
        )

    assert round_trip(load_module(path), items, {"pk", "sk"}, kind) == len(items)
    timed = [{**i, "sk": {"S": f"{i['sk']['S']}#2024-05-01T10:00:00Z"}} for i in items]
    assert infer_items(two_key_table("Colons", "pk", "sk"), timed).delimiter == "#"
