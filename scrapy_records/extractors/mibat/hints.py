"""The words MiBAT's heuristics look for in class names, ids and labels.

Forum and comment templates name their parts (``postbody``, ``signature``, ``userinfo``,
``quote``...): the record fields (:mod:`~scrapy_records.extractors.mibat.record_fields`),
the pivot choice (:mod:`~scrapy_records.extractors.mibat.boundaries`) and the UGC routing
(:mod:`~scrapy_records.extractors.mibat.ugc`) read those names. The tests on class strings
are memoised: the same few class names repeat all over a page.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

__all__ = [
    "cached_search",
    "JOIN_RE",
    "QUOTE_CLASS_RE",
    "CHROME_HINT_RE",
    "BODY_HINT_RE",
    "is_quote_hint",
    "is_author_class",
    "is_name_class",
    "is_author_zone",
    "is_permalink_class",
    "is_record_chrome",
    "is_ugc_hint",
]


def cached_search(pattern: re.Pattern[str], maxsize: int = 4096) -> Callable[[str], bool]:
    """``pattern.search`` as a memoised yes/no test of a class / id string."""

    @lru_cache(maxsize=maxsize)
    def test(text: str) -> bool:
        return bool(pattern.search(text))

    return test


#: Labels of dates that are not the post's own: membership, last visit, edit notices.
JOIN_RE = re.compile(
    r"joined|registered|member since|registriert|mitglied seit|dabei seit|beigetreten|"
    r"inscrit|inscription|membre depuis|registrado|miembro desde|iscritto|registrato|"
    r"membro dal|membro desde|lid sinds|geregistreerd|aangemeld|founded|since|seit|depuis|"
    r"desde|dal\b|last (?:seen|visit|active)|zuletzt online|"
    r"edited|bearbeitet|geändert|modifié|editado|modificato|bewerkt|last edit|updated",
    re.I,
)

#: A quote block (on ``div``/``table``/``section`` classes).
QUOTE_CLASS_RE = re.compile(r"quote|bbcode|citation|cite", re.I)

#: Chrome around the body text (weight 0.15): profile boxes, signatures, headers, bylines,
#: meta rows, action bars.
CHROME_HINT_RE = re.compile(
    r"(?:^|[\s_-])user(?![-_]?content)(?:$|[\s_-])|signature|\bsig\b|sig[-_]|postfoot|"
    r"post-?footer|footer|likes|reactions|postprofile|userinfo|user-?info|"
    r"author|profile|avatar|poster|userdetails|user-details|meta|byline|header|buttons|"
    r"actions|toolbar|controls|share|rating|attribution|reputation|badges|edited|lastedit|"
    r"notice|attach",
    re.I,
)

#: The post body (weight 2).
BODY_HINT_RE = re.compile(
    r"content|message|postbody|post-?body|post_?body|post-?text|post_?text|entry|comment-?body|"
    r"commenttext|comment-?text|messagetext|bbwrapper|post_message|postcontent|articlebody|"
    r"\btext\b|\bbody\b|usercontent|user-content|cooked|review-?text|description",
    re.I,
)

#: Chrome *around* a post that is no data of the record (narrower than
#: :data:`CHROME_HINT_RE`: headers, bylines, meta rows and ratings hold the record's own
#: data and stay in the record text).
_RECORD_CHROME_RE = re.compile(
    r"signature|(?:^|[\s_-])sig(?:$|[\s_-])|user[-_]*(?:info|details|extras|stats|data)|"
    r"userinfo|postprofile|post-?profile|profile|avatar|post-?foot|footer|buttons|actions|"
    r"toolbar|controls|share|likes|reactions|reputation|badges|lastedit|edited|notice|"
    r"back2top|backtotop|to-?top|(?:^|[\s_-])(?:reply|edit|report|quote)[-_]?link",
    re.I,
)

#: Class / id words of user posts (the routing's evidence).
_UGC_HINT_RE = re.compile(
    r"post|comment|message|reply|review|author|user|poster|forum|thread|topic|discussion|"
    r"answer|bbp-|quote|avatar|signature|member|byline|kommentar|beitrag|commentaire|"
    r"comentario|commento|reactie",
    re.I,
)

is_quote_hint = cached_search(re.compile(r"quote|citation", re.I))
is_author_class = cached_search(re.compile(r"author|user|poster|member|nick|byline|name", re.I))
is_name_class = cached_search(
    re.compile(r"author|username|poster|byline|user-?name|nick|\bfn\b", re.I)
)
is_author_zone = cached_search(
    re.compile(
        r"postleft|postprofile|userinfo|user-info|author|poster|profile|username|user\b", re.I
    )
)
is_permalink_class = cached_search(re.compile(r"permalink|postlink|post-link", re.I))
is_record_chrome = cached_search(_RECORD_CHROME_RE)
is_ugc_hint = cached_search(_UGC_HINT_RE, maxsize=8192)
