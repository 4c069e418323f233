"""How forms report what they refuse: a service's refusal in its own words, and the one
message an answer without a page (JSON, CSV, plain text) carries."""

from collections.abc import Iterator
from contextlib import contextmanager

from django import forms

from matches.core.errors import RuleError


@contextmanager
def refused_as_invalid() -> Iterator[None]:
    """A RuleError raised inside becomes the form's ValidationError, with the service's
    message: the form and the service say the same."""
    try:
        yield
    except RuleError as error:
        raise forms.ValidationError(error.message) from None


def first_error(form: forms.BaseForm) -> str:
    """The first message of a form in error, for an answer that names one."""
    return next(str(error) for errors in form.errors.values() for error in errors)
