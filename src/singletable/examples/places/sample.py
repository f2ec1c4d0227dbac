"""Deterministic sample data: a small Welsh family-history archive with fixed IDs and timestamps.

IDs are fixed four-digit numbers (so their string order is their numeric order) and the sequence is left at
:data:`SEQUENCE_START`, so IDs allocated later continue after them. Timestamps are offsets from the demo
clock. Loaded through the service API, the sample exercises the same writes the app makes.
"""

from __future__ import annotations

from datetime import timedelta

from singletable.examples import DEMO_CLOCK
from singletable.examples.places.design import PlaceSettings, Record, Sequence
from singletable.examples.places.service import Archive
from singletable.model import DB

SEQUENCE_START = 1100

CATEGORIES = [("1001", "Census"), ("1002", "Parish registers"), ("1003", "Nonconformist chapels")]
COLLECTIONS = [
    ("1011", "1881 census of Wales", ["1001"]),
    ("1012", "Anglesey baptisms 1813-1880", ["1002"]),
    ("1013", "Chapel burial books", ["1002", "1003"]),
]
PLACES = [
    ("1021", "Llanfair Pwllgwyngyll", "Ynys Môn"),
    ("1022", "Llangefni", "Ynys Môn"),
    ("1023", "Llandudno", "Conwy"),
    ("1024", "Ynys Môn", "Wales"),
    ("1025", "Newport", "Gwent"),
    ("1026", "Newport", "Pembrokeshire"),
    ("1027", "Newborough", "Ynys Môn"),
    ("1028", "St Davids", "Pembrokeshire"),
    ("1029", "Aberdâr", "Rhondda Cynon Taf"),
    ("1030", "Llanelli", "Carmarthenshire"),
]
POSTS = [
    ("1051", "1011", "Llangefni, enumeration district 4, page 12", "1022", 40),
    ("1052", "1011", "Llanfair Pwllgwyngyll, enumeration district 2, page 3", "1021", 39),
    ("1053", "1012", "St Cyngar's, Llangefni: baptisms 1872", "1022", 20),
    ("1054", "1013", "Capel Ebeneser, Newborough: burials 1880-1890", "1027", 5),
]
RECORDS = [
    Record(
        id="1061",
        post_id="1051",
        name="Owen Hughes",
        household="hh-101",
        relationship="head",
        age=44,
        birthplace_id="1022",
    ),
    Record(
        id="1062",
        post_id="1051",
        name="Margaret Hughes",
        household="hh-101",
        relationship="wife",
        age=41,
        birthplace_id="1021",
    ),
    Record(
        id="1063",
        post_id="1051",
        name="Ellen Hughes",
        household="hh-101",
        relationship="daughter",
        age=9,
        birthplace_id="1022",
    ),
    Record(
        id="1064",
        post_id="1051",
        name="William Parry",
        household="hh-102",
        relationship="head",
        age=67,
        birthplace_id="1023",
    ),
    Record(id="1065", post_id="1052", name="John Williams", household="hh-103", relationship="head", age=30),
    Record(id="1066", post_id="1053", name="Ellen Hughes", household="hh-101", relationship="daughter"),
    Record(id="1067", post_id="1054", name="Robert Jones", age=71, birthplace_id="1027"),
]
SETTINGS = [("site_title", "Cofion family archive"), ("maintenance", "off"), ("uploads", "enabled")]
USERS = [
    ("1091", "https://accounts.google.com", "110248495921238986420", "Gwen Roberts", 30),
    (
        "1092",
        "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0",
        "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ",
        "Dafydd Evans",
        12,
    ),
]


def open_service(db: DB) -> Archive:
    """The demo's service: the archive as the app opens it (the sample's IDs are fixed, not generated)."""
    return Archive(db)


def load(archive: Archive) -> None:
    """Write the sample through the service API, then leave the sequence after the fixed IDs."""
    for id_, name in CATEGORIES:
        archive.add_category(name, id=id_)
    for id_, name, categories in COLLECTIONS:
        archive.add_collection(name, categories, id=id_)
    for id_, name, region in PLACES:
        archive.add_place(name, region=region, id=id_)
    archive.save_place_settings(PlaceSettings(max_results=20, default_region="Wales"))
    for id_, collection, title, place, days_ago in POSTS:
        archive.add_post(
            collection, title, place_id=place, id=id_, created_at=DEMO_CLOCK - timedelta(days=days_ago)
        )
    for record in RECORDS:
        archive.add_record(record)
    for name, value in SETTINGS:
        archive.set_setting(name, value)
    for id_, issuer, subject, name, days_ago in USERS:
        archive.add_user(issuer, subject, name=name, id=id_, created_at=DEMO_CLOCK - timedelta(days=days_ago))
    archive.db.put(Sequence(value=SEQUENCE_START))
