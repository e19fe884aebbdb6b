"""A pager for the demo: a real HTTP webhook receiver on loopback printing each page."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ConsolePager:
    """Receives Alertmanager-format webhook posts and prints one line per alert."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        pager = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                self.send_response(200)
                self.end_headers()
                try:
                    pager.show(json.loads(body))
                except ValueError:
                    print(f"PAGE (unreadable payload, {length} bytes)")

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.pages = 0
        self.alerts: list[dict[str, Any]] = []
        self._server = ThreadingHTTPServer((host, port), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        port = self._server.server_address[1]
        return f"http://127.0.0.1:{port}/pager"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def show(self, payload: dict[str, Any]) -> None:
        self.pages += 1
        for alert in payload.get("alerts", []):
            self.alerts.append(alert)
            labels, notes = alert.get("labels", {}), alert.get("annotations", {})
            where = f" broker {labels['broker_id']}" if labels.get("broker_id") else ""
            print(
                f"PAGE [{alert.get('status', '?')}] {labels.get('alertname', '?')}{where}: "
                f"{notes.get('summary', '')}"
                + (f" | cause: {notes['cause']}" if notes.get("cause") else "")
            )
