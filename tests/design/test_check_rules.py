"""``singletable.design.check`` on real designs: exactly the findings each must produce, and no others.

The five seed designs' findings are the mistakes their READMEs and docs/modeling-reference.md "Notes on the
seeds" record (static partitions, the SITE# and COMMENT# prefixes two types share, the few-valued byStars and
ROLE# keys, the place-word id set that can outgrow an item); the designs in ``check_designs/`` are written
here: a clean one (no findings), an issue tracker (its LSI's 10 GB collections) and one that makes every other
mistake a rule catches. Locations are checked against the lines of the design files themselves.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from singletable.design import RULES, CheckConfig, check, load_config
from singletable.model import Table

DESIGNS = Path(__file__).resolve().parent / "check_designs"
EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "singletable" / "examples"

SEED_FINDINGS = {
    "fus_main": {
        ("ST101", "Site.entityType"),
        ("ST101", "Group.entityType"),
        ("ST102", "Rating.starRating"),
        ("ST203", "Rating.mine"),
    },
    "hustlehub": {("ST101", "User.GSI3PK"), ("ST101", "Listing.GSI2PK")},
    "places": {
        ("ST101", "Category.SK"),
        ("ST101", "Collection.SK"),
        ("ST101", "Post.SK"),
        ("ST101", "Setting.SK"),
        ("ST101", "User.SK"),
        ("ST503", "PlaceWord.place_ids"),
    },
    "wavyblog": {
        ("ST101", "User.EntityType"),
        ("ST101", "Post.EntityType"),
        ("ST101", "Category.EntityType"),
    },
    "blog_api": {("ST101", "Category.GSI1PK"), ("ST102", "User.GSI2PK"), ("ST203", "Comment.of_post")},
}

MISTAKES = {
    ("ST101", "Setting.GSI2PK"),
    ("ST103", "Setting.PK"),
    ("ST201", "Chapter.SK"),
    ("ST202", "Chapter.SK"),
    ("ST203", "Issue.of_project"),
    ("ST204", "Chapter.latest_by_owner"),
    ("ST301", "Chapter.everything"),
    ("ST302", "Chapter.long_ones"),
    ("ST401", "Chapter.titles"),
    ("ST402", "index wide"),
    ("ST403", "Reader.score"),
    ("ST502", "Chapter"),
    ("ST503", "Reader.follower_ids"),
    ("ST601", "Reader.expires_at"),
    ("ST601", "Reader.purge_at"),
}


def found(report) -> set[tuple[str, str]]:
    return {(f.rule, f.subject) for f in report.findings}


def line_of(path: Path, text: str) -> int:
    """The 1-based line of ``path`` holding ``text`` (exactly one must)."""
    lines = [n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line]
    assert len(lines) == 1, (text, lines)
    return lines[0]


@pytest.mark.parametrize("seed", sorted(SEED_FINDINGS))
def test_each_seed_gets_exactly_its_findings(seed: str) -> None:
    report = check(f"singletable.examples.{seed}.design")
    assert found(report) == SEED_FINDINGS[seed]
    assert all(f.file == str(EXAMPLES / seed / "design.py") and f.line for f in report.findings)


def test_findings_point_at_the_line_to_change() -> None:
    hub = EXAMPLES / "hustlehub" / "design.py"
    report = check("singletable.examples.hustlehub.design")
    where = {f.subject: f.line for f in report.findings}
    assert where["Listing.GSI2PK"] == line_of(hub, 'GSI2PK=Key("LISTINGS#{listings_shard}"')
    assert where["User.GSI3PK"] == line_of(hub, 'GSI3PK=Key("ADMINS"')
    blog = EXAMPLES / "blog_api" / "design.py"
    comment = next(f for f in check("singletable.examples.blog_api.design").findings if f.rule == "ST203")
    assert comment.line == line_of(blog, "of_post = Pattern(sk=")
    assert "also reads Reply (SK = 'COMMENT#{parent_id}#{reply_id}')" in comment.message


def test_messages_name_the_values_and_the_limits() -> None:
    report = check("singletable.examples.fus_main.design")
    stars = next(f for f in report.findings if f.rule == "ST102")
    assert "takes at most 5 values" in stars.message and "byStars" in stars.message
    assert "1,000 write units and 3,000 read units per second per partition" in stars.why
    mine = next(f for f in report.findings if f.rule == "ST203")
    assert "prefix 'SITE#' also reads Comment" in mine.message
    listing = next(
        f for f in check("singletable.examples.hustlehub.design").findings if "Listing" in f.subject
    )
    assert "without listings_shard has GSI2PK = 'LISTINGS'" in listing.message


def test_a_clean_design_has_no_findings() -> None:
    report = check(str(DESIGNS / "shop.py"))
    assert report.findings == [] and report.counts() == {"error": 0, "warning": 0, "note": 0}


def test_the_tracker_written_from_scratch() -> None:
    report = check(str(DESIGNS / "tracker.py"))
    assert found(report) == {("ST501", "User.PK"), ("ST501", "Issue.PK"), ("ST501", "AuditEntry.PK")}
    issues = next(f for f in report.findings if f.subject == "Issue.PK")
    assert issues.message.startswith("Issue, Comment items gather under PK = 'PROJECT#{org_id}#{project_id}'")
    assert "byPriority" in issues.message and "10 GB" in issues.why


def test_every_other_mistake_is_caught_once() -> None:
    path = DESIGNS / "mistakes.py"
    report = check(str(path))
    assert found(report) == MISTAKES
    assert len(report.findings) == len(MISTAKES)
    lines = {(f.rule, f.subject): f.line for f in report.findings}
    assert lines[("ST201", "Chapter.SK")] == line_of(path, 'SK="CHAPTER#{number}#{day}"')
    assert lines[("ST403", "Reader.score")] == line_of(path, "score: int = 0")
    assert lines[("ST402", "index wide")] == line_of(path, 'Index("wide"')
    by_rule = {f.rule: f for f in report.findings}
    assert "lacks owner, text" in by_rule["ST401"].message
    assert "(N), a key attribute index byScore declares S" in by_rule["ST403"].message
    assert "1 ALL-projection index(es) copy it" in by_rule["ST502"].message
    assert by_rule["ST203"].message == (
        "begins_with(SK, …) on 'PROJECT#{project}' with SK prefix 'ISSUE#' also reads IssueComment "
        "(SK = 'ISSUE#{number:06d}#COMMENT#{comment_id}')"
    )
    assert [f.severity for f in report.findings][:7] == ["error"] * 7  # most severe first
    assert "Setting has the one primary key PK = 'settings', SK = 'settings', yet GSI2SK = '{name}'" in (
        by_rule["ST103"].message
    )


def test_a_design_that_does_not_declare_is_a_finding_at_its_line() -> None:
    path = DESIGNS / "hustle_as_designed.py"
    report = check(str(path))
    assert [f.rule for f in report.findings] == ["ST001"]
    failure = report.findings[0]
    assert failure.file == str(path) and failure.line == line_of(
        path, "projection=LISTING_INCLUDE_AS_DESIGNED"
    )
    assert "at most 20 attributes; this one has 21" in failure.message


def test_a_table_or_its_describe_data_checks_the_same() -> None:
    from singletable.examples.blog_api.design import blog

    by_module = check("singletable.examples.blog_api.design").to_dict()["findings"]
    assert check(blog).to_dict()["findings"] == by_module
    assert check(json.loads(blog.to_json())).to_dict()["findings"] == by_module


def test_describe_gives_the_source_of_each_part() -> None:
    from singletable.examples.hustlehub.design import hub

    path = EXAMPLES / "hustlehub" / "design.py"
    described = hub.describe()
    assert described["table"]["source"] == {"file": str(path), "line": line_of(path, "hub = Table(")}
    email = described["indexes"][0]
    assert email["source"]["line"] == line_of(path, "GSI(EMAIL_INDEX")
    user = next(e for e in described["entities"] if e["class"] == "User")
    assert user["source"]["line"] == line_of(path, "class User(Entity")
    keys = {k["attribute"]: k["source"]["line"] for k in user["keys"]}
    assert keys["GSI1PK"] == line_of(path, 'GSI1PK="USER_EMAIL#{email}"')
    fields = {f["name"]: f for f in user["fields"]}
    assert fields["role"]["limits"] == {"choices": ["member", "editor", "admin", "super_admin"]}
    patterns = {p["name"]: p for p in user["patterns"]}
    assert patterns["by_email"]["source"]["line"] == line_of(path, "by_email = Pattern(")
    assert patterns["by_email"]["hydrate"] is None and patterns["by_email"]["filter"] is False


def test_a_table_declared_in_a_string_has_no_source() -> None:
    namespace: dict[str, object] = {}
    exec("from singletable.model import Table\nt = Table(name='x')", namespace)
    table = namespace["t"]
    assert isinstance(table, Table) and table.describe()["table"]["source"] is None


def test_ignores_by_rule_and_by_entity() -> None:
    config = CheckConfig(ignore=frozenset({"ST102"}), per_entity={"Site": frozenset({"ST101"})})
    report = check("singletable.examples.fus_main.design", config=config)
    assert found(report) == {("ST101", "Group.entityType"), ("ST203", "Rating.mine")}
    assert report.ignored == 2


def test_pyproject_settings(tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        '[tool.singletable.check]\nignore = ["low-cardinality-partition-key"]\nfail-on = "error"\n'
        '[tool.singletable.check.per-entity]\nSite = ["ST101"]\n'
    )
    config = load_config(pyproject)
    assert config.ignore == {"ST102"} and config.per_entity == {"Site": {"ST101"}}
    assert config.fail_on == "error" and config.source == str(pyproject)
    with pytest.raises(ValueError, match=r"other\.toml: no such file"):
        load_config(tmp_path / "other.toml")
    (tmp_path / "empty.toml").write_text("[project]\nname = 'x'\n")
    assert load_config(tmp_path / "empty.toml").ignore == frozenset()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('ignore = ["ST999"]', "ignore: unknown rule 'ST999'; rules are ST001, ST002, ST003, ST101"),
        ("ignore = 'ST101'", "ignore must be a list of rule ids or names"),
        ('fail-on = "fatal"', "fail-on must be one of error, warning, note, not 'fatal'"),
        ('ignores = ["ST101"]', "unknown setting 'ignores'"),
        ("[tool.singletable.check.per-entity]\nUser = ['nope']", "per-entity.User: unknown rule 'nope'"),
        ("ignore = [", "not valid TOML"),
    ],
)
def test_bad_settings_are_refused_naming_the_file(tmp_path: Path, text: str, message: str) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[tool.singletable.check]\n" + text + "\n")
    with pytest.raises(ValueError) as error:
        load_config(pyproject)
    assert str(pyproject) in str(error.value) and message in str(error.value)


def test_every_rule_says_why_and_how_to_fix() -> None:
    assert list(RULES) == sorted(RULES)
    for rule in RULES.values():
        assert rule.severity in ("error", "warning", "note")
        assert rule.why and rule.fix and rule.title and rule.name == rule.name.lower()


def test_keys_glued_from_fields_are_noted_with_the_declaration_that_would_replace_them() -> None:
    path = DESIGNS / "glued_keys.py"
    report = check(str(path))
    assert found(report) == {("ST404", "Ticket.GSI1PK"), ("ST404", "Ticket.GSI2SK")}
    notes = {f.subject: f for f in report.findings}
    status = notes["Ticket.GSI1PK"]
    assert status.severity == "note" and status.line == line_of(
        path, 'GSI1PK="TENANT#{tenant}#STATUS#{status}"'
    )
    assert status.message == (
        "index byStatus keys Ticket on GSI1PK = 'TENANT#{tenant}#STATUS#{status}', which glues tenant, "
        "status "
        "into one string and GSI1SK = '{created_at}#{ticket_id}', which glues created_at, ticket_id into one "
        "string: GSI('byStatus', pk=['tenant', 'status'], sk=['created_at', 'ticket_id']) would key it on "
        "the "
        "fields themselves, each typed, with no delimiter to keep out, no padding and no read to rebuild a "
        "key "
        "when one of them changes"
    )
    assert (
        "GSI2SK = 'SCORE#{score:08d}', which zero-pads score into a string: GSI('byScore', pk=['tenant'], "
        "sk=['score'])" in notes["Ticket.GSI2SK"].message
    )
    assert "DynamoDB can key a global secondary index on up to four partition and four sort attributes" in (
        RULES["ST404"].why
    )
