"""The demo's steps: every access pattern of the design, in the order a reader of the design meets them.

Steps share a little state (a page cursor, the id of a comment written by an earlier step), so they are
produced lazily: each ``run`` sees what the steps before it did.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from singletable.examples import Example, Step
from singletable.examples.blog_api.design import Role, blog
from singletable.examples.blog_api.sample import HOT_POST, load, open_service
from singletable.examples.blog_api.service import BlogService


def steps(blog: BlogService) -> Iterator[Step]:
    """The whole walk-through, in the design's sections: users, categories, posts, comments, likes,
    bookmarks, notifications."""
    yield from _user_steps(blog)
    yield from _category_steps(blog)
    yield from _post_steps(blog)
    yield from _comment_steps(blog)
    yield from _like_and_bookmark_steps(blog)
    yield from _notification_steps(blog)


def _user_steps(blog: BlogService) -> Iterator[Step]:
    """1. Usuários: a profile, users by role, and a promotion that moves the user in GSI2."""
    yield Step("Padrão 1: user profile (ana)", lambda: blog.profile("ana"))
    yield Step("Users with role author (GSI2 ROLE#author)", lambda: blog.users_with_role(Role.AUTHOR))
    yield Step(
        "Promote caio to author (GSI2PK moves in the same UpdateItem)",
        lambda: blog.change_role("caio", Role.AUTHOR),
    )
    yield Step("Users with role author, again", lambda: blog.users_with_role(Role.AUTHOR))


def _category_steps(blog: BlogService) -> Iterator[Step]:
    """3. Categorias: the tree in order, reordering and moving subcategories in one transaction."""
    yield Step("Root categories in order (GSI1 CATEGORY_ROOT)", blog.root_categories)
    yield Step("Subcategories of tech in order (GSI1 CATEGORY#tech)", lambda: blog.subcategories("tech"))
    yield Step("Parent-child items of tech (table, CHILD#...)", lambda: blog.child_links("tech"))
    yield Step(
        "Reorder tech's subcategories: cloud, python, rust (one transaction)",
        lambda: blog.reorder("tech", ["cloud", "python", "rust"]),
    )
    yield Step("Subcategories of tech after the reorder", lambda: blog.subcategories("tech"))
    yield Step("Move cloud under life (one transaction)", lambda: blog.move_subcategory("cloud", "life"))
    yield Step("Parent-child items of life after the move", lambda: blog.child_links("life"))
    yield Step(
        "Reorder with a sibling missing is refused",
        lambda: blog.reorder("tech", ["rust"]),
        note="checked before any write",
    )
    yield Step("The whole category tree (one query per root)", blog.category_tree)


def _post_steps(blog: BlogService) -> Iterator[Step]:
    """2. Posts: by category with cursor paging, by author, publishing a draft, and refused writes."""
    state: dict[str, Any] = {}

    def first_page() -> Any:
        page = blog.posts_in_category("python", size=3)
        state["cursor"] = page.cursor
        return page

    yield Step(
        "Padrão 2: posts in python, newest first, page 1",
        first_page,
        note="page size 3 here to show paging; the API's default is the design's 10",
    )
    yield Step(
        "Padrão 2: posts in python, page 2",
        lambda: blog.posts_in_category("python", size=3, cursor=state["cursor"]),
    )
    yield Step(
        "Padrão 3: posts by bia, newest first (GSI2 AUTHOR#bia, POST# only)",
        lambda: blog.posts_by_author("bia"),
    )
    yield Step("Posts in rust: bia's draft is not there", lambda: blog.posts_in_category("rust"))
    yield Step("Publish the draft (GSI1SK and GSI2SK written)", lambda: blog.publish("p-rust-draft"))
    yield Step("Posts in rust after publishing", lambda: blog.posts_in_category("rust"))
    yield Step(
        "A post in a root category is refused",
        lambda: blog.write_post("ana", "Misfiled", "...", "tech", post_id="p-misfiled"),
    )
    yield Step(
        "A reader cannot write posts",
        lambda: blog.write_post("davi", "Hello", "...", "python", post_id="p-davi"),
    )


def _comment_steps(blog: BlogService) -> Iterator[Step]:
    """4. Comentários: root comments and replies, one level deep, with counts and notifications."""
    state: dict[str, Any] = {}
    yield Step(
        "Padrão 4, first query: root comments of the packaging post",
        lambda: blog.root_comments(HOT_POST),
        note="the replies are read too, and skipped by type",
    )
    yield Step("Padrão 4, second query: replies to c0001", lambda: blog.replies(HOT_POST, "c0001"))
    yield Step(
        "Threaded comments as the design runs them (1 + one query per root)",
        lambda: blog.threaded_comments(HOT_POST),
    )
    yield Step("The same thread in one query", lambda: blog.thread(HOT_POST))

    def add_comment() -> Any:
        comment = blog.comment(HOT_POST, "davi", "Does this work with uv?")
        state["comment"] = comment.comment_id
        return comment

    yield Step("davi comments (comment + commentCount + bia's notification)", add_comment)
    yield Step(
        "bia replies to davi (reply + check + commentCount + davi's notification)",
        lambda: blog.reply(HOT_POST, state["comment"], "bia", "Yes, uv build works."),
    )
    yield Step(
        "A reply to a reply is refused (one level deep)",
        lambda: blog.reply(HOT_POST, "r0005", "caio", "Thanks!"),
    )
    yield Step("Comments by bia, newest first (GSI2 AUTHOR#bia, COMMENT#)", lambda: blog.comments_by("bia"))
    yield Step("Find a comment by id alone (GSI1 COMMENT#<id>)", lambda: blog.find_comment("r0005"))
    yield Step("Delete davi's comment with its reply", lambda: blog.delete_comment(state["comment"]))
    # HOT_POST is seeded above: blog.post finds it
    yield Step("The post's commentCount", lambda: blog.post(HOT_POST).comment_count)  # type: ignore[union-attr]


def _like_and_bookmark_steps(blog: BlogService) -> Iterator[Step]:
    """5. Curtidas and 6. Favoritos: idempotent likes and bookmarks, and who liked or bookmarked what."""
    yield Step("caio likes the pytest post", lambda: blog.like("p-py-pytest", "caio"))
    yield Step("caio likes it again: nothing changes", lambda: blog.like("p-py-pytest", "caio"))
    yield Step("Did caio like the pytest post?", lambda: blog.has_liked("p-py-pytest", "caio"))
    yield Step("Like count of the pytest post", lambda: blog.like_count("p-py-pytest"))
    yield Step("caio unlikes it", lambda: blog.unlike("p-py-pytest", "caio"))
    yield Step("caio unlikes it again: nothing changes", lambda: blog.unlike("p-py-pytest", "caio"))
    yield Step("Did caio like the pytest post, now?", lambda: blog.has_liked("p-py-pytest", "caio"))
    yield Step(
        "Likes bia received, newest first (GSI2 AUTHOR#bia, LIKE#)", lambda: blog.likes_received("bia")
    )

    yield Step("davi bookmarks the porto post", lambda: blog.bookmark("davi", "p-travel-porto"))
    yield Step("davi bookmarks it again: nothing changes", lambda: blog.bookmark("davi", "p-travel-porto"))
    yield Step("davi's bookmarks, newest first (GSI1 BOOKMARK#davi)", lambda: blog.my_bookmarks("davi"))
    yield Step("Who bookmarked the packaging post (GSI2 POST#...)", lambda: blog.bookmarked_by(HOT_POST))
    yield Step("caio removes a bookmark", lambda: blog.remove_bookmark("caio", "p-py-pytest"))


def _notification_steps(blog: BlogService) -> Iterator[Step]:
    """7. Notificações: a user's notifications newest first, and marking one read."""
    yield Step("bia's notifications, newest first (GSI1 NOTIFICATION#bia)", lambda: blog.notifications("bia"))
    yield Step("bia marks n0002 read", lambda: blog.mark_read("bia", "n0002"))
    yield Step("Marking a missing notification read fails", lambda: blog.mark_read("bia", "n9999"))


EXAMPLE = Example(
    name="blog-api",
    title="Blog API (seed 004): ${StackName}-${Environment}-blog, PAY_PER_REQUEST, GSI1 + GSI2",
    table=blog,
    open=open_service,
    load=load,
    steps=steps,
)
