"""Tables shaped by hand, for ``singletable infer`` (see infer_corpus.py): AWS's relational modeling and
gaming examples, the e-commerce example of "The DynamoDB Book", and a table that lived through two key
formats."""

from __future__ import annotations

import random

from infer_corpus import (
    FIRST,
    LAST,
    WORDS,
    Corpus,
    Item,
    gsi1_table,
    iso,
    ksuid,
    moment,
    number,
    person,
    table_spec,
    text,
    uuid4,
)

# -- (e) AWS's published examples -----------------------------------------------------------------------


def aws_relational() -> Corpus:
    """AWS's relational modeling example (HR and order entry in one table): ``HR-EMPLOYEE1``/``OE-ORDER1``
    partition keys, sort keys naming what the item is (``EMPLOYEE1``, ``v0`` for the current job title,
    ``HR-CONFIDENTIAL``, ``WAREHOUSE1``, ``2018-Q4`` quota, ``CUSTOMER1``, ``PRODUCT1``), one ``Data``
    attribute that gsi1 (``SK``, ``Data``) sorts every kind of item on, and a write-sharded gsi2
    (``GSI-Bucket``) over the open orders. No type attribute."""
    rng = random.Random(505)
    items: list[Item] = []
    for e in range(1, 101):
        name = " ".join(person(rng))
        hr = text(f"HR-EMPLOYEE{e}")
        hired = moment(rng).date()
        items.append(
            {
                "PK": hr,
                "SK": text(f"EMPLOYEE{e}"),
                "Data": text(name),
                "StartDate": text(hired.strftime("%m-%d-%Y")),
            }
        )
        items.append(
            {"PK": hr, "SK": text("v0"), "Data": text(rng.choice(["Account Manager", "Clerk", "Driver"]))}
        )
        items.append(
            {
                "PK": hr,
                "SK": text("HR-CONFIDENTIAL"),
                "Data": text(hired.isoformat()),
                "Employee": text(name),
                "Salary": number(rng.randrange(40, 120) * 1000),
            }
        )
        items.append(
            {
                "PK": hr,
                "SK": text(f"WAREHOUSE{rng.randrange(1, 6)}"),
                "Data": text(hired.isoformat()),
                "EmployeeName": text(name),
            }
        )
        for quarter in rng.sample(range(1, 5), 2):
            items.append(
                {
                    "PK": hr,
                    "SK": text(f"2018-Q{quarter}"),
                    "Data": text(str(rng.randrange(10, 200) * 100)),
                    "EmployeeName": text(name),
                }
            )
    for p in range(1, 31):
        items.append(
            {
                "PK": text(f"OE-PRODUCT{p}"),
                "SK": text(f"PRODUCT{p}"),
                "Data": text(f"{rng.choice(WORDS).title()} bag"),
                "Warehouse1": number(rng.randrange(100)),
                "Warehouse2": number(rng.randrange(100)),
            }
        )
    for c in range(1, 61):
        company, address = f"{rng.choice(WORDS).title()} Supplies", f"{rng.randrange(1, 999)} Main St"
        items.append(
            {
                "PK": text(f"OE-CUSTOMER{c}"),
                "SK": text(f"CUSTOMER{c}"),
                "Data": text(company),
                "Address": text(address),
            }
        )
        items.append(
            {
                "PK": text(f"OE-CUSTOMER{c}"),
                "SK": text(f"EMPLOYEE{rng.randrange(1, 101)}"),
                "Data": text(company),
                "Address": text(address),
            }
        )
    for o in range(1, 401):
        status = f"{rng.choice(['OPEN', 'PENDING', 'FULFILLED'])}#{moment(rng).date().isoformat()}"
        order = text(f"OE-ORDER{o}")
        items.append(
            {
                "PK": order,
                "SK": text(f"CUSTOMER{rng.randrange(1, 61)}"),
                "Data": text(status),
                "GSI-Bucket": text(f"Bucket-{rng.randrange(10)}"),
            }
        )
        for p in rng.sample(range(1, 31), rng.randrange(1, 4)):
            items.append(
                {
                    "PK": order,
                    "SK": text(f"PRODUCT{p}"),
                    "Data": text(status),
                    "GSI-Bucket": text(f"Bucket-{rng.randrange(10)}"),
                    "UnitPrice": text(f"${rng.randrange(100, 9999) / 100}"),
                }
            )
        items.append(
            {
                "PK": order,
                "SK": text(f"EMPLOYEE{rng.randrange(1, 101)}"),
                "Data": text(status),
                "OrderTotal": number(rng.randrange(100, 9000)),
            }
        )
    table = table_spec(
        "HR-Table",
        [("PK", "HASH"), ("SK", "RANGE")],
        {"PK": "S", "SK": "S", "Data": "S", "GSI-Bucket": "S"},
        {"gsi1": ["SK", "Data"], "gsi2": ["GSI-Bucket", "Data"]},
    )
    data = {"Data": "{}"}
    status = {"Data": "{}#{}"}  # OPEN#2019-01-18: the order's status and date
    bucket = {"Data": "{}#{}", "GSI-Bucket": "{}"}
    expected = {
        "Employee": {"PK": "HR-EMPLOYEE{}", "SK": "EMPLOYEE{}", **data},
        "JobTitle": {"PK": "HR-EMPLOYEE{}", "SK": "v0", **data},
        "Confidential": {"PK": "HR-EMPLOYEE{}", "SK": "HR-CONFIDENTIAL", **data},
        "WarehouseAssignment": {"PK": "HR-EMPLOYEE{}", "SK": "WAREHOUSE{}", **data},
        "Quota": {"PK": "HR-EMPLOYEE{}", "SK": "{}-Q{}", **data},
        "Product": {"PK": "OE-PRODUCT{}", "SK": "PRODUCT{}", **data},
        "Customer": {"PK": "OE-CUSTOMER{}", "SK": "CUSTOMER{}", **data},
        "AccountRep": {"PK": "OE-CUSTOMER{}", "SK": "EMPLOYEE{}", **data},
        "Order": {"PK": "OE-ORDER{}", "SK": "CUSTOMER{}", **bucket},
        "OrderItem": {"PK": "OE-ORDER{}", "SK": "PRODUCT{}", **bucket},
        "OrderRep": {"PK": "OE-ORDER{}", "SK": "EMPLOYEE{}", **status},
    }
    return Corpus("aws-relational", table, items, expected, None)


def aws_gaming() -> Corpus:
    """AWS's GameScores example with its sparse index: a score per user and game, ``Award`` only on the
    scores that won one, so ``AwardIndex`` holds those alone; ``GameTitleIndex`` ranks a game's scores."""
    rng = random.Random(606)
    items: list[Item] = []
    titles = ["Meteor Blasters", "Galaxy Invaders", "Alien Adventure", "Attack Ships", "Comet Quest"]
    for u in range(1, 301):
        for title in rng.sample(titles, rng.randrange(1, 5)):
            wins, losses = rng.randrange(50), rng.randrange(50)
            item = {
                "UserId": text(str(u)),
                "GameTitle": text(title),
                "TopScore": number(rng.randrange(100, 9999)),
                "TopScoreDateTime": text(moment(rng).strftime("%Y-%m-%d:%H:%M:%S")),
                "Wins": number(wins),
                "Losses": number(losses),
            }
            if rng.random() < 0.08:
                item["Award"] = text(rng.choice(["Champ", "Bronze Trophy", "Flying Ace"]))
            items.append(item)
    table = table_spec(
        "GameScores",
        [("UserId", "HASH"), ("GameTitle", "RANGE")],
        {"UserId": "S", "GameTitle": "S", "TopScore": "N", "Award": "S"},
        {"GameTitleIndex": ["GameTitle", "TopScore"], "AwardIndex": ["Award", "TopScore"]},
    )
    expected = {"GameScore": {"UserId": "{}", "GameTitle": "{}", "TopScore": "{}", "Award": "{}"}}
    return Corpus("aws-gaming", table, items, expected, None)


# -- The DynamoDB Book: e-commerce ----------------------------------------------------------------------


def ecommerce() -> Corpus:
    """The e-commerce design of "The DynamoDB Book": customers (an e-mail guard item each, holding the
    username), their orders under ``#ORDER#<ksuid>`` (the leading ``#`` sorts orders before the customer),
    order items under a two-label key ``ORDER#<id>#ITEM#<id>``, and GSI1 gathering an order with its items.
    No type attribute."""
    rng = random.Random(808)
    items: list[Item] = []
    for n in range(250):
        username = f"{rng.choice(FIRST)}{rng.choice(LAST)}{n}"
        email = f"{username}@mail.example"
        customer = text(f"CUSTOMER#{username}")
        address = {
            "M": {
                "Street": text(f"{rng.randrange(1, 999)} Main St"),
                "Zip": text(f"{rng.randrange(10**4, 10**5)}"),
            }
        }
        items.append(
            {
                "PK": customer,
                "SK": customer,
                "Username": text(username),
                "EmailAddress": text(email),
                "Name": text(" ".join(person(rng))),
                "Addresses": {"M": {"Home": address}},
            }
        )
        guard = text(f"CUSTOMEREMAIL#{email}")
        items.append({"PK": guard, "SK": guard, "Username": text(username)})
        for _ in range(rng.randrange(0, 6)):
            order, created = ksuid(rng), iso(moment(rng))
            count = rng.randrange(1, 4)
            items.append(
                {
                    "PK": customer,
                    "SK": text(f"#ORDER#{order}"),
                    "GSI1PK": text(f"ORDER#{order}"),
                    "GSI1SK": text(f"ORDER#{order}"),
                    "OrderId": text(order),
                    "CreatedAt": text(created),
                    "Status": text(rng.choice(["PLACED", "SHIPPED", "DELIVERED"])),
                    "Amount": number(rng.randrange(100, 99999) / 100),
                    "NumberItems": number(count),
                }
            )
            for _ in range(count):
                item = ksuid(rng)
                key = text(f"ORDER#{order}#ITEM#{item}")
                items.append(
                    {
                        "PK": key,
                        "SK": key,
                        "GSI1PK": text(f"ORDER#{order}"),
                        "GSI1SK": text(f"ITEM#{item}"),
                        "OrderId": text(order),
                        "ItemId": text(item),
                        "Price": number(rng.randrange(100, 9999) / 100),
                        "Description": text(f"{rng.choice(WORDS)} mug"),
                    }
                )
    table = gsi1_table("EcommerceTable")
    expected = {
        "Customer": {"PK": "CUSTOMER#{}", "SK": "CUSTOMER#{}"},
        "Order": {"PK": "CUSTOMER#{}", "SK": "#ORDER#{}", "GSI1PK": "ORDER#{}", "GSI1SK": "ORDER#{}"},
        "OrderItem": {
            "PK": "ORDER#{}#ITEM#{}",
            "SK": "ORDER#{}#ITEM#{}",
            "GSI1PK": "ORDER#{}",
            "GSI1SK": "ITEM#{}",
        },
    }
    return Corpus("ecommerce", table, items, expected, None, guards=("CUSTOMEREMAIL#{} holding Username",))


# -- (f) a table that lived through two key formats --------------------------------------------------


def legacy() -> Corpus:
    """Users, orders and sessions written over two eras: the first wrote ``user-123``/``order-9`` keys with
    totals as strings and no type; the second writes ``USER#123``/``ORDER#9``, a ``type``, an order GSI and
    a ``version`` counter. Sessions expire through TTL (``expires_at``); optional attributes are missing on
    many items."""
    rng = random.Random(707)
    items: list[Item] = []
    for u in range(1, 401):
        modern = u > 120
        pk = f"USER#{u}" if modern else f"user-{u}"
        user = {
            "PK": text(pk),
            "SK": text("PROFILE" if modern else "profile"),
            "email": text(f"u{u}@example.com"),
            "name": text(" ".join(person(rng))),
        }
        if modern:
            user |= {"type": text("user"), "version": number(rng.randrange(1, 9))}
        if rng.random() < 0.5:
            user["phone"] = text(f"+1555{rng.randrange(10**6, 10**7)}")
        items.append(user)
        for _ in range(rng.randrange(0, 8)):
            order = f"{rng.randrange(10**5, 10**6)}"
            total = f"{rng.randrange(100, 99999) / 100:.2f}"
            if modern:
                item = {
                    "PK": text(pk),
                    "SK": text(f"ORDER#{order}"),
                    "GSI1PK": text(f"ORDER#{order}"),
                    "GSI1SK": text(f"USER#{u}"),
                    "type": text("order"),
                    "total": number(total),
                    "version": number(rng.randrange(1, 4)),
                    "placed_at": text(iso(moment(rng))),
                }
            else:
                item = {
                    "PK": text(pk),
                    "SK": text(f"order-{order}"),
                    "total": text(total),
                    "placed_at": text(iso(moment(rng))),
                }
            if rng.random() < 0.2:
                item["coupon"] = text(rng.choice(["SPRING", "VIP", "WELCOME10"]))
            items.append(item)
        if modern and rng.random() < 0.6:
            token = uuid4(rng)
            items.append(
                {
                    "PK": text(f"SESSION#{token}"),
                    "SK": text("SESSION"),
                    "type": text("session"),
                    "user_id": text(str(u)),
                    "expires_at": number(1_900_000_000 + rng.randrange(10**6)),
                }
            )
    table = gsi1_table("legacy-app")
    expected = {
        "user": {"PK": "USER#{}", "SK": "PROFILE"},
        "order": {"PK": "USER#{}", "SK": "ORDER#{}", "GSI1PK": "ORDER#{}", "GSI1SK": "USER#{}"},
        "session": {"PK": "SESSION#{}", "SK": "SESSION"},
    }
    return Corpus("legacy", table, items, expected, "type", ttl="expires_at")
