"""Exact nearest-neighbour search over a vector index, from an in-memory float32 matrix per index.

SQLite holds the truth (``st_vector_entries``: each entry's vector packed as float32, see
``_storage/vectors``). Each process keeps, per vector index it has searched, a copy of those vectors as numpy
matrices -- one per SearchSchema HASH value (one for an index without one), since every search is confined
to one partition -- with each row's INLINE_FILTER values as integer codes, so a filter is a vectorised
comparison and a search never decodes an item's JSON: a matrix-vector product over the partition's rows,
``argpartition`` for the best candidates, and their exact scores in float64. Only the TopK items found are
read from the table.

The copy is built from SQLite on the first search after the engine opens (so it survives a restart or a
killed process: nothing is persisted but SQLite), then patched by the changes each committed write
transaction made (``Storage.on_vector_commit``; a rolled-back transaction never reaches it). It carries
the index's version (``st_vector_versions``), which every write transaction touching the index bumps: a
search whose copy's version is not SQLite's -- another process wrote, or the index was dropped -- rebuilds
it first. Everything here runs under the storage's lock.

numpy is the ``vector`` extra: it is imported only when an index is searched.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import orjson

from singletable.engine._schema import VectorIndexSchema
from singletable.engine._storage import Storage, StoredVector, VectorChange
from singletable.engine._vector_definitions import require_numpy

F32_MAX = 3.4028234663852886e38
# Candidates taken by the float32 pass beyond TopK, re-scored exactly: room for float32 rounding to
# reorder scores that nearly tie at the cut.
_MARGIN = 16
_CHUNK = 4096

Key = tuple[bytes, bytes]


def _np() -> Any:
    require_numpy()
    import numpy

    return numpy


class Partition:
    """The rows of one partition: vectors (``matrix``), squared norms, keys, and filter codes per attribute
    (-1: the item has no value for it). Deleting moves the last row into the hole."""

    __slots__ = ("codes", "count", "keys", "matrix", "positions", "squares")

    def __init__(self, np: Any, dimensions: int, filter_names: tuple[str, ...], capacity: int = 16) -> None:
        self.matrix = np.empty((capacity, dimensions), dtype=np.float32)
        self.squares = np.empty(capacity, dtype=np.float64)
        self.codes = {name: np.empty(capacity, dtype=np.int64) for name in filter_names}
        self.keys: list[Key] = []
        self.positions: dict[Key, int] = {}
        self.count = 0

    def _grow(self, np: Any, needed: int) -> None:
        capacity = len(self.matrix)
        if needed <= capacity:
            return
        capacity = max(needed, capacity * 2)
        matrix = np.empty((capacity, self.matrix.shape[1]), dtype=np.float32)
        matrix[: self.count] = self.matrix[: self.count]
        self.matrix = matrix
        squares = np.empty(capacity, dtype=np.float64)
        squares[: self.count] = self.squares[: self.count]
        self.squares = squares
        for name, codes in self.codes.items():
            grown = np.empty(capacity, dtype=np.int64)
            grown[: self.count] = codes[: self.count]
            self.codes[name] = grown

    def put(self, np: Any, key: Key, vector: Any, codes: dict[str, int]) -> None:
        row = self.positions.get(key)
        if row is None:
            self._grow(np, self.count + 1)
            row = self.count
            self.count += 1
            self.keys.append(key)
            self.positions[key] = row
        self.matrix[row] = vector
        as64 = vector.astype(np.float64)
        self.squares[row] = float(as64 @ as64)
        for name, column in self.codes.items():
            column[row] = codes.get(name, -1)

    def put_many(self, np: Any, keys: list[Key], vectors: Any, codes: dict[str, list[int]]) -> None:
        """Append rows known to be new (building from SQLite)."""
        start, end = self.count, self.count + len(keys)
        self._grow(np, end)
        self.matrix[start:end] = vectors
        self.squares[start:end] = np.einsum("ij,ij->i", vectors, vectors, dtype=np.float64)
        for name, column in self.codes.items():
            column[start:end] = codes[name]
        for offset, key in enumerate(keys):
            self.positions[key] = start + offset
        self.keys.extend(keys)
        self.count = end

    def remove(self, key: Key) -> None:
        row = self.positions.pop(key, None)
        if row is None:
            return
        last = self.count - 1
        if row != last:
            moved = self.keys[last]
            self.matrix[row] = self.matrix[last]
            self.squares[row] = self.squares[last]
            for column in self.codes.values():
                column[row] = column[last]
            self.keys[row] = moved
            self.positions[moved] = row
        self.keys.pop()
        self.count = last


class IndexMatrix:
    """One vector index's in-memory copy, at ``version``."""

    def __init__(self, np: Any, vindex: VectorIndexSchema, version: int) -> None:
        self.np = np
        self.vindex = vindex
        self.version = version
        self.filter_names = tuple(attr.name for attr in vindex.filters)
        # Filter attribute -> value text -> code (codes are never reused while the copy lives).
        self.values: dict[str, dict[str, int]] = {name: {} for name in self.filter_names}
        self.partitions: dict[bytes, Partition] = {}
        # Which partition holds each item (an update may move it to another HASH value).
        self.part_of: dict[Key, bytes] = {}

    def code(self, name: str, text: str) -> int:
        table = self.values[name]
        code = table.get(text)
        if code is None:
            code = table[text] = len(table)
        return code

    def _codes(self, filters: bytes) -> dict[str, int]:
        if not self.filter_names:
            return {}
        return {name: self.code(name, text) for name, text in orjson.loads(filters).items()}

    def partition(self, part: bytes) -> Partition:
        found = self.partitions.get(part)
        if found is None:
            found = self.partitions[part] = Partition(self.np, self.vindex.dimensions, self.filter_names)
        return found

    def load(self, rows: list[StoredVector]) -> None:
        """Append rows read from SQLite (each item once)."""
        np = self.np
        grouped: dict[bytes, list[StoredVector]] = {}
        for row in rows:
            grouped.setdefault(row.part, []).append(row)
        for part, members in grouped.items():
            vectors = np.frombuffer(b"".join(m.vector for m in members), dtype="<f4").reshape(
                len(members), self.vindex.dimensions
            )
            codes: dict[str, list[int]] = {name: [] for name in self.filter_names}
            if self.filter_names:
                for member in members:
                    found = self._codes(member.filters)
                    for name in self.filter_names:
                        codes[name].append(found.get(name, -1))
            keys = [(m.pk, m.sk) for m in members]
            self.partition(part).put_many(np, keys, vectors, codes)
            for key in keys:
                self.part_of[key] = part

    def apply(self, change: VectorChange) -> None:
        """Patch in one committed change."""
        key = (change.pk, change.sk)
        entry = change.entry
        old_part = self.part_of.get(key)
        if old_part is not None and (entry is None or entry.part != old_part):
            self.partitions[old_part].remove(key)
            del self.part_of[key]
        if entry is None:
            return
        vector = self.np.frombuffer(entry.vector, dtype="<f4")
        self.partition(entry.part).put(self.np, key, vector, self._codes(entry.filters))
        self.part_of[key] = entry.part


class VectorMatrices:
    """The engine's in-memory copies of its vector indexes, by (table id, index id)."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.indexes: dict[tuple[int, int], IndexMatrix] = {}
        # Seconds the last build from SQLite took (the bench reports it).
        self.last_build_seconds = 0.0

    def retain(self, live: set[tuple[int, int]]) -> None:
        """Forget the matrices of every index not in ``live`` (the catalog's vector indexes)."""
        for key in [key for key in self.indexes if key not in live]:
            del self.indexes[key]

    def committed(self, changes: list[VectorChange]) -> None:
        """A write transaction committed ``changes``: patch the copies they touch (one version each)."""
        touched: set[tuple[int, int]] = set()
        for change in changes:
            matrix = self.indexes.get((change.table_id, change.index_id))
            if matrix is None:
                continue
            matrix.apply(change)
            touched.add((change.table_id, change.index_id))
        for key in touched:
            self.indexes[key].version += 1

    def matrix(self, table_id: int, vindex: VectorIndexSchema) -> IndexMatrix:
        """The index's copy, current with SQLite (built or rebuilt here when it is not)."""
        np = _np()
        key = (table_id, vindex.index_id)
        storage = self.storage
        current = self.indexes.get(key)
        version = storage.vector_version(table_id, vindex.index_id)
        if current is not None and current.version == version and current.vindex == vindex:
            return current
        started = time.perf_counter()
        with storage.read():
            version = storage.vector_version(table_id, vindex.index_id)
            matrix = IndexMatrix(np, vindex, version)
            for part, size in storage.vector_partition_sizes(table_id, vindex.index_id).items():
                matrix.partitions[part] = Partition(np, vindex.dimensions, matrix.filter_names, max(16, size))
            cursor = storage.vector_rows(table_id, vindex.index_id)
            while True:
                chunk = cursor.fetchmany(_CHUNK)
                if not chunk:
                    break
                matrix.load([StoredVector(*row) for row in chunk])
        self.last_build_seconds = time.perf_counter() - started
        self.indexes[key] = matrix
        return matrix


@dataclass(slots=True)
class Hit:
    """One search result before its item is read: the item's key, its score and its float32 vector."""

    key: Key
    score: float
    vector: Any


def _scores(np: Any, distance: str, vectors: Any, query: Any) -> Any:
    """Exact scores (float64) of ``vectors`` against ``query``, as AWS defines them."""
    v = vectors.astype(np.float64)
    q = query.astype(np.float64)
    if distance == "EUCLIDEAN":
        diff = v - q
        scores = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    elif distance == "DOT_PRODUCT":
        scores = v @ q
    else:
        dots = v @ q
        norms = np.sqrt(np.einsum("ij,ij->i", v, v)) * math.sqrt(float(q @ q))
        with np.errstate(divide="ignore", invalid="ignore"):
            scores = np.where(norms == 0.0, 1.0, 1.0 - dots / np.where(norms == 0.0, 1.0, norms))
        scores = np.clip(scores, 0.0, 2.0)
        identical = np.all(vectors == query, axis=1) & (norms != 0.0)
        scores = np.where(identical, 0.0, scores)
    return np.clip(scores, -F32_MAX, F32_MAX)


def search(matrix: IndexMatrix, part: bytes, query: Any, top_k: int, mask: Any | None) -> list[Hit]:
    """The ``top_k`` nearest rows of partition ``part`` (``mask``: which rows pass the filter, or None),
    best first, ties in key order."""
    np = matrix.np
    partition = matrix.partitions.get(part)
    if partition is None or partition.count == 0:
        return []
    count = partition.count
    vectors = partition.matrix[:count]
    squares = partition.squares[:count]
    rows = None
    if mask is not None:
        rows = np.flatnonzero(mask)
        if len(rows) == 0:
            return []
        vectors = vectors[rows]
        squares = squares[rows]
    compared = len(vectors)
    distance = matrix.vindex.distance
    dots = vectors @ query
    if distance == "DOT_PRODUCT":
        rough = -dots
    elif distance == "EUCLIDEAN":
        rough = squares - 2.0 * dots
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            rough = np.where(squares == 0.0, 0.0, -dots / np.sqrt(np.where(squares == 0.0, 1.0, squares)))
    wanted = min(compared, top_k + _MARGIN)
    chosen = np.argpartition(rough, wanted - 1)[:wanted] if wanted < compared else np.arange(compared)
    exact = _scores(np, distance, vectors[chosen], query)
    keys = partition.keys
    candidates = []
    for position, score in zip(chosen.tolist(), exact.tolist(), strict=True):
        row = position if rows is None else int(rows[position])
        candidates.append((-score if distance == "DOT_PRODUCT" else score, keys[row], position))
    candidates.sort()
    hits = [
        Hit(
            key,
            float(str(np.float32(-score if distance == "DOT_PRODUCT" else score))),
            vectors[position].copy(),
        )
        for score, key, position in candidates[:top_k]
    ]
    return hits


def filter_mask(matrix: IndexMatrix, part: bytes, equalities: dict[str, str]) -> Any | None:
    """Rows of partition ``part`` whose INLINE_FILTER values equal every one of ``equalities`` (None: no
    filter); an attribute's value no row holds matches nothing."""
    if not equalities:
        return None
    np = matrix.np
    partition = matrix.partitions.get(part)
    if partition is None:
        return None
    mask = np.ones(partition.count, dtype=bool)
    for name, text in equalities.items():
        code = matrix.values[name].get(text)
        if code is None:
            return np.zeros(partition.count, dtype=bool)
        mask &= partition.codes[name][: partition.count] == code
    return mask


def float32_text(np: Any, value: float) -> str:
    """The shortest decimal that names a float32 (how the index hands back its copy of a vector)."""
    text = str(np.float32(value))
    return text[:-2] if text.endswith(".0") else text
