"""The web explorer in a real browser: headless Chromium (Debian's) driven by Selenium.

Against a real ``skb serve`` on 127.0.0.1 over the demo SKB (500 products, BM25 index
built by ``skb index``): search, ranked results with evidence, a node page, a neighbour
link, the neighbourhood SVG, the KB overview and the comparison; a screenshot of each page
goes to this test's tmp directory. ``make test`` installs ``chromium`` and
``chromium-driver`` with apt-get when missing; the test skips (and says why) only when
they are not there.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed "
                                "(pip install -e '.[test]')")
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from serving import _skb_command, start_skb_serve, stop  # noqa: E402

from skbsearch.synth.catalogue import generate_catalogue  # noqa: E402

CHROMEDRIVER = "/usr/bin/chromedriver"
WAIT = 30
XSS_NAME = 'Evil <img src=x onerror="window.__xss=1"> Jacket'
#: Best first contentful paint of the page, over a few loads (the brief: < 200 ms).
FIRST_PAINT_MS = 200


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory) -> Iterator[str]:
    """``skb serve`` over the demo SKB (one product named with HTML, to test escaping)."""
    import pyarrow as pa

    root = tmp_path_factory.mktemp("explorer")
    ds = generate_catalogue(500, n_queries=10, seed=0)
    nodes = ds.skb.nodes
    names = nodes.column("name").to_pylist()
    names[1] = XSS_NAME
    ds.skb.nodes = nodes.set_column(nodes.column_names.index("name"), "name", pa.array(names))
    ds.skb.__dict__.pop("_columns", None)
    ds.save(root)
    subprocess.run([*_skb_command(), "index", str(root / "skb"), "--kind", "bm25"], check=True,
                   capture_output=True, timeout=300)
    cwd = root / "cwd"
    cwd.mkdir()
    proc, base = start_skb_serve(root / "skb", cwd)
    try:
        yield base
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if _chromium() is None or not Path(CHROMEDRIVER).is_file():
        pytest.skip("Chromium is not installed: 'make test' installs it (apt-get install "
                    "chromium chromium-driver); here it could not be")
    opts = webdriver.ChromeOptions()
    opts.binary_location = _chromium()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1000", "--disable-extensions"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(WAIT)
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(driver, css: str, n: int = 1) -> list:
    """The elements matching ``css`` once there are at least ``n`` of them."""
    WebDriverWait(driver, WAIT).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, css)) >= n)
    return driver.find_elements(By.CSS_SELECTOR, css)


def shot(driver, tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.png"
    assert driver.save_screenshot(str(path)) and path.stat().st_size > 5_000


def first_paint_ms(driver, url: str) -> float:
    driver.get(url)
    return driver.execute_script(
        "const e = performance.getEntriesByName('first-contentful-paint')[0];"
        "return e ? e.startTime : 1e9;")


def test_search_node_neighbour_kb_compare(demo_server, browser, tmp_path):
    d = browser
    paints = [first_paint_ms(d, f"{demo_server}/?load={i}") for i in range(3)]
    assert min(paints) < FIRST_PAINT_MS, paints

    # Search: type, Enter, ranked results with evidence (matched text highlighted).
    d.get(demo_server + "/")
    box = d.find_element(By.ID, "q")
    assert d.switch_to.active_element == box  # focus starts in the query box
    box.send_keys("waterproof hiking jacket", Keys.ENTER)
    hits = wait_for(d, "#results .hit")
    assert len(hits) == 10
    ranks = [h.find_element(By.CSS_SELECTOR, ".rank").text for h in hits]
    assert ranks == [f"{i}." for i in range(1, 11)]
    assert wait_for(d, "#results .hit .evidence li mark")
    assert "10 results" in d.find_element(By.ID, "status").text
    shot(d, tmp_path, "search")

    # The graph pipeline from the picker: path evidence.
    Select = pytest.importorskip("selenium.webdriver.support.select").Select
    Select(d.find_element(By.ID, "pipeline")).select_by_value("graph")
    d.find_element(By.ID, "q").send_keys(Keys.ENTER)
    WebDriverWait(d, WAIT).until(lambda x: "graph" in x.find_element(By.ID, "status").text)
    assert wait_for(d, "#results .evidence li.ev-path")

    # Open a node, then follow a neighbour link: each page draws its neighbourhood.
    first = d.find_element(By.CSS_SELECTOR, "#results .hit .hit-head a")
    name = first.text
    first.send_keys(Keys.ENTER)  # keyboard: links work with Enter
    wait_for(d, "svg.graph a.nbr circle", 2)
    assert d.find_element(By.CSS_SELECTOR, "#other-view h1").text == name
    assert d.find_elements(By.CSS_SELECTOR, "#neighbours section[data-relation] a")
    shot(d, tmp_path, "node")
    link = d.find_element(By.CSS_SELECTOR, "#neighbours section[data-relation='has_brand'] a")
    brand = link.text
    link.click()
    WebDriverWait(d, WAIT).until(
        lambda x: x.find_element(By.CSS_SELECTOR, "#other-view h1").text == brand)
    circles = wait_for(d, "svg.graph a.nbr circle", 2)
    assert len(circles) <= 24 and d.current_url.endswith("#/node/" + d.execute_script(
        "return encodeURIComponent(arguments[0])", link_id(d)))
    more = d.find_elements(By.CSS_SELECTOR, "#neighbours section[data-relation='has_brand^-1'] button")
    if more:  # a brand has many products: page through them
        before = len(d.find_elements(By.CSS_SELECTOR, "section[data-relation='has_brand^-1'] li"))
        more[0].click()
        wait_for(d, "section[data-relation='has_brand^-1'] li", before + 1)
    shot(d, tmp_path, "neighbour")

    # KB overview: counts and the schema drawing (a box per node type).
    d.get(demo_server + "/#/kb")
    boxes = wait_for(d, "svg.schema g.type-box rect", 4)
    assert len(boxes) == 4 and len(d.find_elements(By.CSS_SELECTOR, "svg.schema g.rel-edge")) == 5
    shot(d, tmp_path, "kb")

    # Compare two pipelines for one query: rank changes are marked.
    d.get(demo_server + "/#/compare?q=hiking+jacket+rated+at+least+4+under+100&a=bm25&b=graph")
    wait_for(d, ".compare section", 2)
    marks = d.find_elements(By.CSS_SELECTOR, ".compare section:last-child .delta")
    assert len(marks) == 20 and {m.get_attribute("class").split()[1] for m in marks} - {"same"}
    shot(d, tmp_path, "compare")


def link_id(d) -> str:
    """The id of the node page being shown (from its ``<code>`` id badge)."""
    return d.find_element(By.CSS_SELECTOR, "#other-view .node-head code").text


def test_data_is_escaped(demo_server, browser):
    d = browser
    d.get(demo_server + '/#/search?q=Evil+jacket+%3Cimg+src%3Dx+onerror%3Dalert(1)%3E&p=bm25')
    hit = wait_for(d, "#results .hit[data-id='p1'] .hit-head a")[0]
    assert hit.text == XSS_NAME  # shown as text
    d.get(demo_server + "/node/p1")  # the path form of a node page
    wait_for(d, "svg.graph circle")
    assert d.find_element(By.CSS_SELECTOR, "#other-view h1").text == XSS_NAME
    assert d.execute_script("return document.querySelectorAll('img').length") == 0
    assert d.execute_script("return window.__xss") is None
    d.get(demo_server + "/#/node/" + "%3Cimg%20src%3Dx%3E")
    WebDriverWait(d, WAIT).until(
        lambda x: "unknown node id" in x.find_element(By.ID, "other-view").text)
    assert d.execute_script("return document.querySelectorAll('img').length") == 0


def test_large_schema_and_kb_placeholders(browser, tmp_path):
    """Issue 22: on a KB of many types and relations (no attributes) the schema drawing keeps
    the 8 largest types and one arrow a pair of types, with a note; the search inputs'
    placeholders come from that KB (a real node name; no predicate to suggest)."""
    import numpy as np

    from skbsearch.kb import SKB

    rng = np.random.default_rng(0)
    n, n_types = 600, 14
    types = [f"kind {i % n_types}" for i in range(n)]
    names = [f"Thing number {i}" for i in range(n)]
    src, dst = rng.integers(0, n, 3000), rng.integers(0, n, 3000)
    rels = [f"relation {k % 40}" for k in range(3000)]
    skb = SKB.from_columns([str(i) for i in range(n)], types, names, edges=(src, rels, dst))
    skb.save(tmp_path / "big.skb")
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    proc, base = start_skb_serve(tmp_path / "big.skb", cwd)
    try:
        d = browser
        d.get(base + "/#/kb")
        boxes = wait_for(d, "svg.schema g.type-box rect", 8)
        assert len(boxes) == 8
        pairs = d.find_elements(By.CSS_SELECTOR, "svg.schema g.rel-edge")
        assert 0 < len(pairs) <= 12
        assert "The 8 largest of 14 node types" in d.find_element(By.ID, "view").text
        d.save_screenshot(str(tmp_path / "big_schema.png"))
        d.get(base + "/#/")
        WebDriverWait(d, WAIT).until(
            lambda drv: drv.find_element(By.ID, "q").get_attribute("placeholder").startswith("e.g. Thing"))
        assert d.find_element(By.ID, "where").get_attribute("placeholder") == "no attributes to filter on"
        assert "Acme" not in d.page_source and "price" not in d.page_source
    finally:
        stop(proc)
