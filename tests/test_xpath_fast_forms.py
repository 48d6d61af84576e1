"""check_xpath's fast accept path: the forms the inducers write most are recognised
without the parser, with the same XPathInfo the parser gives; anything else is parsed."""

from __future__ import annotations

import pytest

from scrapy_records.errors import WrapperError
from scrapy_records.wrappers import safe_xpath

CLS = "contains(concat(' ', normalize-space(@class), ' '), ' {} ')"


def _parsed(xpath: str) -> safe_xpath.XPathInfo:
    return safe_xpath._Checker(xpath).top(safe_xpath._Parser(xpath).parse())


FAST = [
    "div",
    "div[2]/span/a",
    "a/@href",
    "td[3]/text()",
    "p/text()[2]",
    "table/tbody/tr/td/div[2]/span/text()[normalize-space()]",
    f"div[{CLS.format('price')}]/span[not(@class)]/b",
    f"li[{CLS.format('w-1_2')}]/img/@data-src",
    "/html/body/div[2]/div[1]/ul/li[3]",
    "/html/body/div[2]/ul/li[1] | /html/body/div[2]/ul/li[2] | /html/body/div[2]/ul/li[5]",
    "//div[@id='results']",
    f"//div[@id='main-list']/ul[{CLS.format('items')}]/li[4]/a/text()",
    "//span[@id='x_1']/text()[3]",
    "text",  # an element named text
    "div | span",
    "/".join(["div"] * 64),
]


@pytest.mark.parametrize("xpath", FAST)
def test_a_fast_form_has_the_parsers_info(xpath):
    fast = safe_xpath._fast_info(xpath)
    assert fast is not None
    assert fast == _parsed(xpath)
    assert safe_xpath.check_xpath(xpath) == fast


PARSED = [
    "div//span",  # a descendant step after the first
    "div/..",
    "following-sibling::div[1]",
    "div[ 2 ]",
    "div[contains(@class, 'x')]",
    f"div[{CLS.format('a b')}]",
    "div[1 or 2]",
    "div[12345678]",  # more digits than the fast path reads
    "//div[@id='a b']",
    "//div[@id='x']//a",
    "//div",
    "div/",
    "/",
    "text()[last()]",
    "div|span",
    "/html[not(//form)]//a",
    "/".join(["div"] * 65),
    " | ".join(["a"] * 1001),
]


@pytest.mark.parametrize("xpath", PARSED)
def test_other_forms_go_through_the_parser(xpath):
    assert safe_xpath._fast_info(xpath) is None
    try:
        want = _parsed(xpath)
    except WrapperError as e:
        with pytest.raises(WrapperError, match="not an allowed selector") as got:
            safe_xpath.check_xpath(xpath)
        assert str(got.value) == str(e)
    else:
        assert safe_xpath.check_xpath(xpath) == want
