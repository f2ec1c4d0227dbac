"""The rules ``singletable check`` applies: a stable id, a name, a severity, why it matters, how to fix it.

Ids never change meaning once published (ignore lists in ``pyproject.toml`` and code-scanning history refer to
them); a retired rule keeps its id unused. ``ST0xx`` is the design itself, ``ST1xx`` partition keys, ``ST2xx``
sort keys and ordering, ``ST3xx`` reads, ``ST4xx`` indexes and projections, ``ST5xx`` sizes, ``ST6xx`` TTL,
``ST7xx`` recorded traffic. The limits quoted are DynamoDB's documented ones (docs/design-tools.md cites
them).
"""

from __future__ import annotations

from dataclasses import dataclass

SEVERITIES = ("error", "warning", "note")  # most to least severe; also SARIF's result levels


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    severity: str
    title: str
    why: str
    fix: str


_PARTITION_LIMIT = (
    "DynamoDB serves at most 1,000 write units and 3,000 read units per second per partition, and a GSI "
    "partition throttles the writes of its base table when it cannot keep up"
)

RULE_LIST = (
    Rule(
        "ST001",
        "design-does-not-load",
        "error",
        "the design module fails to import",
        "DynamoDB never sees a design the application cannot declare: every write and read would fail first",
        "fix the declaration the error names",
    ),
    Rule(
        "ST002",
        "table-name-refused",
        "error",
        "a table name DynamoDB refuses",
        "DynamoDB refuses every request naming a table that is not 3 to 255 letters, digits, '_', '-' or "
        "'.', CreateTable first",
        "rename the table (Table(name=...)), or give the name per environment with env()",
    ),
    Rule(
        "ST003",
        "unique-guard-cannot-guard",
        "error",
        "a unique guard template that cannot guard its value",
        "a unique value is held by a guard item whose key the template renders: a field the entity lacks "
        "cannot be rendered (every create fails), a template without the unique field gives every value one "
        "guard (only the first entity can be written), and a guard whose key is another item's key "
        "overwrites it or is refused by it",
        "build the template from the unique field and, for uniqueness within a scope, other fields of the "
        "same entity (STORE#{store_id}#EMAIL#{email}), with a prefix no other key uses",
    ),
    Rule(
        "ST101",
        "static-partition-key",
        "warning",
        "a partition key with one fixed value",
        f"every item of the entity lands in one partition: {_PARTITION_LIMIT}",
        "add a field to the key (the owner's id), or shard it: PREFIX#{shard} with a small shard number, "
        "read by querying every shard",
    ),
    Rule(
        "ST102",
        "low-cardinality-partition-key",
        "warning",
        "a partition key with a handful of values",
        "all items share a few partitions, so the busiest value takes most of the traffic: "
        + _PARTITION_LIMIT,
        "key on a field with many values, or add a shard suffix to the few-valued one",
    ),
    Rule(
        "ST103",
        "one-item-entity",
        "error",
        "an entity whose primary key is fixed, though its index keys vary by field",
        "a primary key identifies one item: every write of the entity replaces the one before, so the table "
        "holds one of them however many the index keys suggest",
        "put the identifying field in the primary key (settings#{name})",
    ),
    Rule(
        "ST104",
        "counter-in-key",
        "warning",
        "a counter inside a key template",
        "a counter changes with every increment, and a key built from it must be rewritten each time: an "
        "atomic ADD cannot rebuild a key (the model refuses it before sending), and a SET moves the item "
        "in its index, a delete and a put there, on every count",
        "keep counters out of keys; key on what does not change (an id), and read the count from the item",
    ),
    Rule(
        "ST201",
        "number-sorts-as-text",
        "warning",
        "a number in a string sort key, not zero-padded",
        "string sort keys compare character by character (UTF-8 bytes), so 10 sorts before 9 and range "
        "conditions return the wrong items",
        "zero-pad it to a fixed width ({order:05d}) for non-negative numbers, or use a Number sort key",
    ),
    Rule(
        "ST202",
        "date-sorts-as-text",
        "warning",
        "a date in a string sort key that does not sort in time order",
        "string sort keys compare character by character, so only a fixed-width, most-significant-first "
        "date (ISO 8601, UTC) sorts in time order",
        "use a datetime field (the model writes fixed-width UTC ISO 8601) or the {at:date} format",
    ),
    Rule(
        "ST203",
        "sort-key-prefix-collision",
        "warning",
        "another entity's sort keys begin with this pattern's begins_with prefix",
        "a Query reads every item whose sort key begins with the prefix, and pays for each (read units per "
        "4 KB read, before any filter), so the other type's items are read, billed and then dropped",
        "give each type its own sort-key prefix, or end the prefix with the delimiter after a field",
    ),
    Rule(
        "ST204",
        "unordered-pattern",
        "error",
        "an access pattern asks for an order its index cannot give",
        "DynamoDB orders a Query's results only by the sort key; without one (or with a sort key the "
        "entity fills with one fixed value) ScanIndexForward changes nothing and the order is undefined",
        "query an index whose sort key holds the order (a timestamp), or drop newest_first",
    ),
    Rule(
        "ST301",
        "scan-pattern",
        "warning",
        "an access pattern that Scans the table",
        "a Scan reads every item of the table (or index) and is billed for all of it, 1 read unit per 4 KB "
        "(0.5 eventually consistent), however few items it returns",
        "add an index keyed on what the pattern looks for, and Query it",
    ),
    Rule(
        "ST302",
        "filtered-pattern",
        "note",
        "an access pattern with a filter",
        "a FilterExpression is applied after the read: filtered-out items are read and billed, and Limit "
        "counts items read, not items returned",
        "move the condition into the key (a sparse index, or a sort-key prefix) if it discards most items",
    ),
    Rule(
        "ST401",
        "projection-missing-attributes",
        "error",
        "a pattern reads an index that lacks attributes its entity needs, and does not hydrate",
        "a KEYS_ONLY or INCLUDE index returns only the attributes it projects; DynamoDB cannot fetch the "
        "rest in the same Query",
        "project the attributes (INCLUDE them, or ALL), or let the pattern hydrate (hydrate=True reads the "
        "items with BatchGetItem)",
    ),
    Rule(
        "ST402",
        "include-limit",
        "error",
        "an INCLUDE projection over DynamoDB's limits",
        "DynamoDB refuses a table whose index projects more than 20 non-key attributes (NonKeyAttributes: "
        "at most 20 items), or more than 100 over all its indexes",
        "project fewer attributes (key attributes are always projected), or use ALL",
    ),
    Rule(
        "ST403",
        "index-key-type-mismatch",
        "error",
        "an entity writes an index key attribute with another type than the index declares",
        "DynamoDB rejects a write whose index key attribute has the wrong type (ValidationException: "
        '"Type mismatch for Index Key"), and every write of that entity fails',
        "store the field under another attribute name, or make its type the index key's",
    ),
    Rule(
        "ST404",
        "glued-index-key",
        "note",
        "a GSI key template that glues several fields into one string, or zero-pads a number into one",
        "DynamoDB can key a global secondary index on up to four partition and four sort attributes, each "
        "its own typed value; a glued template must keep the delimiter out of every value, pad numbers to a "
        "fixed width (and still cannot sort negative ones), and a partial update of one of its fields must "
        "read the others to rebuild it",
        "declare the index by its fields, GSI(name, pk=[...], sk=[...]), and drop its key templates from "
        "the entities (items written before keep the old attributes: rewrite them, or backfill a new index)",
    ),
    Rule(
        "ST405",
        "vector-index-spans-tenants",
        "warning",
        "a multi-tenant entity searched through a vector index without a partition attribute",
        "a vector index without a HASH attribute in its search schema ranks every item of the table "
        "together: a search for one tenant reads, ranks and bills every tenant's vectors, and only a "
        "filter the application must never forget keeps other tenants' items out of the results",
        "declare the tenant attribute as the index's partition (VectorIndex(partition='tenantId')): "
        "DynamoDB then requires it by equality in every search and searches that tenant's vectors only",
    ),
    Rule(
        "ST406",
        "vector-index-unreachable",
        "warning",
        "a vector index no entity fills, or items no search of it can reach",
        "an item is in a vector index when it holds the vector attribute; a search of an index with a "
        "partition attribute must name one partition, so an indexed item without that attribute is "
        "billed and stored in the index but never found",
        "store the vector and the partition attribute on every entity meant to be searched (a required "
        "field), or drop the index",
    ),
    Rule(
        "ST407",
        "dot-product-distance",
        "note",
        "a vector index ranked by DOT_PRODUCT",
        "the dot product grows with a vector's length as well as with its closeness in direction, so "
        "vectors that are not unit length are ranked by size; COSINE compares direction only",
        "use DOT_PRODUCT only for unit-length vectors (many embedding models return them; normalise "
        "otherwise), or COSINE",
    ),
    Rule(
        "ST501",
        "item-collection-limit",
        "warning",
        "a partition that can grow without bound on a table with a local secondary index",
        "with an LSI, the items sharing a partition key value (an item collection) may hold at most 10 GB; "
        "a write past it fails with ItemCollectionSizeLimitExceededException",
        "move the one-to-many items to a GSI-keyed layout, or bound them (time buckets in the partition key)",
    ),
    Rule(
        "ST502",
        "item-size-limit",
        "warning",
        "an item that can approach DynamoDB's 400 KB item limit",
        "an item (attribute names and values) may not exceed 400 KB; each write costs 1 write unit per 1 KB, "
        "and each ALL-projection index that holds the item writes a copy of it again",
        "bound the large fields (max_length), or move large values to S3 and keep a pointer",
    ),
    Rule(
        "ST503",
        "unbounded-collection",
        "warning",
        "a list, set or map of related ids kept inside one item",
        "the item grows with every related item until the 400 KB limit stops writes, and every change "
        "rewrites (and bills) the whole item",
        "store one item per related item (PK = owner, SK = REL#id) and Query them",
    ),
    Rule(
        "ST601",
        "ttl-not-epoch-seconds",
        "error",
        "a TTL attribute that DynamoDB will not expire by",
        "TTL deletes an item only when its TTL attribute is a Number of seconds since the epoch; a string, "
        "an ISO date or milliseconds (a date in the far future) is ignored and the item is never deleted",
        "declare the field with ttl= on the entity (the model stores epoch seconds) and the table's "
        "ttl_attribute to match",
    ),
    Rule(
        "ST701",
        "scan-observed",
        "warning",
        "recorded traffic contains Scans",
        "a Scan reads and bills every item it passes, 1 read unit per 4 KB",
        "replace it with a Query on a key or index that holds what it looks for",
    ),
    Rule(
        "ST702",
        "invalid-key-condition",
        "error",
        "a recorded request DynamoDB rejects",
        "DynamoDB validates every request before it reads: this one fails with ValidationException, always",
        "rewrite the request as the message says (one partition key value with =; several values are a "
        "BatchGetItem or one Query each)",
    ),
    Rule(
        "ST703",
        "hot-key-observed",
        "warning",
        "one partition key value takes much of the recorded traffic",
        f"{_PARTITION_LIMIT}; a skewed key reaches that limit long before the table does",
        "spread the key (shard it, or cache the hot item's reads)",
    ),
    Rule(
        "ST704",
        "filter-waste-observed",
        "warning",
        "recorded reads discard most of what they read",
        "a filter is applied after the read: ScannedCount items are billed, Count are returned",
        "key the read on what the filter tests (a sparse index, or a sort-key prefix)",
    ),
)

RULES: dict[str, Rule] = {rule.id: rule for rule in RULE_LIST}
RULES_BY_NAME: dict[str, Rule] = {rule.name: rule for rule in RULE_LIST}


def rule_named(text: str) -> Rule:
    """A rule by id (``ST101``) or name (``static-partition-key``); ValueError naming the known ones."""
    rule = RULES.get(text.upper()) or RULES_BY_NAME.get(text)
    if rule is None:
        raise ValueError(f"unknown rule {text!r}; rules are {', '.join(RULES)}")
    return rule
