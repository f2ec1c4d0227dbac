"""A design small enough to price by hand (tests/design/test_cost.py): one entity, one KEYS_ONLY GSI."""

from singletable.model import GSI, Entity, Keys, Pattern, Table

ledger = Table(name="ledger", indexes=[GSI("byAccount", pk="GSI1PK", sk="GSI1SK", projection="KEYS_ONLY")])


class Entry(Entity, table=ledger, type="E", timestamps=False):
    entry_id: str
    account: str
    memo: str

    keys = Keys(PK="E#{entry_id}", SK="E", GSI1PK="A#{account}", GSI1SK="E#{entry_id}")
    by_account = Pattern(index="byAccount", doc="An account's entries (KEYS_ONLY: hydrated from the table)")
