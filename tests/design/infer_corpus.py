"""Single-table designs that are not ours, with realistic generated data, for ``singletable infer``: the
shared parts (the designs are in infer_corpus_libraries.py and infer_corpus_tables.py).

Each design is written the way its own library or author writes it -- key formats, type attributes, id
schemes, number and date encodings -- as plain DynamoDB JSON, so the inference is never tuned to our own
writer. A :class:`Corpus` holds the table (CreateTable's arguments), the items (seeded random: the same
every run) and the design its author declared: per entity, the template of every key attribute, with field
names written as ``{}`` (the data shows values, never the names of the fields inside them).

Sources of the layouts: ElectroDB's key format (``$service#attr_value``, ``$entity_version``, collections,
lower-cased key values, ``__edb_e__``/``__edb_v__``); dynamodb-onetable's schema conventions (``_type``,
``pk``/``sk``/``gs1pk``, ULIDs, ``account#`` literals); the GitHub example of Alex DeBrie's "The DynamoDB
Book" (``REPO#<owner>#<repo>``, zero-padded issue numbers, KSUID comment ids, an index inverting PK and SK);
PynamoDB's discriminator attribute (``cls``) and number range keys; AWS's relational modeling example (one
overloaded GSI over ``SK``/``Data``, ``HR-EMPLOYEE1``) and its gaming sparse index (``Award``); and a table
that lived through two key formats.
"""

from __future__ import annotations

import random
import string
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

Item = dict[str, dict[str, Any]]
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


class Corpus(NamedTuple):
    name: str
    table: dict[str, Any]  # CreateTable's keyword arguments
    items: list[Item]
    expected: dict[str, dict[str, str]]  # entity -> key attribute -> template, field names as {}
    type_attribute: str | None  # the attribute naming each item's entity, when the design has one
    ttl: str | None = None
    guards: tuple[str, ...] = ()  # uniqueness-guard key templates (field names as {}), with what they carry


def text(value: object) -> dict[str, str]:
    return {"S": str(value)}


def number(value: object) -> dict[str, str]:
    return {"N": str(value)}


def table_spec(
    name: str,
    keys: list[tuple[str, str]],
    attributes: dict[str, str],
    gsis: dict[str, list[str]],
    **extra: Any,
) -> dict[str, Any]:
    """CreateTable's arguments: ``keys`` the table's (attribute, HASH|RANGE), ``gsis`` name -> [pk, sk?]."""
    kinds = ("HASH", "RANGE")
    table: dict[str, Any] = {
        "TableName": name,
        "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": a, "KeyType": k} for a, k in keys],
        "AttributeDefinitions": [{"AttributeName": a, "AttributeType": t} for a, t in attributes.items()],
    }
    if gsis:
        table["GlobalSecondaryIndexes"] = [
            {
                "IndexName": index,
                "Projection": {"ProjectionType": "ALL"},
                "KeySchema": [{"AttributeName": a, "KeyType": kinds[n]} for n, a in enumerate(parts)],
            }
            for index, parts in gsis.items()
        ]
    table.update(extra)
    return table


def gsi1_table(name: str) -> dict[str, Any]:
    """The commonest single-table layout: string PK and SK, one GSI1 over GSI1PK and GSI1SK."""
    names = ("PK", "SK", "GSI1PK", "GSI1SK")
    keys = [("PK", "HASH"), ("SK", "RANGE")]
    return table_spec(name, keys, dict.fromkeys(names, "S"), {"GSI1": ["GSI1PK", "GSI1SK"]})


def ulid(rng: random.Random, at: datetime) -> str:
    millis = int(at.timestamp() * 1000)
    time_part = "".join(_CROCKFORD[(millis >> (5 * (9 - i))) & 31] for i in range(10))
    return time_part + "".join(rng.choice(_CROCKFORD) for _ in range(16))


def ksuid(rng: random.Random) -> str:
    return "".join(rng.choice(_BASE62) for _ in range(27))


def uuid4(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def moment(rng: random.Random, days: int = 600) -> datetime:
    return EPOCH + timedelta(seconds=rng.randrange(days * 86400))


def iso(at: datetime, millis: bool = False) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S") + (f".{at.microsecond // 1000:03d}" if millis else "") + "Z"


FIRST = ["ana", "ben", "chloe", "dev", "eli", "fay", "gus", "hana", "ivan", "jo", "kai", "lea", "mo", "nia"]
LAST = ["smith", "ng", "garcia", "okafor", "kim", "rossi", "novak", "haddad", "silva", "berg"]
WORDS = ["amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "harbor", "iris", "juniper"]


def person(rng: random.Random) -> tuple[str, str]:
    return rng.choice(FIRST).title(), rng.choice(LAST).title()


# -- (a) ElectroDB -------------------------------------------------------------------------------------


def write(corpus: Corpus, client: Any) -> None:
    """Create the corpus's table and write its items with a plain boto3 client (BatchWriteItem, 25 at a
    time, unprocessed items sent again), its TTL turned on when it has one."""
    name = corpus.table["TableName"]
    client.create_table(**corpus.table)
    if corpus.ttl:
        client.update_time_to_live(
            TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": corpus.ttl}
        )
    for start in range(0, len(corpus.items), 25):
        requests: dict[str, Any] = {
            name: [{"PutRequest": {"Item": i}} for i in corpus.items[start : start + 25]]
        }
        while requests:
            requests = client.batch_write_item(RequestItems=requests).get("UnprocessedItems") or {}
