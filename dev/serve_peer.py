"""The Python peer of `proactive serve` for dev/load-serve.sh.

FastAPI under uvicorn, written the way a competent Python user would write it:

- POST /v1/suggestions  {"user": U, "k": 4, ...}: `W @ x` (numpy, float64) over
  the user's exported weights (`proactive models export-weights`: the logistic
  part of the engine's live model and the feature vector of the load's moment,
  read once at start-up and held in memory), then the top k by
  `np.argpartition` and a sort of those k. It does less than the engine: no
  feature encoding per request (x is precomputed for the one moment the load
  asks about), no blend with the profile model, no declarations, feedback or
  Focus filters, no reasons.
- POST /v1/donations  JSON Lines: each line parsed with `json.loads` and
  checked (user, app, intent strings; date a number or ISO 8601 with offset;
  parameters an object), the good lines inserted in one transaction (one
  `INSERT OR IGNORE` each, so a duplicate (app, identifier) is reported per
  line) into SQLite in WAL mode with `synchronous = NORMAL` (the engine's
  settings); the answer says per line stored, duplicate or rejected and why.

With PEER_LAYOUT=engine the donations go into the engine's own table layout
instead (the `donation` table of Sources/ProactiveStore/Database/DonationSchema.swift
as migrated: STRICT, the same CHECKs including json_valid on parameters and
context, UNIQUE (app, identifier) where an identifier is set, an (app, group_id)
index, and UNIQUE (user, date_ms, content_hash) with a 64-bit content hash of
every field computed in Python), so that a donation costs the peer the same
checks and indexes it costs the engine: the fair peer for the donation route.

Environment: PEER_WEIGHTS (the export directory), PEER_DB (the SQLite file),
PEER_LAYOUT (`simple`, the default, or `engine`).
"""
import datetime
import hashlib
import json
import os
import sqlite3

import numpy as np
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

WEIGHTS = os.environ["PEER_WEIGHTS"]
DB = os.environ["PEER_DB"]

MODELS = {}
with open(os.path.join(WEIGHTS, "index.json")) as handle:
    for entry in json.load(handle):
        raw = np.fromfile(os.path.join(WEIGHTS, entry["file"]), dtype="<f8")
        rows, columns = len(entry["targets"]), entry["columns"]
        MODELS[entry["user"]] = (raw[: rows * columns].reshape(rows, columns), raw[rows * columns:].copy(), entry["targets"])

connection = sqlite3.connect(DB, isolation_level=None, check_same_thread=False, timeout=30)
connection.execute("PRAGMA journal_mode = WAL")
connection.execute("PRAGMA synchronous = NORMAL")
LAYOUT = os.environ.get("PEER_LAYOUT", "simple")
if LAYOUT not in ("simple", "engine"):
    raise SystemExit(f"PEER_LAYOUT must be simple or engine, not {LAYOUT!r}")
if LAYOUT == "simple":
    connection.execute("""CREATE TABLE IF NOT EXISTS donation (
        id INTEGER PRIMARY KEY, user TEXT NOT NULL, app TEXT NOT NULL, intent TEXT NOT NULL,
        parameters TEXT NOT NULL, date REAL NOT NULL, identifier TEXT, UNIQUE (app, identifier))""")
    INSERT = "INSERT OR IGNORE INTO donation (user, app, intent, parameters, date, identifier) VALUES (?, ?, ?, ?, ?, ?)"
else:
    connection.executescript("""
        CREATE TABLE IF NOT EXISTS donation_engine_layout (
            id INTEGER PRIMARY KEY,
            user TEXT NOT NULL CHECK (user <> ''),
            app TEXT NOT NULL CHECK (app <> ''),
            intent TEXT NOT NULL CHECK (intent <> ''),
            parameters TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(parameters) AND json_type(parameters) = 'object'),
            date_ms INTEGER NOT NULL CHECK (date_ms BETWEEN 0 AND 7289654399999),
            utc_offset INTEGER CHECK (utc_offset BETWEEN -64800 AND 64800),
            identifier TEXT CHECK (identifier <> ''),
            group_id TEXT CHECK (group_id <> ''),
            context TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(context) AND json_type(context) = 'object'),
            count INTEGER NOT NULL DEFAULT 1 CHECK (count BETWEEN 1 AND 2147483647),
            content_hash INTEGER
        ) STRICT;
        CREATE UNIQUE INDEX IF NOT EXISTS engine_layout_app_identifier ON donation_engine_layout(app, identifier)
            WHERE identifier IS NOT NULL;
        CREATE INDEX IF NOT EXISTS engine_layout_app_group ON donation_engine_layout(app, group_id);
        CREATE UNIQUE INDEX IF NOT EXISTS engine_layout_user_date_content ON donation_engine_layout(user, date_ms, content_hash);
        """)
    INSERT = """INSERT OR IGNORE INTO donation_engine_layout
        (user, app, intent, parameters, date_ms, utc_offset, identifier, context, content_hash)
        VALUES (?, ?, ?, ?, ?, ?, ?, '{}', ?)"""

app = FastAPI()


def error(status, message, field=None):
    body = {"status": status, "code": "invalid_field" if field else "invalid_request", "message": message}
    if field:
        body["field"] = field
    return JSONResponse({"error": body}, status_code=status)


@app.post("/v1/suggestions")
async def suggestions(request: Request):
    try:
        body = await request.json()
    except ValueError as problem:
        return error(400, f"invalid JSON: {problem}")
    if not isinstance(body, dict):
        return error(400, "the body must be a JSON object")
    user = body.get("user", "default")
    k = body.get("k", 4)
    if not isinstance(k, int) or not 1 <= k <= 100:
        return error(400, "must be an integer from 1 to 100", "k")
    model = MODELS.get(user)
    if model is None:
        return error(404, f"user {user} has no donations")
    weights, x, targets = model
    scores = weights @ x
    k = min(k, len(targets))
    top = np.argpartition(-scores, k - 1)[:k]
    top = top[np.argsort(-scores[top])]
    return {"user": user, "suggestions": [{"target": targets[i], "score": float(scores[i])} for i in top]}


def parse_date(value):
    """Seconds since 1970 and the UTC offset it was written in (seconds; None for a number)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value), None
    if isinstance(value, str):
        parsed = datetime.datetime.fromisoformat(value)
        if parsed.tzinfo is None:
            raise ValueError("a date needs an offset")
        return parsed.timestamp(), int(parsed.utcoffset().total_seconds())
    raise ValueError("a date is a number or an ISO 8601 string")


def content_hash(row):
    """64 bits of BLAKE2b over every stored field (what makes two donations the same), as a signed integer."""
    digest = hashlib.blake2b("\x1f".join("" if field is None else str(field) for field in row).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


def check(line):
    donation = json.loads(line)
    if not isinstance(donation, dict):
        raise ValueError("a donation is a JSON object")
    for field in ("app", "intent"):
        if not isinstance(donation.get(field), str) or not donation[field]:
            raise ValueError(f"{field}: a non-empty string")
    user = donation.get("user", "default")
    if not isinstance(user, str) or not user:
        raise ValueError("user: a non-empty string")
    parameters = donation.get("parameters") or {}
    if not isinstance(parameters, dict):
        raise ValueError("parameters: an object")
    identifier = donation.get("identifier")
    if identifier is not None and not isinstance(identifier, str):
        raise ValueError("identifier: a string")
    seconds, offset = parse_date(donation.get("date"))
    parameters = json.dumps(parameters, separators=(",", ":"), sort_keys=True)
    if LAYOUT == "simple":
        return (user, donation["app"], donation["intent"], parameters, seconds, identifier)
    row = (user, donation["app"], donation["intent"], parameters, round(seconds * 1000), offset, identifier)
    return row + (content_hash(row),)


@app.post("/v1/donations")
async def donations(request: Request):
    text = (await request.body()).decode("utf-8", errors="replace")
    results, rows = [], []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            rows.append((number, check(line)))
        except (ValueError, TypeError) as problem:
            results.append({"line": number, "status": "rejected", "reason": str(problem)})
    stored = 0
    connection.execute("BEGIN IMMEDIATE")
    try:
        before = connection.total_changes
        for number, row in rows:
            cursor = connection.execute(INSERT, row)
            results.append({"line": number, "status": "stored" if cursor.rowcount == 1 else "duplicate"})
        stored = connection.total_changes - before
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    results.sort(key=lambda result: result["line"])
    rejected = sum(1 for result in results if result["status"] == "rejected")
    return {"stored": stored, "duplicates": len(rows) - stored, "rejected": rejected, "results": results}


@app.get("/healthz")
async def health():
    return Response('{"status":"ok"}', media_type="application/json")
