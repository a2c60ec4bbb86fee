"""A test OTLP/HTTP trace receiver: decodes each export with the official
``opentelemetry-proto`` package, so the bytes gqlgate sends are checked
against the OpenTelemetry schema.

``OTLPReceiver()`` listens on a free 127.0.0.1 port; ``hold()`` makes it keep
every export unanswered until ``release()`` (a receiver that is slow).
"""

from __future__ import annotations

import http.server
import threading
import typing

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.trace.v1 import trace_pb2


class OTLPReceiver:
    def __init__(self) -> None:
        self.requests: list[trace_service_pb2.ExportTraceServiceRequest] = []
        self.headers: list[dict[str, str]] = []
        self.lock = threading.Lock()
        self.released = threading.Event()
        self.released.set()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                request = trace_service_pb2.ExportTraceServiceRequest()
                request.ParseFromString(body)
                with receiver.lock:
                    receiver.requests.append(request)
                    receiver.headers.append({k.lower(): v for k, v in self.headers.items()})
                receiver.released.wait(30)
                answer = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
                self.send_response(200 if self.path == "/v1/traces" else 404)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: typing.Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1/traces"

    def hold(self) -> None:
        self.released.clear()

    def release(self) -> None:
        self.released.set()

    def spans(self) -> list[trace_pb2.Span]:
        with self.lock:
            return [span for request in self.requests for rs in request.resource_spans for ss in rs.scope_spans for span in ss.spans]

    def service_names(self) -> set[str]:
        with self.lock:
            return {
                attribute.value.string_value
                for request in self.requests
                for rs in request.resource_spans
                for attribute in rs.resource.attributes
                if attribute.key == "service.name"
            }

    def close(self) -> None:
        self.release()
        self.server.shutdown()
        self.server.server_close()


def attributes(span: trace_pb2.Span) -> dict[str, typing.Any]:
    """A span's attributes as plain Python values."""
    values: dict[str, typing.Any] = {}
    for attribute in span.attributes:
        kind = attribute.value.WhichOneof("value")
        values[attribute.key] = getattr(attribute.value, kind) if kind else None
    return values
