"""Every access pattern of seed 004 (Blog API), on the embedded engine and on DynamoDB Local.

Each test starts from the deterministic sample data (``singletable.examples.blog_api.sample``) loaded
through the service (``load_sample``: the first test on each target loads it, later ones get a copy of that
table and the id counter where the load left it).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sample_tables import ReplayedIds

from singletable.examples import DEMO_CLOCK
from singletable.examples.blog_api.design import (
    Category,
    CategoryChild,
    Comment,
    Like,
    NotificationKind,
    Post,
    Reply,
    Role,
    blog,
)
from singletable.examples.blog_api.sample import HOT_POST, load
from singletable.examples.blog_api.service import (
    BlogError,
    BlogService,
    InvalidCategory,
    NotAllowed,
    sequential_ids,
    time_ordered_ids,
)
from singletable.model import AlreadyExists, InvalidCursor, NotFound, VersionConflict


@pytest.fixture
def svc(open_db, load_sample) -> BlogService:
    db = open_db(blog, clock=lambda: DEMO_CLOCK, cursor_secret="test")
    ids = ReplayedIds(sequential_ids())
    service = BlogService(db, ids=ids)
    load_sample(db, lambda: load(service), state=ids.state, restore=ids.restore)
    return service


def ids(entities) -> list[str]:
    return [
        getattr(e, "reply_id", None) or getattr(e, "comment_id", None) or getattr(e, "post_id", None)
        if not isinstance(e, Category)
        else e.category_id
        for e in entities
    ]


def test_table_name_comes_from_stack_name_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("StackName", raising=False)
    monkeypatch.delenv("Environment", raising=False)
    assert blog.resolved_name() == "blog-api-dev-blog"
    monkeypatch.setenv("StackName", "acme")
    monkeypatch.setenv("Environment", "prod")
    assert blog.resolved_name() == "acme-prod-blog"
    params = blog.create_table_params("x")
    assert params["BillingMode"] == "PAY_PER_REQUEST"
    assert [i["IndexName"] for i in params["GlobalSecondaryIndexes"]] == ["GSI1", "GSI2"]


def test_users_profile_and_roles(svc: BlogService) -> None:
    ana = svc.profile("ana")
    assert ana is not None and ana.role is Role.ADMIN and ana.name == "Ana Souza"
    assert svc.profile("nobody") is None
    assert [u.cognito_sub for u in svc.users_with_role(Role.READER)] == ["caio", "davi"]
    assert svc.change_role("caio", Role.AUTHOR).role is Role.AUTHOR
    assert [u.cognito_sub for u in svc.users_with_role(Role.READER)] == ["davi"]
    assert [u.cognito_sub for u in svc.users_with_role(Role.AUTHOR)] == ["bia", "caio"]
    with pytest.raises(NotFound):
        svc.change_role("nobody", Role.ADMIN)
    with pytest.raises(AlreadyExists):
        svc.register("ana", "Another Ana")


def test_root_categories_subcategories_and_parent_child_items(svc: BlogService) -> None:
    assert ids(svc.root_categories()) == ["tech", "life"]
    svc.add_category("devops", "DevOps", 10, "tech")
    svc.add_category("go", "Go", 9, "tech")
    # Orders are zero-padded in GSI1SK, so 10 sorts after 9.
    assert ids(svc.subcategories("tech")) == ["python", "rust", "cloud", "go", "devops"]
    links = svc.child_links("tech")
    assert [(c.child_id, c.order) for c in links] == [
        ("cloud", 3),
        ("devops", 10),
        ("go", 9),
        ("python", 1),
        ("rust", 2),
    ]
    assert svc.category_tree() == [
        {
            "id": "tech",
            "name": "Tecnologia",
            "children": [
                {"id": "python", "name": "Python"},
                {"id": "rust", "name": "Rust"},
                {"id": "cloud", "name": "Cloud"},
                {"id": "go", "name": "Go"},
                {"id": "devops", "name": "DevOps"},
            ],
        },
        {"id": "life", "name": "Estilo de vida", "children": [{"id": "travel", "name": "Viagens"}]},
    ]


def test_the_hierarchy_is_two_levels(svc: BlogService) -> None:
    with pytest.raises(InvalidCategory, match="python is not a root"):
        svc.add_category("django", "Django", 1, "python")
    with pytest.raises(InvalidCategory, match="missing is not a root"):
        svc.add_category("x", "X", 1, "missing")
    with pytest.raises(InvalidCategory, match="own parent"):
        svc.add_category("x", "X", 1, "x")
    with pytest.raises(AlreadyExists):
        svc.add_category("rust", "Rust again", 4, "tech")
    with pytest.raises(ValueError):
        Category(category_id="big", name="Big", order=1000)
    # Nothing was left behind by the refused writes.
    assert svc.db.get(Category, category_id="django") is None
    assert ids(svc.subcategories("python")) == []


def test_reorder_keeps_the_index_and_the_parent_child_items_consistent(svc: BlogService) -> None:
    assert svc.reorder("tech", ["cloud", "python", "rust"]) == {"cloud": 1, "python": 2, "rust": 3}
    assert ids(svc.subcategories("tech")) == ["cloud", "python", "rust"]
    assert sorted((c.child_id, c.order) for c in svc.child_links("tech")) == [
        ("cloud", 1),
        ("python", 2),
        ("rust", 3),
    ]
    assert svc.reorder(None, ["life", "tech"]) == {"life": 1, "tech": 2}
    assert ids(svc.root_categories()) == ["life", "tech"]
    for bad in (["cloud", "python"], ["cloud", "python", "rust", "rust"], ["cloud", "python", "go"]):
        with pytest.raises(InvalidCategory):
            svc.reorder("tech", bad)


def test_a_stale_reorder_fails_whole(svc: BlogService) -> None:
    stale = svc.subcategories("tech")
    svc.reorder("tech", ["rust", "python", "cloud"])
    with pytest.raises(VersionConflict), svc.db.transaction() as tx:
        tx.update(stale[0], order=7)  # python, read before the reorder
        tx.update(stale[1], order=8)
    assert ids(svc.subcategories("tech")) == ["rust", "python", "cloud"]
    assert sorted(c.order for c in svc.child_links("tech")) == [1, 2, 3]


def test_move_a_subcategory(svc: BlogService) -> None:
    moved = svc.move_subcategory("rust", "life")
    assert (moved.parent_id, moved.order) == ("life", 2)
    assert ids(svc.subcategories("tech")) == ["python", "cloud"]
    assert ids(svc.subcategories("life")) == ["travel", "rust"]
    assert [c.child_id for c in svc.child_links("tech")] == ["cloud", "python"]
    assert [(c.child_id, c.order) for c in svc.child_links("life")] == [("rust", 2), ("travel", 1)]
    assert svc.move_subcategory("rust", "tech", order=1).order == 1
    assert ids(svc.subcategories("tech")) == ["python", "rust", "cloud"]  # equal orders: then by id
    for category, parent, message in (
        ("tech", "life", "root category"),
        ("python", "cloud", "cloud is not a root"),
        ("python", "missing", "missing is not a root"),
        ("python", "python", "cannot move"),
    ):
        with pytest.raises(InvalidCategory, match=message):
            svc.move_subcategory(category, parent)
    with pytest.raises(NotFound):
        svc.move_subcategory("missing", "tech")
    # The refused moves changed nothing.
    assert [(c.child_id, c.order) for c in svc.child_links("tech")] == [
        ("cloud", 3),
        ("python", 1),
        ("rust", 1),
    ]
    assert svc.db.get(CategoryChild, parent_id="cloud", child_id="python", order=1) is None


def test_posts_by_subcategory_newest_first_paginated(svc: BlogService) -> None:
    first = svc.posts_in_category("python", size=3)
    assert ids(first) == ["p-py-pytest", "p-py-packaging", "p-py-asyncio"] and first.cursor
    second = svc.posts_in_category("python", size=3, cursor=first.cursor)
    assert ids(second) == ["p-py-typing"] and second.cursor is None
    assert ids(svc.posts_in_category("python")) == ids(first) + ids(second)
    with pytest.raises(InvalidCursor):
        svc.posts_in_category("travel", size=3, cursor=first.cursor)
    with pytest.raises(InvalidCursor):
        svc.posts_in_category("python", size=3, cursor=first.cursor[:-2] + "xx")


def test_posts_by_author_leave_comments_and_likes_out(svc: BlogService) -> None:
    # AUTHOR#bia also holds bia's comments and the likes her posts received.
    assert ids(svc.posts_by_author("bia")) == ["p-py-packaging", "p-travel-porto", "p-py-typing"]
    assert ids(svc.posts_by_author("ana")) == ["p-py-pytest", "p-py-asyncio"]


def test_drafts_stay_out_of_both_indexes_until_published(svc: BlogService) -> None:
    assert ids(svc.posts_in_category("rust")) == []
    assert "p-rust-draft" not in ids(svc.posts_by_author("bia"))
    published = svc.publish("p-rust-draft", at=DEMO_CLOCK + timedelta(hours=1))
    assert published.published_at == DEMO_CLOCK + timedelta(hours=1)
    assert ids(svc.posts_in_category("rust")) == ["p-rust-draft"]
    assert ids(svc.posts_by_author("bia"))[0] == "p-rust-draft"
    with pytest.raises(BlogError, match="already published"):
        svc.publish("p-rust-draft")
    with pytest.raises(NotFound):
        svc.publish("missing")


def test_who_may_post_where(svc: BlogService) -> None:
    with pytest.raises(InvalidCategory):
        svc.write_post("bia", "Misfiled", "...", "tech")
    with pytest.raises(InvalidCategory):
        svc.write_post("bia", "Nowhere", "...", "missing")
    with pytest.raises(NotAllowed):
        svc.write_post("davi", "Hello", "...", "python")
    with pytest.raises(NotAllowed):
        svc.write_post("ghost", "Hello", "...", "python")
    with pytest.raises(AlreadyExists):
        svc.write_post("bia", "Again", "...", "python", post_id="p-py-typing")
    post = svc.write_post("bia", "New", "...", "rust")
    assert post.post_id.startswith("p") and ids(svc.posts_in_category("rust")) == [post.post_id]


def test_threaded_comments(svc: BlogService) -> None:
    assert ids(svc.root_comments(HOT_POST)) == ["c0001", "c0003"]
    assert ids(svc.replies(HOT_POST, "c0001")) == ["r0005", "r0007"]
    assert ids(svc.replies(HOT_POST, "c0003")) == []
    expected = ["c0001", "r0005", "r0007", "c0003"]
    assert ids(svc.threaded_comments(HOT_POST)) == expected
    assert ids(svc.thread(HOT_POST)) == expected
    assert [type(e) for e in svc.thread(HOT_POST)] == [Comment, Reply, Reply, Comment]
    assert svc.post(HOT_POST).comment_count == 4


def test_comment_and_reply_keep_the_count_and_notify(svc: BlogService) -> None:
    comment = svc.comment(HOT_POST, "davi", "uv?")
    reply = svc.reply(HOT_POST, comment.comment_id, "bia", "yes")
    assert svc.post(HOT_POST).comment_count == 6
    assert ids(svc.root_comments(HOT_POST)) == ["c0001", "c0003", comment.comment_id]
    (to_bia, *_) = svc.notifications("bia").items
    assert (to_bia.kind, to_bia.actor_id, to_bia.comment_id) == (
        NotificationKind.COMMENT,
        "davi",
        comment.comment_id,
    )
    (to_davi, *_) = svc.notifications("davi").items
    assert (to_davi.kind, to_davi.actor_id, to_davi.comment_id) == (
        NotificationKind.REPLY,
        "bia",
        reply.reply_id,
    )
    with pytest.raises(NotFound, match="one level deep"):
        svc.reply(HOT_POST, reply.reply_id, "caio", "nested")
    with pytest.raises(NotFound):
        svc.comment("missing", "caio", "hello?")
    assert svc.post(HOT_POST).comment_count == 6


def test_a_users_comments_and_finding_one_by_id(svc: BlogService) -> None:
    assert ids(svc.comments_by("bia")) == ["c0009", "r0005"]
    assert ids(svc.comments_by("caio")) == ["c0001"]
    page = svc.comments_by("bia", size=1)
    assert ids(page) == ["c0009"] and ids(svc.comments_by("bia", size=1, cursor=page.cursor)) == ["r0005"]
    found = svc.find_comment("r0005")
    assert isinstance(found, Reply) and found.parent_id == "c0001"
    assert isinstance(svc.find_comment("c0003"), Comment)
    assert svc.find_comment("nope") is None


def test_delete_a_comment_with_its_replies_or_a_reply(svc: BlogService) -> None:
    assert svc.delete_comment("r0007") == 1
    assert svc.post(HOT_POST).comment_count == 3
    assert svc.delete_comment("c0001") == 2
    assert ids(svc.thread(HOT_POST)) == ["c0003"]
    assert svc.post(HOT_POST).comment_count == 1
    with pytest.raises(NotFound):
        svc.delete_comment("c0001")


def test_likes_one_per_user_per_post(svc: BlogService) -> None:
    assert svc.like_count(HOT_POST) == 3
    assert svc.like(HOT_POST, "caio") is False  # sample data: caio already likes it
    assert svc.like_count(HOT_POST) == 3
    assert svc.has_liked(HOT_POST, "caio") and not svc.has_liked(HOT_POST, "bia")
    assert svc.unlike(HOT_POST, "caio") is True
    assert svc.unlike(HOT_POST, "caio") is False
    assert not svc.has_liked(HOT_POST, "caio") and svc.like_count(HOT_POST) == 2
    assert svc.like(HOT_POST, "caio") is True and svc.like_count(HOT_POST) == 3
    with pytest.raises(NotFound):
        svc.like("missing", "caio")


def test_likes_received_by_an_author_newest_first(svc: BlogService) -> None:
    received = svc.likes_received("bia").items
    assert [(x.post_id, x.user_id) for x in received] == [
        ("p-travel-porto", "caio"),
        (HOT_POST, "davi"),
        (HOT_POST, "ana"),
        (HOT_POST, "caio"),
    ]
    assert all(isinstance(x, Like) for x in received)
    assert [(x.post_id, x.user_id) for x in svc.likes_received("ana").items] == [("p-py-pytest", "bia")]


def test_nobody_is_notified_of_their_own_activity(svc: BlogService) -> None:
    before = len(svc.notifications("bia").items)
    svc.like(HOT_POST, "bia")
    svc.comment(HOT_POST, "bia", "Thanks all")
    assert len(svc.notifications("bia").items) == before
    assert svc.like_count(HOT_POST) == 4


def test_bookmarks(svc: BlogService) -> None:
    assert [b.post_id for b in svc.my_bookmarks("caio")] == ["p-py-pytest", HOT_POST]
    assert [b.user_id for b in svc.bookmarked_by(HOT_POST)] == ["caio", "davi"]
    assert svc.bookmark("davi", "p-travel-porto") is True
    assert svc.bookmark("davi", "p-travel-porto") is False
    assert [b.post_id for b in svc.my_bookmarks("davi")] == ["p-travel-porto", HOT_POST]
    with pytest.raises(NotFound):
        svc.bookmark("davi", "missing")
    assert svc.remove_bookmark("caio", HOT_POST) is True
    assert svc.remove_bookmark("caio", HOT_POST) is False
    assert [b.user_id for b in svc.bookmarked_by(HOT_POST)] == ["davi"]


def test_notifications_newest_first_and_mark_read(svc: BlogService) -> None:
    page = svc.notifications("bia", size=3)
    assert [n.notification_id for n in page] == ["n0014", "n0013", "n0012"] and page.cursor
    rest = svc.notifications("bia", size=10, cursor=page.cursor)
    assert [n.notification_id for n in rest] == ["n0011", "n0004", "n0002"]
    assert [n.kind for n in rest] == [
        NotificationKind.LIKE,
        NotificationKind.COMMENT,
        NotificationKind.COMMENT,
    ]
    assert svc.mark_read("bia", "n0002").read is True
    assert [n.read for n in svc.notifications("bia")] == [False] * 5 + [True]
    with pytest.raises(NotFound):
        svc.mark_read("bia", "n9999")
    with pytest.raises(NotFound):
        svc.mark_read("ana", "n0002")  # someone else's


def test_counts_match_the_items(svc: BlogService) -> None:
    for post_id in ("p-py-typing", "p-py-asyncio", HOT_POST, "p-py-pytest", "p-travel-porto"):
        post = svc.post(post_id)
        assert isinstance(post, Post)
        assert post.comment_count == len(svc.thread(post_id))
        likes = [
            e for e in svc.db.query(Like.received_by(post_author_id=post.author_id)) if e.post_id == post_id
        ]
        assert post.like_count == len(likes)


def test_default_ids_sort_by_time() -> None:
    make = time_ordered_ids()
    earlier, later = make("c", DEMO_CLOCK), make("c", DEMO_CLOCK + timedelta(milliseconds=1))
    assert earlier < later and "#" not in earlier and len(earlier) == len(later)
