"""Words: the header keeps one row on a tablet in portrait, in Portuguese too."""

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import PORTRAIT, tablet
from tests.factories import make_host

pytestmark = pytest.mark.browser

# One row: every visible child of the header starts above the bottom of every other.
ROWS = """() => {
  const header = document.querySelector('.site-header');
  const boxes = [...header.children].filter(c => c.offsetParent !== null)
    .map(c => c.getBoundingClientRect());
  const top = Math.max(...boxes.map(b => b.top)), bottom = Math.min(...boxes.map(b => b.bottom));
  return {oneRow: top < bottom, height: Math.round(header.getBoundingClientRect().height)};
}"""
# Another tab (Seasons, in the navigation too) must still fit.
ADD_SEASONS_TAB = """(label) => {
  const list = document.querySelector('.tabs ul');
  if ([...list.querySelectorAll('a')].some(a => a.textContent.trim() === label)) return;
  const item = list.lastElementChild.cloneNode(true);
  item.querySelector('a').textContent = label;
  item.querySelector('a').removeAttribute('aria-current');
  list.appendChild(item);
}"""


# The login form's words and the sign-out button's name in each language.
WORDS = {
    "pt-PT": (
        "Nome de utilizador",
        "Palavra-passe",
        "Entrar",
        "Sair (margarida-tavares)",
        "Épocas",
    ),
    "en-GB": ("Username", "Password", "Log in", "Log out margarida-tavares", "Seasons"),
}


@pytest.mark.parametrize("locale", ["pt-PT", "en-GB"])
@pytest.mark.parametrize("logged_in", [False, True])
def test_the_header_keeps_one_row_at_768(browser, site, logged_in, locale):
    username, password, log_in, log_out, seasons = WORDS[locale]
    make_host("margarida-tavares")
    context = tablet(browser, viewport=PORTRAIT, locale=locale)
    page = context.new_page()
    try:
        if logged_in:
            page.goto(f"{site}/accounts/login/")
            page.get_by_label(username).fill("margarida-tavares")
            page.get_by_label(password).fill("a-long-test-password")
            page.get_by_role("button", name=log_in).click()
            expect(page.get_by_role("button", name=log_out)).to_be_visible()
        page.goto(f"{site}/standings/")
        page.evaluate(ADD_SEASONS_TAB, seasons)
        shape = page.evaluate(ROWS)
        assert shape["oneRow"], shape
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width == PORTRAIT["width"]
    finally:
        context.close()
