"""Designs written by single-table libraries and a book, for ``singletable infer`` (see infer_corpus.py):
ElectroDB, dynamodb-onetable, PynamoDB and the GitHub example of "The DynamoDB Book"."""

from __future__ import annotations

import random
from datetime import timedelta

from infer_corpus import (
    FIRST,
    LAST,
    WORDS,
    Corpus,
    Item,
    iso,
    ksuid,
    moment,
    number,
    person,
    table_spec,
    text,
    ulid,
    uuid4,
)


def electrodb() -> Corpus:
    """ElectroDB's "taskapp" service: employees, tasks and offices, two collections over gsi1 and gsi2.

    ElectroDB writes ``$<service>#<attr>_<value>`` partition keys and ``$<entity>_<version>`` (or
    ``$<collection>#<entity>_<version>``) sort keys, lower-cases every key value while the attributes keep
    their case, and marks each item with ``__edb_e__`` (entity) and ``__edb_v__`` (version)."""
    rng = random.Random(101)
    items: list[Item] = []
    offices = []
    for n in range(20):
        office = f"{rng.choice(WORDS).title()} {rng.choice(['Branch', 'Hub', 'Office'])} {n}"
        country, state = rng.choice([("USA", "WA"), ("USA", "NY"), ("Canada", "BC")])
        city, zip_code = rng.choice(WORDS).title() + " City", f"{rng.randrange(10000, 99999)}"
        offices.append(office)
        items.append(
            {
                "pk": text(f"$taskapp#country_{country.lower()}#state_{state.lower()}"),
                "sk": text(
                    f"$workplaces#offices_1#city_{city.lower()}#zip_{zip_code}#office_{office.lower()}"
                ),
                "gsi1pk": text(f"$taskapp#office_{office.lower()}"),
                "gsi1sk": text("$workplaces#offices_1"),
                "office": text(office),
                "country": text(country),
                "state": text(state),
                "city": text(city),
                "zip": text(zip_code),
                "address": text(f"{rng.randrange(1, 999)} {rng.choice(WORDS).title()} St"),
                "__edb_e__": text("offices"),
                "__edb_v__": text("1"),
            }
        )
    employees = []
    for _ in range(300):
        employee, (first, last) = uuid4(rng), person(rng)
        office, team = rng.choice(offices), rng.choice(["Marketing", "Development", "Sales"])
        title = rng.choice(["Software Engineer I", "Software Engineer II", "Manager", "Designer"])
        employees.append(employee)
        item = {
            "pk": text(f"$taskapp#employee_{employee}"),
            "sk": text("$employees_1"),
            "gsi1pk": text(f"$taskapp#office_{office.lower()}"),
            "gsi1sk": text(
                f"$workplaces#employees_1#team_{team.lower()}#title_{title.lower()}#employee_{employee}"
            ),
            "gsi2pk": text(f"$taskapp#employee_{employee}"),
            "gsi2sk": text("$assignments#employees_1"),
            "employee": text(employee),
            "firstName": text(first),
            "lastName": text(last),
            "office": text(office),
            "team": text(team),
            "title": text(title),
            "salary": number(rng.randrange(60, 200) * 1000),
            "dateHired": text(moment(rng).date().isoformat()),
            "__edb_e__": text("employees"),
            "__edb_v__": text("1"),
        }
        if len(employees) > 1 and rng.random() < 0.8:
            item["manager"] = text(rng.choice(employees[:-1]))
        items.append(item)
    for _ in range(1200):
        task, employee = uuid4(rng), rng.choice(employees)
        project, status = (
            f"{rng.choice(WORDS)}-{rng.randrange(1, 9)}",
            rng.choice(["open", "in-progress", "done"]),
        )
        items.append(
            {
                "pk": text(f"$taskapp#task_{task}"),
                "sk": text(f"$tasks_1#project_{project}#employee_{employee}"),
                "gsi1pk": text(f"$taskapp#project_{project}"),
                "gsi1sk": text(f"$tasks_1#employee_{employee}#status_{status}"),
                "gsi2pk": text(f"$taskapp#employee_{employee}"),
                "gsi2sk": text(f"$assignments#tasks_1#project_{project}#status_{status}"),
                "task": text(task),
                "project": text(project),
                "employee": text(employee),
                "status": text(status),
                "points": number(rng.choice([1, 2, 3, 5, 8])),
                "description": text(f"{rng.choice(WORDS)} work"),
                "__edb_e__": text("tasks"),
                "__edb_v__": text("1"),
            }
        )
    table = table_spec(
        "electro",
        [("pk", "HASH"), ("sk", "RANGE")],
        {a: "S" for a in ("pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk")},
        {"gsi1pk-gsi1sk-index": ["gsi1pk", "gsi1sk"], "gsi2pk-gsi2sk-index": ["gsi2pk", "gsi2sk"]},
    )
    expected = {
        "offices": {
            "pk": "$taskapp#country_{|lower}#state_{|lower}",
            "sk": "$workplaces#offices_1#city_{|lower}#zip_{}#office_{|lower}",
            "gsi1pk": "$taskapp#office_{|lower}",
            "gsi1sk": "$workplaces#offices_1",
        },
        "employees": {
            "pk": "$taskapp#employee_{}",
            "sk": "$employees_1",
            "gsi1pk": "$taskapp#office_{|lower}",
            "gsi1sk": "$workplaces#employees_1#team_{|lower}#title_{|lower}#employee_{}",
            "gsi2pk": "$taskapp#employee_{}",
            "gsi2sk": "$assignments#employees_1",
        },
        "tasks": {
            "pk": "$taskapp#task_{}",
            "sk": "$tasks_1#project_{}#employee_{}",
            "gsi1pk": "$taskapp#project_{}",
            "gsi1sk": "$tasks_1#employee_{}#status_{}",
            "gsi2pk": "$taskapp#employee_{}",
            "gsi2sk": "$assignments#tasks_1#project_{}#status_{}",
        },
    }
    return Corpus("electrodb", table, items, expected, "__edb_e__")


# -- (b) dynamodb-onetable -----------------------------------------------------------------------------


def onetable() -> Corpus:
    """A OneTable SaaS schema: accounts, their users and invoices; ``_type``, ULID ids, ISO timestamps with
    milliseconds (``created``/``updated``), ``gs1`` projecting keys only."""
    rng = random.Random(202)
    items: list[Item] = []
    for _ in range(100):
        created = moment(rng)
        account, name = (
            ulid(rng, created),
            f"{rng.choice(WORDS).title()} {rng.choice(['Inc', 'Ltd', 'Co'])}",
        )
        stamps = {
            "created": text(iso(created, True)),
            "updated": text(iso(created + timedelta(days=3), True)),
        }
        items.append(
            {
                "pk": text(f"account#{account}"),
                "sk": text("account#"),
                "gs1pk": text("account#"),
                "gs1sk": text(f"account#{name}"),
                "_type": text("Account"),
                "id": text(account),
                "name": text(name),
                "status": text(rng.choice(["active", "trial", "closed"])),
                "balance": number(rng.randrange(0, 5000)),
                **stamps,
            }
        )
        for _ in range(rng.randrange(2, 11)):
            first, last = person(rng)
            email = f"{first.lower()}.{last.lower()}{rng.randrange(1000)}@{name.split()[0].lower()}.com"
            items.append(
                {
                    "pk": text(f"account#{account}"),
                    "sk": text(f"user#{email}"),
                    "gs1pk": text(f"user#{email}"),
                    "gs1sk": text("user#"),
                    "_type": text("User"),
                    "id": text(ulid(rng, moment(rng))),
                    "accountId": text(account),
                    "email": text(email),
                    "name": text(f"{first} {last}"),
                    "role": text(rng.choice(["owner", "admin", "user"])),
                    **stamps,
                }
            )
        for _ in range(rng.randrange(5, 26)):
            at = moment(rng)
            invoice = ulid(rng, at)
            items.append(
                {
                    "pk": text(f"account#{account}"),
                    "sk": text(f"invoice#{invoice}"),
                    "gs1pk": text("invoice#"),
                    "gs1sk": text(f"invoice#{iso(at)}#{invoice}"),
                    "_type": text("Invoice"),
                    "id": text(invoice),
                    "accountId": text(account),
                    "date": text(iso(at)),
                    "amount": number(f"{rng.randrange(100, 99999) / 100}"),
                    **stamps,
                }
            )
    attributes = {a: "S" for a in ("pk", "sk", "gs1pk", "gs1sk")}
    table = table_spec("onetable", [("pk", "HASH"), ("sk", "RANGE")], attributes, {"gs1": ["gs1pk", "gs1sk"]})
    table["GlobalSecondaryIndexes"][0]["Projection"] = {"ProjectionType": "KEYS_ONLY"}
    expected = {
        "Account": {"pk": "account#{}", "sk": "account#", "gs1pk": "account#", "gs1sk": "account#{}"},
        "User": {"pk": "account#{}", "sk": "user#{}", "gs1pk": "user#{}", "gs1sk": "user#"},
        "Invoice": {"pk": "account#{}", "sk": "invoice#{}", "gs1pk": "invoice#", "gs1sk": "invoice#{}#{}"},
    }
    return Corpus("onetable", table, items, expected, "_type")


# -- (c) The DynamoDB Book: GitHub ---------------------------------------------------------------------


def github() -> Corpus:
    """The GitHub design of "The DynamoDB Book": users and organizations sharing ``ACCOUNT#<login>``
    (told apart by ``Type``), repos keyed by owner and name, zero-padded issue numbers, KSUID comment ids,
    stars read by user through an index that inverts PK and SK."""
    rng = random.Random(303)
    items: list[Item] = []
    logins = [f"{rng.choice(FIRST)}{rng.choice(LAST)}{n}" for n in range(150)]
    for n, login in enumerate(logins):
        at = iso(moment(rng))
        keys = {
            "PK": text(f"ACCOUNT#{login}"),
            "SK": text(f"ACCOUNT#{login}"),
            "GSI3PK": text(f"ACCOUNT#{login}"),
            "GSI3SK": text(f"ACCOUNT#{login}"),
        }
        if n % 3:
            user = {"Username": text(login), "Name": text(" ".join(person(rng))), "CreatedAt": text(at)}
            if rng.random() < 0.6:
                user["Email"] = text(f"{login}@mail.example")
            items.append({**keys, "Type": text("User"), **user})
        else:
            items.append(
                {
                    **keys,
                    "Type": text("Organization"),
                    "OrganizationName": text(login),
                    "CreatedAt": text(at),
                    "PaymentPlan": text(rng.choice(["free", "team", "enterprise"])),
                }
            )
    repos = []
    for _ in range(300):
        owner, repo = rng.choice(logins), f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{rng.randrange(99)}"
        if (owner, repo) in repos:
            continue
        repos.append((owner, repo))
        updated = iso(moment(rng))
        key = f"REPO#{owner}#{repo}"
        items.append(
            {
                "PK": text(key),
                "SK": text(key),
                "GSI1PK": text(key),
                "GSI1SK": text(key),
                "GSI3PK": text(f"ACCOUNT#{owner}"),
                "GSI3SK": text(f"#{updated}"),
                "Type": text("Repo"),
                "OwnerName": text(owner),
                "RepoName": text(repo),
                "UpdatedAt": text(updated),
                "StarCount": number(0),
                "IssueCount": number(0),
            }
        )
    for owner, repo in repos:
        for issue in range(1, rng.randrange(1, 9)):
            created = iso(moment(rng))
            items.append(
                {
                    "PK": text(f"REPO#{owner}#{repo}"),
                    "SK": text(f"ISSUE#{issue:07d}"),
                    "Type": text("Issue"),
                    "OwnerName": text(owner),
                    "RepoName": text(repo),
                    "IssueNumber": number(issue),
                    "CreatedAt": text(created),
                    "Status": text(rng.choice(["Open", "Closed"])),
                    "Title": text(f"{rng.choice(WORDS)} is broken"),
                }
            )
            for _ in range(rng.randrange(0, 3)):
                comment = ksuid(rng)
                items.append(
                    {
                        "PK": text(f"ISSUECOMMENT#{owner}#{repo}#{issue}"),
                        "SK": text(f"ISSUECOMMENT#{comment}"),
                        "Type": text("IssueComment"),
                        "OwnerName": text(owner),
                        "RepoName": text(repo),
                        "IssueNumber": number(issue),
                        "CommentId": text(comment),
                        "CommentBody": text("+1"),
                        "CommentedBy": text(rng.choice(logins)),
                        "CreatedAt": text(iso(moment(rng))),
                    }
                )
        for starrer in rng.sample(logins, rng.randrange(0, 5)):
            items.append(
                {
                    "PK": text(f"REPO#{owner}#{repo}"),
                    "SK": text(f"STAR#{starrer}"),
                    "Type": text("Star"),
                    "OwnerName": text(owner),
                    "RepoName": text(repo),
                    "StarringUser": text(starrer),
                    "StarredAt": text(iso(moment(rng))),
                }
            )
    names = ("PK", "SK", "GSI1PK", "GSI1SK", "GSI3PK", "GSI3SK")
    gsis = {"GSI1": ["GSI1PK", "GSI1SK"], "GSI3": ["GSI3PK", "GSI3SK"], "InvertedIndex": ["SK", "PK"]}
    table = table_spec("GitHubTable", [("PK", "HASH"), ("SK", "RANGE")], {a: "S" for a in names}, gsis)
    account = {"PK": "ACCOUNT#{}", "SK": "ACCOUNT#{}", "GSI3PK": "ACCOUNT#{}", "GSI3SK": "ACCOUNT#{}"}
    expected = {
        "User": account,
        "Organization": account,
        "Repo": {
            "PK": "REPO#{}#{}",
            "SK": "REPO#{}#{}",
            "GSI1PK": "REPO#{}#{}",
            "GSI1SK": "REPO#{}#{}",
            "GSI3PK": "ACCOUNT#{}",
            "GSI3SK": "#{}",
        },
        "Issue": {"PK": "REPO#{}#{}", "SK": "ISSUE#{:07d}"},
        "IssueComment": {"PK": "ISSUECOMMENT#{}#{}#{}", "SK": "ISSUECOMMENT#{}"},
        "Star": {"PK": "REPO#{}#{}", "SK": "STAR#{}"},
    }
    return Corpus("github", table, items, expected, "Type")


# -- (d) PynamoDB ---------------------------------------------------------------------------------------


def _event(account: str, seq: int, model: str, status: str, created: int, amount: int) -> Item:
    """What every PynamoDB model of the billing table stores: keys, discriminator, status, time, amount."""
    return {
        "account_id": text(account),
        "seq": number(seq),
        "cls": text(model),
        "status": text(status),
        "created_at": number(created),
        "amount": number(amount),
    }


def pynamodb() -> Corpus:
    """A PynamoDB multi-model table: ``cls`` (a ``DiscriminatorAttribute``) names the model; the hash key is
    a bare UUID, the range key a Number sequence; dates are ``UTCDateTimeAttribute`` text (``+0000``); a
    sparse GSI on the invoices' e-mail, an LSI on status."""
    rng = random.Random(404)
    items: list[Item] = []
    for _ in range(200):
        account, seq = uuid4(rng), 0
        email = f"{rng.choice(FIRST)}@{rng.choice(WORDS)}.example"
        for _ in range(rng.randrange(2, 7)):
            seq += 1
            at = moment(rng)
            invoice_seq = seq
            event = _event(account, seq, "Invoice", "issued", int(at.timestamp()), rng.randrange(100, 50000))
            line = {"sku": text(f"SKU-{rng.randrange(99)}"), "qty": number(rng.randrange(1, 4))}
            items.append(
                event
                | {
                    "customer_email": text(email),
                    "currency": text(rng.choice(["USD", "EUR"])),
                    "due_date": text((at + timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%S.%f+0000")),
                    "lines": {"L": [{"M": line}]},
                }
            )
            if rng.random() < 0.7:
                seq += 1
                status = rng.choice(["settled", "pending"])
                event = _event(
                    account, seq, "Payment", status, int(at.timestamp()) + 3600, rng.randrange(100, 50000)
                )
                items.append(
                    event
                    | {
                        "invoice_seq": number(invoice_seq),
                        "method": text(rng.choice(["card", "sepa", "ach"])),
                    }
                )
                if rng.random() < 0.1:
                    seq += 1
                    created, amount = int(at.timestamp()) + 7200, rng.randrange(100, 5000)
                    event = _event(account, seq, "Refund", "refunded", created, amount)
                    reason = rng.choice(["duplicate", "fraud"])
                    items.append(event | {"payment_seq": number(seq - 1), "reason": text(reason)})
    table = table_spec(
        "billing-events",
        [("account_id", "HASH"), ("seq", "RANGE")],
        {"account_id": "S", "seq": "N", "customer_email": "S", "created_at": "N", "status": "S"},
        {"by_email": ["customer_email", "created_at"]},
        LocalSecondaryIndexes=[
            {
                "IndexName": "by_status",
                "Projection": {"ProjectionType": "KEYS_ONLY"},
                "KeySchema": [
                    {"AttributeName": "account_id", "KeyType": "HASH"},
                    {"AttributeName": "status", "KeyType": "RANGE"},
                ],
            }
        ],
    )
    whole = {"account_id": "{}", "seq": "{}", "created_at": "{}", "status": "{}"}
    expected = {"Invoice": {**whole, "customer_email": "{}"}, "Payment": whole, "Refund": whole}
    return Corpus("pynamodb", table, items, expected, "cls")
