"""0001: the admin-management index (GSI3), added after launch, filled for the admins already stored.

GSI3 (``ADMINS`` / ``ROLE#<role>#<userId>``, projecting what the admin list shows) is sparse: only users whose
role is editor, admin or super_admin carry its keys. A table whose users were written before the index
existed has none, so this migration

1. creates GSI3 with its INCLUDE projection and waits until it is ACTIVE, then
2. backfills ``User``: each user is rewritten with every key its templates compute, so admins gain
   ``GSI3PK``/``GSI3SK`` and members stay out of the index; a user already in that shape is not written.

The email guards (``USER_EMAIL#...``) are not touched: a backfill never changes a primary key.
"""

from __future__ import annotations

from singletable.examples.hustlehub.design import ADMIN_INCLUDE, ADMIN_INDEX, User, hub
from singletable.migrate import Migration, add_index, backfill
from singletable.model import GSI

migration = Migration(
    id="0001-admin-index",
    description="GSI3 (admins by role) created and filled for existing admins",
    steps=[
        add_index(GSI(ADMIN_INDEX, pk="GSI3PK", sk="GSI3SK", projection=ADMIN_INCLUDE)),
        backfill(User, set={}),
    ],
    table=hub,
)
