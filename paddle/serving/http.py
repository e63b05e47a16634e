"""uvicorn's httptools protocol with each response's head and body in one socket write.

uvicorn writes a response's status line and headers, then its body, as two writes: two
send() system calls a request, a fifth of what `paddle serve` spends on a one-row /predict.
Here the transport holds a header block back until the body's write joins it; a call_soon
sends it on its own if no body comes in this turn of the event loop (a streamed response).
"""
import asyncio

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class _JoiningTransport(object):
    """A transport that joins a held header block to the write after it; else the transport's own."""

    __slots__ = ("_transport", "_held", "_loop")

    def __init__(self, transport, loop):
        self._transport, self._held, self._loop = transport, None, loop

    def write(self, data):
        if self._held is not None:
            data, self._held = b"".join((self._held, data)), None
        elif type(data) is bytes and data.startswith(b"HTTP/") and data.endswith(b"\r\n\r\n"):
            self._held = data
            self._loop.call_soon(self.flush)
            return
        self._transport.write(data)

    def flush(self):
        if self._held is not None:
            data, self._held = self._held, None
            self._transport.write(data)

    def close(self):
        self.flush()
        self._transport.close()

    def write_eof(self):
        self.flush()
        self._transport.write_eof()

    def abort(self):
        self._held = None
        self._transport.abort()

    def get_write_buffer_size(self):
        return self._transport.get_write_buffer_size() + (len(self._held) if self._held is not None else 0)

    def __getattr__(self, name):  # everything else (pause_reading, get_extra_info, ...) as it is
        return getattr(self._transport, name)


class JoinedWritesProtocol(HttpToolsProtocol):
    """For uvicorn.run(http=...): uvicorn's httptools protocol on a _JoiningTransport."""

    def connection_made(self, transport):
        super().connection_made(_JoiningTransport(transport, asyncio.get_running_loop()))
