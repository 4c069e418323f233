"""What a request works out once, shared by every caller in the request."""

from django.test import RequestFactory

from matches.web.caching import memo


class TestOnce:
    def test_built_once_per_request_and_name(self):
        request, built = RequestFactory().get("/"), []

        def build() -> int:
            built.append(1)
            return len(built)

        assert memo.once(request, "n", build) == memo.once(request, "n", build) == 1
        assert memo.once(RequestFactory().get("/"), "n", build) == 2  # another request

    def test_none_is_an_answer_and_each_part_its_own(self):
        request, built = RequestFactory().get("/"), []
        assert memo.once(request, "row", lambda: built.append(1), 1) is None
        assert memo.once(request, "row", lambda: built.append(2), 1) is None
        memo.once(request, "row", lambda: built.append(3), 2)
        assert built == [1, 3]

    def test_recalled_builds_nothing_and_forget_drops_every_part(self):
        request = RequestFactory().get("/")
        assert memo.recalled(request, "row", 1) is None
        memo.once(request, "row", lambda: "a", 1)
        memo.once(request, "row", lambda: "b", 2)
        assert memo.recalled(request, "row", 1) == "a"
        memo.forget(request, "row")
        assert memo.recalled(request, "row", 2) is None
        assert memo.once(request, "row", lambda: "c", 1) == "c"
