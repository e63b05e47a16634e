"""Dynamic batching: requests wait in one queue; each worker thread takes the oldest, gathers
more until the batch holds `max_batch` rows, `max_delay` seconds have passed since it took
the first, or no other request is in the server (a lone client does not wait), runs them as one forward on the model served at that moment, and hands each
request its own rows of the outputs. The engine releases the GIL while it runs, so the
workers (and the HTTP side) overlap with it.

A request larger than `max_batch` runs alone; one that would overflow a batch waits for the
next. A request cancelled before its batch starts (its client timed out) is dropped unrun.
Rows that do not fit the model fail their own request only: a batch that does not convert is
retried request by request.
"""
import concurrent.futures
import queue
import threading
import time

from paddle.serving.model import RequestError

_STOP = object()


class _Request(object):
    __slots__ = ("rows", "future", "queued")

    def __init__(self, rows):
        self.rows = rows
        self.future = concurrent.futures.Future()
        self.queued = time.monotonic()


class Batcher(object):
    def __init__(self, slot, max_batch=64, max_delay=0.002, workers=1, metrics=None, in_flight=None):
        self.slot, self.max_batch, self.max_delay, self.metrics = slot, max_batch, max_delay, metrics
        # how many requests the server holds (received, not yet answered): a batch waits for
        # more only while some of them are not in it yet, so a lone client never waits
        self.in_flight = in_flight or (lambda: self.max_batch)
        self.queue = queue.Queue()
        self.threads = [threading.Thread(target=self._work, name="paddle-batcher-%d" % i, daemon=True)
                        for i in range(workers)]
        for t in self.threads:
            t.start()

    def submit(self, rows):
        """A Future of (model version, [per-output results]) for the request's rows."""
        request = _Request(rows)
        self.queue.put(request)
        return request.future

    def stop(self):
        """Runs what is queued, then ends the workers."""
        for _ in self.threads:
            self.queue.put(_STOP)
        for t in self.threads:
            t.join()

    def _gather(self, first):
        """[requests] of one batch starting with `first`; (batch, the request held for the next
        batch or None, whether a stop was seen)."""
        batch, rows = [first], len(first.rows)
        deadline = time.monotonic() + self.max_delay
        while rows < self.max_batch:
            if self.queue.empty() and self.in_flight() <= len(batch):
                break  # nobody else is on the way
            wait = deadline - time.monotonic()
            try:
                item = self.queue.get(timeout=wait) if wait > 0 else self.queue.get_nowait()
            except queue.Empty:
                break
            if item is _STOP:
                return batch, None, True
            if rows + len(item.rows) > self.max_batch:
                return batch, item, False
            batch.append(item)
            rows += len(item.rows)
        return batch, None, False

    def _work(self):
        held, stopping = None, False
        while True:
            first = held if held is not None else self.queue.get()
            held = None
            if first is _STOP:
                break
            batch, held, stopping = self._gather(first)
            self._run([r for r in batch if r.future.set_running_or_notify_cancel()])
            if stopping and held is None:
                break
        if held is not None and held.future.set_running_or_notify_cancel():
            self._run([held])

    def _run(self, batch):
        if not batch:
            return
        model, started = self.slot.model, time.monotonic()
        if self.metrics:
            for r in batch:
                self.metrics.queue_seconds.observe(started - r.queued)
        if len(batch) == 1:
            self._run_one(model, batch[0])
            return
        try:
            args = model.arguments([row for r in batch for row in r.rows])
        except RequestError:  # some request does not fit: each on its own, to fail only that one
            for r in batch:
                self._run_one(model, r)
            return
        except Exception as e:
            for r in batch:
                r.future.set_exception(e)
            return
        self._forward(model, batch, args)

    def _run_one(self, model, request):
        try:
            args = model.arguments(request.rows)
        except Exception as e:
            request.future.set_exception(e)
            return
        self._forward(model, [request], args)

    def _forward(self, model, batch, args):
        try:
            out = model.forward(args)
            results = model.split(out, [len(r.rows) for r in batch])
        except Exception as e:
            for r in batch:
                r.future.set_exception(e)
            return
        if self.metrics:
            self.metrics.batch_rows.observe(sum(len(r.rows) for r in batch))
        for r, result in zip(batch, results):
            r.future.set_result((model.version, result))
