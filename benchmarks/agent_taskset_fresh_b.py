"""A second fresh batch of agent tasks, written on 2026-11-27 by a third author and never used to fix the product.

The first set has been read while fixing the product, and the first fresh batch will be once its failures are
read; this batch is for after that. Its voice is a third one: a busy parent dictating to a phone (no capitals,
"pls", numbers as words, no punctuation to speak of) and a retired person writing full, formal sentences, in
English and in Spanish, German, French, Polish, Portuguese, Italian, Swedish and Czech. Run it as a group with
`agent_tasks.py --set fresh-2026-11-27b`; MEASURE it before anyone reads a failure of its to change the product.

The checks are those of `agent_taskset`, on the end state only, and accept every way a correct assistant could get
there: a reminder's schedule is checked by what it means (cron expressions that fire at the same times, a one-off
time within a tolerance, "every two hours" as an interval or as a cron with two-hour gaps), a moved reminder as
updated or deleted and made again, a corrected fact as updated, replaced or deleted and stored again, a weekday
said on that weekday as today or a week on.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise
from typing import Any

from agent_taskset import (
    Check,
    Task,
    World,
    all_of,
    at,
    cron_skill,
    day,
    event_at,
    fact_gone,
    fact_id,
    fact_with,
    file_operation,
    file_with,
    has_any,
    listed_events_on,
    mail_to,
    next_weekday,
    no_file,
    no_skill_with,
    not_,
    once_skill,
    reminder_call,
    searched,
    seed_events,
    seed_facts,
    seed_files,
    seed_skill,
    skill_id,
    skill_text,
    tool_call,
    trigger,
    user_skills,
)
from croniter import croniter

SET_NAME = "fresh-2026-11-27b"


def _every(schedule: str, minutes: int) -> bool:
    """A cron expression whose next fire times (a day and a half of them) are all `minutes` apart."""
    if not croniter.is_valid(schedule):
        return False
    runs = croniter(schedule, datetime(2026, 1, 1, tzinfo=UTC))
    times = [runs.get_next(datetime) for _ in range(36 * 60 // minutes)]
    return all(later - earlier == timedelta(minutes=minutes) for earlier, later in pairwise(times))


def interval_skill(minutes: int, *words: str) -> Check:
    """A repeating reminder every `minutes`: stored as `interval_minutes` or as a cron with even gaps of that size."""

    def check(world: World) -> str | None:
        found: list[tuple[Any, Any, str]] = []
        for skill in user_skills(world):
            if not has_any(skill_text(skill), words):
                continue
            config = trigger(skill)
            interval, schedule = config.get("interval_minutes"), str(config.get("schedule") or "")
            if str(interval).strip() == str(minutes) or (schedule and _every(schedule, minutes)):
                return None
            found.append((skill.get("name"), interval, schedule))
        return f"no skill about {'/'.join(words)} every {minutes} minutes (found {found})"

    return check


def event_on_weekday(summary_words: list[str], weekday: int, hour: int, minute: int = 0) -> Check:
    """An event made "on <weekday> at h:m": on the next such day, or today when today is that day."""

    def check(world: World) -> str | None:
        days = [next_weekday(world, weekday)] + ([day(world, 0)] if world.now.weekday() == weekday else [])
        starts = [start + timedelta(hours=hour, minutes=minute) for start in days]
        problems = [event_at(summary_words, lambda _world, start=start: start)(world) for start in starts]
        return None if None in problems else problems[0]

    return check


def _weekday_at(world: World, weekday: int, hour: int, minute: int) -> str:
    return (next_weekday(world, weekday) + timedelta(hours=hour, minutes=minute)).strftime("%Y-%m-%dT%H:%M:%S")


FRESH_B_TASKS: tuple[Task, ...] = (
    # reminders and skills --------------------------------------------------------------------------------------------
    Task(
        "freshb-skills-twenty-minutes",
        "skills",
        ("remind me in twenty minutes to take the lasagna out of the oven",),
        once_skill(lambda w: w.now + timedelta(minutes=20), timedelta(minutes=10), "lasagna", "oven"),
        ((reminder_call("Lasagna", {"in_minutes": 20}, "Remind the user to take the lasagna out of the oven."),),),
    ),
    Task(
        "freshb-skills-day-after-tomorrow",
        "skills",
        (
            "Kindly remind me the day after tomorrow at seven o'clock in the morning to telephone the pharmacy "
            "about my prescription.",
        ),
        once_skill(lambda w: day(w, 2) + timedelta(hours=7), timedelta(minutes=5), "pharmacy", "prescription"),
        (
            (
                tool_call(
                    "memory_store_skill",
                    lambda w: {
                        "name": "Telephone the pharmacy",
                        "trigger_type": "cron",
                        "trigger_config": {"at": at(w, 2, 7)},
                        "instructions": "Remind the user to telephone the pharmacy about their prescription.",
                    },
                ),
            ),
        ),
    ),
    Task(
        "freshb-skills-weekdays",
        "skills",
        ("every weekday at seven fifteen remind me to pack the kids lunches pls",),
        cron_skill("15 7 * * 1-5", "lunch"),
        ((reminder_call("Pack lunches", {"schedule": "15 7 * * 1-5"}, "Remind the user to pack the kids' lunches."),),),
    ),
    Task(
        "freshb-skills-first-of-month-fr",
        "skills",
        ("Pourriez-vous me rappeler le premier de chaque mois à neuf heures de payer le loyer, s'il vous plaît ?",),
        cron_skill("0 9 1 * *", "loyer", "rent"),
        ((reminder_call("Payer le loyer", {"schedule": "0 9 1 * *"}, "Rappeler à l'utilisateur de payer le loyer."),),),
        lang="fr",
    ),
    Task(
        "freshb-skills-saturday-pl",
        "skills",
        ("co sobotę o dziesiątej rano przypomnij mi żeby odebrać warzywa z targu",),
        cron_skill("0 10 * * 6", "warzyw", "targ", "vegetable", "market"),
        (
            (
                reminder_call(
                    "Warzywa z targu",
                    {"schedule": "0 10 * * 6"},
                    "Przypomnij użytkownikowi o odebraniu warzyw z targu.",
                ),
            ),
        ),
        lang="pl",
    ),
    Task(
        "freshb-skills-two-hours-sv",
        "skills",
        ("påminn mig varannan timme att dricka vatten tack",),
        interval_skill(120, "vatten", "dricka", "water", "drink"),
        ((reminder_call("Dricka vatten", {"interval_minutes": 120}, "Påminn användaren att dricka vatten."),),),
        lang="sv",
    ),
    Task(
        "freshb-skills-cancel-cs",
        "skills",
        ("Zrušte prosím moji připomínku na zalévání zahrady, tu už nebudu potřebovat.",),
        no_skill_with("zahrad", "garden"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call("memory_delete_skill", lambda w: {"skill_id": skill_id("zahrad")(w)}),
            ),
        ),
        lang="cs",
        setup=seed_skill("Zalévání zahrady", "0 19 * * *", "Připomeň uživateli, aby zalil zahradu."),
    ),
    Task(
        "freshb-skills-move",
        "skills",
        ("move ellas piano reminder to five instead of four",),
        all_of(
            cron_skill("0 17 * * 3", "piano"),
            not_(cron_skill("0 16 * * 3", "piano"), "the piano reminder still fires at four"),
        ),
        (
            (
                tool_call("memory_list_skills"),
                tool_call(
                    "memory_update_skill",
                    lambda w: {"skill_id": skill_id("piano")(w), "trigger_config": {"schedule": "0 17 * * 3"}},
                ),
            ),
        ),
        setup=seed_skill("Ella's piano", "0 16 * * 3", "Remind the user that Ella's piano practice is starting."),
    ),
    # memory --------------------------------------------------------------------------------------------------------
    Task(
        "freshb-memory-swim",
        "memory",
        ("pls remember jonahs swim class is on thursdays at four thirty",),
        fact_with(["Jonah"], ["swim"], ["thursday"]),
        (
            (
                tool_call(
                    "store_fact", {"fact": "Son Jonah's swim class is on Thursdays at 4:30 pm", "category": "contact"}
                ),
            ),
        ),
    ),
    Task(
        "freshb-memory-key-sv",
        "memory",
        ("Var snäll och kom ihåg att min granne Birgitta har en reservnyckel till huset.",),
        fact_with(["Birgitta"], ["nyckel", "key"]),
        (
            (
                tool_call(
                    "store_fact", {"fact": "Grannen Birgitta har en reservnyckel till huset", "category": "contact"}
                ),
            ),
        ),
        lang="sv",
    ),
    Task(
        "freshb-memory-recall-brother-pl",
        "memory",
        ("napisz do mojego brata maila że obiad w niedzielę jest o drugiej",),
        mail_to("tomasz.wrona@example.com", ["obiad", "dinner", "lunch"]),
        (
            (
                tool_call("search_memories", {"query": "brother email"}),
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "tomasz.wrona@example.com",
                        "subject": "Obiad w niedzielę",
                        "body": "Cześć Tomek, obiad w niedzielę jest o 14:00.",
                    },
                ),
            ),
        ),
        lang="pl",
        setup=seed_facts(("Brother Tomasz's email address is tomasz.wrona@example.com", "contact")),
    ),
    Task(
        "freshb-memory-recall-plate",
        "memory",
        (
            "Would you be so kind as to write my car's registration number into a file called parking-permit.txt? "
            "I am afraid I can never remember it myself.",
        ),
        file_with("parking-permit.txt", ["KX482TB", "KX 482 TB", "KX-482-TB"]),
        (
            (
                tool_call("search_memories", {"query": "car registration number"}),
                tool_call("filer_create_file", {"path": "parking-permit.txt", "content": "Registration: KX482TB\n"}),
            ),
        ),
        setup=seed_facts(("The car's registration number is KX482TB", "background")),
    ),
    Task(
        "freshb-memory-correct-shoes",
        "memory",
        ("mias shoe size is thirty two now not thirty one pls fix that",),
        all_of(fact_with(["Mia"], ["32", "thirty-two", "thirty two"]), fact_gone("Daughter Mia's shoe size is 31")),
        (
            (
                tool_call("memory_list_facts"),
                tool_call(
                    "memory_update_fact",
                    lambda w: {"fact_id": fact_id("shoe size")(w), "fact": "Daughter Mia's shoe size is 32"},
                ),
            ),
        ),
        setup=seed_facts(("Daughter Mia's shoe size is 31", "contact")),
    ),
    Task(
        "freshb-memory-correct-doctor-de",
        "memory",
        ("Ich muss mich leider korrigieren: Mein Hausarzt heißt nicht Dr. Brandt, sondern Dr. Albrecht.",),
        all_of(fact_with(["Albrecht"]), fact_gone("Family doctor is Dr. Brandt")),
        (
            (
                tool_call("memory_list_facts"),
                tool_call(
                    "memory_update_fact",
                    lambda w: {"fact_id": fact_id("Brandt")(w), "fact": "Family doctor is Dr. Albrecht"},
                ),
            ),
        ),
        lang="de",
        setup=seed_facts(("Family doctor is Dr. Brandt", "contact")),
    ),
    # files ---------------------------------------------------------------------------------------------------------
    Task(
        "freshb-files-lunchbox",
        "files",
        ("make a file called lunchbox.txt with apple slices cheese sandwich and two juice boxes pls",),
        file_with("lunchbox.txt", ["apple"], ["cheese"], ["juice"]),
        (
            (
                tool_call(
                    "filer_create_file",
                    {"path": "lunchbox.txt", "content": "- apple slices\n- cheese sandwich\n- 2 juice boxes\n"},
                ),
            ),
        ),
    ),
    Task(
        "freshb-files-read-it",
        "files",
        ("Potrebbe cortesemente leggermi il contenuto del file ricetta-nonna.txt? La ringrazio.",),
        file_operation("read_file", "ricetta-nonna.txt"),
        ((tool_call("filer_read_file", {"path": "ricetta-nonna.txt"}),),),
        lang="it",
        setup=seed_files({"ricetta-nonna.txt": "Ragù della nonna: sedano, carota, cipolla, manzo, vino rosso.\n"}),
    ),
    Task(
        "freshb-files-delete-cs",
        "files",
        ("smaž prosím soubor stary-seznam.txt už ho nepotřebuju",),
        no_file("stary-seznam.txt"),
        ((tool_call("filer_delete_file", {"path": "stary-seznam.txt"}),),),
        lang="cs",
        setup=seed_files({"stary-seznam.txt": "mléko\nchleba\n"}),
    ),
    # email -----------------------------------------------------------------------------------------------------------
    Task(
        "freshb-email-thanks",
        "email",
        (
            "Would you please send an e-mail to my grandson Oliver at oliver.grant@example.com to thank him for the "
            "lovely flowers he sent for my birthday?",
        ),
        mail_to("oliver.grant@example.com", ["flower"], ["thank"]),
        (
            (
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "oliver.grant@example.com",
                        "subject": "Thank you for the flowers",
                        "body": "Dear Oliver, thank you so much for the lovely flowers you sent for my birthday.",
                    },
                ),
            ),
        ),
    ),
    Task(
        "freshb-email-school-es",
        "email",
        ("manda un correo a la profe marta.ruiz@example.com diciendo que lucas no va mañana porque tiene fiebre",),
        mail_to("marta.ruiz@example.com", ["fiebre", "fever"]),
        (
            (
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "marta.ruiz@example.com",
                        "subject": "Lucas mañana",
                        "body": "Hola Marta, Lucas no irá mañana al colegio porque tiene fiebre.",
                    },
                ),
            ),
        ),
        lang="es",
    ),
    # calendar --------------------------------------------------------------------------------------------------------
    Task(
        "freshb-calendar-teacher",
        "calendar",
        ("put parent teacher meeting on my calendar thursday at five thirty pm",),
        event_on_weekday(["parent", "teacher"], 3, 17, 30),
        (
            (
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Parent-teacher meeting",
                        "start_date_time": _weekday_at(w, 3, 17, 30),
                        "end_date_time": _weekday_at(w, 3, 18, 30),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
    ),
    Task(
        "freshb-calendar-list-de",
        "calendar",
        ("Könnten Sie mir bitte sagen, welche Termine ich übermorgen in meinem Kalender habe?",),
        listed_events_on(2),
        ((tool_call("gmail_list_events", lambda w: {"time_min": at(w, 2, 0) + "Z", "time_max": at(w, 3, 0) + "Z"}),),),
        lang="de",
        setup=seed_events(("Fußpflege", 2, 11)),
    ),
    # web search ------------------------------------------------------------------------------------------------------
    Task(
        "freshb-search-kew",
        "search",
        (
            "I should like to know the opening hours of the glasshouses at Kew Gardens this week. Would you look "
            "that up for me, please?",
        ),
        searched(("web", "news"), ["Kew"]),
        ((tool_call("searcher_web_search", {"query": "Kew Gardens glasshouses opening hours"}),),),
    ),
    Task(
        "freshb-search-braga-pt",
        "search",
        ("pesquisa pf parques infantis cobertos em braga",),
        searched(("web", "news"), ["Braga"]),
        ((tool_call("searcher_web_search", {"query": "parques infantis cobertos Braga"}),),),
        lang="pt",
    ),
    # multi-step ------------------------------------------------------------------------------------------------------
    Task(
        "freshb-multi-eggs",
        "multistep",
        ("look up how long to boil an egg for a runny yolk and save it in eggs.txt",),
        all_of(searched(("web", "news"), ["egg"]), file_with("eggs.txt", ["egg"])),
        (
            (
                tool_call("searcher_web_search", {"query": "how long to boil an egg runny yolk"}),
                tool_call("filer_create_file", {"path": "eggs.txt", "content": "Soft-boiled egg: about 6 minutes.\n"}),
            ),
        ),
    ),
    # follow-ups in one conversation ----------------------------------------------------------------------------------
    Task(
        "freshb-follow-field-trip",
        "followup",
        ("remind me tmrw at eight am to sign the field trip form", "actually make it seven thirty"),
        all_of(
            once_skill(lambda w: day(w, 1) + timedelta(hours=7, minutes=30), timedelta(minutes=5), "field trip"),
            not_(
                once_skill(lambda w: day(w, 1) + timedelta(hours=8), timedelta(minutes=5), "field trip"),
                "the field trip reminder still fires at eight",
            ),
        ),
        (
            (
                tool_call(
                    "memory_store_skill",
                    lambda w: {
                        "name": "Sign the field trip form",
                        "trigger_type": "cron",
                        "trigger_config": {"at": at(w, 1, 8)},
                        "instructions": "Remind the user to sign the field trip form.",
                    },
                ),
            ),
            (
                tool_call(
                    "memory_update_skill",
                    lambda w: {"skill_id": skill_id("field trip")(w), "trigger_config": {"at": at(w, 1, 7, 30)}},
                ),
            ),
        ),
    ),
    Task(
        "freshb-follow-cards",
        "followup",
        (
            "Please create a file named christmas-cards.txt listing the Hendersons and the Patels.",
            "I beg your pardon, I forgot the Nakamuras. Would you add them as well?",
        ),
        file_with("christmas-cards.txt", ["Henderson"], ["Patel"], ["Nakamura"]),
        (
            (
                tool_call(
                    "filer_create_file", {"path": "christmas-cards.txt", "content": "The Hendersons\nThe Patels\n"}
                ),
            ),
            (
                tool_call(
                    "filer_update_file",
                    {"path": "christmas-cards.txt", "content": "The Hendersons\nThe Patels\nThe Nakamuras\n"},
                ),
            ),
        ),
    ),
    Task(
        "freshb-follow-pharmacy-es",
        "followup",
        ("busca farmacias de guardia en zaragoza", "vale guárdame eso en farmacias.txt porfa"),
        all_of(
            searched(("web", "news"), ["Zaragoza"]), file_with("farmacias.txt", ["farmacia", "pharmac", "Zaragoza"])
        ),
        (
            (tool_call("searcher_web_search", {"query": "farmacias de guardia Zaragoza"}),),
            (
                tool_call(
                    "filer_create_file", {"path": "farmacias.txt", "content": "Farmacias de guardia en Zaragoza\n"}
                ),
            ),
        ),
        lang="es",
    ),
)
