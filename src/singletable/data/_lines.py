"""The lines of one source file, read with bounded memory, whatever the file holds.

Import reads files it did not write: a line may be a gigabyte long, a small gzip file may expand to
gigabytes, the bytes may not be UTF-8. :class:`LineReader` reads physical lines (up to and including
``\\n``) with ``readline(bound)``, so no line is ever held past :data:`MAX_LINE_BYTES`: a longer one is
refused as soon as it passes the bound and skipped to its end in blocks, keeping only a short prefix for the
report. Gzip is decompressed as it is read, a block at a time. What cannot be read is raised as
:class:`LineProblem` (file, line, message, a prefix of the text) and the reader goes on with the next line;
a damaged gzip stream ends the file (``fatal``).

The reader also keeps what a checkpoint needs to tell the file again: its size and modification time when
opened, the MD5 of the bytes as stored (what an export manifest's ``md5Checksum`` is), and a SHA-256 of
the lines read so far (:attr:`LineReader.seen`).
"""

from __future__ import annotations

import hashlib
import io
import zlib
from pathlib import Path
from typing import Any

# DynamoDB items are at most 400 KB; as JSON text one can take several times that (escapes, base64, type
# wrappers: a list of empty strings takes 11 bytes of text per byte of item, about 4.5 MB for a whole item).
# No item DynamoDB takes needs more than this; a longer line is refused without being read into memory.
MAX_LINE_BYTES = 8 * 1024 * 1024
PREFIX_CHARS = 200  # of a refused line, kept in the report and the reject file
_BLOCK = 1024 * 1024
_GZIP_ERRORS = (EOFError, zlib.error)
_UTF16 = (b"\xff\xfe", b"\xfe\xff")
UTF8_BOM = b"\xef\xbb\xbf"


class LineProblem(Exception):
    """A line that cannot be read: over the bound, not UTF-8 text, or (``fatal``) the file cannot be read
    past it. ``prefix``: the start of the line as text, at most :data:`PREFIX_CHARS` characters."""

    def __init__(self, line: int, message: str, prefix: str = "", *, fatal: bool = False) -> None:
        super().__init__(message)
        self.line = line
        self.message = message
        self.prefix = prefix
        self.fatal = fatal


class StoredBytes(io.RawIOBase):
    """The file as stored, read through: counts its bytes and keeps their MD5 (S3's and the manifest's)."""

    def __init__(self, path: Path, md5: bool) -> None:
        super().__init__()
        self.handle = open(path, "rb", buffering=0)  # noqa: SIM115 (closed with this reader)
        self.md5 = hashlib.md5() if md5 else None
        self.size = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        count = self.handle.readinto(buffer)
        if count:
            if self.md5 is not None:
                self.md5.update(memoryview(buffer)[:count])
            self.size += count
        return count or 0

    def close(self) -> None:
        self.handle.close()
        super().close()


class Gunzip(io.RawIOBase):
    """A gzip stream decompressed as it is read: each ``readinto`` gives at most the buffer's length, so a
    small file expanding to gigabytes is never held whole. Members one after another (and zero padding
    after them) are read as one stream, as ``gzip`` does; a damaged or truncated stream raises
    ``zlib.error`` or ``EOFError``."""

    def __init__(self, source: io.RawIOBase) -> None:
        super().__init__()
        self.source = source
        self.inflate = zlib.decompressobj(31)
        self.pending = b""
        self.in_member = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        room = len(buffer)
        while True:
            data, self.pending = self.pending, b""
            if not data:
                data = self.source.read(_BLOCK) or b""
                if not data:
                    if self.in_member:
                        raise EOFError("Compressed file ended before the end-of-stream marker was reached")
                    return 0
            if not self.in_member:
                data = data.lstrip(b"\x00")  # padding between or after members
                if not data:
                    continue
                self.in_member = True
            out = self.inflate.decompress(data, room)
            self.pending = self.inflate.unconsumed_tail
            if self.inflate.eof:
                self.pending = self.inflate.unused_data + self.pending
                self.inflate = zlib.decompressobj(31)
                self.in_member = False
            if out:
                buffer[: len(out)] = out
                return len(out)


def prefix(raw: bytes) -> str:
    """The start of a line as text for a report (never the whole of a long line)."""
    text = raw[: PREFIX_CHARS * 4].decode("utf-8", errors="replace")
    return text[:PREFIX_CHARS].rstrip("\r\n")


def decode(raw: bytes, line: int) -> str:
    """A line's bytes as text; a :class:`LineProblem` saying where it is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        byte = raw[error.start]
        raise LineProblem(
            line,
            f"not UTF-8 text (byte 0x{byte:02x} at byte {error.start + 1} of the line): "
            "save the file as UTF-8",
            prefix(raw),
        ) from None


class NoDigest:
    """Stands for :attr:`LineReader.seen` where no checkpoint will ask for it: hashes nothing."""

    def update(self, data: bytes) -> None:
        pass

    def copy(self) -> NoDigest:
        return self

    def hexdigest(self) -> str:
        return ""


class LineReader:
    """Iterates the physical lines (bytes, with their ``\\n``) of ``path``, gunzipped when ``gzipped``;
    ``number`` is the last line's number (1-based); ``md5``: keep the MD5 of the stored bytes
    (``stored.md5``); ``fingerprint=False``: keep no SHA-256 of the lines read (nothing will resume from
    them). See the module docstring for what it raises."""

    def __init__(self, path: Path, gzipped: bool, *, md5: bool = False, fingerprint: bool = True) -> None:
        self.stored = StoredBytes(path, md5)
        raw: io.RawIOBase = Gunzip(self.stored) if gzipped else self.stored
        self.stream = io.BufferedReader(raw, _BLOCK)
        self.gzipped = gzipped
        self.number = 0
        # Of every line read so far, as read (decompressed).
        self.seen: Any = hashlib.sha256() if fingerprint else NoDigest()
        self.ended = False

    def __iter__(self) -> LineReader:
        return self

    def __next__(self) -> bytes:
        if self.ended:
            raise StopIteration
        raw = self._read(MAX_LINE_BYTES + 1)
        if not raw:
            self.ended = True
            raise StopIteration
        self.number += 1
        if self.number == 1:
            raw = self._first(raw)
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            self._skip_rest(raw)
        return raw

    def _read(self, limit: int) -> bytes:
        try:
            raw = self.stream.readline(limit)
        except _GZIP_ERRORS as error:
            self.ended = True
            what = "truncated gzip" if isinstance(error, EOFError) else "unreadable gzip"
            raise LineProblem(
                self.number + 1,
                f"{what} after line {self.number} ({error}): the rest of this file cannot be read",
                fatal=True,
            ) from None
        self.seen.update(raw)
        return raw

    def _first(self, raw: bytes) -> bytes:
        if raw.startswith(_UTF16):
            self.ended = True
            raise LineProblem(
                1,
                "UTF-16 or UTF-32 text (its first bytes say so): import reads UTF-8; convert the file, "
                "for example with iconv -f UTF-16 -t UTF-8",
                fatal=True,
            )
        return raw.removeprefix(UTF8_BOM)

    def _skip_rest(self, start: bytes) -> None:
        """Read past the rest of an over-long line in blocks, keeping nothing but its length."""
        total = len(start)
        head = prefix(start)
        del start
        while True:
            block = self._read(_BLOCK)
            total += len(block)
            if not block:
                break
            if block.endswith(b"\n"):
                total -= 1  # the line's own length, without its newline
                break
        raise LineProblem(
            self.number,
            f"a line of {total:,} bytes, over the {MAX_LINE_BYTES:,}-byte limit on a line "
            "(a DynamoDB item is at most 400 KB): not read",
            head,
        )

    def close(self) -> None:
        self.stream.close()
        self.stored.close()

    def __enter__(self) -> LineReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
