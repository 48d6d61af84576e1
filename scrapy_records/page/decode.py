"""Charset detection and decoding of raw HTML bytes, as a browser does it.

Entry points: :func:`decode_html` (bytes to text) and :func:`sniff_encoding` (the
encoding only, when it is known without decoding). :func:`looks_binary` tells
binary data from a text document before any of them runs.
"""

from __future__ import annotations

import codecs

from charset_normalizer import from_bytes
from w3lib.encoding import html_body_declared_encoding, html_to_unicode

#: Byte-order marks: the document states its own encoding.
BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)

#: Codecs that decode every ASCII byte to that character, in Python and in libxml2's
#: iconv alike (not Shift_JIS: iconv reads 0x5C as a yen sign): pure-ASCII input in one
#: of them is the same text as UTF-8.
ASCII_SAFE = frozenset(
    codecs.lookup(_n).name
    for _n in (
        "utf-8 ascii cp1250 cp1251 cp1252 cp1253 cp1254 cp1255 cp1256 cp1257 cp1258 "
        "latin-1 iso-8859-2 iso-8859-3 iso-8859-4 iso-8859-5 iso-8859-6 iso-8859-7 iso-8859-8 "
        "iso-8859-9 iso-8859-10 iso-8859-13 iso-8859-14 iso-8859-15 iso-8859-16 koi8-r koi8-u "
        "gb18030 gbk gb2312 big5 euc-jp euc-kr cp949"
    ).split()
)

#: Single-byte encodings a page may name while its bytes are UTF-8 (saved by a UTF-8 editor
#: or crawler under its old ``<meta>`` or ``Content-Type`` charset): see :func:`utf8_despite`.
LATIN_FAMILY = frozenset(
    codecs.lookup(_n).name for _n in ("latin-1", "cp1252", "iso-8859-15", "ascii")
)

_BINARY_MAGIC: tuple[bytes, ...] = (
    b"\x89PNG",
    b"GIF8",
    b"\xff\xd8\xff",
    b"%PDF",
    b"PK\x03\x04",
    b"\x1f\x8b",
    b"BM",
    b"RIFF",
    b"\x00\x00\x01\x00",
    b"OggS",
    b"ID3",
    b"fLaC",
    b"wOFF",
    b"wOF2",
    b"\x7fELF",
    b"MZ",
)
_CTRL_BYTES = bytes(b for b in range(32) if b < 9 or 13 < b < 32)
_HIGH_BYTES = bytes(range(0x80, 0x100))


def is_wide(encoding: str | None) -> bool:
    """True for UTF-16 and UTF-32 (whose text holds NUL bytes), in any spelling."""
    if not encoding:
        return False
    try:
        return codecs.lookup(encoding).name.startswith(("utf-16", "utf-32"))
    except LookupError:
        return False


def looks_binary(data: bytes, encoding: str | None = None) -> bool:
    """True for an image, an archive, an executable... rather than a text document.

    ``encoding``: the declared encoding (an ``encoding=`` argument, an HTTP header); a
    UTF-16/32 document without a byte-order mark is text when it decodes with it into
    text with few control characters."""
    head = data[:1024]
    if head.startswith(BOMS):
        return False
    if is_wide(encoding):
        try:
            text = codecs.getincrementaldecoder(encoding)("strict").decode(head)  # type: ignore[arg-type]
        except UnicodeDecodeError:
            return True
        ctrl = sum(1 for c in text if c < " " and c not in "\t\n\r\f")
        return bool(text) and ctrl / len(text) > 0.1
    if head.startswith(_BINARY_MAGIC) or b"\x00" in head:
        return True
    # a high share of control characters: not a text document (counted in C)
    ctrl = len(head) - len(head.translate(None, _CTRL_BYTES))
    return bool(head) and ctrl / len(head) > 0.1


def mostly_ascii(data: bytes) -> bool:
    """At most 5% of the first 32 KiB are non-ASCII bytes."""
    sample = data[:32768]
    return len(sample) - len(sample.translate(None, _HIGH_BYTES)) <= 0.05 * len(sample)


def _auto_detect(body: bytes) -> str | None:
    """The encoding of an undeclared document: UTF-8 when valid, windows-1252 when
    mostly ASCII (a Western browser's guess), else charset-normalizer's guess."""
    try:
        body.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        pass
    if mostly_ascii(body):
        return "cp1252"
    try:
        best = from_bytes(body[:32768], steps=3, chunk_size=4096).best()
        if best is not None:
            return best.encoding
    except Exception:  # pragma: no cover - detector failure is not fatal
        pass
    return "cp1252"


def body_declared_encoding(data: bytes) -> str | None:
    """:func:`w3lib.encoding.html_body_declared_encoding`: the encoding a ``<meta>`` tag or
    an XML declaration in the first 4 KiB names. Only a ``charset`` (a meta tag) or an
    ``encoding`` (the declaration) can name one: a head holding neither word has none,
    found without the tag scan."""
    head = data[:4096].lower()
    if b"charset" not in head and b"encoding" not in head:
        return None
    return html_body_declared_encoding(data)


def decode_html(data: bytes, content_type: str | None = None) -> tuple[str, str]:
    """Decode raw HTML bytes as a browser would and return ``(text, encoding)``.

    Order of evidence (the WHATWG encoding sniffing algorithm, simplified):
    byte-order mark, the HTTP ``Content-Type`` charset when given, a ``<meta charset>`` /
    ``http-equiv`` declaration, then valid UTF-8, then windows-1252 when at most 5% of the
    bytes are non-ASCII (what a Western browser assumes for an undeclared page), else
    charset-normalizer's guess. Implemented with :func:`w3lib.encoding.html_to_unicode`,
    the routine Scrapy's ``TextResponse`` uses.
    """
    ct = (
        f"text/html; charset={content_type}"
        if content_type and "/" not in content_type
        else content_type
    )
    if not ct and not data.startswith(BOMS):
        raw = body_declared_encoding(data)
        declared = declared_encoding(data)
        if raw and declared != raw:  # a declaration the page cannot mean: see there
            ct = f"text/html; charset={declared or _auto_detect(data)}"
    encoding, text = html_to_unicode(ct, data, auto_detect_fun=_auto_detect)
    return text, encoding


def sniff_encoding(data: bytes) -> str | None:
    """The encoding :func:`decode_html` would choose, found without decoding to text.

    ``None`` when only its slower branches can tell (a BOM, UTF-16/32, the
    charset-normalizer guess); callers then use :func:`decode_html` itself.
    """
    return sniff(data)[0]


def declared_encoding(data: bytes) -> str | None:
    """The encoding a ``<meta>`` declaration of ``data`` names, when it can be the page's.

    The declaration was found by reading the bytes as ASCII: an encoding that does not
    read ASCII as ASCII cannot be the page's. UTF-16/32 is read as UTF-8 (WHATWG
    encoding sniffing); another (EBCDIC, UTF-7) is ignored, as browsers ignore labels
    they do not know (``None``)."""
    enc = body_declared_encoding(data)
    if enc is None or is_wide(enc):
        return None if enc is None else "utf-8"
    try:
        ascii_safe = codecs.decode(b"<meta charset=", enc, "replace") == "<meta charset="
    except LookupError:
        return None
    return enc if ascii_safe else None


def utf8_despite(data: bytes, encoding: str | None) -> bool:
    """Are ``data`` UTF-8 although ``encoding`` names a Latin-1-family charset?

    True when they hold non-ASCII text and decode as UTF-8: Latin-1 text of real words
    almost never forms valid UTF-8 sequences (it would have to spell "Ã©" for every
    non-ASCII letter), so the bytes are a UTF-8 page that kept an old declaration, whose
    "Café" a browser would show as "CafÃ©"."""
    if not encoding or data.isascii():
        return False
    try:
        if codecs.lookup(encoding).name not in LATIN_FAMILY:
            return False
        data.decode("utf-8")
    except (LookupError, UnicodeDecodeError):
        return False
    return True


def sniff(data: bytes) -> tuple[str | None, bool]:
    """:func:`sniff_encoding`, and whether it found that ``data`` decodes with it."""
    if data.startswith(BOMS):
        return None, False
    enc = declared_encoding(data)
    if enc is not None:
        return ("utf-8", True) if utf8_despite(data, enc) else (enc, False)
    if data.isascii():
        return "utf-8", True
    try:
        data.decode("utf-8")
        return "utf-8", True
    except UnicodeDecodeError:
        pass
    return ("cp1252" if mostly_ascii(data) else None), False
