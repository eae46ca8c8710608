#!/usr/bin/env python3
"""What a timeline of one prof database must show, as JSON for test/browser/check_timeline.mjs.

    python3 test/browser/timeline_expect.py OUT/hip-prof-4242.db > expect.json

Reads the db with sqlite3 (read-only) and writes one JSON object:
  meta:    the db's meta table (start_ns, ...)
  apis:    [[correlation_id, thread_id, runtime_id, begin_ns, end_ns, api_name], ...] every call
  kernels: [[correlation_id, device, stream_index, begin_ns, end_ns], ...] kernels with device times
  copies:  [[correlation_id, device, stream_index, direction, begin_ns, end_ns], ...] copies and memsets
           with device times
  directions: {direction: name}
Kernels and copies without device times are left out: the timelines do not draw them
(docs/formats.md). Single-process dbs only (not --db-merge's).
"""
import json
import sqlite3
import sys


def expectations(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        meta = dict(db.execute("SELECT key, value FROM meta"))
        apis = db.execute(
            "SELECT a.correlation_id, a.thread_id, n.runtime_id, a.begin_ns, a.end_ns, n.name"
            " FROM api_calls a JOIN api_names n USING (api_id) ORDER BY a.correlation_id").fetchall()
        kernels = db.execute(
            "SELECT correlation_id, device, stream_index, device_begin_ns, device_end_ns FROM kernels"
            " WHERE device_begin_ns IS NOT NULL AND device_end_ns IS NOT NULL ORDER BY correlation_id").fetchall()
        copies = db.execute(
            "SELECT correlation_id, device, stream_index, direction, device_begin_ns, device_end_ns FROM copies"
            " WHERE device_begin_ns IS NOT NULL AND device_end_ns IS NOT NULL ORDER BY correlation_id").fetchall()
        directions = dict(db.execute("SELECT direction, name FROM copy_directions"))
    finally:
        db.close()
    return {"db": path, "meta": meta, "apis": apis, "kernels": kernels, "copies": copies,
            "directions": directions}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    json.dump(expectations(sys.argv[1]), sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
