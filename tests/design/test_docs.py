"""``singletable docs``: the five seeds' documentation is regenerated and compared with docs/designs/, each
seed's document holds its entities, patterns and requests, pictures are valid SVG drawn from the items, every
value is escaped in Markdown, SVG and HTML (checked in a real browser), and bad input fails in one line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from draws import examples
from singletable._cli import main
from singletable.data import load_design
from singletable.design import DesignDocs, SampleError, design_docs, write_docs
from singletable.design._document import md_code, md_text

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SEEDS = ("fus_main", "hustlehub", "places", "wavyblog", "blog_api")
TRACKER = str(HERE / "tracker_docs_cost.py")
HOSTILE = str(HERE / "hostile_docs.py")
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def seed_docs() -> dict[str, DesignDocs]:
    return {
        name: design_docs(
            load_design(f"singletable.examples.{name}.design"), source=f"singletable.examples.{name}.design"
        )
        for name in SEEDS
    }


@pytest.fixture(scope="module")
def tracker_docs() -> DesignDocs:
    return design_docs(load_design(TRACKER), source="tracker_docs_cost.py")


@pytest.fixture(scope="module")
def hostile_docs() -> DesignDocs:
    return design_docs(load_design(HOSTILE), source="hostile_docs.py")


@pytest.mark.parametrize("name", SEEDS)
def test_the_committed_seed_docs_are_what_the_design_generates(seed_docs, name) -> None:
    """docs/designs/<seed>/ cannot go stale: regenerate with `singletable docs ... -o docs/designs/<seed>`."""
    committed = ROOT / "docs" / "designs" / name
    generated = seed_docs[name].files()
    assert sorted(p.name for p in committed.iterdir()) == sorted(generated)
    for file, text in generated.items():
        assert (committed / file).read_text(encoding="utf-8") == text, f"docs/designs/{name}/{file} is stale"


def test_generating_twice_gives_the_same_bytes(seed_docs) -> None:
    again = design_docs(
        load_design("singletable.examples.blog_api.design"), source="singletable.examples.blog_api.design"
    )
    assert again.files() == seed_docs["blog_api"].files()


# -- what each seed's document says ------------------------------------------------------------------------

EXPECTED = {
    # seed: (entities, patterns, pictures)
    "fus_main": (
        ["SiteTag", "Site", "Rating", "Comment", "Group", "Membership"],
        ["SiteTag.with_tag", "Site.all_sites", "Rating.mine", "Rating.with_stars", "Comment.by_user_on_site",
         "Comment.for_site", "Group.all_groups", "Membership.of_user", "Membership.members"],
        ["table.svg", "index-byEntity.svg", "index-byTag.svg", "index-byStars.svg", "index-byGroup.svg",
         "index-bySite.svg"],
    ),
    "blog_api": (
        ["User", "Post", "CategoryChild", "Category", "Comment", "Reply", "Like", "Bookmark", "Notification"],
        ["User.with_role", "Post.in_category", "Post.by_author", "CategoryChild.of_parent",
         "Category.roots", "Category.subcategories", "Comment.of_post", "Reply.to_comment",
         "Like.received_by", "Bookmark.of_user", "Bookmark.of_post", "Notification.latest",
         "collection thread", "collection comments_by_author", "collection comment_by_id"],
        ["table.svg", "index-GSI1.svg", "index-GSI2.svg"],
    ),
}  # fmt: skip


def headings(markdown: str, level: int) -> list[str]:
    return [line[level + 1 :] for line in markdown.splitlines() if line.startswith("#" * level + " ")]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_seed_document_lists_every_entity_pattern_and_picture(seed_docs, name) -> None:
    entities, patterns, pictures = EXPECTED[name]
    docs = seed_docs[name]
    level3 = [h.replace("\\", "") for h in headings(docs.markdown, 3)]
    assert [
        h.split(". ", 1)[1].split(" (")[0] for h in level3 if re.match(r"\d+\. [A-Z]\w+ \(", h)
    ] == entities
    assert [
        h.split(". ", 1)[1] for h in level3 if re.match(r"\d+\. (\w+\.\w+|collection \w+)$", h)
    ] == patterns
    assert list(docs.pictures) == pictures
    assert headings(docs.markdown, 2) == [
        "Table",
        "Indexes",
        "Entities",
        "Access patterns",
        "Item collections",
    ]
    for picture in pictures:
        assert f"]({picture})" in docs.markdown


def request_after(markdown: str, heading: str) -> tuple[str, dict]:
    """The exact request documented under ``heading``: the operation and its parameters."""
    section = markdown.split(f"### {heading}\n", 1)[1]
    block = section.split("```\n", 2)[1]
    operation, _, body = block.partition(" ")
    return operation, json.loads(body)


def test_a_pattern_is_documented_with_the_request_the_model_builds(seed_docs) -> None:
    markdown = seed_docs["blog_api"].markdown
    operation, params = request_after(markdown, "2. Post.in_category")
    assert operation == "Query"
    assert params == {
        "TableName": "blog-api-dev-blog",
        "IndexName": "GSI1",
        "KeyConditionExpression": "GSI1PK = :v0 AND begins_with(GSI1SK, :v1)",
        "ScanIndexForward": False,
        "ExpressionAttributeValues": {":v0": {"S": "CATEGORY#python"}, ":v1": {"S": "POST#"}},
    }
    # The same request as the data tools build it from the pattern's name.
    design = load_design("singletable.examples.blog_api.design")
    assert design.pattern_request("Post.in_category", {"subcategory_id": "python"}) == (operation, params)
    # What it read on the sample data: python's four published posts.
    section = markdown.split("### 2. Post.in_category\n", 1)[1].split("\n### ", 1)[0]
    assert section.endswith("On these items it returns 4 items (0.5 read units, one page).\n")


def test_a_keys_only_index_pattern_says_it_hydrates(seed_docs) -> None:
    markdown = seed_docs["hustlehub"].markdown
    section = markdown.split("Listing.by_slug", 1)[1].split("\n### ", 1)[0]
    assert "the index does not project every field, so the model then reads them with BatchGetItem" in section
    operation, params = request_after(markdown, "6. Listing.by_slug")
    assert (operation, params["IndexName"]) == ("Query", "GSI4-SlugLookupIndex")


def test_a_pattern_argument_the_sample_leaves_empty_takes_a_generated_value(seed_docs) -> None:
    """hustlehub's sample listings are unsharded (listings_shard None); the sharded pattern is still shown."""
    _operation, params = request_after(seed_docs["hustlehub"].markdown, "5. Listing.latest_in_shard")
    assert params["ExpressionAttributeValues"][":v0"] == {"S": "LISTINGS#1"}


def test_key_templates_and_their_conditions_are_written_as_declared(seed_docs) -> None:
    markdown = seed_docs["blog_api"].markdown
    assert "GSI1PK = CATEGORY#{parent_id}    (otherwise CATEGORY_ROOT)" in markdown
    assert "SK = CHILD#{child_id}#{order:03d}" in markdown
    assert "Keeps derived `CATEGORY_CHILD` items (`child_link`) in step with it." in markdown
    assert "| `GSI1` | GSI | `GSI1PK (S)` | `GSI1SK (S)` | ALL |" in markdown
    hustlehub = seed_docs["hustlehub"].markdown
    assert "| `GSI1-UserEmailIndex` | GSI | `GSI1PK (S)` | `GSI1SK (S)` | KEYS_ONLY |" in hustlehub


# -- pictures ----------------------------------------------------------------------------------------------


def rows_of(svg: str) -> list[tuple[str, list[str]]]:
    """(partition key, the item labels' titles' first lines) for each row drawn."""
    root = ET.fromstring(svg)
    out = []
    for group in root.iter(f"{SVG}g"):
        if group.get("class") == "partition":
            key = group.find(f"{SVG}title").text
            items = [
                g.find(f"{SVG}title").text.split("\n")
                for g in group.iter(f"{SVG}g")
                if g.get("class") == "item"
            ]
            out.append((key, items))
    return out


def test_the_table_picture_has_a_row_per_partition_and_items_in_sort_key_order(seed_docs) -> None:
    rows = dict(rows_of(seed_docs["blog_api"].pictures["table.svg"]))
    tech = [lines[2] for lines in rows["CATEGORY#tech"]]
    assert tech == [
        "SK = CATEGORY#tech",
        "SK = CHILD#cloud#003",
        "SK = CHILD#python#001",
        "SK = CHILD#rust#002",
    ]
    assert [lines[0] for lines in rows["CATEGORY#tech"]] == ["Category"] + ["CategoryChild"] * 3
    assert list(rows) == sorted(rows, key=lambda k: k.encode())
    assert len(rows) == 16  # the sample data's 16 partitions


def test_an_index_picture_holds_only_the_items_the_sparse_index_holds(seed_docs) -> None:
    rows = dict(rows_of(seed_docs["blog_api"].pictures["index-GSI1.svg"]))
    python_posts = rows["CATEGORY#python"]
    assert [lines[0] for lines in python_posts] == ["Post"] * 4
    sort_keys = [lines[-1] for lines in python_posts]
    assert sort_keys == sorted(sort_keys) and all(s.startswith("GSI1SK = POST#2026-") for s in sort_keys)
    # The draft (no publishedAt) is in no GSI partition.
    assert not any("p-rust-draft" in "".join(lines) for _k, cells in rows.items() for lines in cells)


def test_a_numeric_index_key_orders_partitions_by_number(seed_docs) -> None:
    """fus-main's byStars partition key is a number: 10 after 9, as DynamoDB keeps them."""
    keys = [key for key, _ in rows_of(seed_docs["fus_main"].pictures["index-byStars.svg"])]
    assert keys and [float(k) for k in keys] == sorted(float(k) for k in keys)


def test_a_keys_only_index_entry_is_coloured_by_the_table_item_it_copies(seed_docs) -> None:
    rows = rows_of(seed_docs["hustlehub"].pictures["index-GSI1-UserEmailIndex.svg"])
    assert rows and all(lines[0] == "User" for _key, cells in rows for lines in cells)


def test_guard_items_are_named_by_the_value_they_guard(seed_docs) -> None:
    svg = seed_docs["wavyblog"].pictures["table.svg"]
    labels = {lines[0] for _key, cells in rows_of(svg) for lines in cells}
    assert {"User email guard", "Post slug guard"} <= labels
    legend = [t.text for t in ET.fromstring(svg).iter(f"{SVG}text")][-len(labels) :]
    assert set(legend) == labels


# -- a design written from scratch: generated items ------------------------------------------------------


def test_a_design_without_sample_data_is_drawn_from_generated_items(tracker_docs) -> None:
    markdown = tracker_docs.markdown
    assert "requests and pictures come from items generated from the fields' types" in markdown
    assert list(tracker_docs.pictures) == ["table.svg", "index-GSI1.svg", "index-GSI2.svg", "index-LSI1.svg"]
    table = dict(rows_of(tracker_docs.pictures["table.svg"]))
    assert [lines[0] for lines in table["ORG#org_id-0"]] == ["Org", "Project", "Project", "User", "User"]
    assert [lines[0] for lines in table["EMAIL#email-0@example.com"]] == ["User email guard"]
    # Generated issues alternate open and closed: only the open ones are in the sparse GSI1.
    open_issues = [
        lines for _key, cells in rows_of(tracker_docs.pictures["index-GSI1.svg"]) for lines in cells
    ]
    assert len(open_issues) == 2 and all(lines[0] == "Issue" for lines in open_issues)
    lsi = dict(rows_of(tracker_docs.pictures["index-LSI1.svg"]))
    assert [lines[-1] for lines in lsi["PROJECT#project_id-0"]] == [
        "LSI1SK = PRIORITY#1#000001",
        "LSI1SK = PRIORITY#3#000003",
    ]
    assert "Expires by TTL on `expires_at`." in markdown
    assert "Unique `email`, held by a guard item at `EMAIL#{email}`." in markdown
    assert "| `LSI1` | LSI | `PK (S)` | `LSI1SK (S)` | ALL |" in markdown


def test_a_large_table_is_cut_and_counted(tracker_docs) -> None:
    from singletable.design._collections import Cell, Partition
    from singletable.design._svg import MAX_CELLS, MAX_PARTITIONS, render

    rows = [Partition(f"P#{n:03d}", [Cell(f"S#{i}", "Org", {}) for i in range(9)]) for n in range(45)]
    svg = render("t", "s", rows, {"Org": "#E69F00"})
    drawn = rows_of(svg)
    assert len(drawn) == MAX_PARTITIONS and all(len(cells) == MAX_CELLS for _k, cells in drawn)
    texts = [t.text for t in ET.fromstring(svg).iter(f"{SVG}text")]
    assert "+5 more partitions" in texts and texts.count(f"+{9 - MAX_CELLS}") == MAX_PARTITIONS


# -- escaping ------------------------------------------------------------------------------------------------

HOSTILE_TEXT = "<script>window.pwned=1</script>"


def test_svg_escapes_every_value(hostile_docs) -> None:
    for name, svg in hostile_docs.pictures.items():
        root = ET.fromstring(svg)  # well-formed: nothing broke out of its text or attribute
        assert not [e for e in root.iter() if e.tag in ("script", f"{SVG}script")], name
        assert "<script" not in svg and "&lt;script&gt;window.pwned=1&lt;/script&gt;" in svg
        titles = [t.text for t in root.iter(f"{SVG}title")]
        assert any(HOSTILE_TEXT in t and "\"quoted\" 'single' & <b>bold</b>" in t for t in titles)


def test_html_escapes_every_value(hostile_docs) -> None:
    page = hostile_docs.html
    body = page.split("<body>", 1)[1]
    assert re.findall(r"<(script|img|iframe|object)\b", page, re.I) == []
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in body
    assert "&lt;img src=x onerror=&quot;window.pwned=2&quot;&gt;" in body
    # In the request's JSON (in a code block) and in the pictures' tooltips (SVG text keeps quotes).
    assert "\\&quot;quoted\\&quot; &#x27;single&#x27; &amp; &lt;b&gt;bold&lt;/b&gt;" in body
    assert "\"quoted\" 'single' &amp; &lt;b&gt;bold&lt;/b&gt;" in body


def test_markdown_escapes_text_and_fences_code(hostile_docs) -> None:
    markdown = hostile_docs.markdown
    assert 'A note whose docstring says \\<script\\>alert("doc")\\</script\\> &amp; more.' in markdown
    assert "### 1. Note (NOTE\\<script\\>)" in markdown
    assert 'Notes of an owner \\<img src=x onerror="window.pwned=2"\\>' in markdown
    # Keys with backticks sit in a code span delimited by a longer run of backticks.
    assert '``Query  key: PK = "OWNER#<script>' in markdown
    assert md_text("a|b * _x_ [l](u) `c` #") == "a\\|b \\* \\_x\\_ \\[l\\](u) \\`c\\` #"
    assert md_text("#h") == "\\#h" and md_text("snake_case") == "snake_case"
    assert md_code("a``b") == "```a``b```" and md_code("`x") == "`` `x ``"


def test_the_html_page_runs_nothing_and_loads_nothing_in_a_browser(browser, hostile_docs, tmp_path) -> None:
    write_docs(hostile_docs, tmp_path)
    page = browser.new_page()
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((tmp_path / "index.html").as_uri())
    assert page.evaluate("window.pwned") is None
    assert requests == [(tmp_path / "index.html").as_uri()]  # no external asset, not even a picture file
    assert errors == []
    assert page.locator("figure svg").count() == len(hostile_docs.pictures)
    assert page.locator("script, img, iframe").count() == 0
    assert HOSTILE_TEXT in page.locator("body").inner_text()
    page.close()


def test_a_seed_page_shows_every_picture_in_a_browser(browser, seed_docs, tmp_path) -> None:
    write_docs(seed_docs["fus_main"], tmp_path)
    page = browser.new_page()
    page.goto((tmp_path / "index.html").as_uri())
    assert page.title() == "fus-main: single-table design"
    boxes = [page.locator("figure svg").nth(i).bounding_box() for i in range(6)]
    assert all(box and box["width"] > 600 and box["height"] > 100 for box in boxes)
    page.close()


# -- the command line -------------------------------------------------------------------------------------


def test_the_command_writes_every_file(tmp_path) -> None:
    result = CliRunner().invoke(main, ["docs", TRACKER, "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    names = ["README.md", "index.html", "table.svg", "index-GSI1.svg", "index-GSI2.svg", "index-LSI1.svg"]
    assert result.output.splitlines() == [str(tmp_path / "out" / n) for n in names]
    assert (tmp_path / "out" / "README.md").read_text().startswith("# tracker: single-table design\n")


def test_the_command_runs_as_a_real_process(tmp_path) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "singletable",
            "docs",
            "singletable.examples.places.design",
            "-o",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    committed = ROOT / "docs" / "designs" / "places"
    for name in ("README.md", "index.html", "table.svg", "index-GSI.svg"):
        assert (tmp_path / name).read_text() == (committed / name).read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["docs", "no_such_module.design"], "Error: cannot import design module no_such_module.design: "
         "ModuleNotFoundError: No module named 'no_such_module'\n"),
        (["docs", "missing.py"],
         "Error: cannot import design module missing.py: ImportError: no such file: missing.py\n"),
        (["docs", "singletable.examples.blog_api.design:nope"],
         "Error: design module singletable.examples.blog_api.design has no Table named nope\n"),
    ],
)  # fmt: skip
def test_a_design_that_cannot_be_loaded_fails_in_one_line(args, message) -> None:
    result = CliRunner().invoke(main, args)
    assert (result.exit_code, result.output) == (1, message)


def test_an_output_path_that_is_a_file_fails_in_one_line(tmp_path) -> None:
    (tmp_path / "taken").write_text("x")
    result = CliRunner().invoke(main, ["docs", TRACKER, "-o", str(tmp_path / "taken" / "out")])
    assert result.exit_code == 1
    assert result.output.startswith("Error: [Errno 20] Not a directory:")


def test_a_field_no_value_can_be_generated_for_names_entity_and_field(tmp_path) -> None:
    design = tmp_path / "ungenerable.py"
    design.write_text(
        "from pydantic import Field\n"
        "from singletable.model import Entity, Keys, Table\n"
        "t = Table(name='ungenerable')\n"
        "class Code(Entity, table=t, type='CODE'):\n"
        "    code: str = Field(pattern=r'^[A-Z]{3}$')\n"
        "    keys = Keys(PK='CODE#{code}', SK='CODE')\n"
    )
    with pytest.raises(SampleError) as raised:
        design_docs(load_design(str(design)))
    assert str(raised.value) == (
        "Code.code: cannot generate a value (String should match pattern '^[A-Z]{3}$'); "
        "give the design sample data or a default"
    )
    result = CliRunner().invoke(main, ["docs", str(design), "-o", str(tmp_path / "out")])
    assert (result.exit_code, result.output) == (1, f"Error: {raised.value}\n")
    assert not (tmp_path / "out").exists()  # nothing written


def test_a_design_file_with_postponed_annotations_loads(tmp_path) -> None:
    """load_design registers a .py design in sys.modules, where pydantic resolves ``from __future__ import
    annotations`` (an enum declared in the file) and where ``load_sample`` is found."""
    design = tmp_path / "postponed_design.py"
    design.write_text(
        "from __future__ import annotations\n"
        "from enum import StrEnum\n"
        "from singletable.model import Entity, Keys, Table\n"
        "t = Table(name='postponed')\n"
        "class Colour(StrEnum):\n"
        "    RED = 'red'\n"
        "class Paint(Entity, table=t, type='PAINT'):\n"
        "    paint_id: str\n"
        "    colour: Colour\n"
        "    keys = Keys(PK='PAINT#{paint_id}', SK='{colour}')\n"
        "def load_sample(db):\n"
        "    db.put(Paint(paint_id='only', colour=Colour.RED))\n"
    )
    docs = design_docs(load_design(str(design)))
    assert [key for key, _ in rows_of(docs.pictures["table.svg"])] == ["PAINT#only"]
    assert "come from the design's sample data" in docs.markdown


def test_a_scan_pattern_is_documented_as_the_scan_it_sends(tracker_docs) -> None:
    operation, params = request_after(tracker_docs.markdown, "1. Org.every_org")
    assert (operation, params) == (
        "Scan",
        {
            "TableName": "tracker",
            "FilterExpression": "(entityType = :v0)",
            "ExpressionAttributeValues": {":v0": {"S": "ORG"}},
        },
    )
    section = tracker_docs.markdown.split("### 1. Org.every_org\n", 1)[1].split("\n### ", 1)[0]
    # 4 generated items of each of 6 entities (orgs share 2 keys: 2 items) and the users' 4 email guards: 26.
    assert section.endswith(
        "On these items it returns 2 items of the 26 it reads (0.5 read units, one page).\n"
    )


# -- every text survives escaping (hypothesis) ---------------------------------------------------------------

TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=40)


@given(key=TEXT, entity=TEXT)
@settings(max_examples=examples(150), deadline=None)
def test_any_text_in_a_picture_is_read_back_as_the_same_text(key, entity) -> None:
    from singletable.design._collections import Cell, Partition
    from singletable.design._svg import render

    svg = render(key, entity, [Partition(key, [Cell(key, entity, {"PK": key})])], {entity: "#E69F00"})
    root = ET.fromstring(svg)
    titles = [t.text or "" for t in root.iter(f"{SVG}title")]
    assert titles[0] == f"{key}: {entity}" and titles[1] == key
    assert titles[2] == f"{entity}\nPK = {key}"


@given(text=TEXT)
@settings(max_examples=examples(150), deadline=None)
def test_any_text_in_the_page_is_read_back_as_the_same_text(text) -> None:
    from html.parser import HTMLParser

    from singletable.design import _document as doc

    page = doc.page(
        text, [doc.Heading(2, text, text), doc.Paragraph([("code", text)]), doc.Table([text], [[text]])]
    )

    class Reader(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.texts: dict[str, str] = {}
            self.tags: list[str] = []
            self.at: list[str] = []
            self.anchor = ""

        def handle_starttag(self, tag, attrs) -> None:
            self.tags.append(tag)
            self.at.append(tag)
            self.anchor = dict(attrs).get("id", self.anchor) if tag == "h2" else self.anchor

        def handle_endtag(self, tag) -> None:
            self.at.pop()

        def handle_data(self, data) -> None:
            if self.at:
                self.texts[self.at[-1]] = self.texts.get(self.at[-1], "") + data

    reader = Reader()
    reader.feed(page)
    assert reader.tags == [
        "html", "head", "meta", "meta", "meta", "title", "style", "body", "h2", "p", "code",
        "table", "thead", "tr", "th", "tbody", "tr", "td",
    ]  # fmt: skip
    assert reader.texts.get("title", "") == text and reader.texts.get("h2", "") == text
    assert reader.texts.get("code", "") == text and reader.texts.get("td", "") == text
    assert reader.anchor == text


@given(key=st.text(max_size=40))
@settings(max_examples=examples(150), deadline=None)
def test_a_key_with_characters_xml_cannot_hold_still_gives_a_valid_picture(key) -> None:
    """DynamoDB strings may hold control characters and XML 1.0 may not: they are drawn as U+FFFD."""
    from singletable.design._collections import Cell, Partition
    from singletable.design._svg import render, xml_safe

    svg = render("t", "s", [Partition(key, [Cell(key, "E", {"PK": key})])], {"E": "#E69F00"})
    titles = [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}title")]
    # A parser reads a line end (CR LF, or CR alone) as a newline.
    assert titles[1] == xml_safe(key).replace("\r\n", "\n").replace("\r", "\n")
    assert xml_safe("a\x00b\x1fc\td") == "a\ufffdb\ufffdc\td"


def test_a_design_can_list_its_sample_items_in_dynamodb_json(tmp_path) -> None:
    """``SAMPLE_ITEMS`` (the Workbench import's convention): each item is put as it is and drawn."""
    design = tmp_path / "listed_design.py"
    design.write_text(
        "from singletable.model import Entity, Keys, Table\n"
        "t = Table(name='listed')\n"
        "class Tag(Entity, table=t, type='TAG'):\n"
        "    name: str\n"
        "    keys = Keys(PK='TAG#{name}', SK='TAG')\n"
        "SAMPLE_ITEMS = [\n"
        "    {'PK': {'S': 'TAG#b'}, 'SK': {'S': 'TAG'}, 'entityType': {'S': 'TAG'}, 'name': {'S': 'b'}},\n"
        "    {'PK': {'S': 'TAG#a'}, 'SK': {'S': 'TAG'}, 'entityType': {'S': 'TAG'}, 'name': {'S': 'a'}},\n"
        "]\n"
        "BAD = [{'PK': {'S': 'TAG#x'}}]\n"
    )
    docs = design_docs(load_design(str(design)))
    assert [key for key, _ in rows_of(docs.pictures["table.svg"])] == ["TAG#a", "TAG#b"]
    assert "come from the design's sample data" in docs.markdown
    design.write_text(
        design.read_text().replace("SAMPLE_ITEMS = [", "OLD = [").replace("BAD", "SAMPLE_ITEMS")
    )
    with pytest.raises(SampleError) as raised:
        design_docs(load_design(str(design)))
    assert str(raised.value).startswith("SAMPLE_ITEMS: the item {'PK': {'S': 'TAG#x'}} was refused: ")


def test_sample_data_that_fails_to_load_fails_in_one_line(tmp_path) -> None:
    design = tmp_path / "failing_sample_design.py"
    design.write_text(
        "from singletable.model import Entity, Keys, Table\n"
        "t = Table(name='failing')\n"
        "class Tag(Entity, table=t, type='TAG'):\n"
        "    name: str\n"
        "    keys = Keys(PK='TAG#{name}', SK='TAG')\n"
        "def load_sample(db):\n"
        "    raise RuntimeError('the fixtures server is down')\n"
    )
    result = CliRunner().invoke(main, ["docs", str(design), "-o", str(tmp_path / "out")])
    assert (result.exit_code, result.output) == (
        1,
        "Error: the design's sample data could not be loaded: RuntimeError: the fixtures server is down\n",
    )
    assert not (tmp_path / "out").exists()
