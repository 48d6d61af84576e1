"""The naming rules every part of the package shares: alignment columns, G-STM and DCADE
schemas, and wrapper fields are named with these functions.

* :func:`slug`: any text as a field name (ASCII letters, digits, ``_``; ``f_`` before a digit);
* :func:`token_name` / :func:`best_token`: a name from class or id tokens, or ``None`` for
  presentational tokens (``pl6``, ``col-xs-4``, ``secondary-link-color``), framework noise
  and generated hashes;
* :func:`fragment_name`: a name from the fragment of the links a column's texts are on;
* :func:`label_name`: a name from a label text ("Price:" -> ``price``, "By" -> ``author``);
* :func:`generic_name`: the name of a value nothing else names (``description``, ``text``,
  ``link``, ``image``);
* :func:`unique_names`: ``_2``, ``_3``... for repeated names, in the order given;
* :func:`shape_name`: a name from what a column's values are (``reviews``, ``rank``,
  ``size``, ``percent``, ``time``) where nothing else names it; :func:`is_written_address`:
  values that are web addresses written out (``display_url``).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from scrapy_records.fields.text import strip_separators

_NOISE_WORDS = frozenset(
    """clearfix cf row col cols column columns container wrapper wrap inner outer item items
    entry entries box block inline left right center centre first last odd even active
    selected current hidden visible show hide fade in clear group media media-body card
    card-body card-content list list-item flex grid small large big bold strong italic
    muted lead ellipsis truncate nowrap js sr-only visually-hidden mobile desktop tablet
    float pull-left pull-right float-left float-right fl fr l r c x y module component
    section main cell td tr th span div p a link-item text-left
    text-right text-center hover focus disabled enabled open closed on off new-line
    separator sep spacer line d-block d-flex d-none d-inline d-inline-block full half
    mt mb ml mr pt pb pl pr w100 h100 x-small xs sm md lg xl xxl grey gray black white red
    blue green yellow orange dark light bright underline uppercase lowercase""".split()
)
_NOISE_PREFIX_RE = re.compile(
    r"^(?:col|offset|order|pull|push|span\d|g[xy]?|gap|[mp][xytblrse]?|w|h|mw|mh|fs|fw|lh|z|d|"
    r"flex|grid|align|justify|float|position|rounded|shadow|bg|border|text|font|opacity|"
    r"overflow|is|has|js|u|icon|fa|glyphicon|bi|ui|btn|mdc|mat|v|el|ant|chakra|tw|"
    r"visible|hidden|show|hide|sm|md|lg|xl|xs|xxl|size|color|theme|ng|vue|svelte|jsx|css|sc|"
    r"emotion|styled|makestyles|mui[a-z]*|gatsby|framer|x)-",
    re.I,
)
#: a class token holding one of these words is preferred as a name
_FIELD_WORDS = tuple(
    """title name price date time author user desc summary snippet image img thumb photo url
    link rating review count comment category tag location address brand sku stock avail
    status score vote view size color colour phone email company salary type source domain
    caption excerpt headline label badge discount sale amount total qty quantity model year
    city country seller shop store vendor reply replies post message subject topic""".split()
)
_STOP_LABELS = frozenset(
    "by in at on from of and or the a an to for with via von de du des par bei und le la les "
    "el los por con da di del per".split()
)
#: words saying a name is a link's / an image's (no ``_url`` / ``_image`` appended then)
URL_WORDS = ("url", "link", "href", "permalink")


def says_url(name: str) -> bool:
    """``name``'s last word says it is a link's address (``author_url``, ``permalink``;
    not ``sitelinks``, which are the links themselves: their address is ``sitelinks_url``)."""
    last = name.rsplit("_", 1)[-1]
    return last in URL_WORDS or last.endswith("url")


IMAGE_WORDS = ("img", "image", "photo", "thumb", "pic", "logo", "avatar", "icon", "picture")

_NON_WORD_RE = re.compile(r"[^\w]+", re.UNICODE)
_UNDERSCORES_RE = re.compile(r"_+")
_DASHES_RE = re.compile(r"[-_]+")
_TRAILING_NUMBER_RE = re.compile(r"[-_]?\d+$")


def slug(s: str, max_len: int = 40) -> str:
    """``s`` as a lower-case ASCII identifier (accents folded; numbers opening it go last,
    "2009 Endowment" -> ``endowment_2009``; ``f_`` prefixed when it still starts with a
    digit; ``""`` when nothing is left, e.g. a label in a non-Latin script)."""
    s = unicodedata.normalize("NFKD", s.replace("ß", "ss")).encode("ascii", "ignore").decode()
    s = _NON_WORD_RE.sub("_", s.strip().lower()).strip("_")
    s = _UNDERSCORES_RE.sub("_", s)[:max_len].strip("_")
    if s[:1].isdigit():
        parts = s.split("_")
        k = next((i for i, p in enumerate(parts) if not p.isdigit()), len(parts))
        s = "_".join(parts[k:] + parts[:k])
    if s and s[0].isdigit():
        s = "f_" + s
    return s


_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


#: short forms of field words in class names and vocabularies, as a person writes them out
#: (whole words only: ``desc`` -> ``description``, ``prev_price`` -> ``previous_price``)
ABBREVIATIONS = {
    "desc": "description",
    "descr": "description",
    "durl": "display_url",
    "snip": "snippet",
    "snipp": "snippet",
    "img": "image",
    "pic": "image",
    "addr": "address",
    "qty": "quantity",
    "amt": "amount",
    "loc": "location",
    "cat": "category",
    "auth": "author",
    "msg": "message",
    "txt": "text",
    "ttl": "title",
    "hdr": "header",
    "lnk": "link",
    "cmt": "comment",
    "cmnt": "comment",
    "usr": "user",
    "prev": "previous",
    "avail": "availability",
    "tel": "phone",
}


def expand_words(name: str) -> str:
    """``name`` with its abbreviated words written out (:data:`ABBREVIATIONS`) and a word
    that the expansion repeats next to itself said once (``img_image`` -> ``image``)."""
    words = [ABBREVIATIONS.get(w, w) for w in name.split("_")]
    out: list[str] = []
    for w in "_".join(words).split("_"):
        if not out or out[-1] != w:
            out.append(w)
    return "_".join(out)


def property_name(value: str) -> str:
    """A column name from a microdata/RDFa property: its first token's last part, camel
    humps as word breaks (``addressLocality`` -> ``address_locality``, ``schema:name``,
    ``og:title``, ``http://schema.org/price`` -> ``price``; abbreviations written out,
    ``f:durl`` -> ``display_url``); ``""`` when nothing is left."""
    toks = value.split()
    if not toks:
        return ""
    last = re.split(r"[:/#]", toks[0])[-1]
    return expand_words(slug(_CAMEL_RE.sub("_", last) if len(last) <= 40 else last))


def path_name(path: Sequence[str]) -> str:
    """The column name a JSON-LD property path gives: its last part as a property name
    (:func:`property_name`), the object's when that part only says "name" or "value"
    (``offers.price`` -> ``price``, ``brand.name`` -> ``brand``,
    ``aggregateRating.ratingValue`` -> ``rating``)."""
    last = path[-1]
    if last in ("name", "value", "text", "@value") and len(path) > 1:
        last = path[-2]
    name = property_name(last)
    return name.removesuffix("_value") if "_" in name else name


def _is_hash(tok: str) -> bool:
    """A generated token (CSS modules, styled components): many digits or camel humps."""
    core = tok.strip("_-")
    if not core:
        return True
    digits = sum(ch.isdigit() for ch in core)
    if digits and digits * 10 >= len(core) * 3:  # >= 30 % digits
        return True
    for seg in _DASHES_RE.split(core):
        if 4 <= len(seg) <= 10:
            switches = sum(1 for a, b in zip(seg, seg[1:]) if a.islower() and b.isupper())
            if switches >= 2 or (switches and any(ch.isdigit() for ch in seg)):
                return True
    return False


_TOKEN_CACHE: dict[str, str | None] = {}


def token_name(tok: str) -> str | None:
    """A usable name from one class/id token, or ``None`` for framework noise and hashes."""
    try:
        return _TOKEN_CACHE[tok]
    except KeyError:
        if len(_TOKEN_CACHE) > 20000:
            _TOKEN_CACHE.clear()
        r = _TOKEN_CACHE[tok] = _token_name_uncached(tok)
        return r


#: words of presentational class names: a token made only of these is styling, not a name
_STYLE_WORDS = frozenset(
    """primary secondary tertiary link links color colour colors size sizes base small medium
    large xs sm md lg xl xxl fz fs fw font text texts bold light dark gray grey black white
    red blue green yellow orange purple pink dgray lgray ltgray dkgray copy padding margin
    truncate line lines clamp
    ellipsis float fl fr left right top bottom center centre middle align wrap wrapper nowrap
    inline block flex grid col cols row rows span hidden visible show hide display pull push
    offset order gutter spacing space spacer gap border borders rounded radius shadow bg
    background opacity index pointer cursor hover active focus disabled selected muted strong
    emphasis italic underline uppercase lowercase capitalize tracking leading weight regular
    normal mini tiny huge big full half auto fixed absolute relative sticky static clearfix
    cell mobile desktop tablet only screen reader visually wide narrow width height max min
    container inner outer box first last odd even clear theme style styled default plain
    subtle accent highlight highlighted dim dimmed faded soft lighter darker heavy thin thick
    caps upper lower sans serif mono layout section wrap wrapped column columns module
    component element elements unit units util utils helper helpers none""".split()
)
#: analytics hooks (``track-event``, ``za-track-event``, ``ga-click``, ``js-tracking``): they say
#: what a script counts, not what the element holds
_TRACKING_RE = re.compile(
    r"^(?:[a-z]{1,3}[-_])?(?:(?:ga|gtm|trk|analytics|omniture|beacon|tracking|trackable|tracker)"
    r"(?:[-_]\w+)?|track[-_]?(?:event|click|link|impression|data)\w*)$",
    re.I,
)
#: words a site puts before its record's parts ("search-score", "prod-name", "lvprice" is
#: not split): the record's namespace, not what the value is
_NAMESPACE_WORDS = frozenset(
    "search result results res item product products prod listing listings entry srp serp".split()
)
_WORD_SPLIT_RE = re.compile(r"[-_\s]+|(?<=[a-z])(?=[A-Z])")
_VOWEL_RE = re.compile(r"[aeiouy]")


def _token_name_uncached(tok: str) -> str | None:
    t = tok.strip()
    if not t or len(t) > 60 or any(ch in t for ch in ":/[]!.#@%()=+"):
        return None
    low = t.lower()
    if "__" in low:  # BEM block__element--modifier -> element
        low = low.split("__")[-1]
        t = t.split("__")[-1]
    if "--" in low:  # block--modifier -> block, unless only the modifier says what it is
        block, mod = low.split("--", 1)
        use_mod = not _has_field_word(block) and _has_field_word(mod)
        low = mod if use_mod else block
        t = t.split("--", 1)[1 if use_mod else 0]
    if not low or low.isdigit() or low in _NOISE_WORDS or _NOISE_PREFIX_RE.match(low):
        return None
    if _is_hash(t) or _is_hash(low) or _TRACKING_RE.match(t):
        return None
    # keep the words that say what the content is; a token of styling words only
    # ("secondary-link-color", "a-size-base", "fz-ms") or of namespace prefixes is no name
    # ("bgc-lgray3-h": a style word with a shade number is still a style word)
    words = [_TRAILING_NUMBER_RE.sub("", w.lower()) for w in _WORD_SPLIT_RE.split(t) if w]
    content = [
        w
        for w in words
        if len(w) >= 3
        and not w.isdigit()
        and w not in _STYLE_WORDS
        and w not in _NOISE_WORDS
        and _VOWEL_RE.search(w)
    ]
    while len(content) > 1 and content[0] in _NAMESPACE_WORDS:
        content = content[1:]  # "search-result-title" -> title, "prodPrice" -> price
    if not content:
        return None
    name = expand_words(slug("_".join(content)))
    if len(name) < 2 or name in _NOISE_WORDS:
        return None
    return name


#: two consonants that start words (``price``, ``thumb``, ``stock``): never a glued prefix
_ONSETS = frozenset(
    "bl br ch cl cr dr dw fl fr gh gl gn gr kl kn kr ph pl pn pr ps sc sh sk sl sm sn sp st "
    "sv sw th tr ts tw tz wh wr".split()
)
_GLUED_RE = re.compile(r"^([b-df-hj-np-tv-xz]{2})([a-z]{3,})$")
#: distinct class tokens of a record that must share a glued prefix for it to be one
GLUED_PREFIX_TOKENS = 3


def glued_prefixes(tokens: Iterable[str]) -> frozenset[str]:
    """Two-consonant prefixes no word starts with, glued to at least
    :data:`GLUED_PREFIX_TOKENS` distinct class tokens of one record (``lvtitle``,
    ``lvprice``, ``lvformat``): the site's namespace for the record's parts, not a word of
    their names."""
    seen: dict[str, set[str]] = {}
    for tok in tokens:
        m = _GLUED_RE.match(tok)
        if m and m.group(1) not in _ONSETS and _VOWEL_RE.search(m.group(2)):
            seen.setdefault(m.group(1), set()).add(tok)
    return frozenset(p for p, toks in seen.items() if len(toks) >= GLUED_PREFIX_TOKENS)


def unglue(token: str, prefixes: frozenset[str]) -> str:
    """``token`` without a glued prefix of :func:`glued_prefixes` (``lvprice`` -> ``price``)."""
    m = _GLUED_RE.match(token) if prefixes else None
    return m.group(2) if m and m.group(1) in prefixes and _VOWEL_RE.search(m.group(2)) else token


def _has_field_word(token: str) -> bool:
    return any(w in token for w in _FIELD_WORDS)


def fragment_name(fragment: str) -> str | None:
    """A name from the fragment links of a column share (``#customerReviews`` ->
    ``customer_reviews``, ``#comments``) when it holds a field word: the part of the page
    the link leads to says what its text counts (``#top-nav-bar`` names nothing)."""
    name = token_name(fragment.lstrip("#"))
    return name if name and _has_field_word(name) else None


def best_token(tokens: Sequence[str]) -> str | None:
    """The best name among class tokens: the first holding a field word, else the first."""
    names = [n for n in (token_name(t) for t in tokens) if n]
    if not names:
        return None
    for n in names:
        if any(w in n for w in _FIELD_WORDS):
            return n
    return names[0]


#: what a person writes: "<thing> by" labels its author ("Blog Entry By", "Article by")
_WRITTEN_THINGS = frozenset(
    "blog entry article post story review comment answer column essay report photo video "
    "opinion news".split()
)

#: label words that name a role rather than say a name ("By Jane" -> ``author``)
_LABEL_ROLES = {
    "by": "author",
    "von": "author",
    "par": "author",
    "por": "author",
    "di": "author",
    "written by": "author",
    "posted by": "author",
    "author": "author",
    "sold by": "seller",
    "published by": "publisher",
    "directed by": "director",
    "reviewed by": "reviewer",
    "from": "source",
    "e-mail": "email",
    "tel": "phone",
    "tel.": "phone",
    "ph": "phone",
}


def label_name(text: str) -> str | None:
    """A name from a label text ("Price:" -> ``price``, "By" -> ``author``), or ``None``
    when it is no label."""
    t = text.strip().rstrip(":：-–|").strip()
    low = t.lower().rstrip(".")
    role = _LABEL_ROLES.get(low)
    if role:
        return role
    words = low.split()
    if 1 < len(words) <= 3 and _LABEL_ROLES.get(words[-1]) == "author":
        if all(w in _WRITTEN_THINGS for w in words[:-1]):
            return "author"  # "Blog Entry By", "Article by": who wrote it ("Made by" is no author)
    if not t or len(t) > 30 or len(t.split()) > 4:
        return None
    if sum(ch.isalpha() for ch in t) < 3 or t.lower() in _STOP_LABELS:
        return None
    n = slug(t)
    return n if len(n) >= 2 else None


#: a label written at the start of a value's own text: "Depth: 2", "E-mail: a@b.org", "By Ann"
_GLUED_LABEL_RE = re.compile(r"^\s*([^\W\d][^:：\n]{0,28}?)\s*[:：](?!//)\s*\S|^\s*(by)\s+\w", re.I)


def glued_label(vals: Sequence[str]) -> str | None:
    """The name a label written at the start of most values gives them ("By: Mette
    Newth", "Depth: 2" -> ``author``, ``depth``): the same label, by :func:`label_name`,
    in at least 80% of the values and two of them."""
    labels: list[str | None] = []
    for v in vals:
        m = _GLUED_LABEL_RE.match(v)
        lab = (m.group(1) or m.group(2)).casefold() if m else None
        labels.append(lab if lab and len(lab.split()) <= 3 else None)
    if len(labels) < 2:
        return None
    top = max(set(labels), key=labels.count)
    if top is None or labels.count(top) < max(2, 0.8 * len(labels)):
        return None
    return label_name(top)


#: verbs an action's caption opens with ("Add to cart", "Preorder now", "See more like this")
ACTION_VERBS = frozenset(
    """add buy order preorder pre-order reserve book shop get apply subscribe download
    notify request contact call compare save view see select choose start try join
    register sign bid watch rent""".split()
)


def is_action(v: str) -> bool:
    """A caption of two words or more that opens with a verb of :data:`ACTION_VERBS`."""
    words = v.split()
    return len(words) >= 2 and words[0].casefold() in ACTION_VERBS


#: words a sentence leading up to a value may end with before its noun ("refer to job code")
_LEAD_WORDS = frozenset(
    "a an the to at by for of in on is are was be as with from our your its this that".split()
)


def phrase_name(text: str) -> str | None:
    """A name from the end of a phrase that leads up to a value ("Please refer to job code
    <b>10-01617</b>" -> ``job_code``): its last two words, the words that lead into the
    value ("at", "to", "is") left out; ``None`` after a whole sentence ("... here.") or
    without two such words."""
    t = text.strip()
    if not t or t[-1] in ".!?;)":
        return None
    words = re.findall(r"[^\W\d_]+", t.lower())
    while words and words[-1] in _LEAD_WORDS:
        words.pop()
    tail = [w for w in words[-2:] if w not in _LEAD_WORDS]
    if len(tail) < 2 or t.lower() in _STOP_LABELS:
        return None
    n = slug(" ".join(tail))
    return n if len(n) >= 4 else None


#: mean words per value from which a text nothing names is a ``description``
DESCRIPTION_WORDS = 8


def generic_name(kind: str, values: Iterable[object] = ()) -> str:
    """The name of a value no evidence names: ``link`` (a URL), ``image``, ``description``
    (a text of several sentences' length) or ``text``."""
    if kind == "url":
        return "link"
    if kind == "image":
        return "image"
    texts = [v for v in values if isinstance(v, str)]
    words = sum(len(v.split()) for v in texts)
    return "description" if texts and words >= DESCRIPTION_WORDS * len(texts) else "text"


def unique_names(names: Iterable[str], taken: Iterable[str] = ()) -> list[str]:
    """``names`` with repeats numbered ``_2``, ``_3``... (in the order given), avoiding
    ``taken`` too."""
    used = set(taken)
    out = []
    for base in names:
        name, k = base, 2
        while name in used:
            name = f"{base}_{k}"
            k += 1
        used.add(name)
        out.append(name)
    return out


# ----------------------------------------------------------------- what values are
def mostly(vals: Sequence[str], test: Callable[[str], bool], share: float = 0.8) -> bool:
    """At least ``share`` of the values pass ``test`` (a price or date column whose type one
    "£3 to £9" or a sponsored item's byline kept text is still named like one)."""
    misses, limit = 0, round((1 - share) * len(vals), 6)  # 0.2 * 5 is 1, not 0.999...
    for v in vals:
        if not test(v):
            misses += 1
            if misses > limit:
                return False
    return True


#: a web address as a results page writes it out: a host name with a dot and a top-level
#: domain, then a path or breadcrumbs ("www.example.com/a/b", "example.org › docs")
_ADDRESS_RE = re.compile(r"^(?:https?://)?(?:[\w-]+\.)+[a-z]{2,}(?::\d+)?(?:[/?#]\S*)?$", re.I)
_ADDRESS_HINT_RE = re.compile(r"^(?:https?://|www\.)|[/›»]", re.I)
#: what may follow an address in its text: breadcrumbs, or a short note ("- 14k", "...")
_AFTER_ADDRESS_RE = re.compile(r"^(?:[›»>].*|.{0,16})$")


def _reads_as_address(v: str) -> bool:
    head, _, rest = strip_separators(v).partition(" ")
    head = head.rstrip(".\u2026")  # a cut address ("www.omnis.com...")
    rest = rest.strip()
    if head.endswith("/") and rest and " " not in rest:  # wrapped: "x.edu/Courses/ Art.html"
        rest = ""
    return bool(_ADDRESS_RE.match(head)) and bool(_AFTER_ADDRESS_RE.match(rest))


#: an address written from the site's root: "/health-information/diabetes/overview"
_PATH_RE = re.compile(r"^/[\w.~%-]+(?:/[\w.~%-]*)+(?:[?#]\S*)?$")


def is_written_address(vals: Sequence[str], paths: bool = False) -> bool:
    """All but one in five values read as web addresses (breadcrumbs or a short note such as
    the page's size may follow: "www.x.edu/a/ - 14k"), and at least half of them show it
    beyond doubt (a scheme, ``www.`` or a path): "Node.js" alone is no address. With
    ``paths`` (a class already says "url"), paths from the site's root count too."""
    if paths and mostly(vals, lambda v: bool(_PATH_RE.match(v.strip()))):
        return True
    if not mostly(vals, _reads_as_address):
        return False
    return sum(1 for v in vals if _ADDRESS_HINT_RE.search(v.strip())) >= 0.5 * len(vals)


#: "71 reviews", "(23) comments", "1.2k views": a count and the noun it counts
_COUNT_RE = re.compile(r"^\(?\s*\d[\d,.]*\s*[kKmM]?\s*\)?\s+([^\W\d_]{3,})$")
#: nouns of measure and of time: "112 KB", "2 pack", "3 days" say how much, not what is counted
_NOT_COUNTED = frozenset(
    "kb mb gb tb kib mib gib bytes px pt cm mm km kg lbs lb oz ml pack packs pcs pieces"
    " sec secs second seconds min mins minute minutes hr hrs hour hours day days week weeks"
    " month months year years yrs ago left".split()
)


def _noun_stem(word: str) -> str:
    """``replies`` -> ``reply``, ``tags`` -> ``tag``: the singular and plural as one noun."""
    w = word.casefold()
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    return w[:-1] if w.endswith("s") and not w.endswith("ss") else w


def counted_noun(vals: Sequence[str]) -> str | None:
    """The noun every value (all but one in five) counts, as the values write it where the
    count is not one ("1 tag", "2 tags" -> ``tags``); ``None`` when the values are not
    counts of one noun, count a measure or a time ("112 KB", "3 days"), or keep the noun
    singular after other counts than one ("4 Stroke")."""
    nouns = []
    for v in vals:
        m = _COUNT_RE.match(v.strip())
        nouns.append((m.group(1).casefold(), v.lstrip("( ").startswith("1 ")) if m else None)
    found = [n for n in nouns if n is not None]
    stems = Counter(_noun_stem(w) for w, _one in found)
    if not stems:
        return None
    stem, k = stems.most_common(1)[0]
    if k < 0.8 * len(vals) or stem in _NOT_COUNTED or _noun_stem(stem) in _NOT_COUNTED:
        return None
    forms = Counter(w for w, one in found if _noun_stem(w) == stem and not one)
    if stem in forms:
        return None  # "4 Stroke", "2 pack": a kind or a size, not a count of strokes
    return forms.most_common(1)[0][0] if forms else stem


#: "1.", "[ 2 ]", "#3", "4)": a result's position in the list
_RANK_RE = re.compile(r"^[\[(#]?\s*(\d{1,4})\s*[.):\]]?$")
#: "19.8KB", "4k", "288K", "3282 bytes": the size of a document
_SIZE_RE = re.compile(r"^\d[\d,]*(?:\.\d+)?\s*(?:[kmgt]i?b?|bytes?)$", re.I)
_PERCENT_RE = re.compile(r"^\d{1,3}(?:[.,]\d+)?\s*%$")
_TIME_RE = re.compile(r"^(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:\s*[ap]\.?m\.?)?$", re.I)


def _ranks(vals: Sequence[str]) -> bool:
    """Numbers that count the records up: each one more than the one before (all but one
    in five steps)."""
    nums = []
    for v in vals:
        m = _RANK_RE.match(v.strip())
        if not m:
            return False
        nums.append(int(m.group(1)))
    steps = sum(1 for a, b in zip(nums, nums[1:]) if b == a + 1)
    return len(nums) >= 3 and steps >= 0.8 * (len(nums) - 1)


def shape_name(vals: Sequence[str]) -> str | None:
    """The name of a text column by what its values are, when nothing else names it:
    counts of one noun (``reviews``, :func:`counted_noun`), a position in the list
    (``rank``), a document size (``size``), a percentage (``percent``), a time of day
    (``time``); ``None`` for anything else. (A web address written out is ``display_url``
    whatever the class says: :func:`is_written_address`, asked before the class.)"""
    vals = [v for v in vals if v.strip()]
    if not vals:
        return None
    if _ranks(vals):
        return "rank"
    if mostly(vals, lambda v: bool(_SIZE_RE.match(strip_separators(v)))):
        return "size"
    if mostly(vals, lambda v: bool(_PERCENT_RE.match(strip_separators(v)))):
        return "percent"
    if mostly(vals, lambda v: bool(_TIME_RE.match(strip_separators(v)))):
        return "time"
    return counted_noun(vals)
