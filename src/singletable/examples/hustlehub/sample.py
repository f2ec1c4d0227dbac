"""Deterministic sample data: five categories, 24 listings, six users (three admins).

Ids are fixed and every timestamp is an offset from :data:`singletable.examples.DEMO_CLOCK`, so loading the
sample twice, on any backend, writes the same items.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from singletable.examples import DEMO_CLOCK, DEMO_CURSOR_SECRET
from singletable.examples.hustlehub.design import Category, Listing, User
from singletable.examples.hustlehub.service import HustleHub
from singletable.model import DB

NOW = DEMO_CLOCK

CATEGORIES = [
    ("create-and-sell", "Create & Sell", "Make things and sell them online."),
    ("online-services", "Online Services", "Sell your skills to clients anywhere."),
    ("gig-economy", "Gig Economy", "Paid by the task, on your own schedule."),
    ("rent-and-share", "Rent & Share", "Earn from what you already own."),
    ("teach-and-tutor", "Teach & Tutor", "Share what you know."),
]
CATEGORY_NAMES = {slug: name for slug, name, _ in CATEGORIES}

# One listing per line, newest first: id, category, platform ("_" for a space), skill level, interests,
# earnings min, max and period, verification level ("-" for unverified), views, saves.
_LISTING_TABLE = """
etsy-handmade-crafts create-and-sell Etsy Intermediate Creative 100 2000 monthly manual 1250 89
redbubble-designs create-and-sell Redbubble Beginner Creative,Design 20 400 monthly automated 640 31
vinted-reselling create-and-sell Vinted Beginner Fashion 50 600 monthly - 980 72
kdp-low-content-books create-and-sell Amazon_KDP Beginner Writing,Creative 10 500 monthly manual 410 12
print-on-demand-mugs create-and-sell Printful Beginner Design 30 700 monthly automated 220 8
fiverr-logo-design online-services Fiverr Intermediate Design,Creative 15 120 per_project manual 2100 140
upwork-copywriting online-services Upwork Advanced Writing 25 80 hourly manual 1730 66
virtual-assistant online-services PeoplePerHour Beginner Admin 12 25 hourly - 880 40
podcast-editing online-services Fiverr Intermediate Audio,Creative 30 150 per_project automated 300 22
social-media-manager online-services LinkedIn Intermediate Marketing 300 1500 monthly manual 1420 95
website-testing online-services UserTesting Beginner Tech 8 40 per_project automated 760 54
deliveroo-rider gig-economy Deliveroo Beginner Outdoors 10 18 hourly manual 1900 45
uber-driver gig-economy Uber Beginner Driving 12 25 hourly manual 2500 61
taskrabbit-handyman gig-economy TaskRabbit Intermediate DIY 15 35 hourly - 590 18
dog-walking-rover gig-economy Rover Beginner Animals,Outdoors 10 20 hourly automated 1150 77
mystery-shopping gig-economy Mystery_Shoppers Beginner Retail 10 50 per_project - 330 9
airbnb-spare-room rent-and-share Airbnb Intermediate Hospitality 300 1200 monthly manual 3100 210
driveway-parking rent-and-share JustPark Beginner Passive 30 200 monthly automated 870 58
camera-gear-rental rent-and-share Fat_Llama Beginner Photography,Passive 20 300 monthly - 150 4
car-sharing-getaround rent-and-share Getaround Beginner Driving,Passive 50 400 monthly manual 640 27
online-maths-tutor teach-and-tutor MyTutor Advanced Teaching 20 45 hourly manual 1010 48
language-exchange-teacher teach-and-tutor italki Intermediate Teaching,Languages 12 30 hourly automated 540 35
udemy-course-creator teach-and-tutor Udemy Advanced Teaching,Creative 50 3000 monthly - 690 52
music-lessons-online teach-and-tutor Zoom Intermediate Music,Teaching,Creative 20 40 hourly manual 1320 101
"""
Row = tuple[str, str, str, str, list[str], tuple[int, int, str], str | None, tuple[int, int]]


def _row(line: str) -> Row:
    ident, category, platform, skill, interests, low, high, per, level, views, saves = line.split()
    earnings = (int(low), int(high), per)
    verification = None if level == "-" else level
    platform = platform.replace("_", " ")
    return (
        ident,
        category,
        platform,
        skill,
        interests.split(","),
        earnings,
        verification,
        (int(views), int(saves)),
    )


LISTING_ROWS: list[Row] = [_row(line) for line in _LISTING_TABLE.strip().splitlines()]


def _title(listing_id: str) -> str:
    return " ".join(w.upper() if w in ("kdp",) else w.title() for w in listing_id.split("-"))


def listing(n: int) -> Listing:
    """Listing ``n`` of :data:`LISTING_ROWS`: the n-th newest is ``n`` days and ``n`` hours old."""
    listing_id, category, platform, skill, interests, earnings, level, (views, saves) = LISTING_ROWS[n]
    low, high, per = earnings
    title = _title(listing_id)
    online = category in ("create-and-sell", "online-services", "teach-and-tutor")
    potential = "low" if high < 100 else "medium" if high < 1000 else "high"
    data: dict[str, Any] = {
        "listing_id": listing_id,
        "slug": f"{listing_id}-uk",
        "title": title,
        "category_name": CATEGORY_NAMES[category],
        "category_slug": category,
        "primary_attributes": {
            "skill_level": skill,
            "time_commitment": ("Low", "Medium", "High")[n % 3],
            "upfront_cost": ("None", "Low", "Medium")[n % 3],
            "income_potential": {"low": "£", "medium": "££", "high": "£££"}[potential],
            "location_type": "Online" if online else "Local",
            "platform_required": platform,
        },
        "earnings": {"min": low, "max": high, "type": per},
        "requirements": {
            "startup_cost": (0, 50, 200)[n % 3],
            "time_commitment": {
                "min": 2 + n % 5,
                "max": 10 + n % 20,
                "flexibility": ("high", "medium", "low")[n % 3],
            },
        },
        "filter_values": {
            "location": "online" if online else "local",
            "platform": [platform],
            "skills_required": interests[:1],
            "income_potential": potential,
            "startup_cost": ("none", "low", "medium")[n % 3],
            "interests": interests,
        },
        "image_url": f"https://images.hustlehub.uk/listings/{listing_id}.jpg",
        "verified": level is not None,
        "verification_level": level,
        "analytics": {"views": views, "saves": saves, "shares": saves // 4, "clicks": views // 8},
        "tags": ["Trending"] if views > 1500 else [],
        "rating": round(6.0 + (views % 37) / 10, 1),
        "keywords": [*listing_id.split("-"), "side hustle"],
        "is_active": n != 15,
        "external_urls": {"primary": f"https://www.{platform.lower().replace(' ', '')}.com/"},
        "meta_data": {"seo_title": f"{title} - Complete UK Guide"},
        "schema_org": {
            "@context": "https://schema.org",
            "@type": "Service",
            "name": title,
            "provider": {"@type": "Organization", "name": platform},
            "offers": {"@type": "Offer", "priceRange": f"£{low}-£{high}", "priceCurrency": "GBP"},
        },
        "created_at": NOW - timedelta(days=n + 1, hours=n),
    }
    return Listing.model_validate(data)


def users() -> list[User]:
    def at(days: float) -> datetime:
        return NOW - timedelta(days=days)

    return [
        User(user_id="9f0c1e2a-0000-4000-8000-000000000001", email="ada@hustlehub.uk", role="super_admin",
             admin_created_at=at(400), admin_created_by="bootstrap", last_login_at=at(1),
             preferences={"location": "London", "skills": ["Operations"]}),
        User(user_id="9f0c1e2a-0000-4000-8000-000000000002", email="admin@hustlehub.uk", role="admin",
             admin_created_at=at(300), admin_created_by="9f0c1e2a-0000-4000-8000-000000000001",
             last_login_at=at(45),
             preferences={"location": "London", "skills": ["Content Management", "User Support"]}),
        User(user_id="9f0c1e2a-0000-4000-8000-000000000003", email="editor@hustlehub.uk", role="editor",
             admin_created_at=at(90), admin_created_by="9f0c1e2a-0000-4000-8000-000000000001",
             last_login_at=at(3), preferences={"location": "Leeds", "skills": ["Copy editing"]}),
        User(user_id="9f0c1e2a-0000-4000-8000-000000000004", email="John.Doe@example.com",
             preferences={"location": "Manchester", "interests": ["Creative"]}),
        User(user_id="9f0c1e2a-0000-4000-8000-000000000005", email="jane.smith@example.com",
             preferences={"location": "Bristol", "interests": ["Teaching", "Languages"]}),
        User(user_id="9f0c1e2a-0000-4000-8000-000000000006", email="sam.lee@example.com",
             preferences={"location": "Glasgow", "interests": ["Driving"]}),
    ]  # fmt: skip


def categories() -> list[Category]:
    return [
        Category(
            cat_id=slug, slug=slug, name=name, description=about, created_at=NOW - timedelta(days=500 - i)
        )
        for i, (slug, name, about) in enumerate(CATEGORIES)
    ]


def listings() -> list[Listing]:
    return [listing(n) for n in range(len(LISTING_ROWS))]


def open_service(db: DB) -> HustleHub:
    """The demo's service: cursors signed with the demo's fixed secret, so every run prints the same."""
    return HustleHub(db, cursor_secret=DEMO_CURSOR_SECRET)


def load(hub: HustleHub) -> None:
    """Everything through the service, so guards and index keys are written exactly as the app writes them."""
    for category in categories():
        hub.add_category(category)
    for item in listings():
        hub.add_listing(item)
    for user in users():
        hub.register(user)
