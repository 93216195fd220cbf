"""The batch endpoints of the fake provider (:mod:`.provider_servers`): OpenAI's Files and Batches
(upload a JSONL file, create a batch, poll it, download its output and error files) and
Anthropic's Message Batches (create, poll, download the results), enough for the real SDKs'
``files.create``, ``batches.create``/``retrieve``, ``files.content`` and
``messages.batches.create``/``retrieve``/``results``.

A batch answers each request as the fake provider answers it live (the route's reply, chosen by
the model name), except that a model ``eNNN`` gives an errored entry, ``expire`` an expired one and
``cancel`` a cancelled one. A batch is ``in_progress`` the first time it is polled and done the
next, so a client's polling loop is exercised."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

__all__ = ["BatchEndpoints"]

Answer = tuple[int, bytes, str]
"""Status, body, content type."""


@dataclass
class BatchEndpoints:
    """The files and batches the fake provider holds; ``replies`` answers a request on a route."""

    replies: Callable[[str, dict[str, Any]], dict[str, Any]]
    files: dict[str, bytes] = field(default_factory=dict)
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    polls: dict[str, int] = field(default_factory=dict)

    def handles(self, path: str) -> bool:
        return path.startswith(("/v1/files", "/v1/batches", "/v1/messages/batches"))

    def post(self, path: str, content_type: str, raw: bytes, root: str) -> Answer:
        if path == "/v1/files":
            form = BytesParser(policy=HTTP).parsebytes(b"content-type: " + content_type.encode() + b"\r\n\r\n" + raw)
            parts = {part.get_param("name", header="content-disposition"): part for part in form.iter_parts()}
            data = parts["file"].get_payload(decode=True)
            assert isinstance(data, bytes), "an uploaded file is one part of bytes"
            file_id = f"file-{len(self.files) + 1}"
            self.files[file_id] = data
            return _json({"id": file_id, "object": "file", "bytes": len(data), "created_at": 0,
                          "filename": "batch.jsonl", "purpose": "batch", "status": "processed"})  # fmt: skip
        body = json.loads(raw)
        if path == "/v1/batches":
            batch_id = f"batch_{len(self.batches) + 1}"
            self.batches[batch_id] = {"id": batch_id, "object": "batch", "endpoint": body["endpoint"],
                                      "input_file_id": body["input_file_id"], "completion_window": "24h",
                                      "status": "validating", "created_at": 0}  # fmt: skip
            return _json(self.batches[batch_id])
        if path == "/v1/messages/batches":
            batch_id = f"msgbatch_{len(self.batches) + 1}"
            self.batches[batch_id] = {"id": batch_id, "type": "message_batch", "processing_status": "in_progress",
                                      "requests": body["requests"], "created_at": "2026-11-25T00:00:00Z",
                                      "expires_at": "2026-11-26T00:00:00Z", "archived_at": None,
                                      "cancel_initiated_at": None, "ended_at": None, "results_url": None,
                                      "request_counts": _counts()}  # fmt: skip
            return _json(self._anthropic_view(batch_id, root))
        return _json({"error": {"message": f"no route {path}"}}, 404)

    def get(self, path: str, root: str) -> Answer:
        parts = path.strip("/").split("/")
        if parts[:2] == ["v1", "files"] and len(parts) == 4 and parts[3] == "content":
            return 200, self.files[parts[2]], "application/octet-stream"
        if parts[:2] == ["v1", "batches"] and len(parts) == 3:
            return _json(self._openai_poll(parts[2]))
        if parts[:3] == ["v1", "messages", "batches"] and len(parts) == 5 and parts[4] == "results":
            return 200, self.files[f"results-{parts[3]}"], "application/binary"
        if parts[:3] == ["v1", "messages", "batches"] and len(parts) == 4:
            self._anthropic_poll(parts[3])
            return _json(self._anthropic_view(parts[3], root))
        return _json({"error": {"message": f"no route {path}"}}, 404)

    def _polled(self, batch_id: str) -> bool:
        """Whether the batch is done: the second poll finds it so."""
        self.polls[batch_id] = self.polls.get(batch_id, 0) + 1
        return self.polls[batch_id] >= 2

    def _openai_poll(self, batch_id: str) -> dict[str, Any]:
        batch = self.batches[batch_id]
        if batch["status"] != "completed":
            batch["status"] = "in_progress"
        if batch["status"] == "in_progress" and self._polled(batch_id):
            outputs: list[dict[str, Any]] = []
            errors: list[dict[str, Any]] = []
            for line in self.files[batch["input_file_id"]].splitlines():
                request = json.loads(line)
                entry = self._openai_entry(request)
                (errors if entry["error"] or entry["response"]["status_code"] != 200 else outputs).append(entry)
            batch["output_file_id"] = self._file(outputs)
            batch["error_file_id"] = self._file(errors) if errors else None
            batch["status"] = "completed"
        return batch

    def _openai_entry(self, request: dict[str, Any]) -> dict[str, Any]:
        custom_id, body = request["custom_id"], request["body"]
        model = str(body.get("model", ""))
        entry: dict[str, Any] = {"id": f"batch_req_{custom_id}", "custom_id": custom_id, "response": None}
        if model in ("expire", "cancel"):
            code = "batch_expired" if model == "expire" else "batch_cancelled"
            return entry | {"error": {"code": code, "message": f"This request was {code[6:]}."}}
        if model.startswith("e") and model[1:4].isdigit():
            error = {"message": f"failure {model}", "type": "invalid_request_error", "param": None, "code": None}
            response = {"status_code": int(model[1:4]), "request_id": "req_1", "body": {"error": error}}
            return entry | {"response": response, "error": None}
        reply = self.replies(request["url"], body)
        return entry | {"response": {"status_code": 200, "request_id": "req_1", "body": reply}, "error": None}

    def _anthropic_poll(self, batch_id: str) -> None:
        batch = self.batches[batch_id]
        if batch["processing_status"] == "ended" or not self._polled(batch_id):
            return
        lines, counts = [], _counts()
        for request in batch["requests"]:
            result = self._anthropic_result(request["params"])
            counts[result["type"]] += 1
            lines.append({"custom_id": request["custom_id"], "result": result})
        self.files[f"results-{batch_id}"] = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
        batch.update(processing_status="ended", ended_at="2026-11-25T01:00:00Z", request_counts=counts)

    def _anthropic_result(self, params: dict[str, Any]) -> dict[str, Any]:
        model = str(params.get("model", ""))
        if model in ("expire", "cancel"):
            return {"type": "expired" if model == "expire" else "canceled"}
        if model.startswith("e") and model[1:4].isdigit():
            error = {"type": "error", "error": {"type": "invalid_request_error", "message": f"failure {model}"}}
            return {"type": "errored", "error": error}
        return {"type": "succeeded", "message": self.replies("/v1/messages", params)}

    def _anthropic_view(self, batch_id: str, root: str) -> dict[str, Any]:
        view = {key: value for key, value in self.batches[batch_id].items() if key != "requests"}
        if view["processing_status"] == "ended":
            view["results_url"] = f"{root}/v1/messages/batches/{batch_id}/results"
        return view

    def _file(self, entries: list[dict[str, Any]]) -> str:
        file_id = f"file-{len(self.files) + 1}"
        self.files[file_id] = b"".join(json.dumps(entry).encode() + b"\n" for entry in entries)
        return file_id


def _counts() -> dict[str, int]:
    return {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}


def _json(data: dict[str, Any], status: int = 200) -> Answer:
    return status, json.dumps(data).encode(), "application/json"
