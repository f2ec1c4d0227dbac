"""Where botocore is hooked: the two endpoint methods every botocore request passes through.

``Endpoint.create_request`` builds the HTTP request (and signs it, through the ``request-created`` event);
``Endpoint._do_get_response`` sends it (``before-send`` handlers first, then the HTTP session) and parses the
answer. Both are patched on the class, so clients created before the mock started, in any thread, are
answered too; aiobotocore's ``AioEndpoint`` (its own async versions) is patched the same way when installed.

For a ``dynamodb`` or ``dynamodbstreams`` request the patched ``create_request`` builds it unsigned (nothing
checks a signature in-process, so no credentials are needed), and the patched ``_do_get_response`` runs
botocore's own ``_do_get_response`` on a view of the endpoint whose event emitter answers ``before-send``
with the mock's response -- before any other ``before-send`` handler, moto's included -- so botocore's
parser, modeled errors, CRC32 check and retry logic run as for a network answer. Every other service's
request goes to the original methods untouched.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from collections.abc import Callable
from typing import Any

from singletable._client import request_parts

SERVICES = frozenset({"dynamodb", "dynamodbstreams"})
_MISSING = object()

# The active mock's answer: (service name, X-Amz-Target, body, client region, url, response class) -> a
# botocore response.
Responder = Callable[[str, "str | None", bytes, "str | None", str, type], Any]


def _ours(operation_model: Any) -> bool:
    return operation_model is not None and operation_model.service_model.service_name in SERVICES


class _Answering:
    """An event emitter that answers ``before-send`` with one response and passes every other event on."""

    __slots__ = ("emitter", "response")

    def __init__(self, emitter: Any, response: Any) -> None:
        self.emitter = emitter
        self.response = response

    def emit(self, event_name: str, **kwargs: Any) -> Any:
        if event_name.startswith("before-send."):
            return [(None, self.response)]
        return self.emitter.emit(event_name, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.emitter, name)


class _AsyncAnswering(_Answering):
    """:class:`_Answering` for aiobotocore, whose emitter's ``emit`` is awaited."""

    __slots__ = ()

    async def emit(self, event_name: str, **kwargs: Any) -> Any:
        if event_name.startswith("before-send."):
            return [(None, self.response)]
        return await self.emitter.emit(event_name, **kwargs)


class _EndpointView:
    """An endpoint whose event emitter is ``emitter``; everything else is the endpoint's own."""

    __slots__ = ("_endpoint", "_event_emitter")

    def __init__(self, endpoint: Any, emitter: Any) -> None:
        object.__setattr__(self, "_endpoint", endpoint)
        object.__setattr__(self, "_event_emitter", emitter)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._endpoint, name)


def _unsigned_request(endpoint: Any, params: dict[str, Any], operation_model: Any) -> Any:
    from botocore.awsrequest import create_request_object

    request = create_request_object(params)
    request.stream_output = False
    return endpoint.prepare_request(request)


class Patches:
    """The installed patches: (class, attribute, what the class's own ``__dict__`` held before)."""

    def __init__(self) -> None:
        self.saved: list[tuple[type, str, Any]] = []

    def install(self, responder: Callable[[], Responder | None]) -> None:
        from botocore.awsrequest import AWSResponse
        from botocore.endpoint import Endpoint

        self._patch_class(Endpoint, responder, AWSResponse, is_async=False)
        aio = _aio_endpoint()
        if aio is not None:
            from aiobotocore.awsrequest import AioAWSResponse

            self._patch_class(aio, responder, AioAWSResponse, is_async=True)

    def _patch_class(
        self, cls: type, responder: Callable[[], Responder | None], response_type: type, *, is_async: bool
    ) -> None:
        # botocore's and aiobotocore's Endpoint classes (the stubs do not declare these two methods)
        create_request = cls.create_request  # type: ignore[attr-defined]
        do_get_response = cls._do_get_response  # type: ignore[attr-defined]

        def respond(answer: Responder, request: Any, operation_model: Any, context: Any) -> Any:
            target, body = request_parts(request)
            service = operation_model.service_model.service_name
            # botocore puts the client's region in every request's context (its _make_api_call)
            region = context.get("client_region") if isinstance(context, dict) else None
            return answer(service, target, body, region, request.url, response_type)

        if is_async:

            async def async_create_request(self: Any, params: Any, operation_model: Any = None) -> Any:
                if responder() is not None and _ours(operation_model):
                    return _unsigned_request(self, params, operation_model)
                return await create_request(self, params, operation_model)

            async def async_do_get_response(
                self: Any, request: Any, operation_model: Any, context: Any
            ) -> Any:
                # Read once: a mock stopping in another thread meanwhile must not leave this call half-routed.
                answer = responder()
                if answer is None or not _ours(operation_model):
                    return await do_get_response(self, request, operation_model, context)
                try:
                    response = respond(answer, request, operation_model, context)
                except Exception as error:
                    return (None, error)
                view = _EndpointView(self, _AsyncAnswering(self._event_emitter, response))
                return await do_get_response(view, request, operation_model, context)

            replacements = {"create_request": async_create_request, "_do_get_response": async_do_get_response}
        else:

            def sync_create_request(self: Any, params: Any, operation_model: Any = None) -> Any:
                if responder() is not None and _ours(operation_model):
                    return _unsigned_request(self, params, operation_model)
                return create_request(self, params, operation_model)

            def sync_do_get_response(self: Any, request: Any, operation_model: Any, context: Any) -> Any:
                # Read once: a mock stopping in another thread meanwhile must not leave this call half-routed.
                answer = responder()
                if answer is None or not _ours(operation_model):
                    return do_get_response(self, request, operation_model, context)
                try:
                    response = respond(answer, request, operation_model, context)
                except Exception as error:
                    return (None, error)
                view = _EndpointView(self, _Answering(self._event_emitter, response))
                return do_get_response(view, request, operation_model, context)

            replacements = {"create_request": sync_create_request, "_do_get_response": sync_do_get_response}
        for name, replacement in replacements.items():
            self.saved.append((cls, name, cls.__dict__.get(name, _MISSING)))
            setattr(cls, name, replacement)

    def remove(self) -> None:
        """Put every patched attribute back as it was (the very same objects; absent ones deleted)."""
        for cls, name, before in reversed(self.saved):
            if before is _MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, before)
        self.saved.clear()


def _aio_endpoint() -> type | None:
    """aiobotocore's endpoint class when aiobotocore is installed (imported now if it was not yet, so clients
    made after the mock starts are covered too)."""
    if "aiobotocore.endpoint" not in sys.modules and importlib.util.find_spec("aiobotocore") is None:
        return None
    try:
        from aiobotocore.endpoint import AioEndpoint
    except ImportError:
        return None
    if not inspect.iscoroutinefunction(AioEndpoint.__dict__.get("_do_get_response")):
        return None  # an aiobotocore whose endpoint is not the shape this module patches
    return AioEndpoint
