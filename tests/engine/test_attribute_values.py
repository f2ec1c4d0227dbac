"""The codec: numbers, AttributeValue validation, item size, key encoding and storage serialization.

Expected texts and sizes were measured on DynamoDB Local 1.25.1 (see the module docstrings for where the AWS
wording is used instead); the property tests check the invariants the engine relies on.
"""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from draws import examples
from singletable.engine import _numbers
from singletable.engine._attribute_values import (
    MAX_ITEM_SIZE,
    KeyContext,
    ValueContext,
    check_item_size,
    check_key_value,
    decode_key,
    dumps_item,
    encode_key,
    item_size,
    loads_item,
    normalize_number,
    number_size,
    number_value,
    validate_item,
    validate_item_sized,
    validate_value,
)
from singletable.engine._errors import DynamoDBError, ValueProblem
from singletable.engine._sizes import sized_number
from value_draws import attribute_values

FAST = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def error_of(call: Any, *args: Any, **kwargs: Any) -> tuple[str, str]:
    with pytest.raises(DynamoDBError) as caught:
        call(*args, **kwargs)
    return caught.value.code, caught.value.message


# ------------------------------------------------------------------------------------------- numbers

# AWS's wording (the Parity Suite's captures); DynamoDB Local 1.25.1 says "A value provided cannot be
# converted into a number" instead (docs/compatibility.md).
NOT_NUMERIC = "The parameter cannot be converted to a numeric value"
OVERFLOW = "Number overflow. Attempting to store a number with magnitude larger than supported range"
UNDERFLOW = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
TOO_PRECISE = "Attempting to store more than 38 significant digits in a Number"


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("0042.500", "42.5"),
        ("-0", "0"),
        ("1E+2", "100"),
        ("1.5e-3", "0.0015"),
        ("+1", "1"),
        (".5", "0.5"),
        ("-.5", "-0.5"),
        ("5.", "5"),
        ("1.e5", "100000"),
        ("1E+00005", "100000"),
        ("1E-0", "1"),
        ("1e-" + "0" * 5000 + "5", "0.00001"),
        ("00", "0"),
        ("-00.00", "0"),
        ("0e5", "0"),
        ("-0.0e-10", "0"),
        ("0e125", "0"),
        ("0e-130", "0"),
        ("100e-2", "1"),
        ("\u0661", "1"),
        ("\u0661.\u0665", "1.5"),
        ("\uff11\uff12", "12"),
        ("1e\u0661", "10"),
        ("1E+100", "1" + "0" * 100),
        ("1.0E-120", "0." + "0" * 119 + "1"),
        ("1e-130", "0." + "0" * 129 + "1"),
        ("9.9999999999999999999999999999999999999E+125", "9" * 38 + "0" * 88),
        ("-9.9999999999999999999999999999999999999E+125", "-" + "9" * 38 + "0" * 88),
        ("1234567890123456789012345678901234567800", "1234567890123456789012345678901234567800"),
        ("1.0000000000000000000000000000000000000000", "1"),
        ("0.1e-129", "0." + "0" * 129 + "1"),
        ("12345678901234567890123456789012345678", "12345678901234567890123456789012345678"),
    ],
)
def test_normalize_number(text: str, canonical: str) -> None:
    assert normalize_number(text) == canonical
    assert normalize_number(canonical) == canonical


def unreadable(text: str) -> str:
    return f"{NOT_NUMERIC}: {text}"


# (text, the older layer's message, the newer layer's): see ValueProblem.
@pytest.mark.parametrize(
    ("text", "older", "current"),
    [
        *(
            (text, unreadable(text), unreadable(text))
            for text in (
                *("abc", "  1", "1 ", "1e", "0x10", "NaN", "Infinity", "1_000", "-", ".", "e5", ".e5"),
                *("1e+", "1.2.3", "--1", "+-1", "1e5.5", "1\u00a0", "1e9223372036854775808"),
            )
        ),
        ("", NOT_NUMERIC, unreadable("")),  # the older layer drops the colon
        # An exponent or scale past a 32-bit integer: BigDecimal (the older layer) cannot read it; the
        # newer layer reads the exponent in full and range-checks it.
        ("1e2147483648", unreadable("1e2147483648"), OVERFLOW),
        ("1e99999999999", unreadable("1e99999999999"), OVERFLOW),
        ("1e-2147483648", unreadable("1e-2147483648"), UNDERFLOW),
        ("0e-2147483648", unreadable("0e-2147483648"), UNDERFLOW),
        ("0.1e-2147483647", unreadable("0.1e-2147483647"), UNDERFLOW),
        ("0e999999999999", unreadable("0e999999999999"), OVERFLOW),
        ("1e2147483647", UNDERFLOW, OVERFLOW),  # BigDecimal's precision minus scale wraps
        ("1e" + "9" * 5000, unreadable("1e" + "9" * 5000), unreadable("1e" + "9" * 5000)),
        ("0e126", OVERFLOW, OVERFLOW),  # zero is range-checked by its exponent
        ("0e-131", UNDERFLOW, UNDERFLOW),
        ("1e126", OVERFLOW, OVERFLOW),
        ("10e125", OVERFLOW, OVERFLOW),
        ("1e-131", UNDERFLOW, UNDERFLOW),
        ("-1e-131", UNDERFLOW, UNDERFLOW),
        ("0.01e-129", UNDERFLOW, UNDERFLOW),
        ("1e-2147483647", UNDERFLOW, UNDERFLOW),
        ("123456789012345678901234567890123456789", TOO_PRECISE, TOO_PRECISE),
        ("1.00000000000000000000000000000000000001", TOO_PRECISE, TOO_PRECISE),
        ("123456789012345678901234567890123456789e200", TOO_PRECISE, TOO_PRECISE),  # precision first
        ("123456789012345678901234567890123456789e-200", TOO_PRECISE, TOO_PRECISE),
    ],
)
def test_normalize_number_errors(text: str, older: str, current: str) -> None:
    with pytest.raises(ValueProblem) as caught:
        normalize_number(text)
    assert (caught.value.code, caught.value.message, caught.value.current) == (
        "ValidationException",
        older,
        current,
    )


def test_number_value_is_exact() -> None:
    assert number_value("0.1") + number_value("0.2") == Decimal("0.3")
    assert number_value("1E+100") == Decimal(10) ** 100


digits = st.text("0123456789", min_size=1, max_size=45)
number_texts = st.builds(
    lambda sign, whole, frac, exp: f"{sign}{whole}{'.' + frac if frac else ''}{exp}",
    st.sampled_from(["", "-", "+"]),
    digits,
    st.one_of(st.just(""), digits),
    st.one_of(st.just(""), st.integers(-140, 140).map(lambda e: f"e{e}")),
)


@FAST
@given(number_texts)
def test_normalize_number_is_idempotent_and_exact(text: str) -> None:
    try:
        canonical = normalize_number(text)
    except DynamoDBError as error:
        assert error.code == "ValidationException"
        assert error.message in (OVERFLOW, UNDERFLOW, TOO_PRECISE)
        return
    assert normalize_number(canonical) == canonical
    assert Decimal(canonical) == Decimal(text)
    assert "e" not in canonical.lower()
    assert canonical == "0" or not canonical.lstrip("-").startswith("00")


@FAST
@given(st.one_of(number_texts, st.text("-0123456789.", max_size=40)))
def test_canonical_fast_path_agrees_with_the_parser(text: str) -> None:
    """A text the one-regex fast path accepts as already canonical is exactly what full parsing gives."""
    if len(text) <= _numbers.CANONICAL_CHARS and _numbers.CANONICAL.fullmatch(text):
        assert _numbers._normalize(text) == text


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("0", 1),
        ("1", 2),
        ("-1", 3),
        ("9", 2),
        ("10", 2),
        ("12", 2),
        ("99", 2),
        ("100", 2),
        ("123", 3),
        ("1234", 3),
        ("12345", 4),
        ("-12", 3),
        ("-123", 4),
        ("0.1", 2),
        ("0.12", 2),
        ("0.123", 3),
        ("-0.1", 3),
        ("1.1", 3),
        ("12.34", 3),
        ("123.45", 4),
        ("0.01", 2),
        ("0.001", 2),
        ("1e10", 2),
        ("1e125", 2),
        ("1e-130", 2),
        ("100.001", 5),
        ("10.01", 3),
        ("1000001", 5),
        ("1010", 3),
        ("101", 3),
        ("11e5", 3),
        ("110", 3),
        ("1100", 2),
        ("11000", 3),
        ("0.011", 3),
        ("0.0011", 2),
        ("1.01", 3),
        ("-110", 4),
        ("12345678901234567890123456789012345678", 20),
        ("-12345678901234567890123456789012345678", 21),
        ("1.2345678901234567890123456789012345678", 21),
        ("0.12345678901234567890123456789012345678", 20),
        ("9.9999999999999999999999999999999999999E+125", 20),
        ("-465614911634505224407069182509398.07651", 21),  # 20 base-100 digits: no terminator
        ("-123456789012345678901", 13),
    ],
)
def test_number_size(text: str, size: int) -> None:
    assert number_size(normalize_number(text)) == size


def _size_from_digits(canonical: str) -> int:
    """number_size's rule computed from split_canonical's digits (how number_size read them before it
    read the text in place)."""
    if canonical == "0":
        return 1
    negative, digits, leading = _numbers.split_canonical(canonical)
    pairs = (leading >> 1) - ((leading - len(digits) + 1) >> 1) + 1
    return 1 + pairs + (1 if negative and pairs < 20 else 0)


@FAST
@given(st.one_of(number_texts, st.text("-0123456789.", max_size=40)))
def test_number_size_and_the_uncached_path_agree_with_the_digits(text: str) -> None:
    """number_size, which reads the text in place, and sized_number, which sizes long canonical numbers
    without its cache, give what the significant digits give."""
    try:
        canonical = normalize_number(text)
    except DynamoDBError:
        return
    assert number_size(canonical) == _size_from_digits(canonical)
    assert sized_number(text) == (canonical, _size_from_digits(canonical))


# ----------------------------------------------------------------------------------------- validation

EMPTY = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
MULTIPLE = (
    "Supplied AttributeValue has more than one datatypes set, "
    "must contain exactly one of the supported datatypes"
)
TOO_DEEP = (
    "Nesting Levels have exceeded supported limits: "
    "Attributes in the item have nested levels beyond supported limit"
)
PREFIX = "One or more parameter values were invalid: "

INVALID_VALUES: list[tuple[Any, str]] = [
    ({}, EMPTY),
    ({"X": "a"}, EMPTY),
    ({"S": None}, EMPTY),
    ({"S": "a", "N": "1"}, MULTIPLE),
    ({"NULL": False}, PREFIX + "Null attribute value types must have the value of true"),
    ({"NULL": False, "S": ""}, PREFIX + "Null attribute value types must have the value of true"),
    ({"SS": []}, PREFIX + "An string set  may not be empty"),
    ({"NS": []}, PREFIX + "An number set  may not be empty"),
    ({"BS": []}, PREFIX + "Binary sets should not be empty"),
    ({"SS": ["a", "a"]}, PREFIX + "Input collection [a, a] contains duplicates."),
    ({"SS": ["a", None, "a"]}, PREFIX + "Input collection [a, null, a] contains duplicates."),
    ({"SS": ["b", "a", "b"]}, PREFIX + "Input collection [b, a, b] contains duplicates."),
    ({"SS": [None]}, PREFIX + "An string set may not have a null string as a member"),
    ({"NS": ["1", "1.0"]}, "Input collection contains duplicates"),
    ({"NS": ["1", "1.0", "1e200"]}, "Input collection contains duplicates"),
    ({"NS": ["1e200", "1", "1"]}, OVERFLOW),
    ({"NS": ["1", None]}, NOT_NUMERIC),
    ({"BS": [b"a", b"a"]}, PREFIX + "Input collection [YQ==, YQ==]of type BS contains duplicates."),
    (
        {"BS": [b"\xff", b"\x00", b"\x00"]},
        PREFIX + "Input collection [/w==, AA==, AA==]of type BS contains duplicates.",
    ),
    ({"BS": [None, None]}, PREFIX + "Input collection [null, null]of type BS contains duplicates."),
    ({"BS": [b"a", None]}, "The supplied Item contains a null AttributeValue"),
    ({"N": "x"}, unreadable("x")),
    ({"M": {"a": {}}}, EMPTY),
    ({"M": {"": {"S": "a"}}}, "Empty attribute name"),
    ({"M": {"": {"N": "x"}}}, unreadable("x")),  # the value is checked before its name
    ({"M": {"a": None}}, "The supplied Item contains a null AttributeValue: a is null"),
    ({"L": [{"S": "x"}, None]}, "The supplied Item contains a null AttributeValue"),
    ({"L": [{"S": "a", "N": "1"}]}, MULTIPLE),
    ({"SS": [], "N": "x"}, PREFIX + "An string set  may not be empty"),  # SS, N, NS, BS, M, L, NULL
    ({"NULL": False, "L": [None]}, "The supplied Item contains a null AttributeValue"),
]


@pytest.mark.parametrize(("av", "message"), INVALID_VALUES)
def test_invalid_values_in_item_key_and_eav(av: Any, message: str) -> None:
    assert error_of(validate_item, {"v": av}) == ("ValidationException", message)
    assert error_of(validate_value, av, context=ValueContext.KEY, name="v") == (
        "ValidationException",
        message,
    )
    expected = f"ExpressionAttributeValues contains invalid value: {message} for key :v"
    assert error_of(validate_value, av, name=":v") == ("ValidationException", expected)


def test_null_attribute_values() -> None:
    assert error_of(validate_item, {"v": None}) == (
        "ValidationException",
        "The supplied Item contains a null AttributeValue: v is null",
    )
    assert error_of(validate_value, None, name=":v") == (
        "ValidationException",
        "ExpressionAttributeValues contains invalid value: The supplied Item contains a null AttributeValue "
        "for key :v",
    )
    assert error_of(validate_item, {"": {"S": "a"}}) == ("ValidationException", "Empty attribute name")


def nest(depth: int, inner: dict[str, Any], kind: str = "L") -> dict[str, Any]:
    value = inner
    for _ in range(depth):
        value = {"L": [value]} if kind == "L" else {"M": {"a": value}}
    return value


@pytest.mark.parametrize("kind", ["L", "M"])
def test_nesting_limits(kind: str) -> None:
    validate_item({"v": nest(31, {"S": "x"}, kind)})
    validate_item({"v": nest(31, {"SS": ["x"]}, kind)})
    assert error_of(validate_item, {"v": nest(32, {"S": "x"}, kind)}) == ("ValidationException", TOO_DEEP)
    assert error_of(validate_item, {"v": nest(31, {"L": []}, kind)}) == ("ValidationException", TOO_DEEP)
    assert error_of(validate_item, {"v": nest(33, {}, kind)}) == ("ValidationException", TOO_DEEP)
    validate_value(nest(32, {"S": "x"}, kind), name=":v")  # an EAV may nest one level more
    assert error_of(validate_value, nest(33, {"S": "x"}, kind), name=":v") == (
        "ValidationException",
        f"ExpressionAttributeValues contains invalid value: {TOO_DEEP} for key :v",
    )


def test_first_error_in_input_order() -> None:
    deep = nest(40, {"S": "a"})
    assert error_of(validate_item, {"b": {"N": "x"}, "a": deep})[1] == unreadable("x")
    assert error_of(validate_item, {"a": deep, "b": {"N": "x"}})[1] == TOO_DEEP
    assert error_of(validate_item, {"a": {"N": "x"}, "b": {}})[1] == unreadable("x")
    assert error_of(validate_item, {"b": {}, "a": {"N": "x"}})[1] == EMPTY


@pytest.mark.parametrize(
    "av",
    [
        {"S": 1},
        {"N": 1},
        {"N": 1.5},
        {"BOOL": "true"},
        {"BOOL": 1},
        {"NULL": "true"},
        {"M": []},
        {"L": {}},
        {"SS": "a"},
        {"SS": [1]},
        {"NS": [1]},
        {"BS": [1]},
        {"B": 1},
        "x",
        5,
        [],
        {"S": ["a"]},
        {"S": {}},
    ],
)
def test_wrong_python_types_are_serialization_errors(av: Any) -> None:
    assert error_of(validate_item, {"v": av})[0] == "SerializationException"
    assert error_of(validate_value, av, name=":v")[0] == "SerializationException"


def test_serialization_error_wins_over_an_earlier_validation_error() -> None:
    assert error_of(validate_item, {"a": {"N": "x"}, "b": {"L": [{"S": 1}]}})[0] == "SerializationException"


def test_validate_item_normalizes() -> None:
    item = {
        "n": {"N": "0042.500"},
        "ns": {"NS": ["1E+2", "-0"]},
        "s": {"S": "", "N": None},
        "b": {"B": "ab"},
        "m": {"M": {"x": {"N": "1.50"}}},
        "l": {"L": [{"N": "-0.0"}, {"BS": [bytearray(b"x"), b""]}]},
        "ss": {"SS": ["", "a"]},
        "t": {"BOOL": False},
        "z": {"NULL": True},
    }
    assert validate_item(item) == {
        "n": {"N": "42.5"},
        "ns": {"NS": ["0", "100"]},  # sets come back in DynamoDB's order (numbers by value)
        "s": {"S": ""},
        "b": {"B": b"ab"},
        "m": {"M": {"x": {"N": "1.5"}}},
        "l": {"L": [{"N": "0"}, {"BS": [b"", b"x"]}]},
        "ss": {"SS": ["", "a"]},
        "t": {"BOOL": False},
        "z": {"NULL": True},
    }


junk = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.text(max_size=3),
        st.binary(max_size=3),
        st.sampled_from(["1", "1.0", "x", "1e200", "S", "N", "M", "L", "NULL"]),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(
            st.sampled_from(["S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS", "", "a"]),
            children,
            max_size=3,
        ),
    ),
    max_leaves=12,
)


@FAST
@given(st.dictionaries(st.text(max_size=2), junk, max_size=3))
def test_validate_item_raises_only_dynamodb_errors(item: dict[str, Any]) -> None:
    try:
        validate_item(item)
    except DynamoDBError as error:
        assert error.code in ("ValidationException", "SerializationException")


# ----------------------------------------------------------------------------------------------- size


def test_item_size() -> None:
    assert MAX_ITEM_SIZE == 409600
    assert item_size({"pk": {"S": "x"}}) == 3
    assert item_size({"é": {"S": "é€😀"}}) == 2 + 9
    assert item_size({"v": {"B": b"\x00\x01"}, "b": {"BOOL": True}, "n": {"NULL": True}}) == 3 + 2 + 2
    assert item_size({"v": {"M": {}}}) == 4
    assert item_size({"v": {"M": {"a": {"S": "x"}, "bb": {"N": "1"}}}}) == 1 + 11
    assert item_size({"v": {"L": [{"S": "x"}, {"N": "1"}]}}) == 1 + 8
    assert item_size({"v": {"L": [{"L": [{"L": []}]}]}}) == 1 + 11
    sets = {"v": {"SS": ["a", "bc", ""]}, "w": {"NS": ["1", "123"]}, "x": {"BS": [b"a", b"bc"]}}
    assert item_size(sets) == 3 + 3 + 5 + 3
    assert item_size({"v": {"L": [{"S": "x"}] * 300}}) == 1 + 603


def test_check_item_size() -> None:
    assert check_item_size({"pk": {"S": "x"}, "f": {"S": "s" * 409596}}) == MAX_ITEM_SIZE
    assert error_of(check_item_size, {"pk": {"S": "x"}, "f": {"S": "s" * 409597}}) == (
        "ValidationException",
        "Item size has exceeded the maximum allowed size",
    )


# ------------------------------------------------------------------------------------------------ keys

canonical_numbers = number_texts.filter(lambda t: _valid(t)).map(normalize_number)


def _valid(text: str) -> bool:
    try:
        normalize_number(text)
    except DynamoDBError:
        return False
    return True


@FAST
@given(st.lists(canonical_numbers, min_size=2, max_size=6))
def test_number_key_order_and_round_trip(numbers: list[str]) -> None:
    encoded = [encode_key({"N": n}, "N") for n in numbers]
    for n, data in zip(numbers, encoded, strict=True):
        assert decode_key(data, "N") == {"N": n}
    by_value = sorted(range(len(numbers)), key=lambda i: Decimal(numbers[i]))
    by_bytes = sorted(range(len(numbers)), key=lambda i: encoded[i])
    assert [Decimal(numbers[i]) for i in by_value] == [Decimal(numbers[i]) for i in by_bytes]


@FAST
@given(st.text(max_size=8), st.text(max_size=8), st.binary(max_size=8), st.binary(max_size=8))
def test_string_and_binary_key_order(s1: str, s2: str, b1: bytes, b2: bytes) -> None:
    s1, s2 = s1.encode("utf-8", "replace").decode(), s2.encode("utf-8", "replace").decode()
    k1, k2 = encode_key({"S": s1}, "S"), encode_key({"S": s2}, "S")
    assert (k1 < k2) == (s1.encode() < s2.encode())
    assert decode_key(k1, "S") == {"S": s1}
    assert (encode_key({"B": b1}, "B") < encode_key({"B": b2}, "B")) == (b1 < b2)
    assert decode_key(encode_key({"B": b1}, "B"), "B") == {"B": b1}


def test_number_key_examples() -> None:
    ordered = ["-1e125", "-12", "-1.23", "-1.2", "-1", "-1e-130", "0", "1e-130", "0.5", "1", "1.2", "12"]
    keys = [encode_key({"N": n}, "N") for n in ordered]
    assert keys == sorted(keys)
    assert decode_key(encode_key({"N": "-0.0"}, "N"), "N") == {"N": "0"}


TYPE_MISMATCH_ITEM = PREFIX + "Type mismatch for key pk expected: S actual: N"


@pytest.mark.parametrize(
    ("context", "message"),
    [
        (KeyContext.ITEM, TYPE_MISMATCH_ITEM),
        (KeyContext.KEY, "The provided key element does not match the schema"),
        (KeyContext.QUERY, PREFIX + "Condition parameter type does not match schema type"),
        (KeyContext.INDEX, PREFIX + "Type mismatch for Index Key pk Expected: S Actual: N IndexName: gsi"),
    ],
)
def test_key_type_mismatch(context: KeyContext, message: str) -> None:
    got = error_of(check_key_value, "pk", {"N": "1"}, "S", is_hash=True, context=context, index_name="gsi")
    assert got == ("ValidationException", message)


def test_key_empty_and_size() -> None:
    base = "One or more parameter values are not valid. "
    for context in (KeyContext.ITEM, KeyContext.KEY, KeyContext.QUERY):
        assert error_of(check_key_value, "pk", {"S": ""}, "S", is_hash=True, context=context)[1] == (
            base + "The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"
        )
        assert error_of(check_key_value, "sk", {"B": b""}, "B", is_hash=False, context=context)[1] == (
            base + "The AttributeValue for a key attribute cannot contain an empty binary value. Key: sk"
        )
    assert error_of(
        check_key_value, "g", {"S": ""}, "S", is_hash=True, context=KeyContext.INDEX, index_name="gi1"
    )[1] == (
        base + "A value specified for a secondary index key is not supported. The AttributeValue for a key "
        "attribute cannot contain an empty string value. IndexName: gi1, IndexKey: g"
    )
    check_key_value("pk", {"S": "a" * 2048}, "S", is_hash=True, context=KeyContext.ITEM)
    check_key_value("sk", {"B": b"a" * 1024}, "B", is_hash=False, context=KeyContext.ITEM)
    check_key_value("pk", {"N": "1"}, "N", is_hash=True, context=KeyContext.ITEM)
    too_long = {"S": "é" * 1025}
    assert error_of(check_key_value, "pk", too_long, "S", is_hash=True, context=KeyContext.KEY)[1] == (
        PREFIX + "Size of hashkey has exceeded the maximum size limit of2048 bytes"
    )
    long_range = {"S": "a" * 1025}
    assert error_of(check_key_value, "sk", long_range, "S", is_hash=False, context=KeyContext.ITEM)[1] == (
        PREFIX + "Aggregated size of all range keys has exceeded the size limit of 1024 bytes"
    )
    assert error_of(
        check_key_value, "g", {"S": "a" * 1025}, "S", is_hash=False, context=KeyContext.INDEX, index_name="i"
    )[1] == (
        PREFIX + "Size limit exceeded for Index Key g Actual Size: 1025 bytes Max Size: 1024 bytes "
        "IndexName: i"
    )


# --------------------------------------------------------------------------------------- serialization

values = attribute_values(canonical_numbers, max_leaves=10)
items = st.dictionaries(st.text(min_size=1, max_size=4), values, max_size=5)


def _utf8_safe(item: dict[str, Any]) -> bool:
    try:
        dumps_item(item)
    except TypeError:
        return False  # lone surrogates cannot be stored (nor sent to DynamoDB as UTF-8)
    return True


@FAST
@given(items.filter(_utf8_safe))
def test_dumps_loads_round_trip(item: dict[str, Any]) -> None:
    assert loads_item(dumps_item(item)) == item
    assert validate_item(item) == item


def test_serialization_speed() -> None:
    item = {
        "pk": {"S": "USER#123"},
        "sk": {"S": "PROFILE#2024-01-01"},
        "name": {"S": "Ada Lovelace"},
        "age": {"N": "36"},
        "score": {"N": "12.5"},
        "active": {"BOOL": True},
        "tags": {"SS": ["a", "b"]},
        "addr": {"M": {"city": {"S": "London"}, "zip": {"S": "N1"}}},
        "hist": {"L": [{"N": "1"}, {"N": "2"}]},
        "note": {"NULL": True},
    }
    data = dumps_item(item)
    rounds = 20000
    # CPU time, not the wall clock: on a machine shared by other work the wall clock counts their turns too
    start = time.process_time()
    for _ in range(rounds):
        loads_item(data)
    loads_us = (time.process_time() - start) / rounds * 1e6
    assert loads_us < 30  # ~2 us on a developer machine; generous for slow CI


# ------------------------------------------------------------------------- fused validate-and-size pass


def _outcome(call: Any, *args: Any) -> Any:
    try:
        return ("ok", call(*args))
    except DynamoDBError as error:
        return ("error", error.code, error.message)


def _two_walks(item: Any) -> Any:
    valid = validate_item(item)
    return valid, item_size(valid)


@FAST
@given(st.dictionaries(st.text(max_size=2), junk, max_size=3))
def test_fused_pass_matches_validate_then_size_on_junk(item: dict[str, Any]) -> None:
    assert _outcome(validate_item_sized, item) == _outcome(_two_walks, item)


@FAST
@given(items.filter(_utf8_safe))
def test_fused_pass_matches_validate_then_size_on_valid_items(item: dict[str, Any]) -> None:
    assert validate_item_sized(item) == (item, item_size(item))


@pytest.mark.parametrize("kind", ["L", "M"])
@pytest.mark.parametrize("depth", [30, 31, 32])
def test_fused_pass_nesting_limits(kind: str, depth: int) -> None:
    item = {"a": nest(depth, {"N": "01.50"}, kind), "n": {"N": "x"}}
    assert _outcome(validate_item_sized, item) == _outcome(_two_walks, item)
    item = {"a": nest(depth, {"S": "é"}, kind)}
    assert _outcome(validate_item_sized, item) == _outcome(_two_walks, item)
