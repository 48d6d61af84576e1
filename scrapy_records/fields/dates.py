"""Post-date detection and parsing: MiBAT's "pivot format classifier" for post dates,
a regular-expression matcher (Song et al. 2010, section 4.2).

* :func:`is_date_candidate` -- a cheap, regex-only pre-filter used on every node. It
  recognises ISO / Y-M-D, numeric D-M-Y / M-D-Y, month-name dates in English, German,
  French, Spanish, Italian, Portuguese, Dutch (plus Russian), CJK dates, relative dates
  ("Today, 10:32", "3 hours ago", "vor 2 Tagen", "il y a 5 jours", "hace 3 horas",
  "3 ore fa", "há 2 dias", "2 dagen geleden") and, for short strings (<= 40 characters),
  bare times.
* :func:`parse_date` -- normalises a date string to a :class:`~datetime.datetime`. The
  common forum formats are parsed by a small table-driven parser; anything else that passed
  the pre-filter goes to ``dateparser`` (restricted language list, only the matched
  substring, results cached). Only the output fields need the parse, never the detection.

:func:`find_date` returns the span of the date inside a longer text (``"Posted: Tue Jan 05,
2010 10:32 pm"``), :func:`parse_timestamp` handles attribute values (``datetime``,
``title``, ``data-time``: ISO strings and epoch seconds / milliseconds).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from datetime import datetime, timedelta, timezone
from functools import lru_cache

from scrapy_records.fields.clock import current_relative_base, http_date_base, relative_to

logger = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_LANGUAGES",
    "is_date_candidate",
    "find_date",
    "date_substring",
    "parse_date",
    "parse_timestamp",
    "is_pure_date",
    "normalize",
    "relative_to",
    "current_relative_base",
    "http_date_base",
    "iso_date",
]

#: Languages tried by :func:`parse_date` when none are given.
DEFAULT_LANGUAGES: tuple[str, ...] = ("en", "de", "fr", "es", "it", "pt", "nl")

#: Candidate text is truncated to this many characters.
MAX_TEXT = 256
#: Bare times ("10:32 AM") count only in texts at most this long.
TIME_ONLY_MAX = 40

# --------------------------------------------------------------------------- tables
# month name -> number; full names and common abbreviations.
_MONTHS_FULL: dict[str, int] = {}
_MONTHS_ABBR: dict[str, int] = {}


def _trie_regex(words) -> str:
    """A regex alternation shaped as a trie (Python's ``re`` tries branches one by one, so
    a flat alternation of 200 month names costs 200 tests at every position)."""
    trie: dict = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:
        end = "" in node
        alts = [re.escape(ch) + build(sub) for ch, sub in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        if end:
            body = "(?:" + body + ")?"
        return body

    return build(trie)


def _add(table: dict[str, int], names: str) -> None:
    for m, group in enumerate(names.split("|"), start=1):
        for name in group.split(","):
            name = name.strip().lower()
            if name:
                table.setdefault(name, m)


# en, de, fr, es, it, pt, nl, ru (genitive and nominative)
_add(
    _MONTHS_FULL,
    "january|february|march|april|may|june|july|august|september|october|november|december",
)
_add(
    _MONTHS_FULL,
    "januar,jänner|februar,feber|märz,maerz|april|mai|juni|juli|august|september|oktober|november|dezember",
)
_add(
    _MONTHS_FULL,
    "janvier|février,fevrier|mars|avril|mai|juin|juillet|août,aout|septembre|octobre|novembre|décembre,decembre",
)
_add(
    _MONTHS_FULL,
    "enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre,setiembre|octubre|noviembre|diciembre",
)
_add(
    _MONTHS_FULL,
    "gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto|settembre|ottobre|novembre|dicembre",
)
_add(
    _MONTHS_FULL,
    "janeiro|fevereiro|março,marco|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro",
)
_add(
    _MONTHS_FULL,
    "januari|februari|maart|april|mei|juni|juli|augustus|september|oktober|november|december",
)
_add(
    _MONTHS_FULL,
    "января,январь|февраля,февраль|марта,март|апреля,апрель|мая,май|июня,июнь|июля,июль|августа,август|сентября,сентябрь|октября,октябрь|ноября,ноябрь|декабря,декабрь",
)
_add(_MONTHS_ABBR, "jan|feb|mar|apr|may|jun|jul|aug|sep,sept|oct|nov|dec")
_add(_MONTHS_ABBR, "jan,jän|feb|mär,mrz|apr|mai|jun|jul|aug|sep,sept|okt|nov|dez")
_add(_MONTHS_ABBR, "janv|févr,fevr,fév|mars|avr|mai|juin|juil|août|sept|oct|nov|déc")
_add(_MONTHS_ABBR, "ene|feb|mar|abr|may|jun|jul|ago|sep,set|oct|nov|dic")
_add(_MONTHS_ABBR, "gen|feb|mar|apr|mag|giu|lug|ago|set|ott|nov|dic")
_add(_MONTHS_ABBR, "jan|fev|mar|abr|mai|jun|jul|ago|set|out|nov|dez")
_add(_MONTHS_ABBR, "jan|feb|mrt|apr|mei|jun|jul|aug|sep|okt|nov|dec")
_add(_MONTHS_ABBR, "янв|фев|мар|апр|мая|июн|июл|авг|сен|окт|ноя|дек")
_MONTHS: dict[str, int] = {**_MONTHS_ABBR, **_MONTHS_FULL}

_MONTH_ALT = _trie_regex(_MONTHS)
_MON = rf"(?<![^\W\d_])(?P<mon>{_MONTH_ALT})\.?(?![^\W\d_])"
_MON2 = _MON.replace("?P<mon>", "?P<mon2>")
_MON3 = _MON.replace("?P<mon>", "?P<mon3>")

_WEEKDAYS = (
    "monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|"
    "montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|mo|di|mi|do|fr|sa|so|"
    "lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|lun|mar|mer|jeu|ven|sam|dim|"
    "lunes|martes|miércoles|miercoles|jueves|viernes|sábado|sabado|domingo|"
    "lunedì|lunedi|martedì|martedi|mercoledì|mercoledi|giovedì|giovedi|venerdì|venerdi|sabato|"
    "segunda-feira|terça-feira|quarta-feira|quinta-feira|sexta-feira|"
    "maandag|dinsdag|woensdag|donderdag|vrijdag|zaterdag|zondag"
)

_DAY = r"(?P<day>0?[1-9]|[12]\d|3[01])"
_DAY2 = _DAY.replace("?P<day>", "?P<day2>")
_YEAR = r"(?P<year>(?:19|20)\d{2})(?!\d)"
_YEAR2 = _YEAR.replace("?P<year>", "?P<year2>")
_YEAR3 = _YEAR.replace("?P<year>", "?P<year3>")
_ORD = r"(?:st|nd|rd|th|er|e|º|°|ª)?"

# Family 1: ISO and Y-M-D.
_ISO = (
    r"(?<!\d)(?P<iy>(?:19|20)\d{2})(?P<isep>[-/.])(?P<im>0?[1-9]|1[0-2])(?P=isep)"
    r"(?P<id>0?[1-9]|[12]\d|3[01])(?!\d)"
)
# Family 2: D-M-Y / M-D-Y with 2- or 4-digit year.
_NUM = (
    r"(?<![\d.])(?P<na>0?[1-9]|[12]\d|3[01])(?P<nsep>[-/.])(?P<nb>0?[1-9]|[12]\d|3[01])(?P=nsep)"
    r"(?P<ny>(?:19|20)?\d{2})(?![\d.]\d)(?!\d)"
)
# Family 3: month names. a) day month [year]  b) month day[, year]  c) month year
_DMY = (
    rf"(?<!\d){_DAY}{_ORD}\.?(?:\s*[-/]\s*|\s+|\s+de\s+)?{_MON}"
    rf"(?:(?:\s*[-/,]\s*|\s+|\s+de\s+){_YEAR}|\s*'(?P<yy>\d{{2}})(?!\d))?"
)
_MDY = rf"{_MON2}\s+{_DAY2}{_ORD}(?!\d)(?:,?\s+{_YEAR2})?"
_MY = rf"{_MON3},?\s+(?:(?:de\s+)?{_YEAR3}|'(?P<yy3>\d{{2}})(?!\d))"
# Family 4: CJK.
_CJK = (
    r"(?P<cy>\d{2,4})\s*[年년]\s*(?P<cm>\d{1,2})\s*[月월]\s*(?P<cd>\d{1,2})\s*[日일]?"
    r"|(?P<cm2>\d{1,2})月(?P<cd2>\d{1,2})日"
)
# Family 5: relative dates.
_DAYWORDS = {
    0: "today|heute|aujourd'hui|aujourd’hui|hoy|oggi|hoje|vandaag|сегодня|今天|今日",
    1: "yesterday|gestern|hier|ayer|ieri|ontem|gisteren|вчера|昨天|昨日",
    2: "vorgestern|avant-hier|anteayer|anteontem|l'altro ieri|altro ieri|eergisteren|позавчера",
}
_DAYWORD_N = {w: n for n, ws in _DAYWORDS.items() for w in ws.split("|")}
_DAYWORD_ALT = _trie_regex(_DAYWORD_N)
_REL_DAY = rf"(?<![^\W\d_])(?P<dw>{_DAYWORD_ALT})(?![^\W\d_])"

_UNITS: dict[str, str] = {}


def _units(unit: str, names: str) -> None:
    for n in names.split("|"):
        _UNITS[n] = unit


_units(
    "s",
    "s|sec|secs|second|seconds|sek|sekunde|sekunden|seconde|secondes|segundo|segundos|secondo|secondi|seconden|секунд|секунду|секунды|秒",
)
_units(
    "m",
    "m|min|mins|minute|minutes|minuten|minuto|minutos|minuti|minuut|минут|минуту|минуты|分|分钟|分鐘",
)
_units(
    "h",
    "h|hr|hrs|hour|hours|std|stunde|stunden|heure|heures|hora|horas|ora|ore|uur|uren|час|часа|часов|小时|小時|時間",
)
_units(
    "d",
    "d|day|days|tag|tage|tagen|jour|jours|día|días|dia|dias|giorno|giorni|dag|dagen|день|дня|дней|天|日",
)
_units(
    "w",
    "w|wk|wks|week|weeks|woche|wochen|semaine|semaines|semana|semanas|settimana|settimane|weken|неделю|недели|недель|周|週|週間",
)
_units(
    "mo",
    "mo|mos|month|months|monat|monate|monaten|mois|mes|meses|mese|mesi|mês|maand|maanden|месяц|месяца|месяцев|个月|か月",
)
_units(
    "y",
    "y|yr|yrs|year|years|jahr|jahre|jahren|an|ans|année|années|año|años|anno|anni|ano|anos|jaar|jaren|год|года|лет|年",
)
_UNIT_ALT = _trie_regex(_UNITS)
_NUMWORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "ein": 1,
    "eine": 1,
    "einem": 1,
    "einer": 1,
    "un": 1,
    "une": 1,
    "una": 1,
    "uno": 1,
    "um": 1,
    "uma": 1,
    "een": 1,
    "two": 2,
    "zwei": 2,
    "deux": 2,
    "dos": 2,
    "due": 2,
    "dois": 2,
    "duas": 2,
    "twee": 2,
}
_NUMWORD_ALT = _trie_regex(_NUMWORDS)
_N = rf"(?P<{{g}}>\d+|{_NUMWORD_ALT})\+?"  # "30+ days ago": at least 30
_U = rf"(?P<{{g}}>{_UNIT_ALT})\.?"
_NOW_WORDS = (
    "just now|right now|a moment ago|moments ago|gerade eben|soeben|à l'instant|a l'instant|"
    "ahora mismo|hace un momento|adesso|poco fa|agora mesmo|zojuist|net nu|только что|刚刚"
)
_REL_AGO = "|".join(
    [
        # en / nl / it / pt / ru: "3 hours ago", "2 dagen geleden", "3 ore fa",
        # "3 dias atrás", "3 дня назад"
        rf"(?<![^\W\d_]){_N.format(g='n1')}\s*{_U.format(g='u1')}(?:\s+and\s+\d+\s*[^\W\d_]+)?\s+(?:ago|geleden|fa|atrás|atras|назад)(?![^\W\d_])",
        # de / fr / es / pt prefixes: "vor 2 Tagen", "il y a 5 jours", "hace 3 horas", "há 2 dias"
        rf"(?<![^\W\d_])(?:vor|il\s+y\s+a|hace|há|ha|faz)\s+{_N.format(g='n2')}\s*{_U.format(g='u2')}(?![^\W\d_])",
        # zh / ja: "3小时前"
        r"(?P<n3>\d+)\s*(?P<u3>秒|分钟|分鐘|分|小时|小時|時間|天|日|周|週間|週|个月|か月|年)前",
        rf"(?<![^\W\d_])(?P<now>{_trie_regex(_NOW_WORDS.split('|'))})(?![^\W\d_])",
    ]
)
# Family 6: times ("10:32 AM", "10h32", "um 03:32").
_TIME = (
    r"(?<![\d:.])(?P<hh>[01]?\d|2[0-3])(?:[:h](?P<mm>[0-5]\d))(?::(?P<ss>[0-5]\d))?(?:[.,]\d+)?"
    r"(?:\s*(?P<ap>am|pm|a\.m\.|p\.m\.|uhr|h)(?![^\W\d_]))?(?![\d:])"
)

# every pattern runs on lower-cased text (:func:`_lower`): 3-4x faster than re.IGNORECASE
_FLAGS = re.UNICODE
_DATE_RE = re.compile(
    "|".join(
        f"(?P<f{i}>{p})"
        for i, p in enumerate([_ISO, _NUM, _DMY, _MDY, _MY, _CJK, _REL_AGO, _REL_DAY])
    ),
    _FLAGS,
)
_TIME_RE = re.compile(_TIME, _FLAGS)
_TIME_AFTER_RE = re.compile(
    r"\s*,?\s*(?:(?:at|um|às|à|a las|a la|alle|om|kl\.|@|\||-|t)\s*,?\s*)?(?:" + _TIME + ")", _FLAGS
)
_AMBIGUOUS_MONTHS = frozenset("out set mar may mai gen mag ago dic ene mes".split())
_WEEKDAY_RE = re.compile(rf"(?<![^\W\d_])(?:{_trie_regex(_WEEKDAYS.split('|'))})\.?,?\s*$", _FLAGS)
# fast negative pre-check: a date needs a digit, a month/day word or a relative phrase
_DIGITS_RE = re.compile(r"\d+")
_HAS_DIGIT = re.compile(r"\d").search
_WORDSTART_RE = re.compile(r"(?<![^\W\d_])[^\W\d_]")
_KEYWORD_RE = re.compile(
    rf"(?<![^\W\d_])(?:{_DAYWORD_ALT}|{_trie_regex(_NOW_WORDS.split('|'))}"
    r"|vor|il y a|hace|há|ha|faz)(?![^\W\d_])"
    r"|(?<![^\W\d_])(?P<suffix>ago|geleden|fa|atrás|atras|назад)(?![^\W\d_])",
    _FLAGS,
)
_KW_WORDS = frozenset(
    w
    for phrase in list(_DAYWORD_N)
    + _NOW_WORDS.split("|")
    + ["vor", "il", "hace", "ha", "faz", "ago", "geleden", "fa", "atras"]
    for w in re.split(r"[\W_]+", phrase)[:1]
    if w and w.isascii() and len(w) > 1
)
# Second gate (exact): every date family needs, somewhere in the text, two equal date
# separators between digits (ISO, numeric), a CJK date mark (年 월 前...), a bare time
# (short texts), or one of its words standing alone as a whole run of letters: a month
# name (day-month-year, month-day, month-year: the month is bounded by non-letters), or
# a word of a relative phrase ("vor", "ago", "yesterday", "instant" of "à l'instant"; each
# word of a phrase is bounded by non-letters too). Texts with digits but none of these
# (counts, prices, "Results 1 - 10 of 2,340") skip the position scan.
_LETTER_RUN_RE = re.compile(r"[^\W\d_]+")
_DATE_MARK_RE = re.compile(r"\d([-/.])\d{1,2}\1\d|[年년月월前]")
_CLOCK_MARK_RE = re.compile(r"\d[:h][0-5]\d")


def _phrase_word(phrase: str) -> str:
    """The longest word of a phrase: any of its words must stand alone in a match."""
    return max(_LETTER_RUN_RE.findall(phrase), key=len)


_DATE_WORDS = frozenset(_MONTHS) | frozenset(
    _phrase_word(p)
    for p in (
        *_DAYWORD_N,
        *_NOW_WORDS.split("|"),
        # the prefixes and suffixes of _REL_AGO
        *("vor", "il y a", "hace", "há", "ha", "faz"),
        *("ago", "geleden", "fa", "atrás", "atras", "назад"),
    )
)


def _may_be_date(s: str) -> bool:
    """False when no date family (and no bare time) can match ``s`` (lower-cased)."""
    return bool(
        _DATE_MARK_RE.search(s)
        or (len(s) <= TIME_ONLY_MAX and _CLOCK_MARK_RE.search(s))
        or not _DATE_WORDS.isdisjoint(_LETTER_RUN_RE.findall(s))
    )


_PUNCT_TO_SPACE = str.maketrans({c: " " for c in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"})
#: the keyword gate's words and table and _may_be_date's words, for page-level gates (mibat)
KEYWORD_WORDS, PUNCT_TO_SPACE, DATE_WORDS = _KW_WORDS, _PUNCT_TO_SPACE, _DATE_WORDS
_HIER_OK_RE = re.compile(r"^\W*hier\W*$|hier\s*(?:à|a|,)?\s*\d{1,2}[:h]\d{2}", _FLAGS)
_WS_RE = re.compile(r"\s+")
_ISO_TS_RE = re.compile(
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:[Zz]|[+-]\d{2}:?\d{2})?(?!\d)"
)


_ISO_TZ_RE = re.compile(r"([+-]\d{2}):?(\d{2})$")
_ISO_FRACTION_RE = re.compile(r"\.(\d{1,6})(?=[+-]|$)")


def from_iso(text: str) -> datetime:
    """``datetime.fromisoformat`` for the ISO forms pages use, on every supported Python:
    ``Z`` and ``+0200`` zones and 1-6 fraction digits (Python 3.10 reads only ``+02:00``
    and 3 or 6 digits). Raises ``ValueError`` like it."""
    t = text.strip()
    if t[-1:] in ("Z", "z"):
        t = t[:-1] + "+00:00"
    t = _ISO_TZ_RE.sub(r"\1:\2", t) if len(t) > 10 else t
    t = _ISO_FRACTION_RE.sub(lambda m: "." + m.group(1).ljust(6, "0"), t)
    return datetime.fromisoformat(t)


def _lower(s: str) -> str:
    """Lower-case without changing offsets (a few characters grow under ``str.lower``)."""
    low = s.lower()
    if len(low) == len(s):
        return low
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in s)


def normalize(text: str) -> str:
    """NFKC, collapse whitespace (``\\xa0`` included), strip."""
    if not text:
        return ""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return " ".join(text.split())


def _may_have_keyword(text: str) -> bool:
    """C-speed gate before :data:`_KEYWORD_RE` (a word-set intersection on ASCII text)."""
    if not text.isascii():
        return True
    return not _KW_WORDS.isdisjoint(text.translate(_PUNCT_TO_SPACE).split())


def _positions(text: str) -> list[int]:
    """Start positions where a date can begin.

    Python's ``re`` tries every alternative at every position, which costs ~1.5 µs per
    character for the full date grammar. Every date family starts at a digit run, at a word
    shortly before a digit run ("Tue Jan 05", "vor 2 Tagen"), at a relative day word
    ("Yesterday"), or at a word shortly before a relative suffix ("an hour ago"). Only those
    positions are tried, with an anchored ``match``.
    """
    pos: set[int] = set()
    n = 0
    for dm in _DIGITS_RE.finditer(text):
        p = dm.start()
        pos.add(p)
        n += 1
        if n > 40:
            break
        for wm in _WORDSTART_RE.finditer(text, max(0, p - 20), p):
            pos.add(wm.start())
    if _may_have_keyword(text):
        for km in _KEYWORD_RE.finditer(text):
            pos.add(km.start())
            if km.group("suffix"):
                for wm in _WORDSTART_RE.finditer(text, max(0, km.start() - 24), km.start()):
                    pos.add(wm.start())
    return sorted(pos)


def _scan(text: str, *, allow_time_only: bool) -> re.Match | None:
    """First acceptable date match in ``text`` (already truncated), or a time match."""
    for p in _positions(text):
        m = _DATE_RE.match(text, p)
        if m is None:
            continue
        if m.group("dw") and m.group("dw").lower() == "hier" and not _HIER_OK_RE.search(text):
            # "hier" is "here" in German/Dutch; French "hier" needs a time or to stand alone
            continue
        if (m.group("f2") or m.group("f3")) and not (
            m.group("year") or m.group("yy") or m.group("year2")
        ):
            mon = (m.group("mon") or m.group("mon2") or "").lower()
            # "30 out of 50", "may 5": a year-less date with a word-like month needs a
            # day dot ("12. Mai") or a following time ("May 5, 10:32 AM")
            if (
                mon in _AMBIGUOUS_MONTHS
                and "." not in m.group(0)
                and len(text) > m.end() - m.start() + 2  # "May 9" alone is a date
                and _extend(text, m.start(), m.end())[1] == m.end()
            ):
                continue
        return m
    if allow_time_only and len(text) <= TIME_ONLY_MAX:
        return _TIME_RE.search(text)
    return None


def is_date_candidate(text: str) -> bool:
    """Cheap regex test: does ``text`` contain something in post-date format?

    No ``dateparser`` here: this runs on every node of every page. Bare times
    count only in short texts (<= 40 characters).
    """
    if not text:
        return False
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT]
    s = _lower(normalize(text))
    # most texts hold neither a digit nor a date keyword: no date family, no time can match
    if _HAS_DIGIT(s) is None and not _may_have_keyword(s):
        return False
    if not _may_be_date(s):
        return False
    return _scan(s, allow_time_only=True) is not None


def find_date(text: str) -> tuple[int, int] | None:
    """Span ``(start, end)`` of the date (with an adjacent weekday and time) in ``text``.

    Offsets index into :func:`normalize`\\ (``text``)[:256]. ``None`` when nothing matches.
    """
    s = _lower(normalize(text)[:MAX_TEXT])
    m = _scan(s, allow_time_only=True)
    if m is None:
        return None
    return _extend(s, m.start(), m.end())


def _extend(s: str, start: int, end: int) -> tuple[int, int]:
    """Grow a date span over a preceding weekday and a following time ("…, 10:32 AM")."""
    w = _WEEKDAY_RE.search(s[:start])
    if w is not None:
        start = w.start()
    tm = _TIME_AFTER_RE.match(s, end, end + 28)
    if tm is not None:
        end = tm.end()
    return start, end


def date_substring(text: str) -> str | None:
    """The raw date text inside ``text`` (e.g. ``"Tue Jan 05, 2010 10:32 pm"``)."""
    span = find_date(text)
    if span is None:
        return None
    s = normalize(text)[:MAX_TEXT]
    return s[span[0] : span[1]]


# --------------------------------------------------------------------------- parsing
def _year2(y: int) -> int:
    return y + (2000 if y < 70 else 1900) if y < 100 else y


def _apply_time(d: datetime, s: str, pos: int) -> datetime:
    """Set the time of ``d`` from the first time found in ``s[pos:pos+24]``."""
    tm = _TIME_RE.search(s, pos, pos + 24) if pos < len(s) else None
    if tm is None:
        return d
    h, mi = int(tm.group("hh")), int(tm.group("mm"))
    sec = int(tm.group("ss") or 0)
    ap = (tm.group("ap") or "").lower().replace(".", "")
    if ap == "pm" and h < 12:
        h += 12
    elif ap == "am" and h == 12:
        h = 0
    try:
        return d.replace(hour=h, minute=mi, second=sec, microsecond=0)
    except ValueError:
        return d


def _safe(y: int, m: int, d: int) -> datetime | None:
    try:
        return datetime(y, m, d)
    except ValueError:
        return None


def _own_parse(
    s: str, m: re.Match, langs: tuple[str, ...], base: datetime, orig: str
) -> datetime | None:
    """Table-driven parse of the match ``m`` in ``s`` (the common forum formats), by the
    date family that matched."""
    g = m.group
    if g("f0"):
        return _parse_iso(s, m, orig)
    if g("f1"):
        return _parse_numeric(s, m, langs)
    if g("f2") or g("f3") or g("f4"):
        return _parse_month_name(s, m, base)
    if g("f5"):
        return _parse_cjk(s, m, base)
    if g("f6"):
        return _parse_ago(m, base)
    if g("f7"):  # today / yesterday
        n = _DAYWORD_N.get(g("dw").lower(), 0)
        d = (base - timedelta(days=n)).replace(hour=0, minute=0, second=0, microsecond=0)
        return _apply_time(d, s, m.end())
    return None


def _parse_iso(s: str, m: re.Match, orig: str) -> datetime | None:
    """Y-M-D, or a whole ISO timestamp (offset included) when the text holds one."""
    g = m.group
    d = _safe(int(g("iy")), int(g("im")), int(g("id")))
    if d is None:
        return None
    full = _ISO_TS_RE.match(orig, m.start())
    if full is not None and g("isep") == "-":
        try:
            return from_iso(full.group(0))
        except ValueError:
            pass
    return _apply_time(d, s, m.end())


def _parse_numeric(s: str, m: re.Match, langs: tuple[str, ...]) -> datetime | None:
    """D-M-Y or M-D-Y: a part over 12 is the day; else day first, except on English sites
    with ``/`` or ``-`` separators ("01-05-2010" = Jan 5)."""
    g = m.group
    a, b, y = int(g("na")), int(g("nb")), _year2(int(g("ny")))
    if a > 12:
        day, mon = a, b
    elif b > 12:
        day, mon = b, a
    elif g("nsep") == "." or (langs and langs[0] != "en"):
        day, mon = a, b
    else:
        day, mon = b, a
    d = _safe(y, mon, day)
    return _apply_time(d, s, m.end()) if d else None


def _parse_month_name(s: str, m: re.Match, base: datetime) -> datetime | None:
    """Day month [year], month day [year] or month year; a date without a year is the
    latest such date not after ``base`` ("March 30")."""
    g = m.group
    if g("f2"):
        mon, day, year = (
            g("mon"),
            int(g("day")),
            g("year") or (g("yy") and str(2000 + int(g("yy")))),
        )
    elif g("f3"):
        mon, day, year = g("mon2"), int(g("day2")), g("year2")
    else:
        mon, day, year = g("mon3"), 1, g("year3") or (g("yy3") and str(2000 + int(g("yy3"))))
    mn = _MONTHS.get(mon.lower().rstrip("."))
    if mn is None:
        return None
    if year:
        d = _safe(int(year), mn, day)
    else:
        d = _safe(base.year, mn, day)
        if d is not None and d.date() > base.date():
            d = _safe(base.year - 1, mn, day)
    return _apply_time(d, s, m.end()) if d else None


def _parse_cjk(s: str, m: re.Match, base: datetime) -> datetime | None:
    g = m.group
    if g("cy"):
        d = _safe(_year2(int(g("cy"))), int(g("cm")), int(g("cd")))
    else:
        d = _safe(base.year, int(g("cm2")), int(g("cd2")))
    return _apply_time(d, s, m.end()) if d else None


def _parse_ago(m: re.Match, base: datetime) -> datetime | None:
    """ "N units ago" (a month counts 30 days, a year 365) or "just now"."""
    g = m.group
    if g("now"):
        return base.replace(microsecond=0)
    n_s = g("n1") or g("n2") or g("n3")
    u_s = (g("u1") or g("u2") or g("u3")).lower().rstrip(".")
    n = int(n_s) if n_s.isdigit() else _NUMWORDS.get(n_s.lower(), 1)
    unit = _UNITS.get(u_s)
    if unit is None:
        return None
    delta = {
        "s": timedelta(seconds=n),
        "m": timedelta(minutes=n),
        "h": timedelta(hours=n),
        "d": timedelta(days=n),
        "w": timedelta(weeks=n),
        "mo": timedelta(days=30 * n),
        "y": timedelta(days=365 * n),
    }[unit]
    return (base - delta).replace(microsecond=0)


_dp_parser_cache: dict[tuple[str, ...], object] = {}


def _dateparser(s: str, langs: tuple[str, ...], base: datetime) -> datetime | None:
    try:
        import dateparser
    except ImportError:  # pragma: no cover - optional at run time
        return None
    try:
        return dateparser.parse(
            s,
            languages=list(langs),
            settings={
                "PREFER_DATES_FROM": "past",
                "RELATIVE_BASE": base,
                "RETURN_AS_TIMEZONE_AWARE": False,
                "STRICT_PARSING": False,
            },
        )
    except Exception:  # dateparser raises on odd input; never fail extraction for a date
        logger.debug("dateparser failed on %r", s, exc_info=True)
        return None


@lru_cache(maxsize=8192)
def _parse_cached(text: str, langs: tuple[str, ...], base: datetime | None) -> datetime | None:
    s = normalize(text)[:MAX_TEXT]
    if not s:
        return None
    now = base or datetime.now().replace(microsecond=0)
    # a full ISO timestamp ("2010-01-05T10:32:00Z", "2010-01-05 10:32:00+01:00")
    if len(s) <= 40 and s[:1].isdigit():
        try:
            return from_iso(s)
        except ValueError:
            pass
    orig = s
    s = _lower(s)
    m = _scan(s, allow_time_only=True)
    if m is None:
        return None
    if m.re is _TIME_RE:  # a bare time: today at that time
        return _apply_time(now.replace(hour=0, minute=0, second=0, microsecond=0), s, m.start())
    d = _own_parse(s, m, langs, now, orig)
    if d is not None:
        return d
    a, b = _extend(s, m.start(), m.end())
    return _dateparser(orig[a:b], langs, now)


def parse_date(
    text: str,
    languages: list[str] | None = None,
    *,
    relative_base: datetime | None = None,
) -> datetime | None:
    """Parse the post date contained in ``text`` (``None`` if there is none).

    ``text`` may hold more than the date ("Posted: Tue Jan 05, 2010 10:32 pm"): the date is
    located with the pre-filter regexes and only that span is parsed. Relative dates
    ("3 hours ago", "Yesterday, 09:00 PM") are resolved against ``relative_base`` (default:
    the base :func:`relative_to` set, which the crawl engine sets from the response's
    ``Date`` header; else now, to the minute). ``languages`` restricts
    ``dateparser`` (default :data:`DEFAULT_LANGUAGES`) and decides the order of ambiguous
    numeric dates (``01-05-2010`` is January 5 for English first, May 1 otherwise).
    Results are cached.
    """
    if not text or not isinstance(text, str):
        return None
    langs = tuple(languages) if languages else DEFAULT_LANGUAGES
    if relative_base is None:
        relative_base = current_relative_base()
    if relative_base is None:
        # now, to the minute: the base is part of the cache key, so a cached "3 hours ago"
        # never outlives the minute it was read in (it would in a long-running process)
        relative_base = datetime.now().replace(second=0, microsecond=0)
    return _parse_cached(text, langs, relative_base)  # scans with the pre-filter regexes


_CLOCK_RE = re.compile(r"\d{1,2}:\d{2}")


def iso_date(dt: datetime, text: str = "") -> str:
    """``dt`` in ISO 8601 the way every date field of the library is written: a date alone
    (``2010-01-05``) when the source ``text`` gave no time of day, else the full timestamp
    (``2010-01-05T10:32:00``, with the offset when known). One rule for MiBAT's ``date``,
    the aligned date columns and the wrappers' date fields, so a template's dates read the
    same whichever of them extracted the page."""
    if dt.hour or dt.minute or dt.second or dt.tzinfo is not None or _CLOCK_RE.search(text or ""):
        return dt.isoformat()
    return dt.date().isoformat()


def parse_timestamp(
    value: str | None,
    languages: list[str] | None = None,
    *,
    relative_base: datetime | None = None,
) -> tuple[str, str] | None:
    """Parse an attribute timestamp; return ``(iso, raw)`` or ``None``.

    Accepts ISO 8601 (``datetime="2010-01-05T10:32:00Z"``), epoch seconds or milliseconds
    (``data-time="1262687520"``), and anything :func:`parse_date` reads (``title="Jan 5,
    2010 10:32"``). Used for ``<time datetime>``, ``title`` and ``data-*`` attributes
    (a post date may sit in an attribute only).
    """
    if not value:
        return None
    raw = value.strip()
    if not raw or len(raw) > 80:
        return None
    if raw.isdigit() and len(raw) in (10, 13):
        ts = int(raw) / (1000 if len(raw) == 13 else 1)
        if 631152000 <= ts <= 4102444800:  # 1990 .. 2100
            return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat(), raw
        return None
    d = parse_date(raw, languages, relative_base=relative_base)
    if d is None:
        return None
    return iso_date(d, raw), raw


def is_pure_date(text: str, extra_words: tuple[str, ...] = ()) -> bool:
    """True when ``text`` is nothing but a date (the "purely date-time string" filter of
    Song et al. 2010, section 6.2).

    Stop phrases such as "Posted", "Archive", "on", "at" and punctuation are ignored.
    """
    s = _lower(normalize(text))
    if not s or len(s) > 80:
        return False
    m = _scan(s, allow_time_only=True)
    if m is None:
        return False
    a, b = _extend(s, m.start(), m.end())
    rest = (s[:a] + " " + s[b:]).lower()
    rest = re.sub(r"[\W_]+", " ", rest)
    words = [w for w in rest.split() if w not in _STOP_WORDS and w not in extra_words]
    if not words:
        return True
    # "January 2010 (12)" style archive entries: counts are allowed
    return all(w.isdigit() for w in words)


_STOP_WORDS = frozenset(
    "posted on at by am pm archive archives archiv le am um à de del di op the in "
    "updated edited publié publicado pubblicato geplaatst veröffentlicht".split()
)
