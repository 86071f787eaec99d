"""A loopback HTTP proxy in front of moto's Kinesis server that plays Kinesis's throttling (moto never
throttles) and counts what the client sends, for the Kinesis sink's tests.

Every request goes to moto unchanged except ``PutRecords``, which the proxy answers by its ``plan``:
one step per PutRecords call, in order (the last step repeats):

- ``"throttle"``: the whole request is refused, as Kinesis refuses it when a stream is over its
  limits: HTTP 400, ``__type`` ``ProvisionedThroughputExceededException``; nothing is written.
- ``"half"``: the records at odd positions in the request fail (``ErrorCode``
  ``ProvisionedThroughputExceededException``, not written); the others go to moto; the answer has
  ``FailedRecordCount`` and one result per record, in the request's order, as Kinesis answers.
- ``"all-fail"``: every record fails that way.
- ``"pass"``: the request goes to moto as it is.

Runs in a thread of the test on 127.0.0.1; ``stop()`` shuts it down.
"""

from __future__ import annotations

import base64
import http.client
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse

THROTTLED = "ProvisionedThroughputExceededException"


@dataclass
class Counts:
    put_calls: int = 0
    throttled_calls: int = 0  # whole requests refused
    failed_records: int = 0  # records answered with an ErrorCode
    written_records: int = 0  # records passed on to moto and written there
    written_data: list[bytes] = field(default_factory=list)


class ThrottlingProxy:
    def __init__(self, upstream: str, plan: list[str]) -> None:
        self.upstream = urlparse(upstream)
        self.plan = list(plan)
        self.counts = Counts()
        self.lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                target = self.headers.get("X-Amz-Target", "")
                if target.endswith(".PutRecords"):
                    status, payload = proxy._put_records(body, dict(self.headers))
                else:
                    status, payload = proxy._forward(body, dict(self.headers))
                self.send_response(status)
                self.send_header("Content-Type", "application/x-amz-json-1.1")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> ThrottlingProxy:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)

    def set_plan(self, plan: list[str]) -> None:
        with self.lock:
            self.plan = list(plan)

    def _forward(self, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection(self.upstream.hostname, self.upstream.port, timeout=30)
        try:
            sent = {k: v for k, v in headers.items() if k.lower() not in ("host", "content-length", "connection")}
            sent["Content-Length"] = str(len(body))
            conn.request("POST", "/", body=body, headers=sent)
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()

    def _step(self) -> str:
        with self.lock:
            self.counts.put_calls += 1
            return self.plan.pop(0) if len(self.plan) > 1 else self.plan[0]

    def _put_records(self, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        step = self._step()
        request = json.loads(body)
        records = request["Records"]
        if step == "throttle":
            with self.lock:
                self.counts.throttled_calls += 1
            error = {"__type": THROTTLED, "message": "Rate exceeded for stream (test proxy)"}
            return 400, json.dumps(error).encode()
        if step == "pass":
            fail = [False] * len(records)
        elif step == "half":
            fail = [i % 2 == 1 for i in range(len(records))]
        elif step == "all-fail":
            fail = [True] * len(records)
        else:
            raise AssertionError(f"unknown step {step!r}")
        passed = [r for r, f in zip(records, fail) if not f]
        results: list[dict] = []
        if passed:
            status, payload = self._forward(json.dumps({**request, "Records": passed}).encode(), headers)
            if status != 200:
                return status, payload
            results = json.loads(payload)["Records"]
        merged: list[dict] = []
        it = iter(results)
        for f in fail:
            if f:
                merged.append({"ErrorCode": THROTTLED, "ErrorMessage": "Rate exceeded for shard (test proxy)"})
            else:
                merged.append(next(it))
        with self.lock:
            self.counts.failed_records += sum(fail)
            self.counts.written_records += len(passed)
            self.counts.written_data.extend(base64.b64decode(r["Data"]) for r in passed)
        answer = {"FailedRecordCount": sum(fail), "Records": merged}
        return 200, json.dumps(answer).encode()
