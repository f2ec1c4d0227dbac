"""A migration used by the tests (copied into each test's directory): a users table moves from keys
``U#{id}`` to ``USER#{id}``, gets a ``byEmail`` GSI and a folded email to fill it, and ``nick`` becomes
``nickname``. ``KILL_AT=N`` in the environment kills the process (SIGKILL) at the Nth item a step function
sees, ``INTERRUPT_AT=N`` sends it SIGINT (Ctrl-C): an interruption at a chosen point, for the resume tests."""

import os
import signal

from singletable.migrate import Migration, add_index, backfill, each, rekey, rename
from singletable.model import GSI, Entity, Keys, Table

shop = Table(name="shop", indexes=[GSI("byEmail", pk="GSI1PK")])

_SEEN = [0]


def tick(item: dict) -> list:
    _SEEN[0] += 1
    if os.environ.get("KILL_AT") == str(_SEEN[0]):
        os.kill(os.getpid(), signal.SIGKILL)
    if os.environ.get("INTERRUPT_AT") == str(_SEEN[0]):
        os.kill(os.getpid(), signal.SIGINT)
    return []


class User(Entity, table=shop, type="user", timestamps=False):
    id: str
    name: str
    email: str | None = None
    email_lower: str | None = None
    nick: str | None = None
    keys = Keys(PK="USER#{id}", SK="PROFILE", GSI1PK="{email_lower}")


def lower(values: dict) -> dict:
    tick({})
    email = values.get("email")
    return {"email_lower": email.lower() if email is not None else None}


migration = Migration(
    id="0001-users-by-email",
    description="users keyed USER#id, findable by folded email",
    steps=[
        each(tick, User),
        rekey(User),
        add_index(GSI("byEmail", pk="GSI1PK")),
        backfill(User, set=lower),
        rename(User.f.nick, "nickname"),
    ],
)
