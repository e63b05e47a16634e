"""Dynamic batching: requests wait in one queue; a worker thread takes the oldest and gathers
more until the batch holds `max_batch` rows, `max_delay` seconds have passed since it took
the first, or no request is on its way (received by the server, its rows not yet here: a
lone client does not wait, and one worker does not wait for the requests of another's batch). It runs them
as one forward on the model served at that moment and hands each request its own rows of the
outputs. The engine releases the GIL while it runs, so the workers (and the HTTP side)
overlap with it.

A request larger than `max_batch` runs alone; one that would overflow a batch waits for the
next. A request cancelled before its batch starts (its client timed out) is dropped unrun.
Rows that do not fit the model fail their own request only: a batch that does not convert is
retried request by request.

A request not answered within its timeout fails with asyncio.TimeoutError: a sweep on the
event loop, a few times a timeout, ends the requests past their deadline (they all share one
timeout, so the oldest come first), instead of a timer each.

What a request costs here is kept small, since for a small model it is most of the work:
the queue is a deque (appends and pops need no lock), a sleeping worker is woken by
releasing a plain lock (a Condition costs several times that), requests await plain asyncio
futures, and a whole batch's results reach the event loop in one call_soon_threadsafe (one
wake-up of the loop a batch, not one a request).
"""
import asyncio
import collections
import threading
import time

from paddle.serving.model import RequestError


class _Request(object):
    __slots__ = ("rows", "future", "queued")

    def __init__(self, rows, future):
        self.rows = rows
        self.future = future
        self.queued = time.monotonic()


class Batcher(object):
    """Created on the event loop that submits to it (its futures belong to that loop)."""

    def __init__(self, slot, max_batch=64, max_delay=0.002, workers=1, metrics=None, arriving=None, loop=None,
                 timeout=None):
        self.slot, self.max_batch, self.max_delay, self.metrics = slot, max_batch, max_delay, metrics
        # how many requests are on their way (received, not yet submitted): a batch waits for
        # more only while some are; None: always up to max_delay
        self.arriving = arriving or (lambda: 1)
        self.loop = loop or asyncio.get_running_loop()
        self.pending = collections.deque()
        # held while nobody needs a worker; released to wake one (a release of a released
        # lock is a RuntimeError: the wake-up is already on its way)
        self.wake = threading.Lock()
        self.wake.acquire()
        self.sleeping = 0  # workers asleep on `wake` (or about to be): only then does submit wake one
        self.counting = threading.Lock()  # for `sleeping`: += from two threads can lose a count
        self.stopping = False
        self.timeout = timeout
        self.deadlines = collections.deque()  # (deadline, future), oldest first
        self.sweep_every = None if timeout is None else min(max(timeout / 8.0, 0.001), 0.05)
        self.sweeping = False
        self.threads = [threading.Thread(target=self._work, name="paddle-batcher-%d" % i, daemon=True)
                        for i in range(workers)]
        for t in self.threads:
            t.start()

    def submit(self, rows):
        """An asyncio Future (of the batcher's loop, on which this is called) of (model version,
        {output: per-row results}) for the request's rows: asyncio.TimeoutError after `timeout`
        seconds; a request whose future is done (cancelled, timed out) is dropped unrun."""
        future = self.loop.create_future()
        request = _Request(rows, future)
        self.pending.append(request)
        # a worker counts itself asleep before it looks at the queue, so either it sees this
        # request or this sees it asleep (the GIL orders the two)
        if self.sleeping:
            self._wake_one()
        if self.timeout is not None:
            self.deadlines.append((request.queued + self.timeout, future))
            if not self.sweeping:
                self.sweeping = True
                self.loop.call_later(self.sweep_every, self._sweep)
        return future

    def _sweep(self):
        """On the event loop: fails the requests past their deadline; again later while any wait."""
        now, deadlines = time.monotonic(), self.deadlines
        while deadlines:
            deadline, future = deadlines[0]
            if not future.done():
                if deadline > now:
                    break
                future.set_exception(asyncio.TimeoutError())
            deadlines.popleft()
        if deadlines:
            self.loop.call_later(self.sweep_every, self._sweep)
        else:
            self.sweeping = False

    def nudge(self):
        """Wakes a sleeping worker to look again (a request it waited for will not come)."""
        if self.sleeping:
            self._wake_one()

    def _wake_one(self):
        try:
            self.wake.release()
        except RuntimeError:
            pass

    def stop(self):
        """Runs what is queued, then ends the workers."""
        self.stopping = True
        self._wake_one()  # each worker wakes the next as it ends
        for t in self.threads:
            t.join()

    def _sleep(self, seconds=None):
        """Waits until a request arrives, a stop, or `seconds` (None: no limit) have passed
        (or less: a wake-up meant for an earlier sleep may end this one)."""
        with self.counting:
            self.sleeping += 1
        try:
            if not self.pending and not self.stopping:
                self.wake.acquire(True, -1 if seconds is None else seconds)
        finally:
            with self.counting:
                self.sleeping -= 1

    def _take(self):
        """The requests of the next batch ([] once stopping with nothing queued)."""
        while not self.pending:
            if self.stopping:
                return []
            self._sleep()
        batch, rows, deadline = [], 0, None
        while True:
            while self.pending and rows < self.max_batch:
                try:
                    request = self.pending.popleft()
                except IndexError:  # another worker took it
                    break
                if request.future.done():
                    continue  # cancelled or timed out: dropped unrun
                if batch and rows + len(request.rows) > self.max_batch:
                    self.pending.appendleft(request)  # the next batch starts with it
                    return batch
                batch.append(request)
                rows += len(request.rows)
            if not batch:
                if self.stopping and not self.pending:
                    return []
                self._sleep()
                continue
            if rows >= self.max_batch or self.stopping or self.arriving() <= 0:
                return batch  # full, or nobody else is on the way
            if deadline is None:
                deadline = time.monotonic() + self.max_delay
            wait = deadline - time.monotonic()
            if wait <= 0:
                return batch
            self._sleep(wait)

    def _work(self):
        while True:
            batch = self._take()
            if not batch:
                self._wake_one()  # the next worker, to see the stop too
                return
            if self.pending and self.sleeping:
                self._wake_one()  # two requests may have woken only one worker
            try:
                outcomes = self._run(batch)
            except Exception as e:  # (a bug here must fail the batch, not end the worker)
                outcomes = [(r.future, False, e) for r in batch]
            self._deliver(outcomes)

    def _deliver(self, outcomes):
        """Hands [(future, ok, result or exception)] to the event loop in one call."""
        try:
            self.loop.call_soon_threadsafe(_settle, outcomes)
        except RuntimeError:  # the loop has closed: nobody awaits these any more
            pass

    def _run(self, batch):
        model, started = self.slot.model, time.monotonic()
        if self.metrics:
            self.metrics.queue_seconds.observe_many([started - r.queued for r in batch])
        if len(batch) == 1:
            return self._run_one(model, batch[0])
        try:
            args = model.arguments([row for r in batch for row in r.rows])
        except RequestError:  # some request does not fit: each on its own, to fail only that one
            return [outcome for r in batch for outcome in self._run_one(model, r)]
        except Exception as e:
            return [(r.future, False, e) for r in batch]
        return self._forward(model, batch, args)

    def _run_one(self, model, request):
        try:
            args = model.arguments(request.rows)
        except Exception as e:
            return [(request.future, False, e)]
        return self._forward(model, [request], args)

    def _forward(self, model, batch, args):
        counts = [len(r.rows) for r in batch]
        try:
            out = model.forward(args)
            results = model.split(out, counts)
        except Exception as e:
            return [(r.future, False, e) for r in batch]
        if self.metrics:
            total = sum(counts)
            self.metrics.batch_rows.observe(total)
            self.metrics.rows.inc(total)
        return [(r.future, True, (model.version, result)) for r, result in zip(batch, results)]


def _settle(outcomes):
    """On the event loop: each request's result or error (a request cancelled meanwhile keeps
    its cancellation)."""
    for future, ok, value in outcomes:
        if not future.done():
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)
