"""A fresh batch of agent tasks, written on 2026-11-27 by another author and never used to fix the product.

Every task of `agent_taskset.TASKS` has been read while fixing the product, so none of them says any more how a
model does on requests nobody fitted to. These are new: other people, files, facts and wordings, in another
voice (phone-typed shorthand with typos, long polite requests, bare imperatives) and in seven languages besides
English. Run them as a group with `agent_tasks.py --set fresh-2026-11-27`. They must be MEASURED before anyone
reads a failure of theirs to change the product; once that happens they are fitted like the rest.

The checks are the ones of `agent_taskset` and look at the end state only, accepting every way a correct
assistant could get there (a file name as the user said it, words in the user's language or in English, a
reminder stored as a one-off `at` or `in_minutes`, an event created or quick-added, a fact updated, replaced or
deleted and stored again).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from agent_taskset import (
    Task,
    World,
    all_of,
    at,
    cron_skill,
    day,
    event_at,
    event_id,
    event_moved,
    fact_gone,
    fact_id,
    fact_with,
    file_operation,
    file_with,
    listed_events_on,
    mail_to,
    no_event,
    no_fact_with,
    no_file,
    not_,
    once_skill,
    searched,
    seed_events,
    seed_facts,
    seed_files,
    seed_mail,
    seed_skill,
    skill_id,
    tool_call,
)

SET_NAME = "fresh-2026-11-27"


def mail_id(query: str) -> Callable[[World], str]:
    """The id of the newest mail matching a Gmail query, as a model reads it from `gmail_list_emails`."""

    def find(world: World) -> str:
        data = world.call("gmail_list_emails", {"query": query}).get("data") or {}
        return str(data["emails"][0]["id"])

    return find


def draft_id(address: str) -> Callable[[World], str]:
    def find(world: World) -> str:
        data = world.call("gmail_list_drafts", {}).get("data") or {}
        return next(str(d["draft_id"]) for d in data["drafts"] if address in str(d.get("to") or ""))

    return find


def seed_dentist_mail(world: World) -> None:
    when = day(world, 3)
    world.add_mail(
        "reception@smile-dental.example",
        "Appointment confirmation",
        f"Dear patient, your check-up with Dr. Okafor is confirmed for {when:%A %d %B %Y} at 10:30. "
        "Please arrive ten minutes early.",
    )


def seed_trip_file(world: World) -> None:
    flight = day(world, 4)
    world.write_file(
        "trip.txt",
        f"Flight TP1234 Lisbon -> Warsaw\nDeparts {flight:%A %d %B %Y} at 07:05 from Terminal 1\nSeat 14C\n",
    )


def _store_skill(name: str, config: dict[str, Any], instructions: str) -> dict[str, Any]:
    return {"name": name, "trigger_type": "cron", "trigger_config": config, "instructions": instructions}


FRESH_TASKS: tuple[Task, ...] = (
    # files ---------------------------------------------------------------------------------------------------------
    Task(
        "fresh-files-weekend",
        "files",
        ("make a file todo-weekend.txt w/ laundry, call grandma n fix bike",),
        file_with("todo-weekend.txt", ["laundry"], ["grandma", "granny", "grandmother"], ["bike", "bicycle"]),
        (
            (
                tool_call(
                    "filer_create_file",
                    {"path": "todo-weekend.txt", "content": "- laundry\n- call grandma\n- fix bike\n"},
                ),
            ),
        ),
    ),
    Task(
        "fresh-files-append",
        "files",
        (
            "Hi! Sorry to bother you, could you please add 'buy stamps' to the end of my errands.md file? "
            "Please leave the rest as it is. Thank you so much!",
        ),
        file_with("errands.md", ["stamps"], ["post office"], ["pharmacy"]),
        ((tool_call("filer_update_file", {"path": "errands.md", "content": "- buy stamps", "append": True}),),),
        setup=seed_files({"errands.md": "- post office\n- pharmacy\n"}),
    ),
    Task(
        "fresh-files-rename",
        "files",
        ("rename draft-v2.md -> final.md",),
        all_of(file_with("final.md", ["greenhouse"]), no_file("draft-v2.md")),
        ((tool_call("filer_move_file", {"source": "draft-v2.md", "destination": "final.md"}),),),
        setup=seed_files({"draft-v2.md": "# The greenhouse proposal\nBudget and timeline.\n"}),
    ),
    Task(
        "fresh-files-es",
        "files",
        ("crea una carpeta recetas y dentro un archivo tortilla.txt con: huevos, patatas, cebolla",),
        file_with("recetas/tortilla.txt", ["huevo", "egg"], ["patata", "potato"], ["cebolla", "onion"]),
        (
            (
                tool_call(
                    "filer_create_file",
                    {"path": "recetas/tortilla.txt", "content": "huevos\npatatas\ncebolla\n"},
                ),
            ),
        ),
        lang="es",
    ),
    # memory: storing, forgetting, correcting, and recalling what is stored to act on it ------------------------------
    Task(
        "fresh-mem-allergy",
        "memory",
        (
            "Good evening, I hope it's not too much trouble, but could you please make a note somewhere that my "
            "daughter Zoe is allergic to penicillin? It's rather important. Many thanks.",
        ),
        fact_with(["Zoe"], ["penicillin"]),
        ((tool_call("store_fact", {"fact": "Daughter Zoe is allergic to penicillin", "category": "contact"}),),),
    ),
    Task(
        "fresh-mem-pl",
        "memory",
        ("zapamiętaj że pracuję zdalnie we wtorki i czwartki",),
        fact_with(["wtor", "tues"], ["czwart", "thurs"]),
        ((tool_call("store_fact", {"fact": "Pracuje zdalnie we wtorki i czwartki", "category": "pattern"}),),),
        lang="pl",
    ),
    Task(
        "fresh-mem-de-forget",
        "memory",
        ("Vergiss bitte, dass ich Hafermilch in den Kaffee nehme – stimmt nicht mehr.",),
        no_fact_with("oat", "Hafer"),
        (
            (
                tool_call("memory_list_facts"),
                tool_call("memory_delete_fact", lambda w: {"fact_id": fact_id("oat milk")(w)}),
            ),
        ),
        lang="de",
        setup=seed_facts(("Takes oat milk in their coffee", "preference")),
    ),
    Task(
        "fresh-mem-gym",
        "memory",
        # "forget": storing the new gym alone leaves the old fact with this stack (no utility model to decide
        # that one replaces the other), so the user says what to drop.
        ("forget fitlife, i switched gyms - its iron temple now",),
        all_of(fact_with(["Iron Temple"]), fact_gone("Goes to the FitLife gym")),
        (
            (
                tool_call("memory_list_facts"),
                tool_call(
                    "memory_update_fact",
                    lambda w: {"fact_id": fact_id("FitLife")(w), "fact": "Goes to the Iron Temple gym"},
                ),
            ),
        ),
        setup=seed_facts(("Goes to the FitLife gym", "pattern")),
    ),
    Task(
        "fresh-mem-recall-mail",
        "memory",
        ("send my brother an email saying happy bday 🎂",),
        mail_to("tomas.r@example.com", ["birthday", "bday", "b-day", "🎂"]),
        (
            (
                tool_call("search_memories", {"query": "brother email address"}),
                tool_call(
                    "gmail_send_email",
                    {"to": "tomas.r@example.com", "subject": "Happy birthday!", "body": "Happy bday, Tomás! 🎂"},
                ),
            ),
        ),
        setup=seed_facts(("Brother Tomás's email address is tomas.r@example.com", "contact")),
    ),
    Task(
        "fresh-mem-recall-it",
        "memory",
        ("scrivi in un file ospiti.txt da chi gli ospiti possono prendere la chiave di riserva",),
        file_with("ospiti.txt", ["Greta"]),
        (
            (
                tool_call("search_memories", {"query": "chiave di riserva spare key"}),
                tool_call(
                    "filer_create_file",
                    {"path": "ospiti.txt", "content": "La chiave di riserva ce l'ha Greta, la vicina (4B).\n"},
                ),
            ),
        ),
        lang="it",
        setup=seed_facts(("The neighbour Greta in flat 4B keeps our spare key", "contact")),
    ),
    # reminders and skills, one-time and recurring ------------------------------------------------------------------
    Task(
        "fresh-skill-weekdays",
        "skills",
        ("remind me evry weekday at 8.15 to check the standup notes",),
        cron_skill("15 8 * * 1-5", "standup", "stand-up", "stand up"),
        (
            (
                tool_call(
                    "memory_store_skill",
                    _store_skill(
                        "Standup notes", {"schedule": "15 8 * * 1-5"}, "Remind the user to check the standup notes."
                    ),
                ),
            ),
        ),
    ),
    Task(
        "fresh-skill-fr",
        "skills",
        ("Rappelle-moi dans 45 minutes de sortir le linge de la machine",),
        once_skill(lambda w: w.now + timedelta(minutes=45), timedelta(minutes=10), "linge", "laundry", "washing"),
        (
            (
                tool_call(
                    "memory_store_skill",
                    _store_skill("Sortir le linge", {"in_minutes": 45}, "Rappeler de sortir le linge de la machine."),
                ),
            ),
        ),
        lang="fr",
    ),
    Task(
        "fresh-skill-pl",
        "skills",
        ("Przypominaj mi w każdą niedzielę o 20:00, żeby podlać kaktusa",),
        cron_skill("0 20 * * 0", "kaktus", "cactus"),
        (
            (
                tool_call(
                    "memory_store_skill",
                    _store_skill("Podlać kaktusa", {"schedule": "0 20 * * 0"}, "Przypomnij o podlaniu kaktusa."),
                ),
            ),
        ),
        lang="pl",
    ),
    Task(
        "fresh-skill-pt",
        "skills",
        ("Lembra-me depois de amanhã às 9h de renovar o seguro do carro",),
        once_skill(lambda w: day(w, 2) + timedelta(hours=9), timedelta(minutes=5), "seguro", "insurance"),
        (
            (
                tool_call(
                    "memory_store_skill",
                    lambda w: _store_skill(
                        "Renovar o seguro do carro", {"at": at(w, 2, 9)}, "Lembrar de renovar o seguro do carro."
                    ),
                ),
            ),
        ),
        lang="pt",
    ),
    Task(
        "fresh-skill-monthly",
        "skills",
        (
            "Would you be so kind as to remind me on the first of every month, at nine in the morning, "
            "that the rent is due?",
        ),
        cron_skill("0 9 1 * *", "rent"),
        (
            (
                tool_call(
                    "memory_store_skill",
                    _store_skill("Rent", {"schedule": "0 9 1 * *"}, "Remind the user that the rent is due."),
                ),
            ),
        ),
    ),
    Task(
        "fresh-skill-move",
        "skills",
        ("ficus reminder -> sundays instead, same time",),
        all_of(
            cron_skill("0 9 * * 0", "ficus"),
            not_(cron_skill("0 9 * * 6", "ficus"), "a ficus reminder still fires on Saturdays"),
        ),
        (
            (
                tool_call("memory_list_skills"),
                tool_call(
                    "memory_update_skill",
                    lambda w: {"skill_id": skill_id("ficus")(w), "trigger_config": {"schedule": "0 9 * * 0"}},
                ),
            ),
        ),
        setup=seed_skill("Water the ficus", "0 9 * * 6", "Remind the user to water the ficus."),
    ),
    # email -----------------------------------------------------------------------------------------------------------
    Task(
        "fresh-mail-reply",
        "email",
        ("reply to the landlords mail, friday works for me",),
        mail_to("landlord@flat.example", ["friday"]),
        (
            (
                tool_call("gmail_list_emails", {"query": "from:landlord@flat.example"}),
                tool_call(
                    "gmail_reply_email",
                    lambda w: {
                        "message_id": mail_id("from:landlord@flat.example")(w),
                        "body": "Hello, Friday morning works for me. Thanks!",
                    },
                ),
            ),
        ),
        setup=seed_mail(
            (
                "landlord@flat.example",
                "Boiler service",
                "The technician can come on Thursday or Friday morning. Which suits you?",
            )
        ),
    ),
    Task(
        "fresh-mail-pl-draft",
        "email",
        ("napisz szkic maila do ewa@example.com z pytaniem czy faktura za październik już przyszła, nie wysyłaj",),
        all_of(
            mail_to("ewa@example.com", ["faktur", "invoice"], drafts=True),
            not_(mail_to("ewa@example.com"), "the mail to ewa@example.com was sent, not only drafted"),
        ),
        (
            (
                tool_call(
                    "gmail_create_draft",
                    {
                        "to": "ewa@example.com",
                        "subject": "Faktura za październik",
                        "body": "Cześć Ewa, czy faktura za październik już przyszła?",
                    },
                ),
            ),
        ),
        lang="pl",
    ),
    Task(
        "fresh-mail-de",
        "email",
        ("Schick bitte eine Mail an jonas.k@example.com: das Training morgen fällt aus.",),
        mail_to(
            "jonas.k@example.com",
            ["Training"],
            ["fällt", "faellt", "abgesagt", "nicht statt", "entfällt", "ausfall", "cancel", "storn"],
        ),
        (
            (
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "jonas.k@example.com",
                        "subject": "Training morgen",
                        "body": "Hallo Jonas, das Training morgen fällt aus.",
                    },
                ),
            ),
        ),
        lang="de",
    ),
    # calendar --------------------------------------------------------------------------------------------------------
    Task(
        "fresh-cal-nl",
        "calendar",
        ("Zet overmorgen om 14:00 een afspraak bij de kapper in mijn agenda",),
        event_at(["kapper", "hairdresser", "barber", "haircut", "knip"], lambda w: day(w, 2) + timedelta(hours=14)),
        (
            (
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Kapper",
                        "start_date_time": at(w, 2, 14),
                        "end_date_time": at(w, 2, 15),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        lang="nl",
    ),
    Task(
        "fresh-cal-cancel",
        "calendar",
        ("cancel tmrws call w matteo pls",),
        no_event("Matteo"),
        (
            (
                tool_call(
                    "gmail_list_events", lambda w: {"time_min": at(w, 1, 0) + "Z", "time_max": at(w, 2, 0) + "Z"}
                ),
                tool_call("gmail_delete_event", lambda w: {"event_id": event_id("Matteo")(w)}),
            ),
        ),
        setup=seed_events(("Call with Matteo", 1, 11)),
    ),
    Task(
        "fresh-cal-fr",
        "calendar",
        ("Qu'est-ce que j'ai dans mon agenda après-demain ?",),
        listed_events_on(2),
        ((tool_call("gmail_list_events", lambda w: {"time_min": at(w, 2, 0) + "Z", "time_max": at(w, 3, 0) + "Z"}),),),
        lang="fr",
        setup=seed_events(("Déjeuner avec Camille", 2, 12)),
    ),
    Task(
        "fresh-cal-school",
        "calendar",
        (
            "Could you please put a parent-teacher meeting in my calendar for tomorrow, from five to six in the "
            "evening? It's at the primary school. Thank you!",
        ),
        event_at(["parent", "teacher", "school"], lambda w: day(w, 1) + timedelta(hours=17)),
        (
            (
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Parent-teacher meeting",
                        "location": "Primary school",
                        "start_date_time": at(w, 1, 17),
                        "end_date_time": at(w, 1, 18),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
    ),
    # web search ------------------------------------------------------------------------------------------------------
    Task(
        "fresh-web-typo",
        "search",
        ("whats teh population of reykjavik rn",),
        searched(("web", "news"), ["reykjav"]),
        ((tool_call("searcher_web_search", {"query": "Reykjavik population"}),),),
    ),
    Task(
        "fresh-web-it",
        "search",
        ("cerca le ultime notizie sulla Ferrari",),
        searched(("news", "web"), ["Ferrari"]),
        ((tool_call("searcher_news_search", {"query": "Ferrari"}),),),
        lang="it",
    ),
    Task(
        "fresh-web-pl",
        "search",
        ("Sprawdź w internecie, do której jest otwarty Wawel w niedzielę",),
        searched(("web", "news"), ["Wawel"]),
        ((tool_call("searcher_web_search", {"query": "Wawel godziny otwarcia niedziela"}),),),
        lang="pl",
    ),
    # multi-step ------------------------------------------------------------------------------------------------------
    Task(
        "fresh-multi-dentist",
        "multistep",
        ("put the dentist appt from my email in the calendar",),
        event_at(
            ["dentist", "dental", "check-up", "checkup", "Okafor"],
            lambda w: day(w, 3) + timedelta(hours=10, minutes=30),
        ),
        (
            (
                tool_call("gmail_list_emails", {"query": "dentist"}),
                tool_call(
                    "gmail_get_email", lambda w: {"message_id": mail_id("from:reception@smile-dental.example")(w)}
                ),
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Dentist check-up (Dr. Okafor)",
                        "start_date_time": at(w, 3, 10, 30),
                        "end_date_time": at(w, 3, 11, 30),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        setup=seed_dentist_mail,
    ),
    Task(
        "fresh-multi-checkin",
        "multistep",
        (
            "Hello there. My flight details are in trip.txt in my files. Would you mind having a look and setting "
            "me a reminder for 6 pm on the day before the flight, so I don't forget to check in online? Thanks a lot.",
        ),
        all_of(
            file_operation("read_file", "trip.txt"),
            once_skill(
                lambda w: day(w, 3) + timedelta(hours=18),
                timedelta(minutes=5),
                "check in",
                "check-in",
                "checkin",
                "flight",
                "TP1234",
            ),
        ),
        (
            (
                tool_call("filer_read_file", {"path": "trip.txt"}),
                tool_call(
                    "memory_store_skill",
                    lambda w: _store_skill(
                        "Check in for flight TP1234", {"at": at(w, 3, 18)}, "Remind the user to check in online."
                    ),
                ),
            ),
        ),
        setup=seed_trip_file,
    ),
    Task(
        "fresh-multi-nl",
        "multistep",
        ("Zoek de openingstijden van het Rijksmuseum op en mail ze naar oma.bep@example.com",),
        all_of(
            searched(("web", "news"), ["Rijksmuseum"]),
            mail_to("oma.bep@example.com", ["Rijksmuseum", "open"]),
        ),
        (
            (
                tool_call("searcher_web_search", {"query": "Rijksmuseum openingstijden"}),
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "oma.bep@example.com",
                        "subject": "Openingstijden Rijksmuseum",
                        "body": "Hoi oma, het Rijksmuseum is elke dag open van 9:00 tot 17:00.",
                    },
                ),
            ),
        ),
        lang="nl",
    ),
    # follow-ups in one conversation ----------------------------------------------------------------------------------
    Task(
        "fresh-follow-movies",
        "followup",
        ("make a list called movies.txt: Dune, Arrival", "oh n add Contact", "actually drop Arrival, seen it already"),
        all_of(
            file_with("movies.txt", ["Dune"], ["Contact"]),
            not_(file_with("movies.txt", ["Arrival"]), "movies.txt still lists Arrival"),
        ),
        (
            (tool_call("filer_create_file", {"path": "movies.txt", "content": "Dune\nArrival\n"}),),
            (tool_call("filer_update_file", {"path": "movies.txt", "content": "Contact", "append": True}),),
            (tool_call("filer_update_file", {"path": "movies.txt", "content": "Dune\nContact\n"}),),
        ),
    ),
    Task(
        "fresh-follow-lunch",
        "followup",
        ("put lunch w/ Priya tomorrow 12:30 in my cal", "make it 1pm instead"),
        event_moved(["Priya"], lambda w: day(w, 1) + timedelta(hours=13)),
        (
            (
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Lunch with Priya",
                        "start_date_time": at(w, 1, 12, 30),
                        "end_date_time": at(w, 1, 13, 30),
                        "time_zone": "UTC",
                    },
                ),
            ),
            (
                tool_call(
                    "gmail_update_event",
                    lambda w: {
                        "event_id": event_id("Priya")(w),
                        "start_date_time": at(w, 1, 13),
                        "end_date_time": at(w, 1, 14),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
    ),
    Task(
        "fresh-follow-es",
        "followup",
        ("Apunta que mi pasaporte caduca en agosto de 2028", "perdona, es septiembre, no agosto"),
        all_of(
            fact_with(["pasaporte", "passport"], ["septiembre", "september", "2028-09", "09/2028"]),
            not_(fact_with(["pasaporte", "passport"], ["agosto", "august"]), "a fact still says August"),
        ),
        (
            (tool_call("store_fact", {"fact": "El pasaporte caduca en agosto de 2028", "category": "background"}),),
            (
                tool_call(
                    "memory_update_fact",
                    lambda w: {"fact_id": fact_id("pasaporte")(w), "fact": "El pasaporte caduca en septiembre de 2028"},
                ),
            ),
        ),
        lang="es",
    ),
    Task(
        "fresh-follow-de",
        "followup",
        ("Erinnere mich morgen um 10 daran, die Bank anzurufen", "doch lieber um 11"),
        all_of(
            once_skill(lambda w: day(w, 1) + timedelta(hours=11), timedelta(minutes=5), "Bank"),
            not_(
                once_skill(lambda w: day(w, 1) + timedelta(hours=10), timedelta(minutes=5), "Bank"),
                "the 10:00 reminder is still there",
            ),
        ),
        (
            (
                tool_call(
                    "memory_store_skill",
                    lambda w: _store_skill("Bank anrufen", {"at": at(w, 1, 10)}, "Erinnere daran, die Bank anzurufen."),
                ),
            ),
            (
                tool_call(
                    "memory_update_skill",
                    lambda w: {"skill_id": skill_id("Bank anrufen")(w), "trigger_config": {"at": at(w, 1, 11)}},
                ),
            ),
        ),
        lang="de",
    ),
    Task(
        "fresh-follow-draft",
        "followup",
        ("draft a mail to coach@club.example asking if saturday practice is at 9 or 10", "looks good, send it"),
        mail_to("coach@club.example", ["saturday"]),
        (
            (
                tool_call(
                    "gmail_create_draft",
                    {
                        "to": "coach@club.example",
                        "subject": "Saturday practice",
                        "body": "Hi coach, is Saturday practice at 9 or at 10?",
                    },
                ),
            ),
            (tool_call("gmail_send_draft", lambda w: {"draft_id": draft_id("coach@club.example")(w)}),),
        ),
    ),
)


__all__ = ["FRESH_TASKS", "SET_NAME"]
