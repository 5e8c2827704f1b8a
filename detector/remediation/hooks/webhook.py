"""The ``webhook`` hook: POST the incident as JSON, with a Slack-compatible ``text`` field.

Body: ``{"text": "<one line>", "event": …, "action": …, "summary": …, "incident": {…}}``.
The URL and the optional bearer token are secrets (``url``/``url_env``, ``token``/``token_env``):
records and messages show only the URL's scheme and host.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from detector.remediation.exec.process import remaining
from detector.remediation.hooks.base import HookEnv
from detector.remediation.model import Action, Event, HookCall, HookResult, Status
from detector.support.settings import Settings

EVENTS = (Event.DECISION.value, Event.VERIFICATION_FAILED.value)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Redirects are not followed: urllib would repeat a POST as a GET without its body (the page
    lost, "ok" recorded) and send the token to whatever host the redirect names; the 3xx status is
    the answer (a failed call: set the final URL)."""

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


class UrllibPoster:
    """The production :class:`HttpPoster` (stdlib ``urllib``)."""

    def __call__(self, url: str, body: bytes, headers: Mapping[str, str],
                 timeout: float) -> int:
        request = urllib.request.Request(url, data=body, headers=dict(headers), method="POST")
        try:
            with _OPENER.open(request, timeout=timeout) as response:  # (http/https only, checked at load)
                return int(response.status)
        except urllib.error.HTTPError as exc:  # (a redirect not followed comes here too)
            return int(exc.code)


def public_url(url: str) -> str:
    """``https://hooks.example.com/…``: the part of a URL that is safe to print."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}/…"


def message_text(call: HookCall) -> str:
    ini = call.incident.initiator
    where = f" on {call.node}" if call.node else ""
    rank = f" (rank {ini.rank})" if ini.rank is not None else ""
    head = ("rankdoctor: resumption NOT verified" if call.event is Event.VERIFICATION_FAILED
            else "rankdoctor")
    return (f"{head}: {call.incident.cause.value}{where}{rank}, incident {call.incident_token}, "
            f"confidence {call.incident.confidence:.2f}. {call.summary}")


class WebhookHook:
    def __init__(self, env: HookEnv, *, url: str, token: str | None,
                 events: frozenset[Event]) -> None:
        self._env = env
        self._url = url
        self._token = token
        self._events = events

    @property
    def name(self) -> str:
        return "webhook"

    @property
    def actions(self) -> frozenset[Action]:
        return frozenset({Action.NOTIFY})

    def body(self, call: HookCall) -> bytes:
        payload = {
            "text": message_text(call),
            "event": call.event.value,
            "action": call.action.value,
            "summary": call.summary,
            "incident": json.loads(call.incident_json),
        }
        return json.dumps(payload, ensure_ascii=False).encode("utf-8")

    def plan(self, call: HookCall) -> HookResult:
        if call.event not in self._events:
            return HookResult(Status.SKIPPED, f"not configured for {call.event}")
        return HookResult(Status.DRY_RUN, f"would POST to {public_url(self._url)}",
                          (("POST", public_url(self._url)),))

    def run(self, call: HookCall) -> HookResult:
        if call.event not in self._events:
            return HookResult(Status.SKIPPED, f"not configured for {call.event}")
        headers = {"Content-Type": "application/json", "User-Agent": "rankdoctor"}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        shown = (("POST", public_url(self._url)),)
        try:
            status = self._env.poster(self._url, self.body(call), headers,
                                      remaining(call.deadline, self._env.clock.monotonic()))
        except (OSError, ValueError) as exc:
            text = str(getattr(exc, "reason", None) or exc)
            for secret in (self._url, self._token):
                if secret:
                    text = text.replace(secret, "***")
            return HookResult(Status.FAILED, f"POST to {public_url(self._url)} failed: {text}",
                              shown)
        if 300 <= status < 400:
            return HookResult(Status.FAILED, f"POST to {public_url(self._url)}: HTTP {status}, a redirect (not "
                                             "followed: the token stays with this host; set the final URL)",
                              shown)
        if not 200 <= status < 300:
            return HookResult(Status.FAILED, f"POST to {public_url(self._url)}: HTTP {status}",
                              shown)
        return HookResult(Status.OK, f"POST to {public_url(self._url)}: HTTP {status}", shown)


def make_webhook_hook(settings: Settings, env: HookEnv) -> WebhookHook:
    url = settings.get_secret("url")
    assert url is not None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise settings.error("url", "must be an http:// or https:// URL")
    token = settings.get_secret("token", required=False)
    names = settings.get_str_list("events", EVENTS)
    for name in names:
        if name not in EVENTS:
            raise settings.error("events", f"unknown event {name!r} (known: {', '.join(EVENTS)})")
    hook = WebhookHook(env, url=url, token=token, events=frozenset(Event(n) for n in names))
    settings.done()
    return hook
