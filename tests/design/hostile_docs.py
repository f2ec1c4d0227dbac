"""A design whose sample data holds markup, quotes and ampersands in every key and text, for the escaping
tests of ``singletable docs`` (defines ``load_sample(db)``, the hook a design module's own sample data
uses)."""

from singletable.model import GSI, Entity, Keys, Pattern, Table

HOSTILE = "<script>window.pwned=1</script> \"quoted\" 'single' & <b>bold</b> | `tick` *star*"

hostile = Table(name="hostile", indexes=[GSI("GSI1", pk="GSI1PK", sk="GSI1SK")])


class Note(Entity, table=hostile, type="NOTE<script>"):
    """A note whose docstring says <script>alert("doc")</script> & more."""

    owner: str
    note_id: str
    text: str
    keys = Keys(PK="OWNER#{owner}", SK="NOTE#{note_id}", GSI1PK="TEXT#{text}", GSI1SK="NOTE#{note_id}")
    of_owner = Pattern(doc='Notes of an owner <img src=x onerror="window.pwned=2">')
    by_text = Pattern(index="GSI1")


def load_sample(db):
    for n in range(3):
        db.put(Note(owner=HOSTILE, note_id=f"{n}{HOSTILE}", text=HOSTILE))
