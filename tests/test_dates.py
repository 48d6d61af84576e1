"""Post-date detection and parsing (MiBAT digest §3.3) across the seven issue languages."""

from datetime import datetime, timezone

import pytest

from scrapy_records.fields.dates import (
    date_substring,
    find_date,
    is_date_candidate,
    is_pure_date,
    parse_date,
    parse_timestamp,
)

BASE = datetime(2020, 6, 15, 12, 0)


@pytest.mark.parametrize(
    "text, expected",
    [
        # English: absolute, month names, weekday + time, US numeric order
        ("Tue Jan 05, 2010 10:32 pm", datetime(2010, 1, 5, 22, 32)),
        ("Posted: Tue Jan 05, 2010 10:32 pm", datetime(2010, 1, 5, 22, 32)),
        ("January 5th, 2010", datetime(2010, 1, 5)),
        ("April 04, 2020, 09:22:51 AM", datetime(2020, 4, 4, 9, 22, 51)),
        ("01-05-2010, 10:32 AM", datetime(2010, 1, 5, 10, 32)),
        ("10-August-2011 20:18", datetime(2011, 8, 10, 20, 18)),
        ("12 Jan 2018, 12:15", datetime(2018, 1, 12, 12, 15)),
        ("March 30", datetime(2020, 3, 30)),
        ("December 30", datetime(2019, 12, 30)),  # year-less dates are not in the future
        ("September 2019", datetime(2019, 9, 1)),
        ("2019-09-29 10:46:47", datetime(2019, 9, 29, 10, 46, 47)),
        ("Today, 10:32 AM", datetime(2020, 6, 15, 10, 32)),
        ("Yesterday, 09:00 PM", datetime(2020, 6, 14, 21, 0)),
        ("3 hours ago", datetime(2020, 6, 15, 9, 0)),
        ("an hour ago", datetime(2020, 6, 15, 11, 0)),
        ("2 hrs ago", datetime(2020, 6, 15, 10, 0)),
        # German
        ("5. März 2019", datetime(2019, 3, 5)),
        ("5. Januar 2019 um 03:32", datetime(2019, 1, 5, 3, 32)),
        ("12.03.2020 - 14:05", datetime(2020, 3, 12, 14, 5)),
        ("vor 2 Tagen", datetime(2020, 6, 13, 12, 0)),
        ("vor einer Stunde", datetime(2020, 6, 15, 11, 0)),
        ("Gestern, 14:22", datetime(2020, 6, 14, 14, 22)),
        ("Heute um 08:15 Uhr", datetime(2020, 6, 15, 8, 15)),
        # French
        ("15 août 2020 à 10:32", datetime(2020, 8, 15, 10, 32)),
        ("il y a 5 jours", datetime(2020, 6, 10, 12, 0)),
        ("il y a une heure", datetime(2020, 6, 15, 11, 0)),
        ("Hier à 10:32", datetime(2020, 6, 14, 10, 32)),
        # Spanish
        ("12 de marzo de 2020", datetime(2020, 3, 12)),
        ("hace 3 horas", datetime(2020, 6, 15, 9, 0)),
        ("ayer a las 18:40", datetime(2020, 6, 14, 18, 40)),
        # Italian
        ("25 dicembre 2019 alle 10:00", datetime(2019, 12, 25, 10, 0)),
        ("3 ore fa", datetime(2020, 6, 15, 9, 0)),
        ("un anno fa", datetime(2019, 6, 16, 12, 0)),
        # Portuguese
        ("5 de março de 2020 às 10:30", datetime(2020, 3, 5, 10, 30)),
        ("há 2 dias", datetime(2020, 6, 13, 12, 0)),
        ("ontem às 09:12", datetime(2020, 6, 14, 9, 12)),
        # Dutch
        ("3 maart 2020 om 14:05", datetime(2020, 3, 3, 14, 5)),
        ("2 dagen geleden", datetime(2020, 6, 13, 12, 0)),
        ("gisteren om 22:10", datetime(2020, 6, 14, 22, 10)),
        # other families
        ("2010年1月5日", datetime(2010, 1, 5)),
        ("Jan '10", datetime(2010, 1, 1)),
    ],
)
def test_parse_date(text, expected):
    assert is_date_candidate(text)
    assert parse_date(text, relative_base=BASE) == expected


def test_numeric_order_follows_language():
    assert parse_date("01-05-2010", ["en"], relative_base=BASE) == datetime(2010, 1, 5)
    assert parse_date("01-05-2010", ["de"], relative_base=BASE) == datetime(2010, 5, 1)
    assert parse_date("13/05/2010", ["en"], relative_base=BASE) == datetime(2010, 5, 13)


def test_iso_timestamp_keeps_timezone():
    d = parse_date("2010-01-05T10:32:00Z")
    assert d == datetime(2010, 1, 5, 10, 32, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    "text",
    [
        "Home",
        "Reply",
        "May I ask something?",
        "hier ist es schön",
        "ich bin hier",
        "v1.2.3.4",
        "I have 30 out of 50",
        "Posts: 1234",
        "",
        "Page 2 of 7",
    ],
)
def test_not_dates(text):
    assert not is_date_candidate(text)
    assert parse_date(text) is None


def test_bare_time_only_in_short_text():
    assert is_date_candidate("10:32 AM")
    long = "the match ended 10:32 after a long and boring evening of football and beer, really"
    assert not is_date_candidate(long)


def test_find_date_span_includes_weekday_and_time():
    assert date_substring("Posted: Tue Jan 05, 2010 10:32 pm by bob") == "Tue Jan 05, 2010 10:32 pm"
    assert date_substring("Beitrag von bob » 12 Jan 2018, 12:15") == "12 Jan 2018, 12:15"
    assert find_date("no date here") is None


def test_parse_timestamp_attributes():
    assert parse_timestamp("1262687520") == ("2010-01-05T10:32:00+00:00", "1262687520")
    assert parse_timestamp("1262687520000")[0] == "2010-01-05T10:32:00+00:00"
    assert parse_timestamp("2010-01-05T10:32:00+01:00")[0] == "2010-01-05T10:32:00+01:00"
    assert parse_timestamp("Jan 5, 2010 10:32")[0] == "2010-01-05T10:32:00"
    assert parse_timestamp("12") is None
    assert parse_timestamp("click to reply") is None


def test_is_pure_date():
    assert is_pure_date("January 2010")
    assert is_pure_date("January 2010 (12)")
    assert is_pure_date("Posted on Jan 3, 2010")
    assert not is_pure_date("bob wrote on Jan 3, 2010")
    assert not is_pure_date("Great hotel, stayed there on Jan 3, 2010")


@pytest.mark.parametrize(
    "text, is_date",
    [
        ("Yesterday", True),
        ("gestern", True),
        ("just now", True),
        ("aujourd'hui", True),
        ("an hour ago", True),
        ("Heute", True),
        ("ayer", True),
        ("vandaag", True),
        ("Сегодня", True),
        ("Hace un momento", True),
        ("à l'instant", True),
        ("Thanks everyone", False),
        ("Quote", False),
        ("Beiträge", False),
    ],
)
def test_digit_free_texts_pass_the_prefilter_only_with_a_date_word(text, is_date):
    """The cheap pre-check (no digit and no date keyword: not a date) keeps every
    relative date written in words."""
    assert is_date_candidate(text) is is_date


def test_http_date_base_and_relative_to():
    from scrapy_records.fields.dates import current_relative_base, http_date_base, relative_to

    base = http_date_base(b"Tue, 03 Mar 2020 12:00:42 GMT")  # to the minute
    assert base == datetime(2020, 3, 3, 12, 0, tzinfo=timezone.utc).astimezone().replace(
        tzinfo=None
    )
    for bad in (
        None,
        "",
        "yesterday",
        "Tue, 03 Mar 1980 12:00:00 GMT",
        "Tue, 03 Mar 2099 12:00:00 GMT",
    ):
        assert http_date_base(bad) is None
    with relative_to(datetime(2020, 6, 15, 12, 0)):
        assert current_relative_base() == datetime(2020, 6, 15, 12, 0)
        assert parse_date("3 hours ago") == datetime(2020, 6, 15, 9, 0)
        # an explicit base still wins
        assert parse_date("3 hours ago", relative_base=datetime(2021, 1, 1, 12, 0)) == datetime(
            2021, 1, 1, 9, 0
        )
    assert current_relative_base() is None
    assert parse_date("3 hours ago") > datetime(2024, 1, 1)


def test_relative_dates_do_not_go_stale_in_the_cache(monkeypatch):
    """Without a base, "3 hours ago" counts from now (to the minute) at each call: the
    result cache is keyed by that minute, so a long-running process does not keep serving
    the reading of its first call."""
    import scrapy_records.fields.dates as D

    clock = [datetime(2021, 5, 1, 10, 0, 42)]

    class Clock(datetime):
        @classmethod
        def now(cls, tz=None):
            return clock[0]

    monkeypatch.setattr(D, "datetime", Clock)
    assert D.parse_date("3 hours ago") == datetime(2021, 5, 1, 7, 0)
    clock[0] = datetime(2021, 5, 1, 18, 30, 5)
    assert D.parse_date("3 hours ago") == datetime(2021, 5, 1, 15, 30)


def test_iso_timestamps_read_alike_on_every_python():
    """Python 3.10's fromisoformat reads neither "Z", "+0200" nor 2-digit fractions."""
    from scrapy_records.fields.dates import from_iso

    assert from_iso("2020-04-12T09:12:00+0200").isoformat() == "2020-04-12T09:12:00+02:00"
    assert from_iso("2020-04-12T09:12:00Z").isoformat() == "2020-04-12T09:12:00+00:00"
    assert from_iso("2020-04-12T09:12:00.12-05:30").isoformat() == (
        "2020-04-12T09:12:00.120000-05:30"
    )
    assert from_iso("2020-04-12").isoformat() == "2020-04-12T00:00:00"


@pytest.mark.parametrize(
    "text",
    [
        "Tue Jan 05, 2010 10:32 pm",
        "12.05.19",
        "2019/09/29",
        "5月3日",
        "2020年5月3日",
        "3小时前",
        "il y a 2 jours",
        "vor 2 Tagen",
        "3 hours ago5",  # the suffix needs a non-letter after it, a digit will do
        "a l'instant 5",  # a phrase whose words are no date keywords of the first gate
        "10:32",
        "5jan",
        "1er janvier 2020",
        "l'altro ieri 5",
        "September 2019",
    ],
)
def test_second_gate_keeps_every_date_family(text):
    """The exact second gate of is_date_candidate (two equal separators, a CJK mark, a
    bare time or a date word standing alone) passes every text the position scan
    accepts; counts, prices and decimals skip the scan."""
    from scrapy_records.fields import dates

    s = dates._lower(dates.normalize(text))
    assert dates._scan(s, allow_time_only=True) is not None
    assert dates._may_be_date(s)
    assert is_date_candidate(text)


@pytest.mark.parametrize("text", ["Results 1 - 10 of about 2,340", "$19.99", "Page 2 of 12"])
def test_second_gate_skips_texts_without_a_date_mark(text):
    from scrapy_records.fields import dates

    assert not dates._may_be_date(dates._lower(dates.normalize(text)))
    assert not is_date_candidate(text)
