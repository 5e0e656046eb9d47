"""A moto S3 server on 127.0.0.1 for the tests that read ``s3://`` URLs (tests/test_source_s3.py,
tests/test_dataset_urls_rev3.py): no AWS account, no network beyond this machine. The server
counts the GET requests and the body bytes it sends, so a query's cost is measured on the wire.

The tests skip without ``moto[server]``, ``s3fs`` and ``fsspec`` (the ``test`` extra installs
them): ``serve()`` and ``filesystem()`` import them when called, so a test module that has other
tests too is not skipped whole."""

from __future__ import annotations

import contextlib
import threading

import pytest

# moto accepts any credentials; these name no account (and stop boto looking for one)
CREDENTIALS = {"key": "testing", "secret": "testing"}


class CountingApp:
    """A WSGI wrapper counting the GET requests and the body bytes they were sent."""

    def __init__(self, app):
        self.app = app
        self.lock = threading.Lock()
        self.gets = 0
        self.bytes_sent = 0

    def __call__(self, environ, start_response):
        body = self.app(environ, start_response)
        if environ.get("REQUEST_METHOD") != "GET":
            return body
        try:
            chunks = list(body)
        finally:
            close = getattr(body, "close", None)
            if close is not None:
                close()
        with self.lock:
            self.gets += 1
            self.bytes_sent += sum(len(c) for c in chunks)
        return chunks

    def reset(self):
        with self.lock:
            self.gets = self.bytes_sent = 0


@contextlib.contextmanager
def serve():
    """``with serve() as (endpoint URL, CountingApp):`` a moto S3 server for the block."""
    moto_server = pytest.importorskip("moto.server")
    pytest.importorskip("s3fs")
    serving = pytest.importorskip("werkzeug.serving")

    class QuietHandler(serving.WSGIRequestHandler):
        def log_request(self, *args, **kwargs):  # one line per request is noise in a test run
            pass

    app = CountingApp(moto_server.DomainDispatcherApplication(moto_server.create_backend_app))
    server = serving.make_server("127.0.0.1", 0, app, threaded=True, request_handler=QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", app
    finally:
        server.shutdown()
        thread.join(10)


def options(endpoint, instance_cache=False):
    """fsspec's options of the s3 protocol for the server at ``endpoint``. ``instance_cache``:
    keep fsspec's cached file system instances (and so their cached listings), as a long-lived
    process has them; without it each URL opens a fresh one."""
    opts = {
        **CREDENTIALS,
        "client_kwargs": {"endpoint_url": endpoint, "region_name": "us-east-1"},
    }
    if not instance_cache:
        opts["skip_instance_cache"] = True
    return opts


def filesystem(endpoint):
    """An s3fs file system on the server at ``endpoint`` (no cached instance)."""
    s3fs = pytest.importorskip("s3fs")
    return s3fs.S3FileSystem(**options(endpoint))


def use_server(monkeypatch, endpoint, instance_cache=False):
    """``s3://`` URLs open on the server at ``endpoint`` for the test (fsspec's configuration)."""
    fsspec = pytest.importorskip("fsspec")
    monkeypatch.setitem(fsspec.config.conf, "s3", options(endpoint, instance_cache))
