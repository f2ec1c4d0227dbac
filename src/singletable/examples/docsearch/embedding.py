"""Text to a 64-number vector, the same on every machine and run, with no model to download.

A real application asks an embedding model (Amazon Titan, Cohere, a sentence-transformer) for its vectors;
this example only needs vectors that put texts sharing words near each other, so it *hashes* words into
dimensions (feature hashing): each word adds +1 or -1 to one of :data:`DIMENSIONS` positions chosen by a
hash of the word, and the sum is scaled to length 1 (COSINE then compares direction only). Texts that share
many words point the same way; texts that share none are nearly orthogonal. Word forms are folded a little
(lower case, a trailing plural ``s`` dropped) and common words are skipped, so "Refunds" and "refund" meet.
"""

from __future__ import annotations

import hashlib
import math
import re

DIMENSIONS = 64
_WORD = re.compile(r"[a-zäöüß0-9]+")
_ENGLISH = "a an and are as at be by can do for from how i in is it my of on or our the to we what when where"
_GERMAN = "der die das und ich wie ein eine mein meine zu"
_COMMON = frozenset(f"{_ENGLISH} with you your {_GERMAN}".split(" "))


def words(text: str) -> list[str]:
    """The words of ``text`` that count: lower-cased, a plural ``s`` dropped, common words left out."""
    out = []
    for word in _WORD.findall(text.lower()):
        if word in _COMMON:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.append(word)
    return out


def embed(text: str) -> list[float]:
    """``text`` as a unit vector of :data:`DIMENSIONS` numbers (all zeros but one for a text of no words)."""
    vector = [0.0] * DIMENSIONS
    for word in words(text):
        digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
        position = int.from_bytes(digest[:4], "big") % DIMENSIONS
        vector[position] += 1.0 if digest[4] & 1 else -1.0
    length = math.sqrt(sum(x * x for x in vector))
    if length == 0:
        vector[0] = 1.0  # COSINE needs a direction; a text of no words gets one that matches nothing much
        return vector
    return [round(x / length, 6) for x in vector]
