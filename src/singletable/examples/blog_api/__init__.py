"""Seed 004, the Blog API (``singletable demo blog-api``): users, posts, a category hierarchy, threaded
comments, likes, bookmarks and notifications on one DynamoDB table. See README.md for the design's choices.
"""

from __future__ import annotations

from singletable.examples import Example
from singletable.examples.blog_api.design import blog
from singletable.examples.blog_api.sample import load
from singletable.examples.blog_api.service import BlogService, sequential_ids
from singletable.examples.blog_api.walkthrough import steps
from singletable.model import DB


def open_service(db: DB) -> BlogService:
    """The demo's service: sequential ids, so every run prints the same ids."""
    return BlogService(db, ids=sequential_ids())


EXAMPLE = Example(
    name="blog-api",
    title="Blog API (seed 004): ${StackName}-${Environment}-blog, PAY_PER_REQUEST, GSI1 + GSI2",
    table=blog,
    open=open_service,
    load=load,
    steps=steps,
)

__all__ = ["EXAMPLE", "BlogService", "blog", "open_service"]
