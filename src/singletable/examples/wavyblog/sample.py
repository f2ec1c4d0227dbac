"""Deterministic sample data: fixed ids, timestamps counted back from DEMO_CLOCK.

Passwords are hashed with bcrypt's minimum cost (4 rounds) here, so loading is fast; hashes are salted and so
differ on every run, which is why the demo prints ``<bcrypt>`` in their place and never the hash.
"""

from __future__ import annotations

from datetime import timedelta

from singletable.examples import DEMO_CLOCK
from singletable.examples.wavyblog.passwords import PasswordHasher
from singletable.examples.wavyblog.service import WavyBlog
from singletable.model import DB

SAMPLE_ROUNDS = 4  # bcrypt's minimum: sample data and tests only; production keeps PasswordHasher's 12

# username, email, password, role, id
USERS = [
    ("john_doe", "john@example.com", "correct-horse-battery", "user", "usr_000001"),
    ("jane_smith", "jane@example.com", "staple-lantern-42", "user", "usr_000002"),
    ("ada_admin", "ada@example.com", "analytical-engine", "admin", "usr_000003"),
]
# slug, name, id
CATEGORIES = [
    ("technology", "Technology", "cat_000001"),
    ("travel", "Travel", "cat_000002"),
    ("food", "Food", "cat_000003"),
]
# slug, author, category, title, published, days before DEMO_CLOCK
POSTS = [
    ("my-first-post", "john_doe", "technology", "My First Post", True, 10),
    ("lisbon-in-three-days", "jane_smith", "travel", "Lisbon in Three Days", True, 9),
    ("rust-for-pythonistas", "john_doe", "technology", "Rust for Pythonistas", True, 7),
    ("sourdough-basics", "jane_smith", "food", "Sourdough Basics", True, 6),
    ("kyoto-on-foot", "john_doe", "travel", "Kyoto on Foot", True, 4),
    ("dynamodb-single-table", "jane_smith", "technology", "DynamoDB Single-Table Design", True, 3),
    ("tapas-guide", "jane_smith", "travel", "A Guide to Tapas", False, 2),
    ("ideas-for-next-month", "john_doe", "technology", "Ideas for Next Month", False, 1),
]


def open_service(db: DB) -> WavyBlog:
    """The service as the demo and tests use it: cheap hashing, counted ids for anything not given one."""
    counter = iter(range(1, 1_000_000))
    return WavyBlog(db, hasher=PasswordHasher(SAMPLE_ROUNDS), new_id=lambda p: f"{p}_{next(counter):06d}x")


def load(blog: WavyBlog) -> None:
    for username, email, password, role, user_id in USERS:
        blog.register(username, email, password, role=role, user_id=user_id)
    for slug, name, category_id in CATEGORIES:
        blog.create_category(slug, name, category_id=category_id)
    for number, (slug, author, category, title, published, days) in enumerate(POSTS, 1):
        blog.create_post(
            author,
            slug,
            title,
            category=category,
            content=f"# {title}\nSample post {number} about {category}.",
            thumbnail_url=f"https://example.com/thumbs/{slug}.jpg" if number % 2 else None,
            published=published,
            created_at=DEMO_CLOCK - timedelta(days=days),
            post_id=f"post_{number:06d}",
        )
