"""European Portuguese dates: "30 de novembro de 2026, 21:36". Month names are written in
lower case in Portugal; Django's catalogue capitalises them, so the "E" (alternative month
name) format reads ours, whose translations are lower case."""

from django.utils.translation import pgettext_lazy

DATE_FORMAT = r"j \d\e E \d\e Y"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = r"j \d\e E \d\e Y, H:i"
YEAR_MONTH_FORMAT = r"E \d\e Y"
MONTH_DAY_FORMAT = r"j \d\e E"
SHORT_DATE_FORMAT = "d/m/Y"
SHORT_DATETIME_FORMAT = "d/m/Y H:i"
FIRST_DAY_OF_WEEK = 1  # Monday
DATE_INPUT_FORMATS = ["%Y-%m-%d", "%d/%m/%Y", "%d/%m/%y"]
DECIMAL_SEPARATOR = ","
THOUSAND_SEPARATOR = "\xa0"
NUMBER_GROUPING = 3

# Listed so that `make messages` keeps their lower-case translations in our catalogue.
_MONTHS = [
    pgettext_lazy("alt. month", "January"),
    pgettext_lazy("alt. month", "February"),
    pgettext_lazy("alt. month", "March"),
    pgettext_lazy("alt. month", "April"),
    pgettext_lazy("alt. month", "May"),
    pgettext_lazy("alt. month", "June"),
    pgettext_lazy("alt. month", "July"),
    pgettext_lazy("alt. month", "August"),
    pgettext_lazy("alt. month", "September"),
    pgettext_lazy("alt. month", "October"),
    pgettext_lazy("alt. month", "November"),
    pgettext_lazy("alt. month", "December"),
]
