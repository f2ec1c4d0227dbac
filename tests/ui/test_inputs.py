"""What the console accepts from a form or an address (singletable.ui._inputs), as properties: a form decodes
to what was encoded, in memory a small multiple of its size; a whole number is ASCII digits in range and
nothing else. (The JSON it reads, with its depth bound: singletable.data.read_json, tests/data.)"""

from __future__ import annotations

import tracemalloc
import urllib.parse

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from draws import examples
from singletable.ui._inputs import MAX_FIELDS, form_fields, whole_number

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=300)


@settings(max_examples=examples(200))
@given(st.dictionaries(text, text, max_size=20))
def test_a_form_decodes_to_what_was_encoded(fields):
    assert form_fields(urllib.parse.urlencode(fields).encode()) == fields


@settings(max_examples=examples(100))
@given(st.binary(max_size=300))
def test_any_body_is_fields_or_a_value_error(body):
    try:
        decoded = form_fields(body)
    except ValueError:  # UnicodeDecodeError included
        return
    assert decoded == dict(urllib.parse.parse_qsl(body.decode(), keep_blank_values=True))


def test_a_form_with_too_many_fields_is_refused():
    assert len(form_fields(b"&".join(b"f%d=1" % n for n in range(MAX_FIELDS)))) == MAX_FIELDS
    with pytest.raises(ValueError, match=f"the form has more than {MAX_FIELDS} fields"):
        form_fields(b"&".join(b"f%d=1" % n for n in range(MAX_FIELDS + 1)))
    with pytest.raises(UnicodeDecodeError):
        form_fields(b"body=%ff")


@pytest.mark.parametrize("escape", [b"%7B", b"%F0%9F%98%80", b"+"])
def test_a_large_percent_encoded_value_decodes_in_bounded_memory(escape):
    body = b"body=" + escape * (2**20 // len(escape))
    tracemalloc.start()
    try:
        value = form_fields(body)["body"]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert value == urllib.parse.unquote_plus(body[5:].decode())
    assert peak < 3 * len(body) + 8 * 2**20, peak  # a few copies and one slice's pieces (parse_qsl: 80x)


@settings(max_examples=examples(200))
@given(st.text(max_size=8) | st.integers(-5, 600).map(str))
def test_a_whole_number_is_ascii_digits_in_range(given_text):
    expected = given_text.isascii() and given_text.isdigit() and 1 <= int(given_text) <= 500
    if expected:
        assert whole_number(given_text, "limit", 1, 500) == int(given_text)
    else:
        with pytest.raises(ValueError, match=r"limit must be a whole number from 1 to 500 \(digits 0-9\)"):
            whole_number(given_text, "limit", 1, 500)


@pytest.mark.parametrize("given_text", ["²", "٣", "\uff13", "1_0", " 5", "+5", "9" * 40])
def test_what_int_accepts_or_trips_on_is_refused_plainly(given_text):
    with pytest.raises(ValueError, match="limit must be a whole number") as refused:
        whole_number(given_text, "limit", 1, 500)
    assert "invalid literal" not in str(refused.value)
