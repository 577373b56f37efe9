"""History writes, one after another, on a thread of their own.

A write waits for the file's lock when another instance holds it (up to the busy timeout, ten
seconds): on the UI loop that froze drawing and typing. The app hands each write to this queue
instead and carries on; the writes still happen in the order they were asked for, so a prompt
is stored before its answer's row, and the answer's saves in the order they were taken. A
caller that must know a write is done (a request is sent only once its prompt is stored) waits
on the Future that `submit` returns.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future

Job = Callable[[], None]
_STOP = None


class StoreWriter:
    def __init__(self, name: str = "history-writer") -> None:
        self._jobs: queue.SimpleQueue[tuple[Job, Future[None]] | None] = queue.SimpleQueue()
        self._closed = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, job: Job) -> Future[None]:
        """Queue `job`; its Future completes once it (and everything queued before it) ran.

        After `close`, the job is not run and its Future is already done.
        """
        done: Future[None] = Future()
        with self._lock:
            if self._closed:
                done.set_result(None)
                return done
            self._jobs.put((job, done))
        return done

    def wait(self, timeout: float | None = None) -> bool:
        """Block until everything queued so far has run; False if `timeout` ran out first."""
        if threading.current_thread() is self._thread:
            return True  # a job asking to wait for itself would never finish
        try:
            self.submit(lambda: None).result(timeout)
        except TimeoutError:
            return False
        return True

    def close(self) -> None:
        """Run what is queued, then stop the thread (a clean exit loses no write)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._jobs.put(_STOP)
        if threading.current_thread() is not self._thread:
            self._thread.join()

    def _run(self) -> None:
        while True:
            item = self._jobs.get()
            if item is _STOP:
                return
            job, done = item
            if not done.set_running_or_notify_cancel():
                continue
            try:
                job()
            except BaseException as exc:  # handed to whoever waits on the Future
                done.set_exception(exc)
            else:
                done.set_result(None)


__all__ = ["StoreWriter"]
