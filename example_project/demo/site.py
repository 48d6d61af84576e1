"""The demo site: a small shop, a forum thread and a JavaScript-rendered page, served on 127.0.0.1.

Everything is generated from fixed data (deterministic): ``/shop/page/N`` (paginated product
lists, 12 products a page), ``/shop/product/N`` (detail pages with a spec table and reviews),
``/forum/thread/1?page=N`` (forum posts), ``/js/`` (an empty shell whose list is rendered by a
script), plus ``/data.json`` (not HTML) and ``/huge`` (an oversized page) for the tests.

Run it alone with ``python -m demo.site`` (from ``example_project/``).
"""

from __future__ import annotations

import html
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

N_PRODUCTS = 54
PER_PAGE = 12
N_POSTS = 25
POSTS_PER_PAGE = 10

ADJ = ["Red", "Blue", "Green", "Steel", "Oak", "Silver", "Compact", "Deluxe", "Classic", "Travel"]
NOUN = ["Kettle", "Lamp", "Chair", "Backpack", "Teapot", "Desk", "Clock", "Blender", "Mug", "Radio"]
USERS = ["alice", "bob", "carol", "dave", "erin", "frank"]
WORDS = (
    "the quick brown fox jumps over a lazy dog while seven wizards box and judge quiet "
    "vexing jumbo puzzles before lunch"
).split()


def product(i: int) -> dict:
    return {
        "id": i,
        "name": f"{ADJ[i % len(ADJ)]} {NOUN[(i * 7) % len(NOUN)]} {i}",
        "price": f"{10 + (i * 37) % 190}.{(i * 13) % 100:02d}",
        "rating": 1 + (i * 3) % 5,
        "stock": "In stock" if i % 4 else "Out of stock",
    }


def _sentence(seed: int, n: int = 12) -> str:
    return " ".join(WORDS[(seed * 5 + k * 3) % len(WORDS)] for k in range(n)).capitalize() + "."


def layout(title: str, body: str, extra_head: str = "") -> str:
    nav = "".join(
        f'<li><a href="{u}">{t}</a></li>'
        for u, t in [
            ("/", "Home"),
            ("/shop/page/1", "Shop"),
            ("/forum/thread/1", "Forum"),
            ("/js/", "Live offers"),
            ("/about", "About"),
        ]
    )
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)} - Demo Shop</title>{extra_head}</head><body>"
        f"<header><div class='logo'>Demo Shop</div><nav><ul class='menu'>{nav}</ul></nav></header>"
        f"<main>{body}</main>"
        "<footer><p>Demo Shop, 1 Example Street</p><p><a href='/about'>About</a> "
        "<a href='/contact'>Contact</a></p></footer></body></html>"
    )


def pager(base: str, page: int, pages: int, sep: str = "/") -> str:
    items = []
    if page > 1:
        items.append(f'<a class="prev" href="{base}{sep}{page - 1}">‹ Prev</a>')
    for k in range(1, pages + 1):
        items.append(
            f'<span class="current">{k}</span>'
            if k == page
            else f'<a href="{base}{sep}{k}">{k}</a>'
        )
    if page < pages:
        items.append(f'<a class="next" href="{base}{sep}{page + 1}">Next ›</a>')
    return f'<div class="pagination">{" ".join(items)}</div>'


def shop_list(page: int) -> str | None:
    pages = (N_PRODUCTS + PER_PAGE - 1) // PER_PAGE
    if not 1 <= page <= pages:
        return None
    cards = []
    for i in range((page - 1) * PER_PAGE + 1, min(N_PRODUCTS, page * PER_PAGE) + 1):
        p = product(i)
        cards.append(
            f'<div class="product"><a href="/shop/product/{i}"><img src="/img/{i}.png" alt=""></a>'
            f'<h3 class="name"><a href="/shop/product/{i}">{p["name"]}</a></h3>'
            f'<span class="price">${p["price"]}</span>'
            f'<span class="rating">{p["rating"]} stars</span>'
            f'<span class="stock">{p["stock"]}</span></div>'
        )
    body = (
        f"<h1>All products, page {page}</h1>"
        f'<div class="products">{"".join(cards)}</div>' + pager("/shop/page", page, pages)
    )
    return layout(f"Products page {page}", body)


def shop_product(i: int) -> str | None:
    if not 1 <= i <= N_PRODUCTS:
        return None
    p = product(i)
    specs = [
        ("Colour", ADJ[i % len(ADJ)]),
        ("Weight", f"{1 + i % 9}.{i % 10} kg"),
        ("Warranty", f"{1 + i % 3} years"),
        ("SKU", f"DS-{1000 + i}"),
    ]
    rows = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in specs)
    reviews = "".join(
        f'<li class="review"><span class="author">{USERS[(i + k) % len(USERS)]}</span>'
        f'<span class="date">2026-0{1 + (i + k) % 9}-{10 + (i + 2 * k) % 18:02d}</span>'
        f"<p>{_sentence(i + k)}</p></li>"
        for k in range(3 + i % 3)
    )
    body = (
        f'<div class="detail"><h1>{p["name"]}</h1><p class="price">${p["price"]}</p>'
        f'<p class="stock">{p["stock"]}</p><p class="desc">{_sentence(i, 20)}</p>'
        f'<table class="specs">{rows}</table>'
        f'<h2>Reviews</h2><ul class="reviews">{reviews}</ul></div>'
    )
    return layout(p["name"], body)


def forum_thread(page: int) -> str | None:
    pages = (N_POSTS + POSTS_PER_PAGE - 1) // POSTS_PER_PAGE
    if not 1 <= page <= pages:
        return None
    posts = []
    for k in range((page - 1) * POSTS_PER_PAGE + 1, min(N_POSTS, page * POSTS_PER_PAGE) + 1):
        posts.append(
            f'<div class="post" id="post-{k}"><div class="meta"><span class="user">'
            f'{USERS[k % len(USERS)]}</span> <span class="posted">2026-11-{1 + k % 28:02d} '
            f"{8 + k % 12}:{(k * 7) % 60:02d}</span></div>"
            f'<div class="content"><p>{_sentence(k, 10 + k % 15)}</p></div>'
            f'<div class="actions"><a href="/forum/reply?to={k}">Reply</a></div></div>'
        )
    body = (
        '<h1>Which kettle should I buy?</h1><div class="thread">'
        + "".join(posts)
        + "</div>"
        + pager("/forum/thread/1?page", page, pages, sep="=")
    )
    return layout("Forum: Which kettle should I buy?", body)


def js_page() -> str:
    data = [product(i) for i in range(1, 11)]
    script = (
        "<script>const OFFERS = " + json.dumps(data) + ";\n"
        "document.addEventListener('DOMContentLoaded', function () {\n"
        "  const ul = document.createElement('ul'); ul.className = 'offers';\n"
        "  for (const p of OFFERS) {\n"
        "    const li = document.createElement('li'); li.className = 'offer';\n"
        "    li.innerHTML = '<h3><a href=\"/shop/product/' + p.id + '\">' + p.name + '</a></h3>'"
        " + '<span class=\"price\">$' + p.price"
        " + '</span><span class=\"stock\">' + p.stock + '</span>';\n"
        "    ul.appendChild(li);\n  }\n"
        "  document.getElementById('app').appendChild(ul);\n});</script>"
    )
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Live offers</title>"
        f"{script}</head><body><div id='app'></div></body></html>"
    )


def home() -> str:
    return layout(
        "Home",
        "<h1>Welcome</h1><p>Browse the <a href='/shop/page/1'>shop</a>, "
        "the <a href='/forum/thread/1'>forum</a> or the <a href='/js/'>live offers</a>.</p>",
    )


def route(path: str, query: dict) -> tuple[int, str, bytes]:
    """``(status, content type, body)`` of a request path."""
    parts = [p for p in path.split("/") if p]
    page: str | None = None
    if not parts:
        page = home()
    elif parts[:2] == ["shop", "page"] and len(parts) == 3 and parts[2].isdigit():
        page = shop_list(int(parts[2]))
    elif parts == ["shop"]:
        page = shop_list(1)
    elif parts[:2] == ["shop", "product"] and len(parts) == 3 and parts[2].isdigit():
        page = shop_product(int(parts[2]))
    elif parts == ["forum", "thread", "1"]:
        n = query.get("page", ["1"])[0]
        page = forum_thread(int(n)) if n.isdigit() else None
    elif parts == ["js"]:
        page = js_page()
    elif parts in (["about"], ["contact"]):
        page = layout(parts[0].title(), f"<h1>{parts[0].title()}</h1><p>{_sentence(3, 30)}</p>")
    elif parts == ["data.json"]:
        return 200, "application/json", json.dumps([product(i) for i in range(1, 6)]).encode()
    elif parts[0] == "img":
        # a 1x1 PNG
        return (
            200,
            "image/png",
            bytes.fromhex(
                "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
            ),
        )
    elif parts == ["huge"]:
        rows = "".join(f"<li><a href='/x{i}'>Item {i}</a> <b>{i}</b></li>" for i in range(60000))
        page = layout("Huge", f"<ul>{rows}</ul>")
    if page is None:
        return 404, "text/html; charset=utf-8", layout("Not found", "<h1>Not found</h1>").encode()
    return 200, "text/html; charset=utf-8", page.encode("utf-8")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802
        u = urlsplit(self.path)
        status, ctype, body = route(u.path, parse_qs(u.query))
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:  # silence
        pass


class DemoSite:
    """The demo site on ``http://127.0.0.1:<port>/`` (port 0: a free one), in a daemon thread."""

    def __init__(self, port: int = 0) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/"

    def start(self) -> DemoSite:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> DemoSite:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


if __name__ == "__main__":  # pragma: no cover
    import sys

    site = DemoSite(int(sys.argv[1]) if len(sys.argv) > 1 else 8000)
    print(f"demo site on {site.url} (Ctrl-C to stop)")
    try:
        site.server.serve_forever()
    except KeyboardInterrupt:
        pass
