"""A local stand-in for the Hugging Face Hub: answers every request with one error, as the Hub's API does.

Call ``serve(kind)`` before importing huggingface_hub or transformers: it sets HF_ENDPOINT to the server.
The library's own client sends the request and raises from the answer (status code and X-Error-Code header).
"""

from __future__ import annotations

import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ANSWERS = {
    "gated": (403, "GatedRepo", "Access to model {repo} is restricted and you are not in the authorized list. "
              "Visit https://huggingface.co/{repo} to ask for access."),
    "gated401": (401, "GatedRepo", "Access to model {repo} is restricted. You must have access to it and be "
                 "authenticated to access it. Please log in."),
    "notfound": (401, "RepoNotFound", "Repository not found"),
    "entry": (404, "EntryNotFound", "Entry not found"),
    "revision": (404, "RevisionNotFound", "Invalid rev id: {repo}"),
    "server": (503, "", "Service Unavailable"),
    "ratelimit": (429, "", "Too Many Requests"),
    # turn 39 (runtime-39)
    "forbidden": (403, "", 'You don\'t have the rights to create a model under the namespace "meta-llama"'),
    "badtoken": (401, "", "Invalid credentials in Authorization header"),
    "badrequest": (400, "", "Bad request for commit endpoint: Invalid repo id"),
    "slow": (200, "", "ok"),  # answers, but only after HF_HUB_ETAG_TIMEOUT / HF_HUB_DOWNLOAD_TIMEOUT have passed
    "gateddataset": (403, "GatedRepo", "Access to dataset {repo} is restricted and you are not in the authorized list. "
                     "Visit https://huggingface.co/datasets/{repo} to ask for access."),
}


def serve(kind: str) -> str:
    status, code, message = ANSWERS[kind]

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            if kind == "slow":
                time.sleep(8)
            repo = "/".join(self.path.strip("/").split("/")[:2])
            body = json.dumps({"error": message.format(repo=repo)}).encode()
            self.send_response(status)
            if code:
                self.send_header("X-Error-Code", code)
            self.send_header("X-Error-Message", message.format(repo=repo))
            self.send_header("X-Request-Id", "Root=1-6734-5bd1c9")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        do_GET = do_HEAD = do_POST = _answer

        def log_message(self, *args) -> None:  # the Hub's log is not the user's
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    os.environ["HF_ENDPOINT"] = url
    os.environ["HF_HUB_OFFLINE"] = "0"
    os.environ["HF_HUB_ETAG_TIMEOUT"] = "3"
    os.environ["HF_HUB_DOWNLOAD_TIMEOUT"] = "3"
    os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
    os.environ["HF_HOME"] = os.path.join("/tmp", f"hf-home-{os.getpid()}")
    return url
