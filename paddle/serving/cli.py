"""`paddle serve --model_file=model.paddle [--port=8000] [--max_batch=64] [--max_delay_ms=2]`"""
import argparse
import logging
import sys


def parser():
    p = argparse.ArgumentParser(prog="paddle serve", description="Serve a trained model over HTTP "
                                "(POST /predict, GET /health /ready /metrics, POST /reload).")
    model = p.add_argument_group("the model")
    model.add_argument("--model_file", help="a merged model (paddle merge_model)")
    model.add_argument("--config", help="with --model_dir instead of --model_file: the trainer config")
    model.add_argument("--model_dir", help="a saved pass, e.g. output/pass-00009")
    model.add_argument("--config_args", default="", help="config arguments, e.g. is_predict=1")
    net = p.add_argument_group("the server")
    net.add_argument("--host", default="127.0.0.1", help="address to listen on (default: this machine only)")
    net.add_argument("--port", type=int, default=8000)
    net.add_argument("--max_batch", type=int, default=64, help="rows in one forward at most")
    net.add_argument("--max_delay_ms", type=float, default=2.0,
                     help="how long a batch waits for more requests after its first")
    net.add_argument("--workers", type=int, default=1, help="threads running forwards (batches) at once")
    net.add_argument("--max_rows", type=int, default=4096, help="rows in one request at most")
    net.add_argument("--max_request_bytes", type=int, default=16 << 20, help="bytes in one request at most")
    net.add_argument("--timeout_ms", type=float, default=10000, help="a request without a result by then is "
                     "cancelled (504)")
    net.add_argument("--log_level", default="info", choices=["debug", "info", "warning", "error"])
    return p


def check(options, p):
    if bool(options.model_file) == bool(options.config or options.model_dir):
        p.error("give --model_file, or --config and --model_dir")
    if not options.model_file and not (options.config and options.model_dir):
        p.error("--config and --model_dir go together")
    for name in ("max_batch", "workers", "max_rows", "max_request_bytes"):
        if getattr(options, name) < 1:
            p.error("--%s must be at least 1" % name)
    if options.max_delay_ms < 0 or options.timeout_ms <= 0:
        p.error("--max_delay_ms must be >= 0 and --timeout_ms > 0")


def main(argv):
    p = parser()
    options = p.parse_args(argv)
    check(options, p)
    from paddle.serving.app import create_app, load_model
    logging.basicConfig(level=options.log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    # (paddle's own logger may have a level of its own: --log_level=warning silences the access log)
    logging.getLogger("paddle.serve").setLevel(options.log_level.upper())
    model = load_model(options)  # before listening: a bad model is an error here, not a 503 forever
    run(create_app(options, model), options)
    return 0


def run(app, options):
    """Serves `app` on uvicorn until a stop signal (then drains what is in flight)."""
    import uvicorn
    try:
        from paddle.serving.http import JoinedWritesProtocol as http
    except ImportError:  # no httptools: uvicorn's pure-Python parser
        http = "auto"
    uvicorn.run(app, host=options.host, port=options.port, access_log=False, log_level=options.log_level,
                timeout_graceful_shutdown=30, http=http)
