"""The rules of a :class:`~singletable.testing.FaultPlan`: which requests each matches, and DynamoDB's answer.

Each rule answers a request it matches with DynamoDB's own fault -- an error document in AWS's words
(:meth:`Rule.error`), or a changed answer (:meth:`Rule.answer`: a batch's unprocessed part). The words
are AWS's: the Programming.Errors guide, the TransactionCanceledException and ThrottlingReason API
references, and answers AWS sent, as quoted in users' reports.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from singletable._protocol import Dispatcher
from singletable._protocol import wire_json as wire
from singletable.engine import DynamoDBError
from singletable.testing._requests import Request, action_tables, statement_table, statements, table_name

if TYPE_CHECKING:
    from singletable.testing.faults import FaultPlan

# AWS's words (Programming.Errors, the TransactionCanceledException reference, and answers seen from AWS).
PROVISIONED_THROUGHPUT_EXCEEDED = (
    "The level of configured provisioned throughput for the table was exceeded. "
    "Consider increasing your provisioning level with the UpdateTable API."
)
ON_DEMAND_THROTTLED = (
    "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your "
    "table or index so please try again shortly. If exceptions persist, check if you have a hot key: "
    "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html"
)
CONTROL_PLANE_THROTTLED = "Rate of requests exceeds the allowed throughput."
INTERNAL_SERVER_ERROR = "Internal server error"
TRANSACTION_CANCELLED = (
    "Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]"
)
TRANSACTION_CONFLICT = "Transaction is ongoing for the item"

THROTTLING_ERRORS = ("ProvisionedThroughputExceededException", "ThrottlingException")
CONTROL_PLANE = frozenset({"CreateTable", "UpdateTable", "DeleteTable"})
READS = frozenset({"GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems"})
BATCHES = {"BatchWriteItem": "UnprocessedItems", "BatchGetItem": "UnprocessedKeys"}
TRANSACTIONS = frozenset({"TransactWriteItems", "TransactGetItems", "ExecuteTransaction"})


class Answer(NamedTuple):
    """A request's answer, and the fault it shows (None: none)."""

    response: dict[str, Any]
    fault: str | None


@dataclass(eq=False, slots=True)
class Rule:
    """One declared fault: which requests it matches, how many more it acts on, how many it acted on."""

    operations: frozenset[str] | None
    table: str | None
    remaining: int | None
    fired: int = 0

    def matches(self, request: Request) -> bool:
        if self.remaining == 0:
            return False
        if self.operations is not None and request.operation not in self.operations:
            return False
        return self.table is None or self.table in request.tables

    def cancel(self) -> None:
        """Act on no more requests."""
        self.remaining = 0

    def error(self, plan: FaultPlan, request: Request) -> DynamoDBError | None:
        """The error this rule answers ``request`` with, or None when it changes the answer instead."""
        raise NotImplementedError

    def answer(self, plan: FaultPlan, dispatcher: Dispatcher, request: Request) -> Answer:
        """The answer when :meth:`error` gave none, and the fault it shows."""
        return plan.answer(dispatcher, request)


@dataclass(eq=False, slots=True)
class ErrorRule(Rule):
    """Answers with one error document: ``code`` (``__type``), ``message``, HTTP ``status``, ``members``."""

    code: str = ""
    message: str = ""
    status: int = 400
    members: dict[str, Any] = field(default_factory=dict)

    def error(self, plan: FaultPlan, request: Request) -> DynamoDBError:
        return DynamoDBError(self.code, self.message, status=self.status, extra=dict(self.members))


@dataclass(eq=False, slots=True)
class ThrottleRule(Rule):
    """ProvisionedThroughputExceededException or ThrottlingException, with AWS's ThrottlingReasons."""

    code: str = THROTTLING_ERRORS[0]

    def error(self, plan: FaultPlan, request: Request) -> DynamoDBError:
        if request.operation in CONTROL_PLANE:
            return DynamoDBError("ThrottlingException", CONTROL_PLANE_THROTTLED)
        provisioned = self.code == THROTTLING_ERRORS[0]
        message = PROVISIONED_THROUGHPUT_EXCEEDED if provisioned else ON_DEMAND_THROTTLED
        extra: dict[str, Any] = {}
        table = self.table or (request.tables[0] if request.tables else None)
        if table is not None and plan.engine is not None:
            index = request.params.get("IndexName") if request.operation in ("Query", "Scan") else None
            kind = "Read" if _reads(request) else "Write"
            limit = "ProvisionedThroughputExceeded" if provisioned else "KeyRangeThroughputExceeded"
            reason = {
                "reason": f"{'Index' if index else 'Table'}{kind}{limit}",
                "resource": plan.engine.arn(table, index if isinstance(index, str) else None),
            }
            extra["ThrottlingReasons" if provisioned else "throttlingReasons"] = [reason]
        return DynamoDBError(self.code, message, extra=extra)


@dataclass(eq=False, slots=True)
class TransactionConflictRule(Rule):
    """TransactionCanceledException: the first action on the rule's table (or the first action) conflicts
    with another transaction, every other action has reason ``None``."""

    def error(self, plan: FaultPlan, request: Request) -> DynamoDBError | None:
        tables = action_tables(request.params)
        if not tables:  # not a transaction the engine would accept: let it say why
            return None
        at = tables.index(self.table) if self.table in tables else 0
        reasons: list[dict[str, Any]] = [{"Code": "None"} for _ in tables]
        reasons[at] = {"Code": "TransactionConflict", "Message": TRANSACTION_CONFLICT}
        codes = ", ".join(reason["Code"] for reason in reasons)
        return DynamoDBError(
            "TransactionCanceledException",
            TRANSACTION_CANCELLED.format(codes=codes),
            extra={"CancellationReasons": reasons},
        )


@dataclass(eq=False, slots=True)
class UnprocessedRule(Rule):
    """A batch that processes only part of its requests and returns the rest as UnprocessedItems /
    UnprocessedKeys -- the held-back part is not written or read. Held back: the last ``items`` requests
    (or ``share`` of them, rounded up) for the rule's table (every table when None). When that would be the
    whole batch, DynamoDB answers ProvisionedThroughputExceededException instead, and so does this."""

    share: float | None = None
    items: int | None = None

    def _held(self, request: Request) -> list[tuple[str, int]]:
        """(table, position) of each request held back, in request order."""
        batch = request.params.get("RequestItems")
        if not isinstance(batch, dict) or not all(_well_formed(request.operation, e) for e in batch.values()):
            return []  # the engine refuses it whole, as sent
        candidates = [
            (table, position)
            for table, entries in batch.items()
            if self.table is None or table_name(table) == self.table
            for position in range(len(_entries(request.operation, entries)))
        ]
        count = self.items if self.items is not None else math.ceil(len(candidates) * (self.share or 0))
        return candidates[len(candidates) - min(count, len(candidates)) :]

    def error(self, plan: FaultPlan, request: Request) -> DynamoDBError | None:
        batch = request.params.get("RequestItems")
        entries = batch.values() if isinstance(batch, dict) else ()
        total = sum(len(_entries(request.operation, e)) for e in entries)
        held = self._held(request)
        if total and len(held) == total:
            return ThrottleRule(None, self.table, None).error(plan, request)
        return None

    def answer(self, plan: FaultPlan, dispatcher: Dispatcher, request: Request) -> Answer:
        held = self._held(request)
        if not held:
            return plan.answer(dispatcher, request)
        operation, params = request.operation, request.params
        hold = set(held)
        kept: dict[str, Any] = {}
        unprocessed: dict[str, Any] = {}
        for table, entries in params["RequestItems"].items():
            listed = _entries(operation, entries)
            stay = [e for i, e in enumerate(listed) if (table, i) not in hold]
            away = [e for i, e in enumerate(listed) if (table, i) in hold]
            if stay:
                kept[table] = _with_entries(operation, entries, stay)
            if away:
                unprocessed[table] = _with_entries(operation, entries, away)
        smaller = {**params, "RequestItems": kept}
        body = wire.encode_response(smaller)
        response = plan.answer(dispatcher, Request(operation, smaller, body, request.tables)).response
        member = BATCHES[operation]
        merged = dict(response.get(member) or {})
        for table, entries in unprocessed.items():
            if table in merged:  # the engine held some back itself (a busy database): add ours
                both = _entries(operation, merged[table]) + _entries(operation, entries)
                merged[table] = _with_entries(operation, entries, both)
            else:
                merged[table] = entries
        return Answer({**response, member: merged}, member)


def _well_formed(operation: str, entries: Any) -> bool:
    """Whether one table's part of a batch has the shape a split keeps: a list, or a dict with ``Keys``."""
    if operation == "BatchGetItem":
        return isinstance(entries, dict) and isinstance(entries.get("Keys"), list)
    return isinstance(entries, list)


def _entries(operation: str, entries: Any) -> list[Any]:
    """A batch's requests for one table: BatchWriteItem's list, BatchGetItem's ``Keys``."""
    if operation == "BatchGetItem":
        keys = entries.get("Keys") if isinstance(entries, dict) else None
        return list(keys) if isinstance(keys, list) else []
    return list(entries) if isinstance(entries, list) else []


def _with_entries(operation: str, entries: Any, chosen: list[Any]) -> Any:
    """One table's part of a batch holding only ``chosen`` (BatchGetItem keeps its projection options)."""
    return {**entries, "Keys": chosen} if operation == "BatchGetItem" else chosen


def _reads(request: Request) -> bool:
    if request.operation in READS:
        return True
    found = statements(request.params)
    return bool(found) and not any(statement_table(s)[1] for s in found)
