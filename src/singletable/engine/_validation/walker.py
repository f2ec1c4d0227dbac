"""Request-shape validation, done the way DynamoDB's front end does it, before any operation logic.

DynamoDB checks a request in two passes, and so do we:

1. *Deserialization*: a member whose JSON type is wrong (``TableName: 5``) stops the request at once with a
   ``SerializationException`` naming the Java conversion that failed -- nothing else is reported.
2. *Constraint validation* against the service model (required members, lengths, patterns, enums, ranges):
   every violation is collected and reported together in one ``ValidationException``::

       2 validation errors detected: Value 'a!' at 'tableName' failed to satisfy constraint: Member must
       satisfy regular expression pattern: [a-zA-Z0-9_.-]+; Value 'a!' at 'tableName' failed to satisfy
       constraint: Member must have length greater than or equal to 3

Member paths are camelCase, lists are ``name.N.member`` (1-based) and map values ``name.KEY.member``; a
map value that breaks its own length or pattern is reported at the map, listing every constraint of the
value (``Map value must satisfy constraint: [...]``). A value is echoed as Java's ``toString`` shows it,
structures as ``KeySchemaElement(attributeName=pk, keyType=HASH)``; an empty string is checked for its
length only. The few members DynamoDB words its own way are marked in the shape table itself (a structure's
``rules``, see :data:`UNECHOED` and :data:`REQUIRED`): the member is named as the API spells it
with no value echoed (Query's ``Limit``), or its absence is one standalone message (CreateTable's
``TableName``). Unknown members are ignored, as DynamoDB ignores them. ``None`` is JSON ``null``, which
DynamoDB treats as absent. The constraints themselves are AWS's published model, kept as data: the package
merges :mod:`generated` and :mod:`additions` into the one table this walker reads (see :mod:`validation`).
"""

from __future__ import annotations

import re
from typing import Any

from singletable.engine._errors import DynamoDBError
from singletable.engine._validation.shapes import (
    BlobShape,
    BooleanShape,
    IntegerShape,
    ListShape,
    MapShape,
    Shape,
    Shapes,
    StringShape,
    StructureShape,
)

_JAVA_PACKAGE = "com.amazonaws.dynamodb.v20120810"
_PATTERNS: dict[str, re.Pattern[str]] = {}
_TABLE_NAME_PATTERN = "[a-zA-Z0-9_.-]+"
_JAVA_CLASSES: dict[type[Shape], str] = {
    StringShape: "java.lang.String",
    BooleanShape: "java.lang.Boolean",
    BlobShape: "java.nio.ByteBuffer",
}
_INT_RANGE = {"Integer": (-(2**31), 2**31 - 1), "Long": (-(2**63), 2**63 - 1)}
# Member rules (a structure's ``rules``, {member: rule}): how DynamoDB words that member's errors.
UNECHOED = "unechoed"  # "Value at 'Limit' failed to ...": the API's own spelling of the path, no value
REQUIRED = "required"  # ("required", message): absent (or an empty map/list) is that one message alone


NULL_MEMBER_AT = "Value null at '{path}' failed to satisfy constraint: Member must not be null"


def _serialization(message: str) -> DynamoDBError:
    return DynamoDBError("SerializationException", message)


_CAMEL: dict[str, str] = {}
# Structure shape -> (member, member shape, camelCase name, required, rule or None) in the model's order.
_MEMBERS: dict[str, tuple[tuple[str, str, str, bool, Any], ...]] = {}
# (string shape, value) pairs known to satisfy every constraint: table names and enum values recur on
# every request, and a string's constraints depend on nothing else.
_VALID_STRINGS: set[tuple[str, str]] = set()
_VALID_STRINGS_LIMIT = 4096


def _camel(name: str) -> str:
    """Coral reports members by their Java field names: the first letter lowered."""
    camel = _CAMEL.get(name)
    if camel is None:
        camel = _CAMEL[name] = name[:1].lower() + name[1:]
    return camel


def render(value: Any) -> str:
    """A value as Java's ``toString`` shows it in the message (strings bare, lists ``[a, b]``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(render(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={render(v)}" for k, v in value.items()) + "}"
    if isinstance(value, bytes | bytearray | memoryview):
        size = len(value)
        return f"java.nio.HeapByteBuffer[pos=0 lim={size} cap={size}]"
    return str(value)


class _Checker:
    """One walk over a request: raises on a type error, collects constraint violations.

    Every step carries two paths: ``path`` as Coral reports members (camelCase) and ``spelled`` as the API
    spells them, for the members DynamoDB names that way (:data:`UNECHOED`).
    """

    __slots__ = ("errors", "shapes")

    def __init__(self, shapes: Shapes) -> None:
        self.shapes = shapes
        self.errors: list[str] = []

    def fail(self, value: Any, path: str, constraint: str, shape_name: str | None = None) -> None:
        shown = "null" if value is None else f"'{self.show(shape_name, value)}'"
        self.errors.append(f"Value {shown} at '{path}' failed to satisfy constraint: {constraint}")

    def show(self, shape_name: str | None, value: Any) -> str:
        """A value as Java's ``toString`` shows it; given its shape, a structure as ``Name(member=...)``."""
        shape = self.shapes.get(shape_name) if shape_name is not None else None
        if shape is None or value is None:
            return render(value)
        if type(shape) is StructureShape and isinstance(value, dict):
            members = ", ".join(
                f"{_camel(member)}={self.show(member_shape, value.get(member))}"
                for member, member_shape in shape.members.items()
            )
            return f"{shape_name}({members})"
        if type(shape) is ListShape and isinstance(value, list | tuple):
            return "[" + ", ".join(self.show(shape.member, member) for member in value) + "]"
        if type(shape) is MapShape and isinstance(value, dict):
            shown = (f"{key}={self.show(shape.value, member)}" for key, member in value.items())
            return "{" + ", ".join(shown) + "}"
        return render(value)

    def check(self, shape_name: str, value: Any, path: str, spelled: str) -> None:
        # Any: dispatched on its kind, taken once (``type(shape)`` per branch would cost the hot path a call
        # each), and mypy does not narrow a value through an alias of its type.
        shape: Any = self.shapes[shape_name]
        kind = type(shape)
        if kind is StructureShape:
            self._structure(shape_name, shape, value, path, spelled)
        elif kind is StringShape:
            self._string(shape_name, shape, value, path)
        elif kind is ListShape:
            self._list(shape_name, shape, value, path, spelled)
        elif kind is MapShape:
            self._map(shape_name, shape, value, path, spelled)
        elif kind is IntegerShape:
            self._integer(shape, value, path)
        elif kind is BooleanShape:
            self._boolean(value)
        else:
            self._blob(value)

    # -- containers ---------------------------------------------------------------------------------------

    def _structure(self, name: str, shape: StructureShape, value: Any, path: str, spelled: str) -> None:
        if isinstance(value, list | tuple):
            raise _serialization(f"Unrecognized collection type class {_JAVA_PACKAGE}.{name}")
        if not isinstance(value, dict):
            raise _serialization("Unexpected value type in payload")
        members = _MEMBERS.get(name)
        if members is None:
            rules = shape.rules or {}
            members = _MEMBERS[name] = tuple(
                (member, member_shape, _camel(member), member in shape.required, rules.get(member))
                for member, member_shape in shape.members.items()
            )
        prefix = f"{path}." if path else ""
        spelled_prefix = f"{spelled}." if spelled else ""
        get = value.get
        for member, member_shape, camel, required, rule in members:
            member_value = get(member)
            if rule is not None:
                self._ruled(rule, member_shape, member_value, spelled_prefix + member)
                if rule == UNECHOED:
                    if member_value is None and required:
                        self.errors.append(
                            f"Value at '{spelled_prefix}{member}' failed to satisfy constraint: "
                            "Member must not be null"
                        )
                    continue
            if member_value is None:
                if required:
                    self.fail(None, prefix + camel, "Member must not be null")
                continue
            self.check(member_shape, member_value, prefix + camel, spelled_prefix + member)

    def _ruled(self, rule: Any, shape_name: str, value: Any, spelled: str) -> None:
        """A member DynamoDB words its own way (the structure's fourth entry)."""
        if rule == UNECHOED:
            if value is None:
                return
            errors = len(self.errors)
            self.check(shape_name, value, spelled, spelled)
            # The constraint stays; the echoed value goes ("Value at 'Limit' failed to satisfy ...").
            for position in range(errors, len(self.errors)):
                message = self.errors[position]
                self.errors[position] = "Value at" + message[message.index(f" at '{spelled}") + 3 :]
            return
        kind, message = rule
        if kind == REQUIRED and (value is None or (isinstance(value, dict | list) and not value)):
            raise DynamoDBError("ValidationException", message)

    def _list(self, name: str, shape: ListShape, value: Any, path: str, spelled: str) -> None:
        if isinstance(value, dict):
            raise _serialization("Start of structure or map found where not expected")
        if not isinstance(value, list | tuple):
            raise _serialization("Unexpected field type")
        member_shape, low, high = shape
        for position, member in enumerate(value, start=1):
            if member is not None:
                self.check(member_shape, member, f"{path}.{position}.member", f"{spelled}.{position}.member")
            elif type(self.shapes[member_shape]) is StructureShape:
                # A null where a structure must be (TransactItems: [null]) is no absent member: DynamoDB
                # Local answers TransactGetItems' so, and fails with a 500 on the other lists of structures.
                raise DynamoDBError("ValidationException", NULL_MEMBER_AT.format(path=path))
        self._length(value, path, low, high, name)

    def _map(self, name: str, shape: MapShape, value: Any, path: str, spelled: str) -> None:
        if isinstance(value, list | tuple):
            java_type = self._java_type(shape.value)
            raise _serialization(f"Unrecognized collection type java.util.Map<java.lang.String, {java_type}>")
        if not isinstance(value, dict):
            raise _serialization("Unexpected field type")
        key_shape, value_shape, low, high = shape
        if value_shape == "AttributeValue":
            # Items, keys and expression values: the codec validates every AttributeValue (and its name)
            # with DynamoDB's item-level messages, so the shape walk stops at the map itself.
            self._length(value, path, low, high, name)
            return
        member_shape = self.shapes[value_shape]
        for key, member in value.items():
            if not isinstance(key, str):
                raise _serialization("Unexpected field type")
            self.check(key_shape, key, f"{path}.{key}.key", f"{spelled}.{key}.key")
            if member is None:
                continue
            if type(member_shape) is ListShape:
                # A list value's own length is a constraint of the map (its members are still walked).
                self._list_members(member_shape, member, f"{path}.{key}.member", f"{spelled}.{key}.member")
            else:
                self.check(value_shape, member, f"{path}.{key}.member", f"{spelled}.{key}.member")
        if type(member_shape) is ListShape:
            self._map_value_lengths(name, value, path, member_shape)
        self._length(value, path, low, high, name)

    def _list_members(self, shape: ListShape, value: Any, path: str, spelled: str) -> None:
        if isinstance(value, dict):
            raise _serialization("Start of structure or map found where not expected")
        if not isinstance(value, list | tuple):
            raise _serialization("Unexpected field type")
        for position, member in enumerate(value, start=1):
            if member is not None:
                self.check(shape.member, member, f"{path}.{position}.member", f"{spelled}.{position}.member")

    def _map_value_lengths(self, name: str, value: dict, path: str, member_shape: ListShape) -> None:
        """``Map value must satisfy constraint: [...]``: every constraint of the value, maximum first."""
        low, high = member_shape.low, member_shape.high
        if all(
            (low is None or len(member) >= low) and (high is None or len(member) <= high)
            for member in value.values()
            if member is not None
        ):
            return
        constraints = []
        if high is not None:
            constraints.append(f"Member must have length less than or equal to {high}")
        if low is not None:
            constraints.append(f"Member must have length greater than or equal to {low}")
        self.fail(value, path, f"Map value must satisfy constraint: [{', '.join(constraints)}]", name)

    def _length(
        self, value: Any, path: str, low: int | None, high: int | None, name: str | None = None
    ) -> None:
        if low is not None and len(value) < low:
            self.fail(value, path, f"Member must have length greater than or equal to {low}", name)
        if high is not None and len(value) > high:
            self.fail(value, path, f"Member must have length less than or equal to {high}", name)

    # -- scalars ------------------------------------------------------------------------------------------

    def _string(self, name: str, shape: StringShape, value: Any, path: str) -> None:
        if not isinstance(value, str):
            if isinstance(value, bool):
                raise _serialization(f"{'TRUE' if value else 'FALSE'}_VALUE cannot be converted to String")
            if isinstance(value, int):
                raise _serialization("NUMBER_VALUE cannot be converted to String")
            if isinstance(value, float):
                raise _serialization("DECIMAL_VALUE cannot be converted to String")
            if isinstance(value, list | tuple):
                raise _serialization("Unrecognized collection type class java.lang.String")
            if isinstance(value, dict):
                raise _serialization("Start of structure or map found where not expected")
            raise _serialization("Unexpected value type in payload")
        if (name, value) in _VALID_STRINGS:
            return
        errors = len(self.errors)
        self._string_constraints(name, shape, value, path)
        if len(self.errors) == errors:
            if len(_VALID_STRINGS) >= _VALID_STRINGS_LIMIT:
                _VALID_STRINGS.clear()
            _VALID_STRINGS.add((name, value))

    def _string_constraints(self, name: str, shape: StringShape, value: str, path: str) -> None:
        low, high, pattern, enum = shape
        if name == "TableArn" and not value.startswith("arn:"):
            # A plain table name where an ARN is also accepted: the name rules apply, minus the minimum.
            pattern, high = _TABLE_NAME_PATTERN, 255
        if enum is not None and value not in enum:
            self.fail(value, path, f"Member must satisfy enum value set: [{', '.join(enum)}]")
        if pattern is not None and value:
            # A pattern given as (Java text, Python regex) is shown as AWS shows it, matched as Python can.
            shown, regex = pattern if isinstance(pattern, tuple) else (pattern, pattern)
            compiled = _PATTERNS.get(regex)
            if compiled is None:
                compiled = _PATTERNS[regex] = re.compile(regex)
            if compiled.fullmatch(value) is None:
                self.fail(value, path, f"Member must satisfy regular expression pattern: {shown}")
        self._length(value, path, low, high)

    def _integer(self, shape: IntegerShape, value: Any, path: str) -> None:
        java, low, high = shape
        if isinstance(value, bool):
            raise _serialization(f"class java.lang.Boolean can not be converted to an {java}")
        if isinstance(value, float):
            raise _serialization(f"class java.math.BigDecimal can not be converted to an {java}")
        if isinstance(value, str):
            raise _serialization(f"class java.lang.String can not be converted to an {java}")
        if isinstance(value, list | tuple):
            raise _serialization(f"Unrecognized collection type class java.lang.{java}")
        if isinstance(value, dict):
            raise _serialization("Start of structure or map found where not expected")
        if not isinstance(value, int):
            raise _serialization("Unexpected value type in payload")
        java_low, java_high = _INT_RANGE[java]
        if not java_low <= value <= java_high:
            wider = "java.lang.Long" if java == "Integer" and abs(value) < 2**63 else "java.math.BigInteger"
            raise _serialization(f"class {wider} can not be converted to an {java}")
        if low is not None and value < low:
            self.fail(value, path, f"Member must have value greater than or equal to {low}")
        if high is not None and value > high:
            self.fail(value, path, f"Member must have value less than or equal to {high}")

    def _java_type(self, shape_name: str) -> str:
        kind = type(self.shapes[shape_name])
        if kind is StructureShape:
            return f"{_JAVA_PACKAGE}.{shape_name}"
        return _JAVA_CLASSES.get(kind, "java.lang.Object")

    @staticmethod
    def _boolean(value: Any) -> None:
        if isinstance(value, bool):
            return
        if isinstance(value, str):
            raise _serialization("class java.lang.String can not be converted to an Boolean")
        if isinstance(value, int | float):
            raise _serialization("class java.lang.Integer can not be converted to an Boolean")
        if isinstance(value, list | tuple):
            raise _serialization("Unrecognized collection type class java.lang.Boolean")
        if isinstance(value, dict):
            raise _serialization("Start of structure or map found where not expected")
        raise _serialization("Unexpected value type in payload")

    @staticmethod
    def _blob(value: Any) -> None:
        # Over the wire a blob is a base64 string; in-process callers hand us bytes as boto3 does.
        if isinstance(value, bytes | bytearray | memoryview | str):
            return
        if isinstance(value, dict):
            raise _serialization("Start of structure or map found where not expected")
        if isinstance(value, list | tuple):
            raise _serialization("Unrecognized collection type class java.nio.ByteBuffer")
        raise _serialization("only base-64-encoded strings are convertible to bytes")


def validation_message(errors: list[str]) -> str:
    """DynamoDB's aggregate: ``N validation error(s) detected: e1; e2``."""
    count = len(errors)
    noun = "error" if count == 1 else "errors"
    return f"{count} validation {noun} detected: " + "; ".join(errors)


def check_input(shapes: Shapes, input_shape: str, params: Any) -> None:
    """Raise DynamoDB's SerializationException or aggregated ValidationException when ``params`` does not fit
    ``input_shape`` of ``shapes`` (a request shape name such as ``PutItemInput``).

    A request that :func:`_fits` is valid and needs nothing more; any other is walked in full, in the
    model's order, for the exact errors.
    """
    if not isinstance(params, dict):
        raise _serialization("Unexpected value type in payload")
    if _fits(shapes, input_shape, params):
        return
    checker = _Checker(shapes)
    checker.check(input_shape, params, "", "")
    if checker.errors:
        raise DynamoDBError("ValidationException", validation_message(checker.errors))


# Structure shape -> ({member: (member shape, how _fits checks it)}, required members), or None for a
# structure with a member rule only the full walk answers. A :data:`REQUIRED` member counts as required (its
# absent or empty value is then left to the full walk, which words it DynamoDB's way). How: _STRING (a string
# shape: in _VALID_STRINGS?), _ITEM_MAP (a map of AttributeValues: its length only), or _NESTED (anything
# else: _fits).
_FitPlan = tuple[dict[str, tuple[str, int, Any, Any]], tuple[str, ...]]
_FIT_PLANS: dict[str, _FitPlan | None] = {}
_NESTED, _STRING, _ITEM_MAP = 0, 1, 2


def _fit_plan(shapes: Shapes, name: str) -> _FitPlan | None:
    if name not in _FIT_PLANS:
        shape = shapes[name]
        assert type(shape) is StructureShape
        rules = shape.rules or {}
        # A REQUIRED rule only words the absent (or empty) member's error: present and fitting, it is an
        # ordinary required member. Any other rule is left to the full walk.
        ruled = {member: rule for member, rule in rules.items() if rule != UNECHOED}
        ruled_required = tuple(member for member, rule in ruled.items() if rule[0] == REQUIRED)
        if len(ruled_required) != len(ruled):
            _FIT_PLANS[name] = None
        else:
            members: dict[str, tuple[str, int, int | None, int | None]] = {}
            for member, member_shape in shape.members.items():
                target = shapes[member_shape]
                if type(target) is StringShape:
                    members[member] = (member_shape, _STRING, None, None)
                elif type(target) is MapShape and target.value == "AttributeValue":
                    members[member] = (member_shape, _ITEM_MAP, target.low, target.high)
                else:
                    members[member] = (member_shape, _NESTED, None, None)
            _FIT_PLANS[name] = (members, tuple(shape.required) + ruled_required)
    return _FIT_PLANS[name]


def _fits(shapes: Shapes, name: str, value: Any) -> bool:
    """True only if the full walk would find nothing wrong with ``value`` as shape ``name``.

    The full walk visits every member of the model in order and builds each member's path for its
    messages; on PutItem that was ~20,000 instructions a request, a twentieth of the whole. This visits only
    the members present, builds no text, and answers the common shapes itself: structures, maps, lists and
    strings already known valid. Anything else (a scalar, an uncached string) is checked by a walk of just
    that value; whatever it cannot vouch for (an error, a structure with a :data:`REQUIRED` member) is
    False, and the caller walks the whole request for the exact errors in DynamoDB's order. (Plain loops,
    no generator expressions: a closure would make every call allocate its cells.)
    """
    shape: Any = shapes[name]  # Any: dispatched on its kind taken once, as in _Checker.check
    kind = type(shape)
    if kind is StructureShape:
        plan = _fit_plan(shapes, name) if type(value) is dict else None
        if plan is None:
            return False
        members, required = plan
        for member, member_value in value.items():
            planned = members.get(member)
            if planned is None or member_value is None:
                continue
            member_shape, how, low, high = planned
            if how == _STRING:
                if type(member_value) is str and (member_shape, member_value) in _VALID_STRINGS:
                    continue
            elif how == _ITEM_MAP:
                if (
                    type(member_value) is dict
                    and (low is None or len(member_value) >= low)
                    and (high is None or len(member_value) <= high)
                ):
                    continue
                return False
            if not _fits(shapes, member_shape, member_value):
                return False
        for member in required:  # noqa: SIM110 (a loop: all() of a generator allocates its closure)
            if value.get(member) is None:
                return False
        return True
    if kind is StringShape:
        if type(value) is str and (name, value) in _VALID_STRINGS:
            return True
    elif kind is MapShape:
        key_shape, value_shape, low, high = shape
        if type(value) is not dict or not _fits_length(value, low, high):
            return False
        if value_shape == "AttributeValue":
            return True  # the codec validates AttributeValues (see _Checker._map)
        if type(shapes[value_shape]) is not ListShape:
            for key, member in value.items():
                if type(key) is not str or not _fits(shapes, key_shape, key):
                    return False
                if member is not None and not _fits(shapes, value_shape, member):
                    return False
            return True
    elif kind is ListShape:
        member_shape, low, high = shape
        if (type(value) is not list and type(value) is not tuple) or not _fits_length(value, low, high):
            return False
        for member in value:  # noqa: SIM110 (as above)
            if member is None or not _fits(shapes, member_shape, member):
                return False  # a null member: the full walk says whether its list may hold one
        return True
    elif kind is IntegerShape:
        # Query's Limit on every call: an int within its Java type and the model's range is all the walk
        # checks (a bool is not an int here: ``type``, not ``isinstance``), without a _Checker per request.
        if type(value) is int:
            java, low, high = shape
            java_low, java_high = _INT_RANGE[java]
            return (
                java_low <= value <= java_high
                and (low is None or value >= low)
                and (high is None or value <= high)
            )
    elif kind is BooleanShape and type(value) is bool:
        return True
    probe = _Checker(shapes)
    try:
        probe.check(name, value, "", "")
    except DynamoDBError:
        return False
    return not probe.errors


def _fits_length(value: Any, low: int | None, high: int | None) -> bool:
    return (low is None or len(value) >= low) and (high is None or len(value) <= high)
