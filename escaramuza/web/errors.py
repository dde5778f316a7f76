"""The errors of the web page and its API, each with its HTTP status code."""

from __future__ import annotations

from escaramuza.rules.core.errors import EscaramuzaError


class WebError(EscaramuzaError):
    """A request the page cannot carry out; ``status`` is its HTTP status code."""

    status = 400


class NotFoundError(WebError):
    status = 404


class StaleError(WebError):
    status = 409


class TooLargeError(WebError):
    status = 413


class BusyError(WebError):
    status = 429


class RateLimitError(BusyError):
    """A client started too many sessions lately; ``retry_after`` is in seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class SearchFailedError(WebError):
    """A search ended with an unexpected error (logged on the server with its traceback)."""

    status = 500


class FullError(WebError):
    """Every session slot holds a battle in play (see :class:`SessionStore`)."""

    status = 503
