"""DynamoDB's JSON 1.0 wire protocol, with no transport attached: its JSON conversion and the dispatcher.

:mod:`wire_json` converts between the wire's JSON and the engine's Python shapes; :mod:`dispatcher` turns
``(X-Amz-Target, body)`` into ``(status, headers, body)`` for one engine. Shared by both transports --
the HTTP server (:mod:`singletable._server`) and the in-process boto3 client (:mod:`singletable._client`)
-- so they answer byte for byte alike. Kept import-light: loading it loads no HTTP server.
"""

from singletable._protocol.dispatcher import (
    Dispatcher,
    Reply,
    RequestHook,
    coral_error,
    error_reply,
    request_id,
)

__all__ = ["Dispatcher", "Reply", "RequestHook", "coral_error", "error_reply", "request_id"]
