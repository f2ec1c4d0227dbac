"""The modeling layer's interface for singletable's other packages -- not for users, nor a promise to them.

A migration (:mod:`singletable.migrate`) moves an owner's derived items when the owner changes key or type,
and must write exactly the items the model's own writes would: it asks the model which items a declaration
calls for and what each is as stored, by these names, and never through the model's private modules
(``tests/test_private_names.py`` holds that). ``MAX_ACTIONS`` is DynamoDB's limit on one transaction's
actions, which both refuse to exceed. Every migration write is conditioned on the stored item still being
the one it read, as the model's lazy upgrade conditions its write-back: both build that condition with the
one ``unchanged_item``. What users call is exported by :mod:`singletable.model` itself.
"""

from singletable.model._derived_items import FrozenKey, derived_item, owned_by_key
from singletable.model._upgrades import unchanged_item
from singletable.model._write_runner import MAX_ACTIONS

__all__ = ["MAX_ACTIONS", "FrozenKey", "derived_item", "owned_by_key", "unchanged_item"]
