"""Seed 003, WavyBlog: a blog's users, posts and categories in one DynamoDB table (``singletable demo
wavyblog``). See README.md in this directory for the choices the design left open."""

from singletable.examples import Example
from singletable.examples.wavyblog.design import Category, Post, User, blog
from singletable.examples.wavyblog.errors import BlogError
from singletable.examples.wavyblog.passwords import PasswordHasher
from singletable.examples.wavyblog.sample import load, open_service, steps
from singletable.examples.wavyblog.service import WavyBlog, open_blog

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
