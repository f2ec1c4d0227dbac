"""DynamoDB's wire protocol for the engine: the codec, the protocol, and the HTTP server.

Kept import-light: ``singletable.client`` uses :mod:`wire` and :mod:`protocol` without loading any HTTP
server; :mod:`app` (ASGI) and :mod:`run` (process management) load only when serving.
"""
