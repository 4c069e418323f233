"""The showdown page's formset reads the page's own query string: rows named name_1, hand_1,
... and counted by rows, with no management form."""

from django.http import QueryDict

from matches.web.forms.showdown import ShowdownFormSet


def formset_for(query: str) -> ShowdownFormSet:
    data = QueryDict(query)
    return ShowdownFormSet(data, rows=ShowdownFormSet.rows_for(data, names=[], adding=False))


def test_a_link_naming_only_the_hands_is_judged():
    formset = formset_for("hand_1=QS+QC+7D&hand_2=JS+JH+AD")
    assert formset.is_valid(), formset.summary
    assert [form["hand"].html_name for form in formset] == ["hand_1", "hand_2"]
    assert formset.verdict is not None


def test_the_rows_field_counts_the_rows_not_a_management_form():
    formset = formset_for("rows=3&form-TOTAL_FORMS=9&hand_1=QS+QC+7D&hand_2=JS+JH+AD")
    assert formset.is_valid(), formset.summary
    assert len(formset.forms) == 3


def test_problems_are_listed_by_the_field_they_are_about():
    formset = formset_for("name_1=Ann&hand_1=QS+7D&name_2=Ann&hand_2=JS+JH+AD")
    assert not formset.is_valid()
    assert list(formset.summary) == ["id_hand_1", "id_name_2"]
    assert formset.error_total == 2
