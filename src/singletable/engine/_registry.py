"""The one operation registry: every API operation the engine answers, as data.

Each :class:`Operation` names its wire name (``"PutItem"``), the module under
:mod:`singletable.engine._operations` whose ``run(engine, params)`` answers it, the request shape it is
validated against (a shape of :mod:`singletable.engine._validation`), the API it belongs to (DynamoDB or
DynamoDB Streams) and how the engine keeps the table catalog current around it:

* ``writes``: an item write that checks the catalog inside its own write transaction (see
  ``Engine.execute_write``), where the check needs no locking of its own and cannot race with the write;
* ``cached_catalog``: a read that may trust the cached catalog for a moment (``READ_CATALOG_TTL``) before
  asking SQLite whether another process changed it;
* ``wire_items``: a read whose ``run`` takes ``for_wire=True`` when answering for the wire codec
  (``Engine.execute(..., for_wire=True)``, the protocol's dispatcher): the items it would return undecoded
  come back as the stored JSON (``orjson.Fragment``), which the codec writes as they are;
* ``reads``: allowed on a read-only engine (``Engine(path, read_only=True)``), which refuses every other;
* ``value_wording``: which of DynamoDB's two value-check layers words a malformed AttributeValue (see
  :class:`~singletable.engine._errors.ValueProblem`).

Every other operation asks first. :data:`UNSUPPORTED_OPERATIONS` are AWS-only operations with no local
meaning: they exist (as engine methods too) and always answer UnknownOperationException naming the operation.

Everything that lists operations reads this module: the Engine's dispatch and its boto3-style methods, the
wire protocol's DynamoDB Streams routing, the model adapter, request validation and the shape generator.
"""

from __future__ import annotations

from dataclasses import dataclass

from singletable.engine._errors import CURRENT_WORDING, ENVELOPED_WORDING, OLDER_WORDING

DYNAMODB = "DynamoDB"
STREAMS = "DynamoDB Streams"


@dataclass(frozen=True, slots=True)
class Operation:
    name: str
    module: str
    shape: str
    api: str = DYNAMODB
    writes: bool = False
    cached_catalog: bool = False
    wire_items: bool = False
    # Allowed on a read-only engine (``Engine(path, read_only=True)``): it never changes the database, or (the
    # PartiQL operations) its writes run through the item operations, which a read-only engine refuses.
    reads: bool = False
    value_wording: str = OLDER_WORDING


REGISTRY: tuple[Operation, ...] = (
    Operation("CreateTable", "create_table", "CreateTableInput"),
    Operation("DescribeTable", "describe_table", "DescribeTableInput", reads=True),
    Operation("ListTables", "list_tables", "ListTablesInput", reads=True),
    Operation("DeleteTable", "delete_table", "DeleteTableInput"),
    Operation("PutItem", "put_item", "PutItemInput", writes=True, value_wording=ENVELOPED_WORDING),
    Operation(
        "GetItem",
        "get_item",
        "GetItemInput",
        cached_catalog=True,
        wire_items=True,
        reads=True,
        value_wording=CURRENT_WORDING,
    ),
    Operation("UpdateItem", "update_item", "UpdateItemInput", writes=True, value_wording=ENVELOPED_WORDING),
    Operation("DeleteItem", "delete_item", "DeleteItemInput", writes=True, value_wording=ENVELOPED_WORDING),
    Operation(
        "Query",
        "query",
        "QueryInput",
        cached_catalog=True,
        wire_items=True,
        reads=True,
        value_wording=CURRENT_WORDING,
    ),
    Operation("Scan", "scan", "ScanInput", cached_catalog=True, wire_items=True, reads=True),
    Operation("SearchVectors", "search_vectors", "SearchVectorsInput", cached_catalog=True, reads=True),
    Operation(
        "BatchGetItem",
        "batch_get_item",
        "BatchGetItemInput",
        cached_catalog=True,
        reads=True,
        value_wording=CURRENT_WORDING,
    ),
    Operation("BatchWriteItem", "batch_write_item", "BatchWriteItemInput", writes=True),
    Operation("TransactWriteItems", "transact_write_items", "TransactWriteItemsInput", writes=True),
    Operation(
        "TransactGetItems", "transact_get_items", "TransactGetItemsInput", cached_catalog=True, reads=True
    ),
    Operation("ExecuteStatement", "execute_statement", "ExecuteStatementInput", reads=True),
    Operation("BatchExecuteStatement", "batch_execute_statement", "BatchExecuteStatementInput", reads=True),
    Operation("ExecuteTransaction", "execute_transaction", "ExecuteTransactionInput", reads=True),
    Operation("UpdateTable", "update_table", "UpdateTableInput"),
    Operation("UpdateTimeToLive", "update_time_to_live", "UpdateTimeToLiveInput"),
    Operation("DescribeTimeToLive", "describe_time_to_live", "DescribeTimeToLiveInput", reads=True),
    Operation(
        "DescribeContinuousBackups",
        "describe_continuous_backups",
        "DescribeContinuousBackupsInput",
        reads=True,
    ),
    Operation("TagResource", "tag_resource", "TagResourceInput"),
    Operation("UntagResource", "untag_resource", "UntagResourceInput"),
    Operation("ListTagsOfResource", "list_tags_of_resource", "ListTagsOfResourceInput", reads=True),
    Operation("DescribeLimits", "describe_limits", "DescribeLimitsInput", reads=True),
    Operation("DescribeEndpoints", "describe_endpoints", "DescribeEndpointsRequest", reads=True),
    # The DynamoDB Streams API (X-Amz-Target ``DynamoDBStreams_20120810.*``), run by
    # ``Engine.execute_streams``; its boto3-style methods exist on the Engine too (``engine.get_records``).
    Operation("ListStreams", "list_streams", "ListStreamsInput", api=STREAMS, reads=True),
    Operation("DescribeStream", "describe_stream", "DescribeStreamInput", api=STREAMS, reads=True),
    Operation("GetShardIterator", "get_shard_iterator", "GetShardIteratorInput", api=STREAMS, reads=True),
    Operation("GetRecords", "get_records", "GetRecordsInput", api=STREAMS, reads=True),
)

UNSUPPORTED_OPERATIONS: frozenset[str] = frozenset(
    (
        "CreateBackup",
        "DescribeBackup",
        "ListBackups",
        "DeleteBackup",
        "RestoreTableFromBackup",
        "RestoreTableToPointInTime",
        "UpdateContinuousBackups",
        "CreateGlobalTable",
        "UpdateGlobalTable",
        "DescribeGlobalTable",
        "ListGlobalTables",
        "UpdateGlobalTableSettings",
        "DescribeGlobalTableSettings",
        "ExportTableToPointInTime",
        "DescribeExport",
        "ListExports",
        "ImportTable",
        "DescribeImport",
        "ListImports",
        "EnableKinesisStreamingDestination",
        "DisableKinesisStreamingDestination",
        "DescribeKinesisStreamingDestination",
        "UpdateKinesisStreamingDestination",
        "DescribeContributorInsights",
        "UpdateContributorInsights",
        "ListContributorInsights",
        "GetResourcePolicy",
        "PutResourcePolicy",
        "DeleteResourcePolicy",
        "UpdateTableReplicaAutoScaling",
        "DescribeTableReplicaAutoScaling",
    )
)

# Views of REGISTRY for the places that ask one question of it.
BY_NAME: dict[str, Operation] = {operation.name: operation for operation in REGISTRY}
# Wire name -> module, per API.
OPERATIONS: dict[str, str] = {op.name: op.module for op in REGISTRY if op.api == DYNAMODB}
STREAMS_OPERATIONS: dict[str, str] = {op.name: op.module for op in REGISTRY if op.api == STREAMS}
CATALOG_CHECKED_IN_WRITE: frozenset[str] = frozenset(op.name for op in REGISTRY if op.writes)
CACHED_CATALOG_READS: frozenset[str] = frozenset(op.name for op in REGISTRY if op.cached_catalog)
READ_OPERATIONS: frozenset[str] = frozenset(op.name for op in REGISTRY if op.reads)
VALUE_WORDINGS: dict[str, str] = {op.name: op.value_wording for op in REGISTRY}
# Wire name -> the request shape validation checks it against.
INPUT_SHAPES: dict[str, str] = {op.name: op.shape for op in REGISTRY}


def module_path(operation: Operation) -> str:
    """The import path of the module that runs ``operation``."""
    return f"singletable.engine._operations.{operation.module}"
