"""A small client for `paddle serve` (the standard library's HTTP only):

    from paddle.serving.client import Client
    client = Client("http://127.0.0.1:8000")
    out = client.predict([{"pixel": [0.0] * 64}])      # {"version", "outputs", ["id", "label"]}
    out = client.predict_array(np.zeros((32, 64), np.float32))   # one dense input, as .npy
"""
import io
import json
import urllib.error
import urllib.request

import numpy as np


class ServerError(Exception):
    """The server's answer to a request it refused: `status` and its message."""

    def __init__(self, status, message):
        Exception.__init__(self, "%d: %s" % (status, message))
        self.status, self.message = status, message


class Client(object):
    def __init__(self, url="http://127.0.0.1:8000", timeout=30):
        self.url, self.timeout = url.rstrip("/"), timeout

    def _call(self, path, body=None, content_type="application/json"):
        request = urllib.request.Request(self.url + path, data=body, method="POST" if body is not None else "GET",
                                         headers={"Content-Type": content_type})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as e:
            text = e.read().decode("utf-8", "replace")
            try:
                text = json.loads(text)["error"]
            except (ValueError, KeyError, TypeError):
                pass
            raise ServerError(e.code, text)

    def predict(self, rows):
        return self._call("/predict", json.dumps({"rows": rows}).encode("utf-8"))

    def predict_array(self, array):
        buffer = io.BytesIO()
        np.save(buffer, np.asarray(array), allow_pickle=False)
        return self._call("/predict", buffer.getvalue(), "application/x-npy")

    def ready(self):
        return self._call("/ready")

    def reload(self, model_file=None):
        body = {} if model_file is None else {"model_file": model_file}
        return self._call("/reload", json.dumps(body).encode("utf-8"))
