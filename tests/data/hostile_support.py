"""What the hostile-input import tests share: export directories built by hand (as AWS lays them out),
items with unique keys, the reject file read back, and a child process that imports and reports its peak
memory."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from transfer_support import SPEC, contents

EXPORT_ID = "01700000000000-a1b2c3d4"


def item(file: int, i: int, balance: int = 1042) -> dict[str, Any]:
    """An item whose key says which file and line it came from."""
    return {"PK": {"S": f"f{file}#{i}"}, "SK": {"N": str(i)}, "balance": {"N": str(balance)}}


def gzipped(items: list[dict[str, Any]]) -> bytes:
    return gzip.compress("".join(json.dumps({"Item": it}) + "\n" for it in items).encode(), mtime=0)


def md5_base64(data: bytes) -> str:
    return base64.b64encode(hashlib.md5(data).digest()).decode()


def _lines(data: bytes) -> int:
    try:
        return len(gzip.decompress(data).splitlines())
    except (EOFError, OSError):
        return 0


def build_export(root: Path, files: list[bytes], entries: list[dict[str, Any]] | None = None) -> Path:
    """An export under ``root`` (the bucket) with data files ``files`` (their bytes as stored); ``entries``
    replace the manifest entries computed from them. Returns the export's directory."""
    export = root / "AWSDynamoDB" / EXPORT_ID
    (export / "data").mkdir(parents=True)
    computed = []
    for number, data in enumerate(files):
        name = f"file{number}.json.gz"
        (export / "data" / name).write_bytes(data)
        computed.append(
            {
                "itemCount": _lines(data),
                "md5Checksum": md5_base64(data),
                "etag": hashlib.md5(data).hexdigest(),
                "dataFileS3Key": f"prefix/AWSDynamoDB/{EXPORT_ID}/data/{name}",
            }
        )
    lines = entries if entries is not None else computed
    (export / "manifest-files.json").write_text("".join(json.dumps(e) + "\n" for e in lines))
    summary = {"version": "2020-06-30", "outputFormat": "DYNAMODB_JSON", "exportType": "FULL_EXPORT"}
    (export / "manifest-summary.json").write_text(json.dumps(summary))
    return export


def rejects(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().split("\n") if line] if path.exists() else []


def stored(db: Path, table: str) -> dict[tuple[str, str], dict[str, Any]]:
    return contents(str(db), table) if db.exists() else {}


_CHILD = textwrap.dedent(
    """
    import json, re, resource, sys
    from pathlib import Path
    from singletable.data import import_table
    source, fmt, db, reject_file, spec = sys.argv[1:6]
    summary = import_table(
        db, "tbl", source, format=fmt, schema={"Table": json.loads(spec)}, on_error="reject",
        reject_file=reject_file,
    )
    # VmHWM: this process's own peak. getrusage's ru_maxrss for itself would also hold the parent's size at
    # fork (Linux keeps it across exec), which under pytest-xdist is a worker's, not the import's. The lines
    # are read in the import's reader processes, forked from this one and joined by now: their peak is the
    # largest child's ru_maxrss (a forked child's count starts afresh at its own size).
    status = Path("/proc/self/status").read_text()
    own = int(re.search(r"VmHWM:\\s+(\\d+) kB", status).group(1)) * 1024
    readers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    peak = max(own, readers)
    print(json.dumps({"summary": summary.as_dict(), "peak": peak}))
    """
)


def import_in_child(source: Path, fmt: str, db: Path, reject_file: Path) -> dict[str, Any]:
    """Import ``source`` with ``on_error="reject"`` in a child process; its summary and the peak RSS (bytes)
    of the import's own process and of its readers, whichever is larger."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(source), fmt, str(db), str(reject_file), json.dumps(SPEC)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
