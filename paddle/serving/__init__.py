"""`paddle serve`: a trained model behind HTTP, with dynamic batching, health and Prometheus
metrics, and reloads that drop or mix nothing. See docs/serving.md.

    model.py    the served model: request rows -> one batch -> per-row outputs
    batcher.py  dynamic batching on worker threads
    metrics.py  the Prometheus metrics, at a small cost a request
    app.py      the HTTP endpoints (Starlette, run by uvicorn)
    http.py     uvicorn's HTTP protocol writing each response in one piece
    cli.py      the `paddle serve` command
    client.py   a small Python client
"""
