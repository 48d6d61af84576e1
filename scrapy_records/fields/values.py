"""Value typing and normalisation for aligned columns.

Field alignment (:mod:`scrapy_records.fields.alignment`) produces *data slots*; this module
decides what kind of value a slot holds and turns the raw strings into plain JSON/CSV
scalars (entry points :func:`infer_column` and :func:`guess_type`):

``text``
    the whitespace-normalised string (unchanged).
``url``
    a link target (``a/@href``) made absolute with :meth:`Page.absolute` (``<base href>``
    and the page URL are honoured).
``image``
    an image URL: ``img/@src``, or for lazy-loaded images ``data-src``/``data-original``/
    ``data-lazy-src`` or the first candidate of ``srcset``/``data-srcset``; absolute
    (:mod:`scrapy_records.fields.urls`).
``number``
    ``int`` when the text has no decimal part, else ``float``. Thousands separators in the
    en (``1,234.5``), de (``1.234,5``), fr (``1 234,5``) and ch (``1'234.5``) styles are
    understood; an ambiguous single separator followed by exactly three digits (``1.234``)
    is resolved by the style the other values of the column use (:func:`decimal_style`).
``price``
    an amount with a currency symbol or ISO code (``$1,299.00``, ``1.299,00 €``,
    ``EUR 12,50``, ``12,- €``), maybe after a label of one or two words (``List CAD 277.48``,
    ``Was: $12.99``: :func:`price_label`, which names the column; "Free" is 0). The column
    value is the amount as a ``float`` (a plain scalar, what CSV users want) and, when any
    value names a currency, the region gets a companion column ``<name>_currency`` holding
    the ISO 4217 code when the symbol is unambiguous (``€`` -> ``EUR``, ``£`` -> ``GBP``,
    ``US$`` -> ``USD``) or the symbol as written otherwise (``$``, ``¥``, ``kr``). No
    ``<name>_raw`` column: the raw text stays in the record's ``text`` and the column's
    relative ``xpath`` selects it.
``date``
    ISO 8601: ``YYYY-MM-DD`` when the text has no time of day, else
    ``YYYY-MM-DDTHH:MM[:SS][+HH:MM]`` (:func:`scrapy_records.fields.dates.iso_date`). Parsing uses
    :mod:`scrapy_records.fields.dates` (``is_date_candidate`` / ``parse_date``). The ISO value
    is a reading ("3 hours ago" counts from a clock, "05/06" picks a day order), so a date
    column the page writes otherwise gets a companion ``<name>_raw`` with the text as
    written (:mod:`~scrapy_records.fields.alignment`).

A column gets a typed kind only when *every* value of the column converts (a price column
with one ``"Call for price"`` stays ``text``): a column never mixes strings and numbers. A
value that says it is missing ("N/A", "TBA": :func:`is_no_value`) is left out: the
others decide the type, and the missing one is no value of the typed column.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from datetime import date, datetime
from typing import Any

from scrapy_records.fields.dates import is_date_candidate, is_pure_date, iso_date, parse_date

logger = logging.getLogger(__name__)

__all__ = [
    "parse_number",
    "parse_price",
    "price_unit",
    "price_units",
    "price_range",
    "price_maxes",
    "price_label",
    "has_trailing_charge",
    "parse_date_iso",
    "decimal_style",
    "infer_column",
    "is_no_value",
    "first_srcset_url",
    "CURRENCY_SYMBOLS",
]

# --------------------------------------------------------------------------- currencies
#: Currency markers -> ISO 4217 code, or the marker itself when it is ambiguous.
#: Longer markers are tried first (``US$`` before ``$``).
CURRENCY_SYMBOLS: dict[str, str] = {
    "US$": "USD",
    "U$S": "USD",
    "C$": "CAD",
    "CA$": "CAD",
    "A$": "AUD",
    "AU$": "AUD",
    "NZ$": "NZD",
    "HK$": "HKD",
    "S$": "SGD",
    "R$": "BRL",
    "MX$": "MXN",
    "NT$": "TWD",
    "€": "EUR",
    "£": "GBP",
    "₹": "INR",
    "₽": "RUB",
    "₩": "KRW",
    "₺": "TRY",
    "₪": "ILS",
    "฿": "THB",
    "₫": "VND",
    "₴": "UAH",
    "₦": "NGN",
    "₱": "PHP",
    "₡": "CRC",
    "₲": "PYG",
    "₸": "KZT",
    "₼": "AZN",
    "₾": "GEL",
    "zł": "PLN",
    "Kč": "CZK",
    "Ft": "HUF",
    "lei": "RON",
    "руб": "RUB",
    "руб.": "RUB",
    "р.": "RUB",
    "Rs": "INR",
    "Rs.": "INR",
    "CHF": "CHF",
    "Fr.": "CHF",
    "fr.": "CHF",
    "$": "$",
    "¥": "¥",
    "円": "JPY",
    "元": "CNY",
    "kr": "kr",
    "kr.": "kr",
    "R": "ZAR",
    "RM": "MYR",
    "Rp": "IDR",
    "lv": "BGN",
    "лв": "BGN",
}
_ISO_CODES = frozenset(
    "USD EUR GBP JPY CNY RMB CHF CAD AUD NZD HKD SGD SEK NOK DKK ISK PLN CZK HUF RON BGN "
    "RUB UAH TRY ILS INR PKR LKR BDT IDR MYR THB VND PHP KRW TWD BRL ARS CLP COP MXN PEN "
    "UYU ZAR NGN KES EGP MAD AED SAR QAR KWD BHD OMR JOD KZT GEL AZN BYN RSD HRK".split()
)

_SPACES = "\u00a0\u202f\u2009\u2007\u200a "
_NUM = r"[+\-\u2212]?\d[\d.,'’" + _SPACES + r"]*"
_sym_alt = "|".join(re.escape(s) for s in sorted(CURRENCY_SYMBOLS, key=len, reverse=True))
_code_alt = "|".join(sorted(_ISO_CODES))
# A currency marker: an ISO code (a whole word) or a symbol.
_CUR = rf"(?:(?<![A-Za-z])(?:{_code_alt})(?![A-Za-z])|{_sym_alt})"
_PRICE_RE = re.compile(
    rf"^(?:(?:from|ab|dès|des|desde|da|vanaf|od|от|only|now|just)\s*:?\s*)?"
    rf"(?P<pre>{_CUR})?\s*(?P<pre2>{_CUR})?\s*"
    rf"(?P<num>{_NUM})\s*"
    rf"(?P<dash>[,.]\s*[-–—]{{1,2}})?\s*"
    rf"(?P<post>{_CUR})?\s*(?P<post2>{_CUR})?\s*[*†]?$",
    re.I,
)
_NUMBER_RE = re.compile(rf"^{_NUM}$")
#: a unit note after a price ("$10.00 /2 pack", "$3.99/lb", "€2 per kg", "£1.25 each"):
#: a slash or "per" and one to three short words, or "each"/"ea."
_UNIT_NOTE_RE = re.compile(
    r"^(?P<price>.*?\d.*?)\s*(?:(?:/|\bper\s)\s*(?P<unit>(?=[^/]*[^\W\d_])[\w.]+(?:\s[\w.]+){0,2})"
    r"|(?P<each>\beach|\bea\.?))\s*$",
    re.I,
)
_NUM_SEARCH_RE = re.compile(_NUM)
# digit-group separators that are never decimal points: spaces and apostrophes before 3 digits
_GROUP_SEP_RE = re.compile(rf"(?<=\d)[{_SPACES}'’](?=\d{{3}}(?!\d))")


#: ``CURRENCY_SYMBOLS`` by lower-cased marker (the first marker of a case-insensitive
#: pair wins, as a scan of the table in order would)
_SYMBOLS_LOWER: dict[str, str] = {}
for _k, _v in CURRENCY_SYMBOLS.items():
    _SYMBOLS_LOWER.setdefault(_k.lower(), _v)


def _currency_code(marker: str | None) -> str | None:
    if not marker:
        return None
    m = marker.strip()
    up = m.upper()
    if up in _ISO_CODES:
        return "CNY" if up == "RMB" else up
    return _SYMBOLS_LOWER.get(m.lower(), m)


# ----------------------------------------------------------------------------- numbers
def _clean_number(text: str) -> str:
    s = text.strip().replace("\u2212", "-")
    # digit-group separators that are never decimal points: spaces and apostrophes
    s = _GROUP_SEP_RE.sub("", s)
    return s


def _split_style(s: str) -> str | None:
    """The decimal separator a single value proves (``'.'``/``','``) or ``None``."""
    s = _clean_number(s)
    if "." in s and "," in s:
        return "." if s.rfind(".") > s.rfind(",") else ","
    for sep in ".,":
        if s.count(sep) == 1:
            after = s.rsplit(sep, 1)[1]
            if after.isdigit() and len(after) in (1, 2):
                return sep
            if after.isdigit() and len(after) > 3:
                return sep
        elif s.count(sep) > 1:
            return "," if sep == "." else "."
    return None


def decimal_style(texts: Sequence[str]) -> str | None:
    """The decimal separator most values of a column prove (``'.'``, ``','`` or ``None``).

    Used to resolve ``1.234`` (de: one thousand two hundred thirty-four; en: 1.234).
    """
    if len(texts) == 1:  # (a detail page's column) the style its one value proves
        m = _NUM_SEARCH_RE.search(texts[0] or "")
        return _split_style(m.group(0)) if m else None
    votes = {".": 0, ",": 0}
    done: dict[str, str | None] = {}  # a repeated value proves the same style
    for t in texts:
        t = t or ""
        st = done.get(t, "")
        if st == "":
            m = _NUM_SEARCH_RE.search(t)
            st = done[t] = _split_style(m.group(0)) if m else None
        if st:
            votes[st] += 1
    if votes["."] == votes[","]:
        return None
    return "." if votes["."] > votes[","] else ","


def parse_number(
    text: str, decimal: str | None = None, *, prefer_thousands: bool = False
) -> int | float | None:
    """Parse a whole-string number with thousands separators; ``None`` if it is not one.

    :param decimal: the column's decimal separator (:func:`decimal_style`), used only for
        an ambiguous single separator followed by exactly three digits.
    :param prefer_thousands: without a column style, read ``1.234`` / ``1,234`` as
        thousands (prices) instead of en-style (``,`` thousands, ``.`` decimal).

    >>> parse_number("1,234.5"), parse_number("1.234,5"), parse_number("1 234,5")
    (1234.5, 1234.5, 1234.5)
    >>> parse_number("007"), parse_number("12a")
    (None, None)
    """
    if not text:
        return None
    s = _clean_number(text)
    if not _NUMBER_RE.match(s) or any(c in s for c in _SPACES):
        return None
    sign = ""
    if s[0] in "+-":
        sign, s = ("-" if s[0] == "-" else ""), s[1:]
    if not s or not s[0].isdigit() or not s[-1].isdigit():
        return None
    dec: str | None = None
    if "." in s and "," in s:
        dec = "." if s.rfind(".") > s.rfind(",") else ","
        thou = "," if dec == "." else "."
        if s.count(dec) != 1:
            return None
    else:
        sep = "." if "." in s else ("," if "," in s else None)
        if sep is None:
            thou = ""
        elif s.count(sep) > 1:
            thou = sep
        else:
            after = s.rsplit(sep, 1)[1]
            if len(after) != 3:
                dec = sep
            elif decimal is not None:
                dec = sep if decimal == sep else None
            elif prefer_thousands:
                dec = None
            else:
                dec = "." if sep == "." else None
            thou = sep if dec is None else ""
    intpart, _, frac = s.partition(dec) if dec else (s, "", "")
    if thou:
        groups = intpart.split(thou)
        # first group 1-3 digits, others 3 (or 2 for the Indian lakh style with ",")
        if not (1 <= len(groups[0]) <= 3) or any(
            not (len(g) == 3 or (thou == "," and len(g) == 2 and k < len(groups) - 1))
            for k, g in enumerate(groups[1:])
        ):
            return None
        intpart = "".join(groups)
    if not intpart.isdigit() or (frac and not frac.isdigit()):
        return None
    if len(intpart) > 1 and intpart[0] == "0" and not frac and not thou:
        return None  # an identifier such as 007, not a quantity
    if frac:
        return float(f"{sign}{intpart}.{frac}")
    return int(sign + intpart) if sign != "-" or intpart.strip("0") else 0


def price_unit(text: str) -> tuple[str, str] | None:
    """``(price text, unit)`` when ``text`` ends with a unit note, else ``None``.

    >>> price_unit("$10.00 /2 pack"), price_unit("$3.99/lb"), price_unit("£1.25 each")
    (('$10.00', '2 pack'), ('$3.99', 'lb'), ('£1.25', 'each'))
    """
    if "/" not in text and not _PER_EACH_RE.search(text):
        return None
    m = _UNIT_NOTE_RE.match(text.strip())
    if m is None:
        return None
    unit = m.group("unit") or m.group("each")
    return m.group("price"), unit.rstrip(".").lower() if m.group("each") else unit


_PER_EACH_RE = re.compile(r"\b(?:per|each|ea)\b", re.I)

#: a price range: two amounts joined by a dash, "~" or "to" ("£2.99 to £8.99", "$5 - $12.50",
#: "10 € – 15 €", "10-20 EUR"); the high end starts with at most a currency marker
_RANGE_RE = re.compile(
    r"^(?P<lo>.*?\d.*?)\s*(?:[-–—~]|\b(?:to|bis|à|a|hasta|tot)\b)\s*(?P<hi>\D{0,4}\d.*)$", re.I
)
_RANGE_HINT_RE = re.compile(r"\d.*?(?:[-–—~]|\b(?:to|bis|à|a|hasta|tot)\b).*?\d", re.I)


def price_range(text: str, decimal: str | None = None) -> tuple[float, float, str | None] | None:
    """``(low, high, currency)`` when ``text`` is a price range: two amounts joined by a
    dash or "to", at least one with a currency marker, the high end not below the low.

    >>> price_range("£2.99 to £8.99"), price_range("10-20 EUR"), price_range("2010-2011")
    ((2.99, 8.99, 'GBP'), (10.0, 20.0, 'EUR'), None)
    """
    if len(text) > 48 or not _RANGE_HINT_RE.search(text):
        return None
    m = _RANGE_RE.match(text.strip())
    if m is None:
        return None
    lo, hi = _parse_price(m.group("lo"), decimal), _parse_price(m.group("hi"), decimal)
    if lo is None or hi is None or not (lo[1] or hi[1]) or hi[0] < lo[0]:
        return None
    return lo[0], hi[0], lo[1] or hi[1]


def parse_price(text: str, decimal: str | None = None) -> tuple[float, str | None] | None:
    """Parse ``text`` as a price: ``(amount, currency)`` or ``None``.

    ``currency`` is an ISO code when the marker is unambiguous, the marker otherwise, or
    ``None`` when the text is a bare number. A unit note after the amount ("/2 pack",
    "per kg", :func:`price_unit`) is allowed: the amount is the price it states; so is a
    range ("£2.99 to £8.99", :func:`price_range`): the amount is its low end; "Free" is 0.

    >>> parse_price("$1,299.00"), parse_price("1.299,00 €"), parse_price("12,- EUR")
    ((1299.0, '$'), (1299.0, 'EUR'), (12.0, 'EUR'))
    """
    if not text or len(text) > 48:
        return None
    if text.strip().rstrip("!").casefold() in _FREE:
        return 0.0, None  # (without a currency: a column of "Free" alone is no price column)
    out = _unlabelled_price(text, decimal)
    if out is None:
        split = _split_price_label(text, decimal)
        out = split[1] if split is not None else None
    return out


#: what a shop writes for a price of nothing ("Free" among "$ 62.99"s: an app, an e-book)
_FREE = frozenset("free gratis kostenlos gratuit gratuito gratuita darmowy zdarma".split())


def _unlabelled_price(text: str, decimal: str | None) -> tuple[float, str | None] | None:
    out = _parse_price(text, decimal)
    if out is None:
        pu = price_unit(text)
        if pu is not None:
            out = _parse_price(pu[0], decimal)
        else:
            rng = price_range(text, decimal)
            out = (rng[0], rng[2]) if rng is not None else None
    return out


#: a word of a label glued before a price: letters, maybe an abbreviation's dot or a colon
_LABEL_WORD_RE = re.compile(r"^[^\W\d_]+\.?:?$")
#: longest label glued before a price, in words and characters
_PRICE_LABEL_WORDS, _PRICE_LABEL_CHARS = 2, 20


def price_label(text: str, decimal: str | None = None) -> str | None:
    """The label written before a price in one text ("List CAD 277.48", "Was: $12.99",
    "You Save $3.00"): one or two words of letters, the rest a price with a currency
    marker; or the charge named after one ("+ £3.99 postage", "Free Postage":
    :func:`has_trailing_charge`). ``None`` when ``text`` is no such labelled price (or a
    price as it stands: "from $5" and "now $5" read as prices without a label).

    >>> price_label("List CAD 277.48"), price_label("Was: $12.99"), price_label("Size 12")
    ('List', 'Was', None)
    """
    if not text or len(text) > 48 or _unlabelled_price(text, decimal) is not None:
        return None
    split = _split_price_label(text, decimal) or _trailing_charge(text.split(), decimal)
    return split[0] if split is not None else None


def _split_price_label(
    text: str, decimal: str | None
) -> tuple[str, tuple[float, str | None]] | None:
    words = text.split()
    for k in range(1, min(_PRICE_LABEL_WORDS, len(words) - 1) + 1):
        label = " ".join(words[:k])
        if len(label) > _PRICE_LABEL_CHARS or not _LABEL_WORD_RE.match(words[k - 1]):
            return None
        if words[k - 1].rstrip(".:").lower() in _SYMBOLS_LOWER:  # "kr 50", "Rs. 20": a currency
            return None
        out = _unlabelled_price(" ".join(words[k:]), decimal)
        if out is not None:
            return (label.rstrip(":").strip(), out) if out[1] is not None else None
    return None


#: charges a shop names after their amount ("+ £3.99 postage", "$5.00 shipping")
_CHARGE_WORDS = frozenset(
    "postage shipping delivery freight handling tax taxes vat fee fees".split()
)


def _trailing_charge(
    words: list[str], decimal: str | None
) -> tuple[str, tuple[float, str | None]] | None:
    """``(charge, price)`` when the words are a price (maybe after a "+") or "Free" and
    then a word naming a charge: "+ £3.99 postage" -> ``("postage", (3.99, "GBP"))``,
    "Free Postage" -> ``("Postage", (0.0, None))``."""
    if len(words) < 2 or words[-1].rstrip(".").casefold() not in _CHARGE_WORDS:
        return None
    head = " ".join(words[:-1]).lstrip("+").strip()
    if head.casefold() in _FREE:
        return words[-1], (0.0, None)
    out = _unlabelled_price(head, decimal) if head else None
    return (words[-1], out) if out is not None and out[1] is not None else None


def has_trailing_charge(text: str) -> bool:
    """``text`` is a price followed by the charge it is ("+ £3.99 postage", "Free
    shipping"): :func:`price_label` reads the charge's name. (The text stays a text: the
    charge's word is part of the value as the page writes it.)"""
    return len(text) <= 48 and _trailing_charge(text.split(), None) is not None


def _parse_price(text: str, decimal: str | None) -> tuple[float, str | None] | None:
    m = _PRICE_RE.match(text.strip())
    if not m or not m.group("num"):
        return None
    markers = [m.group(g) for g in ("pre", "pre2", "post", "post2") if m.group(g)]
    num = m.group("num").strip().rstrip(",.").strip() if m.group("dash") else m.group("num").strip()
    # a currency written after a space-separated number may have eaten a trailing space
    val = parse_number(num, decimal, prefer_thousands=True)
    if val is None:
        return None
    cur = None
    for mk in markers:
        c = _currency_code(mk)
        if c and (cur is None or (len(cur) != 3 and len(c) == 3)):
            cur = c
    return float(val), cur


# ------------------------------------------------------------------------------- dates
_ASCII_DIGIT_RE = re.compile(r"[0-9]")
#: a relative date written without digits ("an hour ago", "vor einem Tag", "il y a un
#: jour", "hace un día", "just now"): the parser decides, this only lets it look
_WORDY_RELATIVE_RE = re.compile(
    r"(?<!\w)(?:ago|geleden|fa|atrás|atras|назад|vor|il y a|hace|há|faz|just now)(?!\w)", re.I
)


def _has_digit(text: str) -> bool:
    return (
        any(c.isdigit() for c in text) if not text.isascii() else bool(_ASCII_DIGIT_RE.search(text))
    )


def _may_be_typed(text: str) -> bool:
    """Short and holding a digit or a relative-date word, or "Free": a value that may
    convert."""
    return len(text) <= 64 and (
        _has_digit(text)
        or bool(_WORDY_RELATIVE_RE.search(text))
        or text.strip().rstrip("!").casefold() in _FREE
    )


_TIME_ONLY_RE = re.compile(r"^\s*\d{1,2}[:h.]\d{2}(?::\d{2})?\s*(?:[ap]\.?m\.?|uhr|h)?\s*$", re.I)


def parse_date_iso(text: str, languages: Sequence[str] | None = None) -> str | None:
    """Parse a date string and return it in ISO 8601, or ``None``.

    Uses :func:`scrapy_records.fields.dates.parse_date` after its cheap ``is_date_candidate``
    pre-filter, and only when ``is_pure_date`` says the text is nothing but a date, so
    "Posted by ann on 5 Jan 2020" stays text. A time of day alone is not a date.
    """
    if not text or not _may_be_typed(text):
        return None
    if _TIME_ONLY_RE.match(text):
        return None  # a time of day alone is not a date (it would become "today")
    dt: Any = None
    try:
        # a column value must be *only* a date ("Posted on 5 Jan" is text)
        # cheapest test first: regex pre-filter, then the parse, then the purity check
        if is_date_candidate(text):
            dt = parse_date(text, languages=list(languages) if languages else None)
            if dt is not None and not is_pure_date(text):
                dt = None
    except Exception:  # pragma: no cover - a bug there must not break alignment
        logger.debug("dates.parse_date failed on %r", text, exc_info=True)
        dt = None
    if dt is None:
        return None
    if isinstance(dt, datetime):
        return iso_date(dt, text)  # the library's one ISO rule (a date alone when no time)
    if isinstance(dt, date):
        return dt.isoformat()
    return None


# ------------------------------------------------------------------------------ images
def first_srcset_url(srcset: str | None) -> str | None:
    """The first candidate URL of a ``srcset`` value (``"a.jpg 1x, b.jpg 2x"`` -> ``a.jpg``)."""
    if not srcset:
        return None
    first = srcset.strip().split(",")[0].strip()
    return first.split()[0] if first else None


# --------------------------------------------------------------------- column inference
def _all_convert(vals: Sequence[str], fn: Callable[[str], Any]) -> list[Any] | None:
    """``fn`` of every value, or ``None`` as soon as one does not convert. ``fn`` is
    deterministic within a column: a repeated value (dates, prices) is converted once."""
    out = []
    done: dict[str, Any] = {}
    for v in vals:
        r = done.get(v, _MISS)
        if r is _MISS:
            r = done[v] = fn(v)
        if r is None:
            return None
        out.append(r)
    return out


_MISS = object()


#: str.isdigit on an ASCII string holds exactly for 0-9 (a C-level search instead of a
#: per-character generator)


#: what a page writes where a value is missing ("N/A" among endowments). Not a dash: one
#: is as often a separator, and a count column with "-" for none stays text (typed, two
#: such columns side by side would read as one repeated part)
_NO_VALUE = frozenset(
    "n/a na n.a. n.a none unknown tba tbd tbc unavailable".split()
    + ["not available", "not applicable"]
)


def is_no_value(text: Any) -> bool:
    """``text`` says a value is missing ("N/A", "TBA"): typing leaves it out, so that
    a price or number column with one such cell stays a price or number column."""
    return isinstance(text, str) and text.strip().casefold() in _NO_VALUE


def infer_column(
    values: Sequence[str], languages: Sequence[str] | None = None
) -> tuple[str, list[Any], list[str | None] | None]:
    """Decide a text slot's type from its raw values and convert them.

    Returns ``(type, converted, currencies)``: ``type`` is ``price``, ``number``, ``date``
    or ``text``; ``converted`` is parallel to ``values``; ``currencies`` (prices only) holds
    each value's currency or ``None``. (A price's unit note: :func:`price_units`.)

    A price column needs every value to parse as a price and at least half of them to
    carry a currency marker; a number column needs every value to be a bare number; a
    date column every value to parse as a date. Otherwise the column is ``text``.
    """
    vals = [v for v in values]
    if not vals:
        return "text", [], None
    missing = [is_no_value(v) for v in vals]
    if any(missing) and not all(missing):  # typed on the others; a missing value is None
        real = [v for v, m in zip(vals, missing) if not m]
        typ, conv, curs = infer_column(real, languages)
        if typ == "text":
            return "text", vals, None
        it, ic = iter(conv), iter(curs or ())
        return (
            typ,
            [None if m else next(it) for m in missing],
            None if curs is None else [None if m else next(ic) for m in missing],
        )
    for v in vals:  # fast path: every typed value is short, with a digit or "ago"
        if not _may_be_typed(v):
            return "text", vals, None
    v0 = vals[0]
    if (
        _PRICE_RE.match(v0.strip())
        or _NUMBER_RE.match(_clean_number(v0))
        or parse_price(v0) is not None  # a unit note or a range after the amount
    ):
        style = decimal_style(vals)
        prices = _all_convert(vals, lambda v: parse_price(v, style))
        if prices is not None:
            with_cur = sum(1 for _, c in prices if c)
            if with_cur * 2 >= len(prices) and with_cur:
                return "price", [p for p, _ in prices], [c for _, c in prices]
        nums = _all_convert(vals, lambda v: parse_number(v, style))
        if nums is not None:
            return "number", nums, None
    # else the first value is neither a price nor a number whatever the decimal style
    # (both parsers reject it at their regular expression): no style, no conversion
    dates = _all_convert(vals, lambda v: parse_date_iso(v, languages))
    if dates is not None:
        return "date", dates, None
    return "text", list(vals), None


def price_units(values: Sequence[str | None]) -> list[str | None] | None:
    """Each price text's unit note (:func:`price_unit`), or ``None`` when none has one."""
    units = [None if v is None else (price_unit(v) or (None, None))[1] for v in values]
    return units if any(units) else None


def price_maxes(values: Sequence[str | None]) -> list[float | None] | None:
    """Each price text's high end when it is a range (:func:`price_range`), or ``None``
    when none is."""
    if not any(v is not None and _RANGE_HINT_RE.search(v) for v in values):
        return None
    style = decimal_style([v for v in values if v is not None])
    highs = [None if v is None else (price_range(v, style) or (None, None))[1] for v in values]
    return highs if any(h is not None for h in highs) else None


def guess_type(values: Sequence[Any]) -> str:
    """The field type an inducer gives a slot from its sample values: :func:`infer_column`'s
    type over the first 50 non-empty strings (``text`` when there are none)."""
    vals = [v for v in values if isinstance(v, str) and v][:50]
    return infer_column(vals)[0] if vals else "text"
