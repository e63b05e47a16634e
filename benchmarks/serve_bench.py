#!/usr/bin/env python3
"""Serving benchmark: `paddle serve` on localhost under a bounded load, with and without dynamic
batching, beside the same HTTP front end calling onnxruntime once per request.

    python benchmarks/serve_bench.py                       # the digits MLP, concurrency 1, 8, 32
    python benchmarks/serve_bench.py --client wrk --seconds 10 --rounds 5 --append benchmarks/RESULTS.md
    python benchmarks/serve_bench.py --soak 300             # 5 minutes of mixed valid/invalid requests

The model is the quick start's digits MLP (demos/mnist/mlp.py, one pass on scikit-learn's
digits, merged with is_predict=1). Each request carries one row. For each server and
concurrency, a client process with that many threads (keep-alive connections) sends
--requests requests (or stops after --seconds), or with --client wrk (apt-get install wrk) wrk
keeps that many connections busy for --seconds; the table gives requests/s and the p50 and p99
latency seen by the client. A Python client takes much of the two cores the server needs, so
the wrk figures are closer to the server's own capacity.

The three servers start together and take turns, --rounds times, so that a change in the
machine's load falls on all of them; the table gives each one's medians. Beside throughput it
gives the server process's CPU time per request (user + system, all threads, from /proc),
which a busy machine disturbs much less than requests/s. The servers:
  batched      paddle serve --max_batch=64 --max_delay_ms=2
  unbatched    paddle serve --max_batch=1 (each request its own forward)
  onnxruntime  the same front end, each request one onnxruntime session.run (max_batch=1)
Client and server share the machine's cores: compare rows of one run, on a quiet machine.
"""
import argparse
import concurrent.futures
import datetime
import glob
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IN_PLACE = bool(glob.glob(os.path.join(ROOT, "py_paddle", "_swig_paddle*.so")))
if IN_PLACE:
    sys.path.insert(0, ROOT)
DEMO = os.path.join(ROOT, "demos", "mnist")


def _env():
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    if IN_PLACE:
        env["PYTHONPATH"] = ROOT
    return env


def paddle(args, cwd):
    subprocess.run([sys.executable, "-m", "paddle.trainer.cli"] + args, cwd=cwd, env=_env(), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def prepare(workdir):
    """(merged model, ONNX model) of the digits MLP."""
    paddle(["train", "--config=mlp.py", "--save_dir=" + workdir, "--num_passes=1", "--dot_period=0"], DEMO)
    merged, onnx = os.path.join(workdir, "mlp.paddle"), os.path.join(workdir, "mlp.onnx")
    paddle(["merge_model", "--config=mlp.py", "--config_args=is_predict=1",
            "--model_dir=" + os.path.join(workdir, "pass-00000"), "--output=" + merged], DEMO)
    paddle(["export_onnx", "--model_file=" + merged, "--output=" + onnx], DEMO)
    return merged, onnx


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(command):
    port = free_port()
    proc = subprocess.Popen(command + ["--port=%d" % port, "--log_level=warning"], env=_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        try:
            urllib.request.urlopen("http://127.0.0.1:%d/ready" % port, timeout=1).read()
            return proc, port
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError("the server exited: %s" % " ".join(command))
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not get ready: %s" % " ".join(command))


# ------------------------------------------------------------------ the onnxruntime front end

def serve_onnx(onnx_path, merged, argv):
    """`paddle serve`'s front end and batcher, its model answering through onnxruntime."""
    import numpy as np
    import onnxruntime as ort
    from paddle.serving.app import create_app
    from paddle.serving.cli import check, parser, run
    from paddle.serving.model import ServedModel

    class OnnxServed(ServedModel):
        def _load(self, path):
            super()._load(path)
            options = ort.SessionOptions()
            options.intra_op_num_threads = options.inter_op_num_threads = 1
            self.session = ort.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
            self.feed = self.session.get_inputs()[0].name

        def arguments(self, rows):
            # dense rows as one array, as the Predictor's server converts them; the checks else
            name, dim = self.inputs[0], self.input_types[0][1]
            if all(type(r) is dict and type(r.get(name)) is list for r in rows):
                try:
                    array = np.array([r[name] for r in rows], dtype=np.float32)
                except (ValueError, TypeError):
                    array = None
                if array is not None and array.ndim == 2 and array.shape[1] == dim and np.isfinite(array).all():
                    return array
            samples, _ = self._samples(rows)
            return np.asarray([s[0] for s in samples], dtype=np.float32)

        def forward(self, batch):
            return self.session.run(None, {self.feed: batch})[0]

        def split(self, out, counts):
            at, results = 0, []
            for n in counts:
                results.append({self.outputs[0]: out[at:at + n]})
                at += n
            return results

    p = parser()
    options = p.parse_args(["--model_file=" + merged] + argv)
    check(options, p)
    model = OnnxServed(merged, version="onnxruntime")
    run(create_app(options, model), options)


# ------------------------------------------------------------------ the load

def client(port, concurrency, requests, seconds, body):
    """Runs in its own process: [latency seconds] of the requests that finished."""
    deadline = time.perf_counter() + seconds
    share = [requests // concurrency + (1 if k < requests % concurrency else 0) for k in range(concurrency)]

    def worker(n):
        conn, latencies = http.client.HTTPConnection("127.0.0.1", port, timeout=30), []
        for _ in range(n):
            if time.perf_counter() > deadline:
                break
            started = time.perf_counter()
            conn.request("POST", "/predict", body, {"Content-Type": "application/json"})
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                raise RuntimeError("status %d" % response.status)
            latencies.append(time.perf_counter() - started)
        conn.close()
        return latencies

    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        latencies = [x for part in pool.map(worker, share) for x in part]
    return latencies, time.perf_counter() - started


def measure_wrk(port, concurrency, seconds):
    """The same load from wrk (C, one thread per core here), for --seconds instead of a count."""
    body = json.dumps({"rows": [{"pixel": [0.25] * 64}]})
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write('wrk.method = "POST"\nwrk.body = %s\nwrk.headers["Content-Type"] = "application/json"\n'
                % json.dumps(body))
    try:
        out = subprocess.run(["wrk", "-t", str(min(concurrency, 2)), "-c", str(concurrency), "-d", "%ds" % seconds,
                              "--latency", "-s", f.name, "http://127.0.0.1:%d/predict" % port],
                             capture_output=True, text=True, check=True).stdout
    finally:
        os.remove(f.name)
    if "Non-2xx" in out:
        raise RuntimeError("wrk saw errors:\n" + out)

    def ms(label):
        value = re.search(r"^\s*%s\s+([\d.]+)(us|ms|s)$" % label, out, re.M)
        return float(value.group(1)) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[value.group(2)]
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    return {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)), "p50": ms("50%"),
            "p99": ms("99%"), "n": requests}


def measure(port, concurrency, requests, seconds, client="python"):
    if client == "wrk":
        return measure_wrk(port, concurrency, seconds)
    body = json.dumps({"rows": [{"pixel": [0.25] * 64}]})
    code = ("import json, sys; sys.path.insert(0, %r); import serve_bench as b; "
            "print(json.dumps(b.client(%d, %d, %d, %f, %r)))" % (os.path.dirname(os.path.abspath(__file__)), port,
                                                                  concurrency, requests, seconds, body))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    latencies, wall = json.loads(out)
    latencies.sort()
    pick = lambda q: 1e3 * latencies[min(len(latencies) - 1, int(q * len(latencies)))]  # noqa: E731
    return {"rps": len(latencies) / wall, "p50": pick(0.5), "p99": pick(0.99), "n": len(latencies)}


SOAK_BODIES = [  # (body, content type): valid and invalid requests of every kind
    (json.dumps({"rows": [{"pixel": [0.25] * 64}]}), "application/json"),
    (json.dumps({"rows": [{"pixel": [0.5] * 64}] * 16}), "application/json"),
    (json.dumps({"rows": [{"pixel": {"index": [1, 7, 30], "value": [1.0, 0.5, 2.0]}}]}), "application/json"),
    ("{not json", "application/json"),
    (json.dumps({"rows": [{"pixel": [1, 2]}]}), "application/json"),
    (json.dumps({"rows": [{"pixels": [0.0] * 64}]}), "application/json"),
    (json.dumps({"rows": []}), "application/json"),
    (json.dumps({"rows": [{"pixel": {"index": [99]}}]}), "application/json"),
    ("\x93NUMPY junk", "application/x-npy"),
]


def soak(port, seconds, concurrency, pid):
    """Mixed valid and invalid requests for `seconds`: ({status: count}, [(s, server RSS MB)])."""
    deadline, statuses, memory = time.time() + seconds, {}, []

    def rss():
        with open("/proc/%d/status" % pid) as f:
            return next(int(l.split()[1]) for l in f if l.startswith("VmRSS")) / 1024.0

    def worker(k):
        conn, seen, i = http.client.HTTPConnection("127.0.0.1", port, timeout=30), {}, k
        while time.time() < deadline:
            body, kind = SOAK_BODIES[i % len(SOAK_BODIES)]
            i += 1
            conn.request("POST", "/predict", body.encode("utf-8", "surrogateescape"), {"Content-Type": kind})
            response = conn.getresponse()
            response.read()
            seen[response.status] = seen.get(response.status, 0) + 1
        return seen

    started = time.time()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        parts = [pool.submit(worker, k) for k in range(concurrency)]
        while time.time() < deadline:
            memory.append((round(time.time() - started), rss()))
            time.sleep(min(10, max(deadline - time.time(), 0.1)))
        for part in parts:
            for status, n in part.result().items():
                statuses[status] = statuses.get(status, 0) + n
    memory.append((round(time.time() - started), rss()))
    return statuses, memory


def server_cpu_seconds(pid):
    """User + system CPU seconds of a process and its threads so far (from /proc)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / float(os.sysconf("SC_CLK_TCK"))


def _median(values):
    values = sorted(values)
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2.0


def table(results, levels, args):
    """The Markdown table: per server and concurrency the median over the rounds."""
    med = {key: {f: _median([r[f] for r in runs]) for f in ("rps", "p50", "p99", "cpu_us")}
           for key, runs in results.items()}
    lines = ["", "### paddle serve, digits MLP, one row per request (%s, %d cores)"
             % (datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), os.cpu_count()), "",
             "`python benchmarks/serve_bench.py --client %s --seconds %g --concurrency %s --rounds %d%s`: medians of "
             "%d rounds, the servers taking turns; CPU is the server process's (all its threads) per request"
             % (args.client, args.seconds, args.concurrency, args.rounds,
                "" if args.client == "wrk" else " --requests %d" % args.requests, args.rounds), "",
             "| concurrency | batched req/s | p50 / p99 ms | CPU us/req | unbatched req/s | p50 / p99 ms | CPU us/req "
             "| onnxruntime req/s | p50 / p99 ms | CPU us/req | batched / unbatched |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for c in levels:
        cells = []
        for name in ("batched", "unbatched", "onnxruntime"):
            m = med[(name, c)]
            cells += ["%.0f" % m["rps"], "%.2f / %.2f" % (m["p50"], m["p99"]), "%.1f" % m["cpu_us"]]
        ratio = med[("batched", c)]["rps"] / med[("unbatched", c)]["rps"]
        lines.append("| %d | %s | %.2fx |" % (c, " | ".join(cells), ratio))
    return lines


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--requests", type=int, default=2000, help="requests per server and concurrency")
    p.add_argument("--seconds", type=float, default=20, help="stop a measurement after this long")
    p.add_argument("--concurrency", default="1,8,32")
    p.add_argument("--rounds", type=int, default=3, help="measurements of each server and concurrency, the "
                   "servers taking turns (the table gives the medians)")
    p.add_argument("--client", choices=["python", "wrk"], default="python",
                   help="the load generator: a Python process (threads, keep-alive) or wrk (apt-get install "
                        "wrk), which leaves more of the cores to the server; wrk runs --seconds per point")
    p.add_argument("--append", help="append the table to this Markdown file")
    p.add_argument("--soak", type=float, metavar="SECONDS",
                   help="instead: mixed valid/invalid load on the batched server for SECONDS; reports the "
                        "statuses and the server's memory (exits 1 on any 5xx)")
    p.add_argument("--serve-onnx", nargs=2, metavar=("ONNX", "MERGED"), help=argparse.SUPPRESS)
    args, rest = p.parse_known_args()
    if args.serve_onnx:
        return serve_onnx(args.serve_onnx[0], args.serve_onnx[1], rest)
    levels = [int(c) for c in args.concurrency.split(",")]
    workdir = tempfile.mkdtemp(prefix="serve_bench-")
    merged, onnx = prepare(workdir)
    serve = [sys.executable, "-m", "paddle.trainer.cli", "serve", "--model_file=" + merged]
    servers = {"batched": serve + ["--max_batch=64", "--max_delay_ms=2"],
               "unbatched": serve + ["--max_batch=1", "--max_delay_ms=0"],
               "onnxruntime": [sys.executable, os.path.abspath(__file__), "--serve-onnx", onnx, merged,
                               "--max_batch=1", "--max_delay_ms=0"]}
    if args.soak:
        proc, port = start(servers["batched"])
        try:
            statuses, memory = soak(port, args.soak, 8, proc.pid)
        finally:
            proc.terminate()
            proc.wait(30)
        print("statuses: %s" % json.dumps(statuses, sort_keys=True))
        print("server RSS MB over time: %s" % ", ".join("%ds %.1f" % m for m in memory))
        return 1 if any(s >= 500 for s in statuses) else 0
    results = {(name, c): [] for name in servers for c in levels}
    running = {}
    try:
        for name, command in servers.items():  # all up at once: the rounds alternate between them
            running[name] = start(command)
            measure(running[name][1], 4, 200, 5)  # warm-up
        for k in range(args.rounds):
            for c in levels:
                for name, (proc, port) in running.items():
                    before = server_cpu_seconds(proc.pid)
                    r = measure(port, c, args.requests, args.seconds, args.client)
                    r["cpu_us"] = (server_cpu_seconds(proc.pid) - before) / r["n"] * 1e6
                    results[(name, c)].append(r)
                    print("round %d  %-12s c=%-3d %8.0f req/s  p50 %6.2f ms  p99 %6.2f ms  server CPU %6.1f us/req "
                          "(%d requests)" % (k + 1, name, c, r["rps"], r["p50"], r["p99"], r["cpu_us"], r["n"]),
                          flush=True)
    finally:
        for proc, _ in running.values():
            proc.terminate()
            proc.wait(30)
    lines = table(results, levels, args)
    print("\n".join(lines))
    if args.append:
        with open(args.append, "a") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
