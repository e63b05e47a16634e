"""The server's Prometheus metrics. Counters and histograms here print what prometheus_client's
own print (the same names, `_total`/`_bucket`/`_count`/`_sum`/`_created` series and labels)
but cost less a request: one lock and a bisect instead of a lock per bucket, and a batch's
observations go in with one call (`observe_many`)."""
import bisect
import threading
import time

from prometheus_client import CollectorRegistry
from prometheus_client.metrics_core import Metric
from prometheus_client.utils import floatToGoString


class Counter(object):
    """A counter with labels; `labels(...)` gives the child to keep and `inc`."""

    def __init__(self, name, documentation, labelnames=(), registry=None):
        self.name, self.documentation, self.labelnames = name, documentation, tuple(labelnames)
        self._children = {}
        self._lock = threading.Lock()
        if not self.labelnames:
            self._plain = self.labels()
        if registry is not None:
            registry.register(self)

    def labels(self, *values):
        values = tuple(str(v) for v in values)
        if len(values) != len(self.labelnames):
            raise ValueError("%s takes the labels %s" % (self.name, ", ".join(self.labelnames)))
        with self._lock:
            if values not in self._children:
                self._children[values] = _CounterChild()
            return self._children[values]

    def inc(self, amount=1):
        self._plain.inc(amount)

    def collect(self):
        metric = Metric(self.name, self.documentation, "counter")
        with self._lock:
            children = sorted(self._children.items())
        for values, child in children:
            labels = dict(zip(self.labelnames, values))
            metric.add_sample(self.name + "_total", labels, child.value)
            metric.add_sample(self.name + "_created", labels, child.created)
        return [metric]


class _CounterChild(object):
    __slots__ = ("value", "created", "_lock")

    def __init__(self):
        self.value, self.created, self._lock = 0.0, time.time(), threading.Lock()

    def inc(self, amount=1):
        with self._lock:
            self.value += amount


class Histogram(object):
    """A histogram without labels: `observe(x)`, or `observe_many(xs)` for a batch."""

    def __init__(self, name, documentation, buckets, registry=None):
        self.name, self.documentation = name, documentation
        self.bounds = sorted(float(b) for b in buckets)
        self.counts = [0] * (len(self.bounds) + 1)  # the last: above every bound
        self.sum, self.created = 0.0, time.time()
        self._lock = threading.Lock()
        if registry is not None:
            registry.register(self)

    def observe(self, value):
        slot = bisect.bisect_left(self.bounds, value)  # a bucket holds values <= its bound
        with self._lock:
            self.counts[slot] += 1
            self.sum += value

    def observe_many(self, values):
        slots = [bisect.bisect_left(self.bounds, v) for v in values]
        total = sum(values)
        with self._lock:
            for slot in slots:
                self.counts[slot] += 1
            self.sum += total

    def collect(self):
        metric = Metric(self.name, self.documentation, "histogram")
        with self._lock:
            counts, total = list(self.counts), self.sum
        cumulative = 0
        for bound, count in zip(self.bounds + [float("inf")], counts):
            cumulative += count
            metric.add_sample(self.name + "_bucket", {"le": floatToGoString(bound)}, float(cumulative))
        metric.add_sample(self.name + "_count", {}, float(cumulative))
        metric.add_sample(self.name + "_sum", {}, total)
        metric.add_sample(self.name + "_created", {}, self.created)
        return [metric]


class Metrics(object):
    """What `paddle serve` counts: requests by path and status, rows, latency, queue time, batch sizes."""

    def __init__(self):
        self.registry = CollectorRegistry()
        self.requests = Counter("paddle_requests", "HTTP requests by path and status", ["path", "status"],
                                registry=self.registry)
        self.rows = Counter("paddle_predicted_rows", "rows run through a forward pass (with those of a "
                            "request that timed out after its batch ran)", registry=self.registry)
        self.latency_seconds = Histogram("paddle_request_latency_seconds", "/predict latency", registry=self.registry,
                                         buckets=(.0005, .001, .002, .005, .01, .02, .05, .1, .2, .5, 1, 2, 5))
        self.queue_seconds = Histogram("paddle_queue_seconds", "time a request waited for its batch",
                                       (.0001, .0005, .001, .002, .005, .01, .05, .1, 1), registry=self.registry)
        self.batch_rows = Histogram("paddle_batch_rows", "rows in each forward", registry=self.registry,
                                    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024))
        self._counters = {}

    def request_counter(self, path, status):
        """The counter of one path and status (looked up once: labels() takes a lock)."""
        key = (path, status)
        counter = self._counters.get(key)
        if counter is None:
            counter = self._counters[key] = self.requests.labels(path, status)
        return counter
