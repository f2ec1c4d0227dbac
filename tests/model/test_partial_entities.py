"""Partial entities never pass for whole ones.

A read with ``.select(...)`` returns entities that know which fields were loaded: reading any other field
raises ``FieldNotLoaded`` (never the field's default), and writing such an entity whole (``put``, ``create``,
``tx.put``, ``batch_write``) is refused with ``PartialEntity`` before anything is sent, so a default can never
overwrite a stored value. ``db.update(partial, field=value)`` still changes just the fields it names.
Runs on every target.
"""

from __future__ import annotations

import pytest

from singletable.model import Entity, FieldNotLoaded, Keys, ModelError, PartialEntity, Pattern, Table

pytestmark = pytest.mark.async_twin  # each test that opens a DB runs on AsyncDB too

tasks = Table(name="partial_tasks")


class Task(Entity, table=tasks, type="TASK"):
    project: str
    task_id: str
    title: str
    priority: int = 3
    labels: list[str] = []

    keys = Keys(PK="PROJECT#{project}", SK="TASK#{task_id}")
    in_project = Pattern()


def _stored(db) -> Task:
    return db.create(Task(project="p", task_id="1", title="Write", priority=9, labels=["urgent"]))


def test_a_projected_read_raises_on_an_unloaded_field_instead_of_its_default(open_db) -> None:
    db = open_db(tasks)
    _stored(db)
    (partial,) = db.query(Task.in_project(project="p").select(Task.f.title))
    assert partial.title == "Write"
    assert (partial.project, partial.task_id) == ("p", "1")  # read back from the key
    with pytest.raises(FieldNotLoaded) as caught:
        _ = partial.priority
    assert isinstance(caught.value, ModelError) and isinstance(caught.value, AttributeError)
    assert (caught.value.entity, caught.value.field) == ("TASK", "priority")
    assert str(caught.value).startswith(
        "TASK.priority was not loaded: this entity was read with a projection (.select) that did not "
        "include it"
    )
    assert not hasattr(partial, "labels")
    assert partial.model_dump() == {"project": "p", "task_id": "1", "title": "Write"}


def test_put_create_and_batch_write_of_a_partial_entity_are_refused_and_nothing_changes(open_db) -> None:
    db = open_db(tasks)
    _stored(db)
    page = db.page(Task.in_project(project="p").select(Task.f.title), size=5)
    (partial,) = page.items
    for write in (db.put, db.create, lambda e: db.batch_write(put=[e])):
        with pytest.raises(PartialEntity) as caught:
            write(partial)
        assert caught.value.missing == ["priority", "labels"]
        assert "use db.update(entity, field=value, ...)" in str(caught.value).lower()
    with pytest.raises(PartialEntity), db.transaction() as tx:
        tx.put(partial)
    stored = db.get(Task, project="p", task_id="1")
    assert (stored.priority, stored.labels) == (9, ["urgent"])


def test_update_with_a_partial_entity_changes_only_the_fields_it_names(open_db) -> None:
    db = open_db(tasks)
    _stored(db)
    (partial,) = db.query(Task.in_project(project="p").select(Task.f.title))
    updated = db.update(partial, title="Rewrite")
    assert (updated.title, updated.priority, updated.labels) == ("Rewrite", 9, ["urgent"])


def test_whole_entities_read_every_field_and_still_put() -> None:
    task = Task(project="p", task_id="2", title="t")
    assert task.priority == 3
    with pytest.raises(AttributeError) as caught:
        _ = task.no_such_attribute
    assert not isinstance(caught.value, FieldNotLoaded)
