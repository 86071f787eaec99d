"""A stand-in for AWS Lambda's Invoke API on loopback, for the tests of Lambda outputs and
preprocessors (moto runs functions in Docker, which these machines lack).

It answers ``POST /2015-03-31/functions/<name or URL-encoded ARN>/invocations`` as Lambda does for a
synchronous call: 200 with the function's JSON answer, ``X-Amz-Function-Error: Unhandled`` when the
function raises, 404 ``ResourceNotFoundException`` for a function it does not have. A function is a
Python callable of the event; every call is kept, so a test can read what was delivered.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Function = Callable[[dict[str, Any]], Any]


@dataclass
class Call:
    function: str
    event: dict[str, Any]
    answer: Any = None
    failed: bool = False


@dataclass
class LambdaStandIn:
    """Functions by name; `calls` in the order they came."""

    functions: dict[str, Function] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def endpoint(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> LambdaStandIn:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                parts = self.path.split("?", 1)[0].split("/")
                # /2015-03-31/functions/<name>/invocations
                if len(parts) < 5 or parts[2] != "functions" or parts[4] != "invocations":
                    self._send(404, {"Type": "User", "message": f"no such path {self.path}"},
                               {"x-amzn-ErrorType": "ResourceNotFoundException"})  # fmt: skip
                    return
                name = urllib.parse.unquote(parts[3])
                short = name.split(":")[6] if name.startswith("arn:") and len(name.split(":")) > 6 else name
                event = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
                function = standin.functions.get(name) or standin.functions.get(short)
                if function is None:
                    self._send(404, {"Type": "User", "message": f"Function not found: {name}"},
                               {"x-amzn-ErrorType": "ResourceNotFoundException"})  # fmt: skip
                    return
                call = Call(short, event)
                with standin.lock:
                    standin.calls.append(call)
                try:
                    call.answer = function(event)
                except Exception as e:  # the function failed: Lambda answers 200 with the error
                    call.failed = True
                    self._send(200, {"errorMessage": str(e), "errorType": type(e).__name__},
                               {"X-Amz-Function-Error": "Unhandled", "X-Amz-Executed-Version": "$LATEST"})  # fmt: skip
                    return
                self._send(200, call.answer, {"X-Amz-Executed-Version": "$LATEST"})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def calls_of(self, function: str) -> list[Call]:
        with self.lock:
            return [c for c in self.calls if c.function == function]
