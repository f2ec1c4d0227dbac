"""Password hashing with bcrypt: the design's ``$2a$10$...`` hashes say bcrypt, so existing hashes verify.

bcrypt is slow on purpose; the cost (``rounds``) is a parameter so production keeps a real cost (12, the
library's default) while tests and the demo use the minimum (4) to stay fast. Hashes made with a lower cost
than configured are upgraded at the next successful login (:meth:`PasswordHasher.needs_rehash`).
"""

from __future__ import annotations

import bcrypt

from singletable.examples.wavyblog.errors import InvalidInput

MIN_LENGTH = 8
MAX_BYTES = 72  # bcrypt ignores (bcrypt>=5: refuses) anything past 72 bytes; we refuse it up front


class WeakPassword(InvalidInput):
    """A password bcrypt cannot protect properly: too short, or longer than bcrypt reads."""


class PasswordHasher:
    """Hashes and verifies passwords; the only place plain-text passwords are handled."""

    def __init__(self, rounds: int = 12) -> None:
        if not 4 <= rounds <= 31:
            raise ValueError("bcrypt rounds must be between 4 and 31")
        self.rounds = rounds
        # Verified against when a login names no user, so a missing user costs as much time as a wrong
        # password and response times do not reveal which usernames exist.
        self._decoy = bcrypt.hashpw(b"decoy-password", bcrypt.gensalt(rounds))

    def hash(self, password: str) -> str:
        return bcrypt.hashpw(self._encode(password), bcrypt.gensalt(self.rounds)).decode("ascii")

    def verify(self, password: str, hashed: str | None) -> bool:
        """True if ``password`` matches ``hashed``; False for a wrong password, a malformed hash or none."""
        raw = password.encode("utf-8")
        if hashed is None or len(raw) > MAX_BYTES:
            bcrypt.checkpw(raw[:MAX_BYTES], self._decoy)
            return False
        try:
            return bcrypt.checkpw(raw, hashed.encode("ascii"))
        except ValueError:  # not a bcrypt hash
            return False

    def needs_rehash(self, hashed: str) -> bool:
        """True when ``hashed`` was made with a lower cost than configured (``$2a$10$`` under 12 rounds)."""
        parts = hashed.split("$")
        try:
            return int(parts[2]) < self.rounds
        except (IndexError, ValueError):
            return True

    @staticmethod
    def _encode(password: str) -> bytes:
        raw = password.encode("utf-8")
        if len(password) < MIN_LENGTH:
            raise WeakPassword(f"a password needs at least {MIN_LENGTH} characters")
        if len(raw) > MAX_BYTES:
            raise WeakPassword(f"a password can be at most {MAX_BYTES} bytes (bcrypt ignores the rest)")
        return raw
