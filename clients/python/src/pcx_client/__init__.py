"""pcx-client: the Partner Capacity Exchange broker's Python client.

`pcx_client.generated` holds the models and operations openapi-python-client made from the
broker's document (at build time); the rest is the thin hand-written layer with the SDK's
guarantees: tokens (client secret or private_key_jwt), Idempotency-Keys kept across retries,
retries with Retry-After, If-Match from the resource read, re-decision on a stale version,
pagination, the event feed consumer and webhook verification.
"""

from .client import Answer, PcxClient, Target, id_of, if_match_of, unwrap
from .errors import PcxConnectionError, PcxError, PcxProblem, PcxTimeoutError, is_problem
from .feed import AppliedStore, CursorStore, FeedConsumer, MemoryAppliedStore, classify
from .keys import algorithm_of, client_assertion, load_private_jwk
from .retry import DEFAULT_RETRY, RetryPolicy, backoff, parse_retry_after
from .tokens import ClientCredentials, StaticToken, TokenSource
from .transport import GuardedTransport, RetryInfo
from .webhooks import Received, WebhookReceiver, WebhookVerificationError

__all__ = [
    "DEFAULT_RETRY",
    "Answer",
    "AppliedStore",
    "ClientCredentials",
    "CursorStore",
    "FeedConsumer",
    "GuardedTransport",
    "MemoryAppliedStore",
    "PcxClient",
    "PcxConnectionError",
    "PcxError",
    "PcxProblem",
    "PcxTimeoutError",
    "Received",
    "RetryInfo",
    "RetryPolicy",
    "StaticToken",
    "Target",
    "TokenSource",
    "WebhookReceiver",
    "WebhookVerificationError",
    "algorithm_of",
    "backoff",
    "classify",
    "client_assertion",
    "id_of",
    "if_match_of",
    "is_problem",
    "load_private_jwk",
    "parse_retry_after",
    "unwrap",
]
