"""The demo's walk-through, in the order ``singletable demo wavyblog`` runs it: the design's nine access
patterns, signing in, and the writes its guard items keep unique (emails, slugs), refused and allowed.

Results pass through :func:`shown` first: password hashes are salted, so the demo prints ``<bcrypt>``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from singletable.examples import Example, Step
from singletable.examples.wavyblog.design import User, blog
from singletable.examples.wavyblog.sample import load, open_service
from singletable.examples.wavyblog.service import WavyBlog
from singletable.model import Page


def shown(result: Any) -> Any:
    """``result`` with every password hash replaced by ``<bcrypt>``: salted hashes differ per run."""
    if isinstance(result, User):
        return result.model_copy(update={"password_hash": "<bcrypt>"})
    if isinstance(result, Page):
        return Page([shown(item) for item in result.items], result.cursor)
    if isinstance(result, list):
        return [shown(item) for item in result]
    return result


def step(name: str, run: Any, note: str = "") -> Step:
    """A :class:`Step` whose result passes through :func:`shown`."""
    return Step(name, lambda: shown(run()), note)


def steps(blog: WavyBlog) -> Iterable[Step]:
    """The whole walk-through: lookups and signing in, posts as each viewer sees them, guarded writes.

    ``signed_in`` keeps the users the sign-in steps returned, by login, for the steps that view as them.
    """
    signed_in: dict[str, User | None] = {}
    return [*_lookup_steps(blog, signed_in), *_post_steps(blog, signed_in), *_guarded_write_steps(blog)]


def _lookup_steps(blog: WavyBlog, signed_in: dict[str, User | None]) -> list[Step]:
    """Users by username, by email and all; a post by slug; signing in (bcrypt verifies the password)."""

    def sign_in(login: str, password: str) -> User | None:
        signed_in[login] = blog.authenticate(login, password)
        return signed_in[login]

    return [
        step("1. Get user by username", lambda: blog.user("john_doe")),
        step(
            "2. Get user by email",
            lambda: blog.user_by_email("jane@example.com"),
            "the USEREMAIL# guard item, then the user it names",
        ),
        step("3. Get all users", lambda: blog.users()),
        step("4. Get post by slug", lambda: blog.post("my-first-post")),
        step(
            "Sign in as john_doe",
            lambda: sign_in("john_doe", "correct-horse-battery"),
            "1. Get user by username, then bcrypt verifies the password",
        ),
        step("Sign in as ada_admin", lambda: sign_in("ada_admin", "analytical-engine")),
    ]


def _post_steps(blog: WavyBlog, signed_in: dict[str, User | None]) -> list[Step]:
    """Drafts as a visitor, their author and an admin see them; paging; categories; slug checks."""
    page: dict[str, Page] = {}

    def first_page() -> Page:
        page["first"] = blog.posts_by_user("john_doe", size=2)
        return page["first"]

    return [
        step("4. Get post by slug: a draft, as a visitor", lambda: blog.post("ideas-for-next-month")),
        step(
            "4. Get post by slug: a draft, as its author",
            lambda: blog.post("ideas-for-next-month", viewer=signed_in["john_doe"]),
        ),
        step("5. Get all posts, as a visitor", lambda: blog.posts(), "published only, in slug order"),
        step(
            "5. Get all posts, as an admin", lambda: blog.posts(viewer=signed_in["ada_admin"]), "drafts too"
        ),
        step("6. Get posts by user john_doe, page 1", first_page, "newest first, 2 per page"),
        step(
            "6. Get posts by user john_doe, page 2",
            lambda: blog.posts_by_user("john_doe", size=2, cursor=page["first"].cursor),
            "resumes from page 1's cursor",
        ),
        step(
            "6. Get posts by user john_doe, as john_doe",
            lambda: blog.posts_by_user("john_doe", viewer=signed_in["john_doe"]),
            "the author sees his draft",
        ),
        step("7. Get posts by category technology", lambda: blog.posts_by_category("technology")),
        step(
            "7. Get posts by category technology, as john_doe",
            lambda: blog.posts_by_category("technology", viewer=signed_in["john_doe"]),
            "published, or his own drafts",
        ),
        step("8. Get all categories", lambda: blog.categories()),
        step(
            "9. Check slug uniqueness: my-first-post",
            lambda: blog.slug_available("my-first-post"),
            "False: taken",
        ),
        step("9. Check slug uniqueness: a-new-post", lambda: blog.slug_available("a-new-post"), "True: free"),
    ]


def _guarded_write_steps(blog: WavyBlog) -> list[Step]:
    """Writes the guard items keep unique: taken emails and slugs refused, changes that swap the guards."""
    return [
        step(
            "Register with a taken email",
            lambda: blog.register("johnny", "john@example.com", "another-password"),
            "one transaction: the user and its USEREMAIL# guard; the guard fails, nothing is written",
        ),
        step(
            "Create a post with a taken slug",
            lambda: blog.create_post("jane_smith", "my-first-post", "Mine Too", category="travel"),
            "the post, its SLUG# guard and checks on author and category, in one transaction",
        ),
        step(
            "Change john_doe's email",
            lambda: blog.change_email("john_doe", "jd@example.com"),
            "the USEREMAIL# guards are swapped in the same transaction",
        ),
        step("2. Get user by the old email", lambda: blog.user_by_email("john@example.com")),
        step(
            "Rename post kyoto-on-foot to kyoto-walks",
            lambda: blog.rename_post("kyoto-on-foot", "kyoto-walks"),
            "the slug is the key: new post and SLUG# guard in, old ones out, one transaction",
        ),
        step(
            "9. Check slug uniqueness: kyoto-on-foot",
            lambda: blog.slug_available("kyoto-on-foot"),
            "free again after the rename",
        ),
        step(
            "Sign in by email with the right password",
            lambda: blog.authenticate("jd@example.com", "correct-horse-battery"),
        ),
        step("Sign in with a wrong password", lambda: blog.authenticate("john_doe", "wrong-password")),
    ]


EXAMPLE = Example(
    name="wavyblog",
    title="WavyBlog (seed 003): users, posts and categories; unique emails and slugs by guard items",
    table=blog,
    open=open_service,
    load=load,
    steps=steps,
)
