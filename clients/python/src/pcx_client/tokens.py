"""Where tokens come from (mirrors sdk/src/transport.ts's ClientCredentials and StaticToken).

OAuth 2.0 client credentials at the broker's token endpoint, by client_secret_post or by
private_key_jwt (a new assertion per request: an assertion is accepted once). One request in
flight for concurrent callers; a token is renewed at 80 % of its life and at least a minute
early, and forgotten after a 401 so that the next call gets a new one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

import httpx

from .errors import PcxConnectionError, PcxProblem, problem_of
from .keys import PrivateJwk, client_assertion
from .retry import DEFAULT_RETRY, backoff


class TokenSource(Protocol):
    def token(self) -> str: ...

    def invalidate(self) -> bool:
        """Forget the current token (a 401 answered it); False when no other can be had."""
        ...


def discover_token_url(base_url: str, http: httpx.Client) -> str:
    """The token endpoint the broker's metadata names (RFC 8414), else the conventional /oauth2/token."""
    base = base_url.rstrip("/")
    try:
        res = http.get(f"{base}/.well-known/oauth-authorization-server", headers={"accept": "application/json"}, timeout=5)
        if res.status_code == 200:
            endpoint = res.json().get("token_endpoint")
            if isinstance(endpoint, str):
                return endpoint
    except (httpx.HTTPError, ValueError):
        pass  # a broker busy for a moment does not stop its connectors: the conventional address
    return f"{base}/oauth2/token"


class ClientCredentials:
    def __init__(self, *, base_url: str, client_id: str, client_secret: str | None = None,
                 private_key: PrivateJwk | None = None, token_url: str | None = None, scope: str | None = None,
                 http: httpx.Client | None = None, now: Callable[[], float] = time.time) -> None:
        if (client_secret is None) == (private_key is None):
            raise TypeError("client credentials need one of a client_secret or a private_key")
        self._base_url = base_url
        self._client_id = client_id
        self._secret = client_secret
        self._key = private_key
        self._token_url = token_url
        self._scope = scope
        self._http = http or httpx.Client(timeout=15)
        self._now = now
        self._lock = threading.Lock()
        self._current: tuple[str, float] | None = None  # (token, renew at)

    @property
    def token_url(self) -> str:
        if self._token_url is None:
            self._token_url = discover_token_url(self._base_url, self._http)
        return self._token_url

    def _authentication(self, token_url: str) -> dict[str, str]:
        if self._key is not None:
            assertion = client_assertion(client_id=self._client_id, token_url=token_url, private_jwk=self._key, now=self._now())
            return {"client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                    "client_assertion": assertion}
        assert self._secret is not None
        return {"client_id": self._client_id, "client_secret": self._secret}

    def token(self) -> str:
        with self._lock:  # one token request in flight for every thread
            if self._current and self._now() < self._current[1]:
                return self._current[0]
            token, lifetime = self._request()
            renew_in = max(0.0, min(lifetime * 0.8, lifetime - 60))
            self._current = (token, self._now() + renew_in)
            return token

    def invalidate(self) -> bool:
        with self._lock:
            self._current = None
        return True

    def _request(self) -> tuple[str, float]:
        token_url = self.token_url
        last: BaseException | None = None
        for attempt in range(DEFAULT_RETRY.max_retries + 1):
            if attempt:
                time.sleep(backoff(attempt - 1))
            form = {"grant_type": "client_credentials", **self._authentication(token_url)}
            if self._scope:
                form["scope"] = self._scope
            try:
                res = self._http.post(token_url, data=form)
            except httpx.TransportError as err:
                last = err
                continue
            if res.status_code == 200:
                body = res.json()
                if isinstance(body.get("access_token"), str):
                    return body["access_token"], float(body.get("expires_in") or 300)
            if res.status_code >= 500 or res.status_code == 429:
                last = RuntimeError(f"token endpoint answered {res.status_code}")
                continue
            # A refusal of the credentials is an answer (invalid_client is 401), not a lost connection.
            problem = problem_of(res)
            if problem.code == "INTERNAL_ERROR" or res.status_code == 200:
                problem = PcxProblem({"status": res.status_code, "code": "UNAUTHENTICATED",
                                      "detail": f"the token endpoint refused the client credentials of {self._client_id}"},
                                     method="POST", path=httpx.URL(token_url).path)
            raise problem
        raise PcxConnectionError(f"no token from {token_url}: {last}")


class StaticToken:
    """A token the caller manages; a function is asked again (with renew=True) after a 401."""

    def __init__(self, get: str | Callable[[bool], str]) -> None:
        self._get = get
        self._renew = False

    def token(self) -> str:
        if isinstance(self._get, str):
            return self._get
        renew, self._renew = self._renew, False
        return self._get(renew)

    def invalidate(self) -> bool:
        if isinstance(self._get, str):
            return False
        self._renew = True
        return True
