"""One IMMEDIATE transaction that keeps the error that ended it.

When a write fails half-way through a statement (a full disk while a big answer spills the page
cache to the log, an I/O error), SQLite rolls the transaction back by itself; a plain ROLLBACK
then raised "cannot rollback - no transaction is active" over the real reason. A COMMIT that
fails is rolled back too, so the connection is never left inside a dead transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT on an autocommit connection (isolation_level None)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            with suppress(sqlite3.Error):  # the error being raised is the one to report
                conn.execute("ROLLBACK")
        raise


__all__ = ["transaction"]
