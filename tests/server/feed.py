"""Files arriving in a folder, the stand-in for a Kinesis/Firehose source in the tests."""

from __future__ import annotations

import json
import os
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

BASE = datetime(2024, 1, 1, 10, 0, tzinfo=timezone.utc)


def write_rows(folder: Path, name: str, rows: list[dict]) -> None:
    """One JSON-lines file, written under a hidden name and renamed: readers never see half of it."""
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{name}.tmp"
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    os.replace(tmp, folder / f"{name}.json")


def row(i: int, **extra) -> dict:  # type: ignore[no-untyped-def]
    ts = (BASE + timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"ROWTIME": ts, "id": i, **extra}


class Feeder(threading.Thread):
    """Writes `per_file` rows with consecutive ids every `every` seconds until stopped."""

    def __init__(self, folder: Path, per_file: int = 20, every: float = 0.3) -> None:
        super().__init__(daemon=True)
        self.folder, self.per_file, self.every = folder, per_file, every
        self.next_id = 0
        self.files = 0
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            ids = range(self.next_id, self.next_id + self.per_file)
            write_rows(self.folder, f"f{self.files:06d}", [row(i) for i in ids])
            self.next_id += self.per_file
            self.files += 1
            self._halt.wait(self.every)

    def stop(self) -> int:
        self._halt.set()
        self.join()
        return self.next_id
