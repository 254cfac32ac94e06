"""Validation errors that point at one entry of a list (``papal_debaters.2.name``).

A ``field_validator`` can only blame the whole field; a cross-entry rule (unique names across two
lists, a pool empty in the named zone) raises through :func:`fail` from a model validator instead,
so the scenario loader can map ``loc`` to the offending line of the YAML file.
"""

from __future__ import annotations

from typing import Any, NoReturn

from pydantic import ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError


def fail(title: str, loc: tuple[str | int, ...], message: str, value: Any) -> NoReturn:
    """Raise a one-error ValidationError at ``loc`` with ``message`` (no braces in it)."""
    error = PydanticCustomError("value_error", message.replace("{", "(").replace("}", ")"))
    raise ValidationError.from_exception_data(
        title, [InitErrorDetails(type=error, loc=loc, input=value)]
    )
