"""What can go wrong in WavyBlog, as the application sees it.

Each is raised from the model's typed error (``AlreadyExists``, ``UniqueViolation``, ``NotFound``...), which
stays on ``__cause__`` with DynamoDB's error code where DynamoDB refused a request.
"""

from __future__ import annotations


class BlogError(Exception):
    """Base of WavyBlog's errors; every one means nothing was written."""


class InvalidInput(BlogError, ValueError):
    """A username, email, slug, password or text the blog refuses before sending anything."""


class UsernameTaken(BlogError):
    pass


class EmailTaken(BlogError):
    pass


class SlugTaken(BlogError):
    pass


class CategoryExists(BlogError):
    pass


class UnknownUser(BlogError, LookupError):
    pass


class UnknownCategory(BlogError, LookupError):
    pass


class UnknownPost(BlogError, LookupError):
    pass


class WrongPassword(BlogError):
    pass


class StillInUse(BlogError):
    """A user or category that posts still point at (posts are keyed by username and category slug)."""


class EditConflict(BlogError):
    """A post changed between reading it and renaming it; read it again and retry."""
