"""The HTTP side of `paddle serve`: a Starlette (ASGI) application run by uvicorn.

ASGI lets thousands of requests wait on a batch without a thread each: a request handler
only checks limits, queues its rows with the Batcher and awaits its future; the engine runs
on the batcher's threads.

  POST /predict   {"rows": [row, ...]} (JSON), or a .npy array (Content-Type
                  application/x-npy: one row per line, for a model with one dense input) or
                  an .npz archive (application/x-npz: an array per data layer)
                  -> {"version", "outputs": {layer: [per row]}, "id", "label" (when a
                  vocabulary of the model names the classes)}
  GET  /health    200 while the process runs
  GET  /ready     200 with the model's inputs and outputs once it is loaded, else 503
  GET  /metrics   Prometheus text: requests by status, rows, batch sizes, queue time, latency
  POST /reload    {"model_file": PATH} or {} (the same file again): loads it beside the served
                  one and swaps it in; batches formed before run on the old model
"""
import asyncio
import contextlib
import hashlib
import io
import json
import logging
import time

import numpy as np
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from paddle.serving.batcher import Batcher
from paddle.serving.metrics import Metrics
from paddle.serving.model import ModelSlot, RequestError, ServedModel, to_json

try:  # orjson reads and writes JSON several times faster than the json module (a serve extra)
    import orjson

    def _json_loads(body):
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            # what json reads beyond strict JSON (NaN, integers past 64 bits) gets its usual answer
            return json.loads(body)

    def _json_dumps(payload):
        # float64 arrays print as the shortest text that reads back the same double, as json's
        return orjson.dumps(payload, option=orjson.OPT_SERIALIZE_NUMPY, default=_plain)

    def _plain(value):
        if isinstance(value, (np.ndarray, np.generic)):
            return value.tolist()  # what orjson does not print itself (other dtypes, strided views)
        raise TypeError(type(value).__name__)

    NUMPY_IN_JSON = True
except ImportError:
    def _json_loads(body):
        return json.loads(body)

    def _json_dumps(payload):
        return json.dumps(payload, separators=(",", ":")).encode("utf-8")

    NUMPY_IN_JSON = False

ACCESS_LOG = logging.getLogger("paddle.serve.access")


def model_version(path):
    """A model file's version: its content's hash, so a reload of the same file keeps it."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()[:12]


def load_model(options):
    version = model_version(options.model_file) if options.model_file else None
    return ServedModel(options.model_file, options.config, options.model_dir, options.config_args, version)


def _error(status, message):
    return JSONResponse({"error": message}, status_code=status)


class _Exchange(object):
    """One HTTP request at the ASGI level: /predict reads its body and headers here, since
    Starlette's Request and JSONResponse cost more than a small model's forward."""

    def __init__(self, scope, receive):
        self.receive, self.arriving = receive, True
        self.method, self.path = scope["method"], scope["path"]
        self.content_type, self.content_length = "application/json", None
        for name, value in scope["headers"]:  # (ASGI servers give header names in lower case)
            if name == b"content-type":
                self.content_type = value.decode("latin-1")
            elif name == b"content-length":
                self.content_length = value.decode("latin-1")
        self.client = scope["client"][0] if scope.get("client") else None

    async def body(self, limit):
        """The request's bytes; _TooLarge once it passes `limit`, ClientDisconnect if the client left."""
        declared = self.content_length
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise _TooLarge(int(declared))
        data = None
        while True:
            message = await self.receive()
            if message["type"] == "http.disconnect":
                raise ClientDisconnect()
            chunk = message.get("body", b"")
            if data is None and not message.get("more_body", False):
                if len(chunk) > limit:
                    raise _TooLarge(len(chunk))
                return chunk  # the whole body in one message, the usual case
            data = bytearray() if data is None else data
            data += chunk
            if len(data) > limit:
                raise _TooLarge(len(data))
            if not message.get("more_body", False):
                return bytes(data)


async def _send_json(send, status, payload):
    body = _json_dumps(payload) if payload is not None else b""
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    pass


def _rows_of(body, content_type, model):
    """Request rows from a JSON, .npy or .npz body."""
    kind = content_type.split(";")[0].strip().lower()
    if kind in ("application/x-npy", "application/octet-stream"):
        if len(model.inputs) != 1:
            raise RequestError("an .npy body feeds one data layer; the model reads %s: send an .npz"
                               % ", ".join(model.inputs))
        array = _load_array(body, "body")
        if array.ndim != 2:
            raise RequestError("body: expected a 2-d array (rows x %d), got shape %s"
                               % (model.input_types[0][1], array.shape))
        return [{model.inputs[0]: row} for row in array.tolist()]
    if kind == "application/x-npz":
        try:
            archive = np.load(io.BytesIO(body), allow_pickle=False)
            arrays = {name: archive[name] for name in archive.files}
        except Exception as e:
            raise RequestError("body: not an .npz archive (%s)" % e)
        missing = [n for n in model.inputs if n not in arrays]
        if missing or set(arrays) - set(model.inputs):
            raise RequestError("body: the archive holds %s; the model reads %s"
                               % (", ".join(sorted(arrays)) or "nothing", ", ".join(model.inputs)))
        counts = {n: len(a) for n, a in arrays.items()}
        if len(set(counts.values())) != 1:
            raise RequestError("body: the arrays have different row counts %s" % counts)
        lists = {n: arrays[n].tolist() for n in model.inputs}
        return [{n: lists[n][r] for n in model.inputs} for r in range(len(lists[model.inputs[0]]))]
    try:
        payload = _json_loads(body)
    except (ValueError, UnicodeDecodeError) as e:
        raise RequestError("body: not JSON (%s)" % e)
    if isinstance(payload, dict):
        if set(payload) != {"rows"}:
            raise RequestError("body: expected {\"rows\": [...]}, got the field(s) %s" % ", ".join(sorted(payload)))
        payload = payload["rows"]
    if not isinstance(payload, list) or not payload:
        raise RequestError("rows: expected a non-empty list of rows")
    return payload


def _load_array(body, where):
    try:
        return np.load(io.BytesIO(body), allow_pickle=False)
    except Exception as e:
        raise RequestError("%s: not an .npy array (%s)" % (where, e))


def create_app(options, model=None):
    """The application for `options` (paddle serve's flags); `model` a ServedModel already loaded."""
    metrics = Metrics()
    # arriving: /predict requests received whose rows are not yet with the batcher (a batch
    # waits for more only while some are on their way: a lone client never waits)
    state = {"slot": None, "batcher": None, "reloading": asyncio.Lock(), "arriving": 0}

    async def startup():
        served = model or await asyncio.to_thread(load_model, options)
        state["slot"] = ModelSlot(served)
        state["batcher"] = Batcher(state["slot"], options.max_batch, options.max_delay_ms / 1000.0,
                                   options.workers, metrics, arriving=lambda: state["arriving"],
                                   timeout=options.timeout_ms / 1000.0)
        logging.getLogger("paddle.serve").info("serving %s (version %s)", served.source, served.version)

    async def shutdown():
        if state["batcher"] is not None:
            await asyncio.to_thread(state["batcher"].stop)  # what is queued still runs

    def log(request, status, started, **fields):
        """Counts and logs a request (an _Exchange, or Starlette's Request for the other paths)."""
        if not isinstance(request, _Exchange):
            request = _Exchange(request.scope, None)
        metrics.request_counter(request.path, status).inc()
        if ACCESS_LOG.isEnabledFor(logging.INFO):
            ACCESS_LOG.info(json.dumps(dict({"method": request.method, "path": request.path, "status": status,
                                             "ms": round((time.monotonic() - started) * 1000, 3),
                                             "client": request.client}, **fields)))

    async def predict(scope, receive, send):
        request = _Exchange(scope, receive)
        state["arriving"] += 1  # (the event loop's thread alone writes it)
        try:
            status, payload = await _predict(request)
        finally:
            if request.arriving:  # it ended before reaching the batcher
                state["arriving"] -= 1
                if state["batcher"] is not None:
                    state["batcher"].nudge()  # a batch waiting for it need not
        await _send_json(send, status, payload)

    async def _predict(request):
        """(status, JSON payload) of one /predict request."""
        started = time.monotonic()
        slot, batcher = state["slot"], state["batcher"]
        if slot is None:
            log(request, 503, started)
            return 503, {"error": "the model is still loading"}
        try:
            body = await request.body(options.max_request_bytes)
            rows = _rows_of(body, request.content_type, slot.model)
            if len(rows) > options.max_rows:
                raise RequestError("rows: %d rows, more than --max_rows=%d" % (len(rows), options.max_rows))
            request.arriving = False
            state["arriving"] -= 1
            version, result = await batcher.submit(rows)  # asyncio.TimeoutError after --timeout_ms
        except ClientDisconnect:
            log(request, 499, started)  # nginx's code: the client closed the connection first
            return 499, None
        except _TooLarge as e:
            log(request, 413, started)
            return 413, {"error": "the body has %s bytes, more than --max_request_bytes=%d"
                                  % (e.args[0], options.max_request_bytes)}
        except RequestError as e:
            log(request, 400, started, error=str(e))
            return 400, {"error": str(e)}
        except asyncio.TimeoutError:
            log(request, 504, started)
            return 504, {"error": "no result within --timeout_ms=%d (the request was cancelled)" % options.timeout_ms}
        except (ValueError, RuntimeError) as e:  # the engine refused the batch (e.g. an empty sequence)
            log(request, 422, started, error=str(e))
            return 422, {"error": str(e)}
        metrics.latency_seconds.observe(time.monotonic() - started)
        response = {"version": version, "outputs": {}}
        for name, value in result.items():
            (response if name in ("id", "label") else response["outputs"])[name] = to_json(value, NUMPY_IN_JSON)
        log(request, 200, started, rows=len(rows), version=version)
        return 200, response

    async def predict_route(request):  # only other methods reach Starlette's /predict: they get its 405
        return _error(405, "POST /predict")

    async def health(request):
        return JSONResponse({"status": "ok"})

    async def ready(request):
        slot = state["slot"]
        if slot is None:
            return _error(503, "the model is still loading")
        return JSONResponse(dict(slot.model.describe(), status="ready"))

    async def metrics_text(request):
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    async def reload(request):
        started = time.monotonic()
        try:
            body = await _Exchange(request.scope, request.receive).body(1 << 16)
            payload = json.loads(body) if body.strip() else {}
            if not isinstance(payload, dict) or set(payload) - {"model_file"}:
                raise RequestError("body: expected {} or {\"model_file\": PATH}")
        except (ValueError, _TooLarge) as e:
            log(request, 400, started)
            return _error(400, "reload: %s" % e)
        async with state["reloading"]:
            path = payload.get("model_file", options.model_file)
            if path is None:
                new_options = options
            else:
                new_options = type(options)(**dict(vars(options), model_file=path, config=None, model_dir=None))
            try:
                served = await asyncio.to_thread(load_model, new_options)
            except (OSError, ValueError, RuntimeError) as e:
                log(request, 400, started, error=str(e))
                return _error(400, "reload: %s (still serving version %s)" % (e, state["slot"].model.version))
            old = state["slot"].swap(served)
        log(request, 200, started, version=served.version, previous=old.version)
        return JSONResponse({"version": served.version, "previous": old.version})

    routes = [Route("/predict", predict_route, methods=["POST"]), Route("/health", health), Route("/ready", ready),
              Route("/metrics", metrics_text), Route("/reload", reload, methods=["POST"])]
    @contextlib.asynccontextmanager
    async def lifespan(app):
        await startup()
        try:
            yield
        finally:
            await shutdown()

    rest = Starlette(routes=routes, lifespan=lifespan)

    async def app(scope, receive, send):
        if scope["type"] == "http" and scope["method"] == "POST" and scope["path"] == "/predict":
            await predict(scope, receive, send)
        else:
            await rest(scope, receive, send)

    return app
