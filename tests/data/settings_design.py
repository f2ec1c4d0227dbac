"""A design for the table-settings tests: every setting a design can declare -- provisioned capacity, a
stream, TTL, a GSI and an LSI each with an INCLUDE projection. The table's name comes from
``SETTINGS_TABLE`` so tests on the shared server keep apart."""

from __future__ import annotations

from singletable.model import GSI, LSI, Entity, Keys, Table, env

ledger = Table(
    name=env("SETTINGS_TABLE", "ledger"),
    billing="PROVISIONED",
    read_capacity=7,
    write_capacity=3,
    stream="NEW_AND_OLD_IMAGES",
    ttl_attribute="expiresAt",
    indexes=[
        GSI("byAccount", pk="accountPK", sk="postedSK", projection=["amount", "memo"]),
        LSI("byAmount", sk=("amountCents", "N"), projection=["memo"]),
    ],
)


class Entry(Entity, table=ledger, type="ENTRY"):
    book: str
    entry_id: str
    amount: int
    memo: str = ""
    keys = Keys(PK="BOOK#{book}", SK="ENTRY#{entry_id}")
