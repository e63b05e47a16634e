"""`paddle serve`: a trained model behind HTTP, with dynamic batching, health and Prometheus
metrics, and reloads that drop or mix nothing. See docs/serving.md.

    model.py    the served model: request rows -> one batch -> per-row outputs
    batcher.py  dynamic batching on worker threads
    app.py      the HTTP endpoints (Starlette, run by uvicorn)
    cli.py      the `paddle serve` command
    client.py   a small Python client
"""
