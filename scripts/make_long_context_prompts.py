"""Write the benchmark's "long-context" prompts into resources/bench_prompts.json, from text made here.

The category measures long prompts (4,000-8,000 tokens): how fast the target
reads them (prefill, time to first token) and how drafting fares after them.
Three kinds, each once in the tuning set and once, written separately, in the
check set: a question about a long document, a long multi-turn chat whose last
question refers back to its first turns, and a big system prompt with a short
question. Everything is fiction written for the benchmark: a few hand-written
facts the questions ask about, set among generated entries (a seeded
``random.Random``, so the output is the same on every run and the committed
suite only changes when this script does). The tuning and check texts share no
templates, so no run of eight words crosses the sets (tests/engine/bench).

    python scripts/make_long_context_prompts.py [--suite resources/bench_prompts.json]
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
from pathlib import Path
from typing import Any

SUITE = Path(__file__).resolve().parent.parent / "resources" / "bench_prompts.json"
CATEGORY = "long-context"
DESCRIPTION = (
    "4,000-8,000-token prompts (a question about a long document, a long chat whose last question refers back, "
    "a big system prompt with a short question): every configuration reads the prompt afresh, so the report's "
    "prefill and time to first token are its own"
)
TUNING_SET = (
    "the prompts drafting was tuned on: two per category, five for code editing and for documents, three for long "
    "context"
)


# -- tuning: a configuration reference --------------------------------------------------

_QS_SECTIONS = {
    "listeners": ("socket", "backlog", "keepalive", "handshake", "tls_ticket", "proxy_header"),
    "storage": ("segment", "index", "flush", "compaction", "checksum", "preallocate"),
    "retention": ("age", "bytes", "tombstone", "grace", "sweep", "archive"),
    "replication": ("followers", "lag", "fetch", "election", "fencing", "catchup"),
    "quotas": ("producer", "consumer", "burst", "window", "penalty", "exempt"),
    "metrics": ("scrape", "histogram", "labels", "export", "sampling", "cardinality"),
    "scheduler": ("workers", "queue", "deadline", "priority", "steal", "park"),
    "webhooks": ("endpoint", "signing", "retry", "backoff", "batching", "timeout"),
}
_QS_SUFFIX = ("limit", "interval_ms", "size_kb", "enabled", "threshold", "mode", "count", "ratio")
_QS_EFFECT = (
    "Raising it trades memory for fewer round trips",
    "Lowering it makes the broker react sooner at the cost of extra disk writes",
    "Operators on slow disks usually leave it alone",
    "A change takes effect at the next segment roll, not at once",
    "It is read once at start-up; a reload does not change it",
    "Values outside the range are clamped and a warning is logged",
    "Set it per tenant with an override block when one tenant is noisier than the rest",
    "The admin console shows the live value beside the configured one",
)
_QS_WHY = (
    "guards the broker against clients that never close their sessions",
    "bounds how much work one pass of the background thread may do",
    "decides when buffered records are forced to stable storage",
    "caps how far a slow follower may fall behind before it is dropped",
    "keeps one busy producer from starving every other tenant",
    "sets how often the broker reports this figure to the metrics endpoint",
    "limits how long a queued task may wait before it is rejected",
    "controls how hard the broker retries a webhook that failed",
)


def _config_reference(rng: random.Random) -> str:
    lines = [
        "# Quayside broker 4.2: configuration reference",
        "",
        "Every option lives in quayside.toml under its section. Types are int, bool, string or duration;",
        "a duration is written with a unit (250ms, 30s, 5m). Defaults apply when an option is absent.",
        "",
    ]
    for section, stems in _QS_SECTIONS.items():
        lines += [f"## [{section}]", ""]
        for stem in stems:
            for suffix in rng.sample(_QS_SUFFIX, 2):
                name = f"{section}.{stem}_{suffix}"
                kind = "bool" if suffix == "enabled" else "string" if suffix == "mode" else "int"
                if kind == "bool":
                    default, accepts = rng.choice(("true", "false")), "true or false"
                elif kind == "string":
                    default = rng.choice(("strict", "lenient", "auto", "off"))
                    accepts = "strict, lenient, auto or off"
                else:
                    low = rng.choice((0, 1, 4, 16))
                    high = low + rng.choice((64, 500, 4096, 65536))
                    default, accepts = str(rng.randint(low, high)), f"{low} to {high}"
                lines.append(
                    f"- `{name}` ({kind}, default {default}, accepts {accepts}): {rng.choice(_QS_WHY)}. "
                    f"{rng.choice(_QS_EFFECT)}."
                )
            if (section, stem) == ("storage", "compaction"):
                lines.append(
                    "- `storage.compaction_pause_minutes` (int, default 45, accepts 5 to 720): how long compaction "
                    "waits after a burst of writes before it starts again. When it is raised above 120, "
                    "`retention.sweep_interval_ms` must be raised to at least 600000 as well, or the sweeper "
                    "deletes segments that compaction has not merged yet."
                )
        lines.append("")
    return "\n".join(lines)


# -- tuning: a long chat about a community garden ---------------------------------------

_GARDEN_BEDS = ("north bed", "herb spiral", "pumpkin patch", "berry row", "pond edge", "greenhouse bench")
_GARDEN_PLANTS = ("runner beans", "kale", "courgettes", "strawberries", "garlic", "chard", "basil", "leeks")
_GARDEN_TASKS = ("mulching", "weeding", "watering", "seed sowing", "netting", "compost turning")
_GARDEN_PEOPLE = ("Marta", "Kofi", "Ines", "Bertrand", "Yuki", "Dev", "Roisin", "Tomasz")


def _garden_chat(rng: random.Random) -> list[dict[str, str]]:
    turns = [
        {
            "role": "user",
            "content": "I coordinate the Elm Lane community garden and want help with this season's plan. One thing "
            "first, so you remember it: the tool shed's padlock code is 4-7-1-9, and only Marta keeps a spare key.",
        },
        {
            "role": "assistant",
            "content": "Noted: the shed code is 4-7-1-9 and Marta has the only spare key. Tell me about the beds "
            "and the volunteers and we can build the plan week by week.",
        },
    ]
    for week in range(1, 39):
        bed, plant, task = rng.choice(_GARDEN_BEDS), rng.choice(_GARDEN_PLANTS), rng.choice(_GARDEN_TASKS)
        helper, other = rng.sample(_GARDEN_PEOPLE, 2)
        hours = rng.randint(2, 6)
        turns.append(
            {
                "role": "user",
                "content": f"Week {week}: {helper} can give {hours} hours and {other} can come on Sunday. "
                f"The {bed} needs {task}, and we want to get the {plant} in before the weather turns. "
                f"What should each of them do, and is anything else urgent?",
            }
        )
        spare = rng.choice([b for b in _GARDEN_BEDS if b != bed])
        turns.append(
            {
                "role": "assistant",
                "content": f"For week {week}, give {helper} the {task} on the {bed} first: with {hours} hours "
                f"that leaves time to plant the {plant} along its sunny side. {other} can check the {spare} "
                f"on Sunday, water anything that looks dry and note which supports need replacing. Nothing "
                f"else is urgent; keep the compost covered if rain is forecast, and log the hours on the "
                f"board inside the shed so the totals stay right.",
            }
        )
    turns.append(
        {
            "role": "user",
            "content": "Thanks, that covers the season. Going back to what I told you at the very start: what is "
            "the shed's padlock code, and who keeps the spare key?",
        }
    )
    return turns


# -- tuning: a big system prompt for a bike rental's support desk ------------------------

_BIKE_STATIONS = (
    "Riverside",
    "Old Mill",
    "Castle Gate",
    "Harbour Steps",
    "University",
    "Market Hall",
    "Gasworks",
    "Botanic",
    "Canal Basin",
    "Station Square",
    "Hilltop",
    "Brewery Yard",
    "Docklands",
    "Cathedral",
    "Velodrome",
    "Tannery Lane",
    "Park Gates",
    "Museum Quarter",
    "Ferry Point",
    "Allotments",
)
_BIKE_KINDS = (("city bike", 3, 12), ("e-bike", 6, 25), ("cargo bike", 8, 30), ("tandem", 7, 28), ("kids bike", 2, 8))


def _bike_handbook(rng: random.Random) -> str:
    lines = [
        "You are the support assistant of Spokes & Co, a bike rental with stations across the city. Answer "
        "customers politely and briefly, using only the rules below. Quote prices in pounds. If a rule does not "
        "cover a case, say so and offer to pass it to a supervisor.",
        "",
        "PRICES. Each bike kind has an hourly price and a day cap:",
    ]
    lines += [
        f"* {kind}: {hour} pounds per hour, never more than {cap} pounds in one day." for kind, hour, cap in _BIKE_KINDS
    ]
    lines += [
        "",
        "LATE RETURNS. A bike returned after its booked time costs its hourly price for every started half hour "
        "of lateness, plus a flat 5 pound late fee for e-bikes and cargo bikes only. A bike returned more than "
        "four hours late is reported as missing.",
        "",
        "DEPOSITS. City bikes need no deposit; e-bikes 50 pounds, cargo bikes 80, tandems 40, kids bikes 10. "
        "Deposits come back within three working days of the return.",
        "",
        "STATIONS. Opening hours, docks and what each station rents:",
    ]
    for station in _BIKE_STATIONS:
        opens, closes = rng.randint(6, 9), rng.randint(18, 23)
        kinds = ", ".join(k for k, _, _ in rng.sample(_BIKE_KINDS, rng.randint(2, 4)))
        lines.append(
            f"* {station}: open {opens}:00 to {closes}:00, {rng.randint(8, 40)} docks, rents {kinds}. "
            f"Staffed on {rng.choice(('weekdays', 'weekends', 'every day', 'Saturdays only'))}; "
            f"the nearest other station is {rng.choice([s for s in _BIKE_STATIONS if s != station])}."
        )
    lines += ["", "DAMAGE. Repairs are charged at these rates, fitted parts included:"]
    parts = (
        "puncture",
        "brake pads",
        "chain",
        "front light",
        "rear light",
        "bell",
        "basket",
        "saddle",
        "pedal",
        "mudguard",
        "kickstand",
        "gear cable",
        "battery cover",
        "display unit",
        "charger port",
        "wheel rim",
        "spokes",
        "handlebar grip",
        "derailleur",
        "crank arm",
        "lock",
        "phone mount",
        "child seat",
        "cargo box lid",
        "tyre",
        "reflector",
    )
    for part in parts:
        for kind, _, _ in _BIKE_KINDS:
            price = rng.randint(4, 60) if part != "display unit" else rng.randint(80, 140)
            lines.append(
                f"* {part} on a {kind}: {price} pounds, waived when the customer reports it within "
                f"{rng.choice((10, 15, 30))} minutes of starting the ride."
            )
    lines += [
        "",
        "TONE. Thank the customer, state the charge and the rule it comes from, and never promise a refund the "
        "rules do not give.",
    ]
    return "\n".join(lines)


# -- check: meeting notes of an observatory upgrade ----------------------------------------

_OBS_PEOPLE = ("Priya Raman", "Jonas Falk", "Amara Okafor", "Liesel Brandt", "Mateo Ruiz", "Hana Sato", "Owen Pryce")
_OBS_TOPICS = (
    ("dome shutter motor", "the replacement gearbox", "vendor quote"),
    ("spectrograph cooling", "the chiller loop", "leak test"),
    ("guide camera", "the new sensor driver", "firmware build"),
    ("visitor centre", "the accessible ramp", "planning permit"),
    ("data archive", "the tape library", "migration script"),
    ("weather station", "the anemometer mast", "calibration report"),
    ("power supply", "the backup generator", "fuel contract"),
    ("night scheduling", "the queue software", "user survey"),
)
_OBS_STATUS = (
    "is on track; nobody raised a concern",
    "slipped by a week because a part arrived damaged",
    "needs a decision from the steering group before work can go on",
    "was tested on two clear nights and behaved as expected",
    "is blocked until the budget line is confirmed",
    "is finished apart from the paperwork",
)


def _observatory_notes(rng: random.Random) -> str:
    lines = ["Kestrel Ridge Observatory: upgrade project, minutes of the weekly meetings", ""]
    for number in range(1, 37):
        held = datetime.date(2025, 9, 3) + datetime.timedelta(weeks=number - 1)
        month, date = held.strftime("%B"), held.day
        chair, *present = rng.sample(_OBS_PEOPLE, 5)
        lines += [f"Meeting {number}, {month} {date}. Chair: {chair}. Present: {', '.join(present)}.", ""]
        for topic, item, paper in rng.sample(_OBS_TOPICS, 3):
            owner = rng.choice(_OBS_PEOPLE)
            lines.append(
                f"  {topic.capitalize()}: work on {item} {rng.choice(_OBS_STATUS)}. {owner} will circulate "
                f"the {paper} before meeting {number + 1}."
            )
        if number == 14:
            lines.append(
                "  Primary mirror: the recoating planned for January is moved to the first week of March, "
                "because the coating chamber at the university is booked until then. Hana Sato owns the "
                "follow-up: she will book the crane and tell the night observers which weeks are lost."
            )
        lines += [f"  Next meeting: meeting {number + 1}, same room, 10:00.", ""]
    return "\n".join(lines)


# -- check: a long chat organising a family reunion ----------------------------------------

_REUNION_COUSINS = ("Odile", "Bastien", "Clemence", "Yannick", "Sophie", "Gaspard", "Maelle", "Thibault")
_REUNION_ITEMS = (
    "the gite deposit",
    "the minibus",
    "the cake",
    "the boat trip",
    "wine",
    "the photographer",
    "the picnic hamper",
    "board games",
)
_REUNION_DISHES = (
    "ratatouille",
    "roast chicken with herbs",
    "lentil salad",
    "tarte tatin",
    "grilled trout",
    "goat cheese tart",
    "potato gratin",
    "apricot clafoutis",
)


def _reunion_chat(rng: random.Random) -> list[dict[str, str]]:
    turns = [
        {
            "role": "user",
            "content": "Help me organise our family reunion at a gite in the Drome, Friday to Sunday. Keep two "
            "things in mind throughout: my aunt Odile is allergic to sesame, and she arrives on the 14:52 train "
            "from Lyon at Valence station, so someone has to collect her.",
        },
        {
            "role": "assistant",
            "content": "Understood: Odile cannot have sesame, and she needs collecting from Valence at 14:52 off "
            "the Lyon train. What would you like to settle first?",
        },
    ]
    for round_ in range(1, 45):
        cousin, helper = rng.sample(_REUNION_COUSINS, 2)
        item, cost = rng.choice(_REUNION_ITEMS), rng.randint(20, 400)
        turns.append(
            {
                "role": "user",
                "content": f"Next point ({round_}): {cousin} offered to pay {cost} euros towards {item}, but "
                f"{helper} thinks we should split it evenly. How would you handle that without upsetting anyone?",
            }
        )
        turns.append(
            {
                "role": "assistant",
                "content": f"Thank {cousin} for the offer and put the {cost} euros for {item} in the shared "
                f"budget, then split whatever remains evenly, as {helper} suggests. Write the split in the group "
                f"message so everyone sees the same figures, and settle up once, on Sunday, rather than item by "
                f"item.",
            }
        )
        if round_ == 12:
            dishes = rng.sample(_REUNION_DISHES, 3)
            turns += [
                {
                    "role": "user",
                    "content": f"For Saturday dinner we settled on {', '.join(dishes)}, with a tahini dressing on the "
                    "side for the salad. Does that work?",
                },
                {
                    "role": "assistant",
                    "content": f"{', '.join(dishes).capitalize()} make a good spread. Keep the tahini dressing "
                    "in its own bowl with a spoon of its own and label it, and serve Odile's plate first.",
                },
            ]
    turns.append(
        {
            "role": "user",
            "content": "Last question, thinking back over everything: which train is Odile on, and is the Saturday "
            "dinner we agreed on safe for her?",
        }
    )
    return turns


# -- check: a big system prompt for a bakery's order assistant -----------------------------

_BAKERY_BASES = (
    "sourdough loaf",
    "rye roll",
    "brioche",
    "focaccia",
    "croissant",
    "scone",
    "muffin",
    "biscotti",
    "flapjack",
    "macaron",
    "cheesecake slice",
    "tart",
    "baguette",
    "bagel",
    "danish",
    "cookie",
    "brownie",
    "eclair",
    "bun",
    "galette",
    "pretzel",
    "meringue",
)
_BAKERY_FLAVOURS = (
    "plain",
    "walnut",
    "almond",
    "sesame",
    "olive",
    "cinnamon",
    "lemon",
    "chocolate",
    "oat",
    "hazelnut",
    "raspberry",
    "pumpkin seed",
)
_BAKERY_GLUTEN_FREE = {"macaron", "flapjack", "cheesecake slice", "meringue"}
_BAKERY_NUTS = {"walnut", "almond", "hazelnut"}


def _bakery_prompt(rng: random.Random) -> str:
    lines = [
        "You take orders for Crumb Street Bakery by chat. Be warm and short. Only offer items from the "
        "catalogue below, with their listed price in euros, and always check allergens against it: if a "
        "customer names an allergy, never suggest an item that contains it or may contain traces of it.",
        "",
        "CATALOGUE (item: price; contains; notes)",
    ]
    for base in _BAKERY_BASES:
        for flavour in rng.sample(_BAKERY_FLAVOURS, 11):
            contains = ["milk", "egg"] if rng.random() < 0.6 else []
            if base not in _BAKERY_GLUTEN_FREE:
                contains.insert(0, "gluten")
            if flavour in _BAKERY_NUTS:
                contains.append("nuts")
            if flavour == "sesame":
                contains.append("sesame")
            price = rng.randint(18, 95) / 10
            note = rng.choice(("baked daily", "weekends only", "order a day ahead", "while stocks last"))
            lines.append(f"- {flavour} {base}: {price:.2f}; {', '.join(contains) or 'no listed allergens'}; {note}")
    lines += [
        "",
        "DELIVERY. Free within the ring road for orders over 25 euros, otherwise 3.50. Outside the ring road "
        "only on Thursdays, 6 euros. Orders placed before 14:00 arrive the next morning.",
        "",
        "CAKES TO ORDER. Whole cakes need 48 hours' notice and a 10 euro deposit; writing on top is free up to "
        "twenty letters.",
    ]
    return "\n".join(lines)


# -- the suite -------------------------------------------------------------------------------


def prompts() -> list[dict[str, Any]]:
    """The category's six prompts, as suite entries (the same on every call)."""
    rng = random.Random(31)
    garden, reunion = _garden_chat(rng), _reunion_chat(rng)
    return [
        {
            "id": "long-context-config-reference",
            "category": CATEGORY,
            "prompt": _config_reference(rng)
            + "\n\nFrom the reference above: what is the default of storage.compaction_pause_minutes, what range "
            "does it accept, and what else must change if it is set above 120?",
            "set": "tuning",
        },
        {
            "id": "long-context-garden-chat",
            "category": CATEGORY,
            "history": garden[:-1],
            "prompt": garden[-1]["content"],
            "set": "tuning",
        },
        {
            "id": "long-context-bike-handbook",
            "category": CATEGORY,
            "system": _bike_handbook(rng),
            "prompt": "Hi, I brought my e-bike back to Riverside 50 minutes after my booking ended. What will "
            "you charge me for that?",
            "set": "tuning",
        },
        {
            "id": "long-context-observatory-minutes",
            "category": CATEGORY,
            "prompt": _observatory_notes(rng)
            + "\n\nIn these minutes, which meeting moved the primary mirror's recoating, to when and why, and "
            "who owns the follow-up?",
            "set": "check",
        },
        {
            "id": "long-context-reunion-chat",
            "category": CATEGORY,
            "history": reunion[:-1],
            "prompt": reunion[-1]["content"],
            "set": "check",
        },
        {
            "id": "long-context-bakery-orders",
            "category": CATEGORY,
            "system": _bakery_prompt(rng),
            "prompt": "Hello! I can't eat gluten or nuts. What could I get for under 6 euros?",
            "set": "check",
        },
    ]


def write_suite(path: Path) -> None:
    """Replace the suite's long-context prompts (kept at the end) with :func:`prompts`."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data["categories"][CATEGORY] = DESCRIPTION
    data["sets"]["tuning"] = TUNING_SET
    data["prompts"] = [p for p in data["prompts"] if p["category"] != CATEGORY] + prompts()
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> None:
    """Rewrite the suite file given (default: the bundled one)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, default=SUITE)
    write_suite(parser.parse_args().suite)


if __name__ == "__main__":
    main()
