"""What `sim serve` checks of a request before a handler sees it: the session token, the size of
the body, the JSON it holds, and numbers in a query.

- The token comes from the ``X-Sim-Token`` header, ``?token=``, or the page's cookie, read with
  Starlette's own cookie parser (tolerant: a malformed cookie of another local app neither hides
  ours nor fails the request).
- A body is read up to :data:`MAX_BODY` bytes (a longer ``Content-Length`` is refused before any
  byte is read); a posted scenario source up to the scenario files' own limit
  (:data:`simulator.limits.MAX_BYTES`); JSON nested at most :data:`MAX_JSON_DEPTH` levels.
- Every refusal is :class:`Refused`: an HTTP status and a message, never a traceback.
"""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from simulator.limits import MAX_BYTES, MAX_DEPTH

COOKIE = "sim_token"
HEADER = "x-sim-token"
#: Bytes of a request body: a scenario source at its limit, escaped as JSON, with the changes.
MAX_BODY = 4 * MAX_BYTES
#: Levels of JSON: a scenario's own depth limit and the few levels of the request around it.
MAX_JSON_DEPTH = MAX_DEPTH + 8
#: An event number (``?from=``, ``Last-Event-ID``) or a run's number: ASCII digits, bounded.
_NUMBER = re.compile(r"-?[0-9]{1,15}")


class Refused(Exception):
    """A request refused with ``status`` and a message for the page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status

    def response(self) -> JSONResponse:
        return JSONResponse(
            {"error": str(self)}, status_code=self.status, headers={"Cache-Control": "no-store"}
        )


def number(text: str | None) -> int | None:
    """``text`` as a whole number if it is one (ASCII digits, at most 15), else None."""
    if text is None or not _NUMBER.fullmatch(text):
        return None
    return int(text)


def announced_length(request: Request) -> None:
    """Refuse a ``Content-Length`` that is not a number (400) or is over :data:`MAX_BODY` (413).

    Raises:
        Refused: as said.
    """
    length = request.headers.get("content-length")
    if length is None:
        return
    if not (length.isascii() and length.isdigit()):
        raise Refused(400, "Content-Length is not a number")
    if len(length) > 12 or int(length) > MAX_BODY:
        raise Refused(413, f"the request is larger than the {MAX_BODY >> 20} MiB limit")


def _depth(value: Any) -> int:
    """How deeply ``value`` nests lists and mappings (iteratively: no recursion to exhaust)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if level > MAX_JSON_DEPTH:
                return level
            stack += [(x, level + 1) for x in (item.values() if isinstance(item, dict) else item)]
    return deepest


async def body_json(request: Request) -> Any:
    """The request's JSON body, within :data:`MAX_BODY` bytes and :data:`MAX_JSON_DEPTH` levels.

    Raises:
        Refused: 413 for a body too large, 400 for one that is not such JSON.
    """
    announced_length(request)
    too_large = Refused(413, f"the request is larger than the {MAX_BODY >> 20} MiB limit")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise too_large
        chunks.append(chunk)
    try:
        data = json.loads(b"".join(chunks))
    except RecursionError:
        raise Refused(400, f"the JSON is nested more than {MAX_JSON_DEPTH} levels deep") from None
    except ValueError as e:  # not JSON, not UTF-8, or a number of more than 4,300 digits
        raise Refused(400, f"the body is not JSON: {e}") from None
    if _depth(data) > MAX_JSON_DEPTH:
        raise Refused(400, f"the JSON is nested more than {MAX_JSON_DEPTH} levels deep")
    return data


def source_of(body: Any) -> str:
    """The scenario source a body carries, within the scenario files' size limit.

    Raises:
        Refused: no source (400), or one over :data:`simulator.limits.MAX_BYTES` (413).
    """
    if not isinstance(body, dict) or not isinstance(body.get("source"), str):
        raise Refused(400, "send the scenario's source text and the changes")
    source: str = body["source"]
    if len(source) > MAX_BYTES or len(source.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise Refused(413, f"source: larger than the {MAX_BYTES >> 20} MiB limit of a scenario")
    return source


class TokenGate:
    """Refuse every request without the session's token (403), and POSTs whose token came only
    from the cookie (a page of another site can make the browser send the cookie, not a header).
    A ``Content-Length`` over :data:`MAX_BODY` is refused here too (413), before any byte is read.
    """

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token

    def _ok(self, value: str | None) -> bool:
        return value is not None and secrets.compare_digest(
            value.encode("utf-8", "surrogateescape"), self.token.encode()
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        explicit = request.headers.get(HEADER) or request.query_params.get("token")
        cookie = request.cookies.get(COOKIE)
        allowed = self._ok(explicit) or (scope["method"] == "GET" and self._ok(cookie))
        if not allowed:
            text = (
                "sim serve: this request needs the session token (open the URL sim serve printed)"
            )
            await Response(text, status_code=403, media_type="text/plain")(scope, receive, send)
            return
        try:
            announced_length(request)
        except Refused as refused:
            await refused.response()(scope, receive, send)
            return
        await self.app(scope, receive, send)
