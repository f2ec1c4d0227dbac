"""Hypothesis strategies for DynamoDB AttributeValues, shared by the property tests of the engine's value
layer, the data tools' item conversions and the migrations: one definition of "any value" to widen or
narrow in one place."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def attribute_values(
    numbers: st.SearchStrategy[str], *, size: int = 5, binary_sets: bool = True, max_leaves: int = 8
) -> st.SearchStrategy[dict[str, Any]]:
    """Any AttributeValue: strings and binaries of up to ``size`` characters or bytes, numbers drawn from
    ``numbers`` (their text), booleans, NULL, string (and, with ``binary_sets``, binary) sets of one to three
    shorter members, and lists and maps of up to three values, with at most ``max_leaves`` scalars in all."""
    member = max(1, size - 2)
    string_set = st.sets(st.text(max_size=member), min_size=1, max_size=3)
    binary_set = st.sets(st.binary(max_size=member), min_size=1, max_size=3)
    names = st.text(min_size=1, max_size=size - 1)
    scalars = [
        st.builds(lambda s: {"S": s}, st.text(max_size=size)),
        st.builds(lambda n: {"N": n}, numbers),
        st.builds(lambda b: {"B": b}, st.binary(max_size=size)),
        st.builds(lambda b: {"BOOL": b}, st.booleans()),
        st.just({"NULL": True}),
        st.builds(lambda s: {"SS": sorted(s)}, string_set),
    ]
    if binary_sets:
        scalars.append(st.builds(lambda s: {"BS": sorted(s)}, binary_set))
    return st.recursive(
        st.one_of(scalars),
        lambda inner: st.one_of(
            st.builds(lambda items: {"L": items}, st.lists(inner, max_size=3)),
            st.builds(lambda m: {"M": m}, st.dictionaries(names, inner, max_size=3)),
        ),
        max_leaves=max_leaves,
    )
