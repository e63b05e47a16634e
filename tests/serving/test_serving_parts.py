"""The parts of `paddle serve` that make a request cheap, each against what it replaces: the
metrics print what prometheus_client prints, the batcher's futures, wake-ups and timeout sweep
answer every request with its own rows, and the joining transport writes a response once."""
import asyncio
import re
import threading
import time

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client import Counter as ReferenceCounter
from prometheus_client import Histogram as ReferenceHistogram

from paddle.serving.batcher import Batcher
from paddle.serving.http import _JoiningTransport
from paddle.serving.metrics import Counter, Histogram
from paddle.serving.model import ModelSlot, RequestError


def _without_created(text):
    return re.sub(r"^.*_created.*\n", "", text.decode(), flags=re.M)


def test_metrics_print_what_prometheus_client_prints():
    ours, reference = CollectorRegistry(), CollectorRegistry()
    buckets = (.0005, .001, .002, .005, .01, 1, 5)
    hist = Histogram("paddle_t_seconds", "a time", buckets, registry=ours)
    ref_hist = ReferenceHistogram("paddle_t_seconds", "a time", buckets=buckets, registry=reference)
    count = Counter("paddle_requests", "requests", ["path", "status"], registry=ours)
    ref_count = ReferenceCounter("paddle_requests", "requests", ["path", "status"], registry=reference)
    plain = Counter("paddle_rows", "rows", registry=ours)
    ref_plain = ReferenceCounter("paddle_rows", "rows", registry=reference)
    values = [0.0001, 0.0005, 0.0007, 0.002, 0.0099, 0.5, 1.0, 7.0, 0.003]
    for v in values[:4]:
        hist.observe(v)
    hist.observe_many(values[4:])
    for v in values:
        ref_hist.observe(v)
    for path, status, n in (("/predict", 200, 3), ("/predict", 400, 1), ("/reload", 200, 2)):
        for _ in range(n):
            count.labels(path, status).inc()
            ref_count.labels(path, str(status)).inc()
    plain.inc(5)
    ref_plain.inc(5)
    assert _without_created(generate_latest(ours)) == _without_created(generate_latest(reference))
    assert generate_latest(ours).decode().count("_created") == generate_latest(reference).decode().count("_created")


class _Model(object):
    """A model of rows -> row * 10; rows < 0 do not fit. Records each forward's rows."""
    version = "v1"

    def __init__(self, gate=None):
        self.forwards, self.gate = [], gate

    def arguments(self, rows):
        if any(r < 0 for r in rows):
            raise RequestError("rows: negative")
        return list(rows)

    def forward(self, rows):
        if self.gate is not None:
            self.gate.wait(10)
        self.forwards.append(rows)
        return [r * 10 for r in rows]

    def split(self, out, counts):
        results, at = [], 0
        for n in counts:
            results.append({"out": out[at:at + n]})
            at += n
        return results


def _run(coroutine):
    return asyncio.new_event_loop().run_until_complete(coroutine)


def test_concurrent_requests_share_forwards_and_each_gets_its_own_rows():
    model = _Model()

    async def go():
        batcher = Batcher(ModelSlot(model), max_batch=4, max_delay=0.05, arriving=lambda: 100)
        futures = [batcher.submit([k]) for k in range(10)] + [batcher.submit([-1]), batcher.submit([20, 21])]
        answers = await asyncio.gather(*futures, return_exceptions=True)
        await asyncio.get_running_loop().run_in_executor(None, batcher.stop)
        return answers

    answers = _run(go())
    assert [a[1]["out"] for a in answers[:10]] == [[10 * k] for k in range(10)]
    assert all(a[0] == "v1" for a in answers[:10] + answers[11:])
    assert isinstance(answers[10], RequestError)  # fails alone
    assert answers[11][1]["out"] == [200, 210]
    assert max(len(f) for f in model.forwards) > 1 and all(len(f) <= 4 for f in model.forwards)
    assert sorted(r for f in model.forwards for r in f) == list(range(10)) + [20, 21]


def test_a_request_past_its_timeout_fails_and_never_runs():
    gate = threading.Event()
    model = _Model(gate)

    async def go():
        batcher = Batcher(ModelSlot(model), max_batch=1, max_delay=0, timeout=0.1)
        first = batcher.submit([1])  # holds the one worker until the gate opens
        second = batcher.submit([2])  # waits in the queue past its deadline
        started = time.monotonic()
        with pytest.raises(asyncio.TimeoutError):
            await second
        waited = time.monotonic() - started
        with pytest.raises(asyncio.TimeoutError):
            await first  # running, but past its deadline too: its client has its 504
        gate.set()
        await asyncio.get_running_loop().run_in_executor(None, batcher.stop)
        return waited

    waited = _run(go())
    assert 0.09 < waited < 1.0
    assert model.forwards == [[1]]  # the queued one never ran


def test_a_stop_runs_what_is_queued():
    model = _Model()

    async def go():
        batcher = Batcher(ModelSlot(model), max_batch=2, max_delay=5, arriving=lambda: 100, workers=2)
        futures = [batcher.submit([k]) for k in range(5)]
        await asyncio.get_running_loop().run_in_executor(None, batcher.stop)
        return await asyncio.gather(*futures)

    answers = _run(go())
    assert [a[1]["out"] for a in answers] == [[10 * k] for k in range(5)]


class _Recorder(object):
    def __init__(self):
        self.writes, self.closed = [], False

    def write(self, data):
        self.writes.append(bytes(data))

    def close(self):
        self.closed = True

    def get_extra_info(self, name):
        return ("127.0.0.1", 8000) if name == "sockname" else None


def test_a_response_head_and_body_leave_in_one_write():
    async def go():
        recorder = _Recorder()
        transport = _JoiningTransport(recorder, asyncio.get_running_loop())
        transport.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n")
        assert recorder.writes == []  # held for the body
        transport.write(b"{}")
        one = list(recorder.writes)
        transport.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
        await asyncio.sleep(0)  # no body in this turn of the loop: the head goes alone
        await asyncio.sleep(0)
        alone = list(recorder.writes)
        transport.write(b"2\r\n{}\r\n")  # not a head: straight through
        transport.write(b"HTTP/1.1 204 No Content\r\n\r\n")
        transport.close()  # a held head leaves before the close
        return one, alone, recorder, transport

    one, alone, recorder, transport = _run(go())
    assert one == [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}"]
    assert alone[1:] == [b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"]
    assert recorder.writes[2:] == [b"2\r\n{}\r\n", b"HTTP/1.1 204 No Content\r\n\r\n"] and recorder.closed
    assert transport.get_extra_info("sockname") == ("127.0.0.1", 8000)


def test_a_batch_waits_only_while_requests_are_on_their_way():
    model = _Model()
    arriving = [0]

    async def go():
        batcher = Batcher(ModelSlot(model), max_batch=8, max_delay=30, arriving=lambda: arriving[0])
        started = time.monotonic()
        await batcher.submit([1])  # nobody on the way: no wait for more
        alone = time.monotonic() - started
        arriving[0] = 1  # a request is reading its body
        waiting = batcher.submit([2])
        await asyncio.sleep(0.2)
        held = not waiting.done()  # the batch waits for it
        arriving[0] = 0  # it failed before reaching the batcher
        batcher.nudge()
        started = time.monotonic()
        await waiting
        released = time.monotonic() - started
        await asyncio.get_running_loop().run_in_executor(None, batcher.stop)
        return alone, held, released

    alone, held, released = _run(go())
    assert alone < 1 and held and released < 1
    assert model.forwards == [[1], [2]]
