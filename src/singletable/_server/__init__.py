"""``singletable serve``: DynamoDB's HTTP front end around the shared protocol (:mod:`singletable._protocol`).

:mod:`app` is the ASGI application (health checks, CORS, body limits, gzip, SigV4 via :mod:`sigv4`),
:mod:`coalesce` sends each uvicorn response in one write, :mod:`checks` verifies that the database opens
and the address binds before anything is served, and :mod:`run` picks the HTTP server and starts the
worker processes. Loaded only when serving. Shared by the command line (``singletable serve``) and
:mod:`singletable.testing`, whose ``dynamodb_server`` fixture serves :class:`app.DynamoDBApp` from a thread of
the test's process.
"""
