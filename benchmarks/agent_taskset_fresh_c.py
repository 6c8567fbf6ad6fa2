"""A third fresh batch of agent tasks, written late on 2026-11-27 by a fourth author, never used to fix the product.

The earlier batches are read once measured, and the product is fixed from what they show; this batch is for
measuring after those fixes, so it was written without looking at what they found. Its voice is a fourth one: a
café owner typing terse notes between customers (abbreviations, "n" for and, arrows, typos) and a student writing
chatty run-on messages ("ok so", "lol", "like"), in English and in Romanian, Ukrainian, Hungarian, Dutch,
Japanese, Greek, Russian and Turkish. Run it as a group with `agent_tasks.py --set fresh-2026-11-28`; MEASURE it
before anyone reads a failure of its to change the product.

The checks are those of `agent_taskset`, on the end state only, and accept every way a correct assistant could get
there: a reminder by what its schedule means (equal cron expressions, Monday-and-Thursday as one skill or two, a
one-off time within a tolerance, a weekday that may be today), a moved or corrected thing as updated or deleted and
made again, a paused reminder as switched off but kept, a corrected line of a file or a fact as the new value
written with or without the old one beside it, a file copied or moved by the Filer or read and written again.
"""

from __future__ import annotations

from datetime import timedelta

from agent_taskset import (
    Check,
    Task,
    World,
    all_of,
    any_of,
    at,
    cron_skill,
    cron_skills_together,
    day,
    event_at,
    event_id,
    event_moved,
    fact_gone,
    fact_id,
    fact_with,
    file_with,
    lines_about,
    mail_to,
    no_fact_saying,
    no_file,
    no_skill_with,
    not_,
    on_weekday,
    once_skill,
    reminder_call,
    searched,
    seed_events,
    seed_facts,
    seed_files,
    seed_mail,
    seed_skill,
    skill_id,
    skill_paused,
    tool_call,
)
from agent_taskset_fresh import draft_id, mail_id

SET_NAME = "fresh-2026-11-28"


def seed_exam_mail(world: World) -> None:
    when = day(world, 5)
    world.add_mail(
        "exams-office@uni.example",
        "Exam timetable: Statistics 201",
        f"Dear student, your Statistics 201 exam takes place on {when:%A %d %B %Y} at 09:00 in Hall C. "
        "Bring your student card and a non-programmable calculator.",
    )


def _essay_reminder_on(weekday: int) -> Check:
    """A one-off essay reminder on that weekday at 18:00 (this one if it is today, or the next)."""
    return any_of(*(once_skill(when, timedelta(minutes=5), "essay") for when in on_weekday(weekday, 18)))


def _essay_at(world: World, weekday: int) -> str:
    return on_weekday(weekday, 18)[0](world).strftime("%Y-%m-%dT%H:%M:%S")


FRESH_C_TASKS: tuple[Task, ...] = (
    # files ---------------------------------------------------------------------------------------------------------
    Task(
        "freshc-files-prices",
        "files",
        ("new file prices.txt: espresso 2.20 / latte 3.10 / croissant 2.50",),
        file_with("prices.txt", ["espresso"], ["latte"], ["croissant"]),
        (
            (
                tool_call(
                    "filer_create_file",
                    {"path": "prices.txt", "content": "espresso 2.20\nlatte 3.10\ncroissant 2.50\n"},
                ),
            ),
        ),
    ),
    Task(
        "freshc-files-copy",
        "files",
        (
            "ok so im about to basically rewrite my whole lab report and im scared ill wreck it lol so can you make "
            "a copy of lab-report.md called lab-report-old.md first just in case",
        ),
        all_of(file_with("lab-report-old.md", ["titration"]), file_with("lab-report.md", ["titration"])),
        ((tool_call("filer_copy_file", {"source": "lab-report.md", "destination": "lab-report-old.md"}),),),
        setup=seed_files(
            {"lab-report.md": "# Titration of acetic acid\n\nMean titre 23.4 ml; concentration 0.78 mol/l.\n"}
        ),
    ),
    Task(
        "freshc-files-move-ro",
        "files",
        ("muta factura-octombrie.txt in folderul facturi",),
        all_of(file_with("facturi/factura-octombrie.txt", ["2217"]), no_file("factura-octombrie.txt")),
        (
            (
                tool_call(
                    "filer_move_file",
                    {"source": "factura-octombrie.txt", "destination": "facturi/factura-octombrie.txt"},
                ),
            ),
        ),
        lang="ro",
        setup=seed_files({"factura-octombrie.txt": "Factura nr. 2217\nFurnizor: Lăptăria Someș\nTotal: 1.250 lei\n"}),
    ),
    # memory --------------------------------------------------------------------------------------------------------
    Task(
        "freshc-mem-supplier",
        "memory",
        ("remember: flour supplier = millbrook farms, they deliver tue n fri",),
        fact_with(["Millbrook"], ["flour"]),
        (
            (
                tool_call(
                    "store_fact",
                    {
                        "fact": "Flour supplier is Millbrook Farms; they deliver on Tuesdays and Fridays",
                        "category": "contact",
                    },
                ),
            ),
        ),
    ),
    Task(
        "freshc-mem-correct-uk",
        "memory",
        (
            "ой стоп, я ж тобі казала що мій день народження 14 травня? це неправильно, насправді 15-го, виправ будь ласка",
        ),
        all_of(fact_with(["15"], ["May", "трав"]), fact_gone("User's birthday is on May 14")),
        (
            (
                tool_call("memory_list_facts"),
                tool_call(
                    "memory_update_fact",
                    lambda w: {"fact_id": fact_id("May 14")(w), "fact": "User's birthday is on May 15"},
                ),
            ),
        ),
        lang="uk",
        setup=seed_facts(("User's birthday is on May 14", "background")),
    ),
    Task(
        "freshc-mem-forget-hu",
        "memory",
        ("felejtsd el hogy kedden zárva vagyunk, mostantól kedden is nyitva leszünk",),
        fact_gone("The café is closed on Tuesdays"),
        (
            (
                tool_call("memory_list_facts"),
                tool_call("memory_delete_fact", lambda w: {"fact_id": fact_id("closed on Tuesdays")(w)}),
            ),
        ),
        lang="hu",
        setup=seed_facts(("The café is closed on Tuesdays", "background")),
    ),
    Task(
        "freshc-mem-recall-nl",
        "memory",
        ("stuur mn boekhouder ff een mail dat de btw papieren klaarliggen",),
        mail_to("marieke@jansen-boekhouding.example", ["btw", "vat", "belasting", "tax"]),
        (
            (
                tool_call("search_memories", {"query": "boekhouder accountant email"}),
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "marieke@jansen-boekhouding.example",
                        "subject": "Btw-papieren",
                        "body": "Hoi Marieke, de btw-papieren liggen klaar.",
                    },
                ),
            ),
        ),
        lang="nl",
        setup=seed_facts(("Accountant Marieke Jansen's email is marieke@jansen-boekhouding.example", "contact")),
    ),
    Task(
        "freshc-mem-recall-student-id",
        "memory",
        (
            "hiii ok so the library is making me fill in this form and it wants my student id number and i literally "
            "never remember it, can you put it in a file called library-form.txt",
        ),
        file_with("library-form.txt", ["2291847"]),
        (
            (
                tool_call("search_memories", {"query": "student ID number"}),
                tool_call("filer_create_file", {"path": "library-form.txt", "content": "Student ID: S2291847\n"}),
            ),
        ),
        setup=seed_facts(("Student ID number is S2291847", "background")),
    ),
    # reminders and skills --------------------------------------------------------------------------------------------
    Task(
        "freshc-skills-bread-order",
        "skills",
        ("remind me mon + thu 6am to put in the bread order w/ dekker",),
        cron_skills_together("0 6 * * 1,4", "bread", "Dekker"),
        (
            (
                reminder_call(
                    "Bread order (Monday)",
                    {"every": "monday", "time": "06:00"},
                    "Remind the user to put in the bread order with Dekker.",
                ),
                reminder_call(
                    "Bread order (Thursday)",
                    {"every": "thursday", "time": "06:00"},
                    "Remind the user to put in the bread order with Dekker.",
                ),
            ),
        ),
    ),
    Task(
        "freshc-skills-dryer",
        "skills",
        (
            "omg can you remind me in like an hour and a half to move my stuff from the washer to the dryer, last "
            "time i forgot and it sat there all night and smelled sooo bad",
        ),
        once_skill(lambda w: w.now + timedelta(minutes=90), timedelta(minutes=10), "dryer", "washer"),
        ((reminder_call("Washer to dryer", {"in_minutes": 90}, "Remind the user to move the washing to the dryer."),),),
    ),
    Task(
        "freshc-skills-ja-library",
        "skills",
        ("明日の朝7時に図書館の本を返すの、リマインドしてくれる？絶対忘れそうだから笑",),
        once_skill(lambda w: day(w, 1) + timedelta(hours=7), timedelta(minutes=5), "図書館", "library", "返却"),
        (
            (
                reminder_call(
                    "図書館の本を返す", {"in_days": 1, "time": "07:00"}, "図書館の本を返すようにリマインドする。"
                ),
            ),
        ),
        lang="ja",
    ),
    Task(
        "freshc-skills-el-vat",
        "skills",
        ("Θύμιζέ μου κάθε 15 του μήνα στις 10 το πρωί να πληρώνω το ΦΠΑ",),
        cron_skill("0 10 15 * *", "ΦΠΑ", "Φ.Π.Α", "VAT", "tax", "φόρο"),
        (
            (
                reminder_call(
                    "Πληρωμή ΦΠΑ",
                    {"every": "month", "day": 15, "time": "10:00"},
                    "Υπενθύμισε στον χρήστη να πληρώσει το ΦΠΑ.",
                ),
            ),
        ),
        lang="el",
    ),
    Task(
        "freshc-skills-delete-ru",
        "skills",
        ("удали напоминалку про инвентаризацию, больше не надо",),
        no_skill_with("инвентар", "inventory", "stocktake", "stock-take"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call("memory_delete_skill", lambda w: {"skill_id": skill_id("инвентар")(w)}),
            ),
        ),
        lang="ru",
        setup=seed_skill("Инвентаризация склада", "0 18 * * 5", "Напомнить провести инвентаризацию склада."),
    ),
    Task(
        "freshc-skills-move-staff",
        "skills",
        ("staff mtg reminder -> 8:30 not 9. still mondays",),
        all_of(
            cron_skill("30 8 * * 1", "staff"),
            not_(cron_skill("0 9 * * 1", "staff"), "the staff meeting reminder still fires at 9"),
        ),
        (
            (
                tool_call("memory_list_skills"),
                tool_call(
                    "memory_update_skill",
                    lambda w: {"skill_id": skill_id("staff")(w), "trigger_config": {"time": "08:30"}},
                ),
            ),
        ),
        setup=seed_skill("Staff meeting", "0 9 * * 1", "Remind the user about the Monday staff meeting."),
    ),
    Task(
        "freshc-skills-pause",
        "skills",
        (
            "ugh so i sprained my ankle lol, can you pause my bouldering reminder for a few weeks? dont delete it "
            "tho i want it back when im better",
        ),
        skill_paused("boulder"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call("memory_update_skill", lambda w: {"skill_id": skill_id("boulder")(w), "enabled": False}),
            ),
        ),
        setup=seed_skill("Bouldering", "0 19 * * 2,4", "Remind the user to go bouldering."),
    ),
    # email -----------------------------------------------------------------------------------------------------------
    Task(
        "freshc-email-quote",
        "email",
        ("email jfarrell@greenleaf-events.example the quote: 40 sandwich platters fri, 180 eur incl delivery",),
        mail_to("jfarrell@greenleaf-events.example", ["40"], ["180"]),
        (
            (
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "jfarrell@greenleaf-events.example",
                        "subject": "Quote: 40 sandwich platters",
                        "body": "Hi J., 40 sandwich platters for Friday come to 180 EUR including delivery.",
                    },
                ),
            ),
        ),
    ),
    Task(
        "freshc-email-draft-ta",
        "email",
        (
            "heyy can you write a draft email to my TA rhea.solberg@uni.example asking if i could maybe get a couple "
            "extra days on the stats problem set because i was sick all last week, but DONT send it yet i wanna "
            "read it first",
        ),
        all_of(
            mail_to("rhea.solberg@uni.example", ["stat", "problem set"], drafts=True),
            not_(mail_to("rhea.solberg@uni.example"), "the mail to rhea.solberg@uni.example was sent, not drafted"),
        ),
        (
            (
                tool_call(
                    "gmail_create_draft",
                    {
                        "to": "rhea.solberg@uni.example",
                        "subject": "Extension for the stats problem set",
                        "body": "Hi Rhea, I was ill all last week. Could I have a couple of extra days for the "
                        "stats problem set?",
                    },
                ),
            ),
        ),
    ),
    Task(
        "freshc-email-reply-ro",
        "email",
        ("raspunde la mailul de la cafeneaua veche: da, livram joi pe la 9",),
        mail_to("comenzi@cafeneaua-veche.example", ["joi", "thursday"]),
        (
            (
                tool_call("gmail_list_emails", {"query": "from:comenzi@cafeneaua-veche.example"}),
                tool_call(
                    "gmail_reply_email",
                    lambda w: {
                        "message_id": mail_id("from:comenzi@cafeneaua-veche.example")(w),
                        "body": "Bună ziua, da, livrăm joi pe la ora 9.",
                    },
                ),
            ),
        ),
        lang="ro",
        setup=seed_mail(
            (
                "comenzi@cafeneaua-veche.example",
                "Comandă torturi",
                "Bună ziua, ne puteți livra 3 torturi joi dimineață? Mulțumim, Ioana (Cafeneaua Veche)",
            )
        ),
    ),
    # calendar --------------------------------------------------------------------------------------------------------
    Task(
        "freshc-cal-fridge",
        "calendar",
        ("put the walk-in fridge repair guy in the cal tmrw 7:15am",),
        event_at(["fridge", "repair"], lambda w: day(w, 1) + timedelta(hours=7, minutes=15)),
        (
            (
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Walk-in fridge repair",
                        "start_date_time": at(w, 1, 7, 15),
                        "end_date_time": at(w, 1, 8, 15),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
    ),
    Task(
        "freshc-cal-move-uk",
        "calendar",
        ("перенеси консультацію з керівником післязавтра на годину пізніше",),
        event_moved(["консультац", "керівник", "supervisor"], lambda w: day(w, 2) + timedelta(hours=14)),
        (
            (
                tool_call(
                    "gmail_list_events", lambda w: {"time_min": at(w, 2, 0) + "Z", "time_max": at(w, 3, 0) + "Z"}
                ),
                tool_call(
                    "gmail_update_event",
                    lambda w: {
                        "event_id": event_id("консультац")(w),
                        "start_date_time": at(w, 2, 14),
                        "end_date_time": at(w, 2, 15),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        lang="uk",
        setup=seed_events(("Консультація з науковим керівником", 2, 13)),
    ),
    Task(
        "freshc-cal-ja-seminar",
        "calendar",
        ("明後日の15時から16時まで、ゼミの発表練習をカレンダーに入れといて！",),
        event_at(["ゼミ", "発表", "seminar", "presentation"], lambda w: day(w, 2) + timedelta(hours=15)),
        (
            (
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "ゼミの発表練習",
                        "start_date_time": at(w, 2, 15),
                        "end_date_time": at(w, 2, 16),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        lang="ja",
    ),
    # web search ------------------------------------------------------------------------------------------------------
    Task(
        "freshc-search-boba",
        "search",
        ("ok random q but how many calories are in a bubble tea?? like the brown sugar one. can u look it up",),
        searched(("web", "news"), ["bubble tea", "boba", "brown sugar"]),
        ((tool_call("searcher_web_search", {"query": "brown sugar bubble tea calories"}),),),
    ),
    Task(
        "freshc-search-tr",
        "search",
        ("İzmir'de toptan kahve çekirdeği satan firmaları araştır",),
        searched(("web", "news"), ["zmir"]),
        ((tool_call("searcher_web_search", {"query": "İzmir toptan kahve çekirdeği"}),),),
        lang="tr",
    ),
    # multi-step ------------------------------------------------------------------------------------------------------
    Task(
        "freshc-multi-invoice",
        "multistep",
        ("read invoice-1043.txt n email it to the cust, tell them payment due in 14 days",),
        # The address is only in the file: a mail to it means the file was read.
        mail_to("accounts@halvorsen-catering.example", ["1043"], ["14", "fourteen"]),
        (
            (
                tool_call("filer_read_file", {"path": "invoice-1043.txt"}),
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "accounts@halvorsen-catering.example",
                        "subject": "Invoice 1043",
                        "body": "Hello, here is invoice 1043 for EUR 412.50 (3 coffee urns, 2 tray bakes). "
                        "Payment is due in 14 days.",
                    },
                ),
            ),
        ),
        setup=seed_files(
            {
                "invoice-1043.txt": "INVOICE 1043\nCustomer: Halvorsen Catering\n"
                "Email: accounts@halvorsen-catering.example\n3 coffee urns, 2 tray bakes\nTotal: EUR 412.50\n"
            }
        ),
    ),
    Task(
        "freshc-multi-exam",
        "multistep",
        (
            "hey so theres an email from the exams office about my stats exam, can you put it in my calendar?? and "
            "remind me the night before at 8pm to pack my calculator bc i WILL forget",
        ),
        all_of(
            event_at(["exam", "stat"], lambda w: day(w, 5) + timedelta(hours=9)),
            once_skill(lambda w: day(w, 4) + timedelta(hours=20), timedelta(minutes=5), "calculator"),
        ),
        (
            (
                tool_call("gmail_list_emails", {"query": "exam"}),
                tool_call("gmail_get_email", lambda w: {"message_id": mail_id("from:exams-office@uni.example")(w)}),
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Statistics 201 exam (Hall C)",
                        "start_date_time": at(w, 5, 9),
                        "end_date_time": at(w, 5, 11),
                        "time_zone": "UTC",
                    },
                ),
                tool_call(
                    "memory_store_skill",
                    lambda w: {
                        "name": "Pack the calculator",
                        "trigger_type": "cron",
                        "trigger_config": {"at": at(w, 4, 20)},
                        "instructions": "Remind the user to pack their calculator for tomorrow's stats exam.",
                    },
                ),
            ),
        ),
        setup=seed_exam_mail,
    ),
    Task(
        "freshc-multi-train-ro",
        "multistep",
        ("cauta cat costa un bilet de tren Bucuresti Brasov si trimite-i lui andrei.pop@example.com ce gasesti",),
        all_of(
            searched(("web", "news"), ["Brasov", "Brașov", "Braşov"]),
            mail_to("andrei.pop@example.com", ["Brasov", "Brașov", "Braşov", "bilet", "tren", "train", "ticket"]),
        ),
        (
            (
                tool_call("searcher_web_search", {"query": "pret bilet tren Bucuresti Brasov"}),
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "andrei.pop@example.com",
                        "subject": "Bilet tren București–Brașov",
                        "body": "Salut Andrei, un bilet de tren București–Brașov costă în jur de 50 de lei.",
                    },
                ),
            ),
        ),
        lang="ro",
    ),
    # follow-ups in one conversation ----------------------------------------------------------------------------------
    Task(
        "freshc-follow-stock",
        "followup",
        ("new file stock.txt - cups 200, lids 150, straws 500", "lids r 120 not 150 sry"),
        all_of(file_with("stock.txt", ["cups"], ["straws"]), lines_about("stock.txt", ["lid"], ["120"])),
        (
            (tool_call("filer_create_file", {"path": "stock.txt", "content": "cups 200\nlids 150\nstraws 500\n"}),),
            (tool_call("filer_update_file", {"path": "stock.txt", "content": "cups 200\nlids 120\nstraws 500\n"}),),
        ),
    ),
    Task(
        "freshc-follow-essay",
        "followup",
        (
            "can u remind me sunday at 6pm to start my history essay, its due monday and i always leave it too "
            "late haha",
            "wait no saturday is better, same time. sunday i have my cousins thing",
        ),
        all_of(
            _essay_reminder_on(5),
            not_(_essay_reminder_on(6), "the essay reminder still fires on Sunday"),
        ),
        (
            (
                tool_call(
                    "memory_store_skill",
                    lambda w: {
                        "name": "Start the history essay",
                        "trigger_type": "cron",
                        "trigger_config": {"at": _essay_at(w, 6)},
                        "instructions": "Remind the user to start their history essay.",
                    },
                ),
            ),
            (
                tool_call("memory_list_skills"),
                tool_call(
                    "memory_update_skill",
                    lambda w: {"skill_id": skill_id("essay")(w), "trigger_config": {"at": _essay_at(w, 5)}},
                ),
            ),
        ),
    ),
    Task(
        "freshc-follow-draft-ru",
        "followup",
        (
            "сделай черновик письма поставщику sergey.volkov@opt-torg.example: нужно 30 коробок к пятнице",
            "допиши что оплатим по счёту и отправляй",
        ),
        mail_to("sergey.volkov@opt-torg.example", ["30"], ["пятниц", "friday"], ["счёт", "счет", "invoice", "bill"]),
        (
            (
                tool_call(
                    "gmail_create_draft",
                    {
                        "to": "sergey.volkov@opt-torg.example",
                        "subject": "Заказ: 30 коробок",
                        "body": "Сергей, добрый день! Нам нужно 30 коробок к пятнице.",
                    },
                ),
            ),
            (
                tool_call(
                    "gmail_update_draft",
                    lambda w: {
                        "draft_id": draft_id("sergey.volkov@opt-torg.example")(w),
                        "to": "sergey.volkov@opt-torg.example",
                        "subject": "Заказ: 30 коробок",
                        "body": "Сергей, добрый день! Нам нужно 30 коробок к пятнице. Оплатим по счёту.",
                    },
                ),
                tool_call("gmail_send_draft", lambda w: {"draft_id": draft_id("sergey.volkov@opt-torg.example")(w)}),
            ),
        ),
        lang="ru",
    ),
    Task(
        "freshc-follow-key-nl",
        "followup",
        ("onthoud dat de reservesleutel van het magazijn bij Henk ligt", "nee wacht, bij Gerrit. Henk is op vakantie"),
        all_of(
            fact_with(["Gerrit"], ["sleutel", "key"]),
            no_fact_saying(["Henk"], ["sleutel", "key"], unless=["Gerrit"]),
        ),
        (
            (
                tool_call(
                    "store_fact", {"fact": "De reservesleutel van het magazijn ligt bij Henk", "category": "contact"}
                ),
            ),
            (
                tool_call(
                    "memory_update_fact",
                    lambda w: {
                        "fact_id": fact_id("Henk")(w),
                        "fact": "De reservesleutel van het magazijn ligt bij Gerrit",
                    },
                ),
            ),
        ),
        lang="nl",
    ),
)


__all__ = ["FRESH_C_TASKS", "SET_NAME"]
