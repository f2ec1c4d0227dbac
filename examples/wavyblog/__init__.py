"""Seed 003, WavyBlog: a blog's users, posts and categories in one DynamoDB table (``singletable demo
wavyblog``). See README.md in this directory for the choices the design left open."""

from examples.wavyblog.design import Category, Post, User, blog
from examples.wavyblog.errors import BlogError
from examples.wavyblog.passwords import PasswordHasher
from examples.wavyblog.sample import load, open_service, steps
from examples.wavyblog.service import WavyBlog, open_blog
from singletable.demo import Example

EXAMPLE = Example(
    name="wavyblog",
    title="WavyBlog (seed 003): users, posts and categories; unique emails and slugs by guard items",
    table=blog,
    open=open_service,
    load=load,
    steps=steps,
)

__all__ = [
    "EXAMPLE",
    "BlogError",
    "Category",
    "PasswordHasher",
    "Post",
    "User",
    "WavyBlog",
    "blog",
    "open_blog",
]
