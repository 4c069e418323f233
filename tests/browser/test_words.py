"""Issue 23, words: the Portuguese header keeps one row on a tablet in portrait."""

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
# Another tab ("Épocas", as issue 23 puts Seasons in the navigation) must still fit.
ADD_SEASONS_TAB = """() => {
  const list = document.querySelector('.tabs ul');
  if ([...list.querySelectorAll('a')].some(a => a.textContent.trim() === 'Épocas')) return;
  const item = list.lastElementChild.cloneNode(true);
  item.querySelector('a').textContent = 'Épocas';
  item.querySelector('a').removeAttribute('aria-current');
  list.appendChild(item);
}"""


@pytest.mark.parametrize("logged_in", [False, True])
def test_the_portuguese_header_keeps_one_row_at_768(browser, site, logged_in):
    make_host("margarida-tavares")
    context = tablet(browser, viewport=PORTRAIT, locale="pt-PT")
    page = context.new_page()
    try:
        if logged_in:
            page.goto(f"{site}/accounts/login/")
            page.get_by_label("Nome de utilizador").fill("margarida-tavares")
            page.get_by_label("Palavra-passe").fill("a-long-test-password")
            page.get_by_role("button", name="Entrar").click()
            expect(page.get_by_role("button", name="Sair (margarida-tavares)")).to_be_visible()
        page.goto(f"{site}/standings/")
        page.evaluate(ADD_SEASONS_TAB)
        shape = page.evaluate(ROWS)
        assert shape["oneRow"], shape
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width == PORTRAIT["width"]
    finally:
        context.close()
