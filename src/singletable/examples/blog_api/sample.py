"""Deterministic sample data: fixed ids and times relative to :data:`singletable.examples.DEMO_CLOCK`.

Loaded through the service API (so the counts, parent-child items and notifications are exactly what the
app itself would write). Generated ids come from :func:`sequential_ids`, in load order.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from singletable.examples import DEMO_CLOCK
from singletable.examples.blog_api.design import Role
from singletable.examples.blog_api.service import BlogService, sequential_ids
from singletable.model import DB


def ago(days: float = 0, hours: float = 0, minutes: float = 0) -> datetime:
    return DEMO_CLOCK - timedelta(days=days, hours=hours, minutes=minutes)


USERS = [  # cognito sub, name, role, bio
    ("ana", "Ana Souza", Role.ADMIN, "Edits the blog"),
    ("bia", "Beatriz Lima", Role.AUTHOR, "Writes about Python and travel"),
    ("caio", "Caio Rocha", Role.READER, ""),
    ("davi", "Davi Alves", Role.READER, ""),
]
CATEGORIES = [  # id, name, order, parent
    ("tech", "Tecnologia", 1, None),
    ("life", "Estilo de vida", 2, None),
    ("python", "Python", 1, "tech"),
    ("rust", "Rust", 2, "tech"),
    ("cloud", "Cloud", 3, "tech"),
    ("travel", "Viagens", 1, "life"),
]
POSTS = [  # id, author, subcategory, title, days ago (None: a draft)
    ("p-py-typing", "bia", "python", "Type hints in practice", 9.0),
    ("p-py-asyncio", "ana", "python", "asyncio without tears", 6.0),
    ("p-py-packaging", "bia", "python", "Packaging in 2026", 3.0),
    ("p-py-pytest", "ana", "python", "Fixtures that scale", 1.0),
    ("p-travel-porto", "bia", "travel", "Three days in Porto", 4.0),
    ("p-rust-draft", "bia", "rust", "Ownership for Pythonistas", None),
]
HOT_POST = "p-py-packaging"  # bia's post that gets the discussion


def open_service(db: DB) -> BlogService:
    """The demo's service: sequential ids, so every run prints the same ids."""
    return BlogService(db, ids=sequential_ids())


def load(service: BlogService) -> None:
    for sub, name, role, bio in USERS:
        service.register(sub, name, role=role, bio=bio, at=ago(days=30))
    for category_id, name, order, parent in CATEGORIES:
        service.add_category(category_id, name, order, parent)
    for post_id, author, subcategory, title, days in POSTS:
        service.write_post(
            author,
            title,
            f"{title}: the body.",
            subcategory,
            post_id=post_id,
            publish=days is not None,
            at=ago(days=days if days is not None else 2),
        )
    # A discussion on bia's packaging post: two root comments, replies under the first.
    first = service.comment(HOT_POST, "caio", "Which build backend do you use?", at=ago(days=2, hours=20))
    service.comment(HOT_POST, "ana", "Great overview.", at=ago(days=2, hours=18))
    service.reply(HOT_POST, first.comment_id, "bia", "Hatchling, mostly.", at=ago(days=2, hours=19))
    service.reply(HOT_POST, first.comment_id, "davi", "Same here.", at=ago(days=2, hours=17))
    service.comment("p-py-pytest", "bia", "Session fixtures saved my CI.", at=ago(hours=20))
    for user, hours in (("caio", 40), ("ana", 30), ("davi", 10)):
        service.like(HOT_POST, user, at=ago(hours=hours))
    service.like("p-travel-porto", "caio", at=ago(hours=5))
    service.like("p-py-pytest", "bia", at=ago(hours=4))
    for user, post_id, hours in (("caio", HOT_POST, 39), ("caio", "p-py-pytest", 12), ("davi", HOT_POST, 9)):
        service.bookmark(user, post_id, at=ago(hours=hours))
