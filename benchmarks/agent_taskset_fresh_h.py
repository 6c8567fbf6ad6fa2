"""An eighth fresh batch of agent tasks, written on 2026-11-28 by a ninth author, never used to fix the product.

The earlier batches are read once measured, and the product is fixed from what they show; this batch is for
measuring in a later session, after those fixes, so it was written without looking at what any run found. Its
voices are new: the owner of a small café (terse, typed between customers: suppliers and their prices, the
delivery that came short, the espresso machine's engineer, the bread order, the Saturday hire), a PhD student
abroad (supervisor meetings, thesis deadlines, residence-permit and immigration-office paperwork, a little
anxious, sometimes rambling) and a parent of three (school runs, clubs, birthday parties, allergies, the class
trip letter lost in the inbox; typos and emoji), in English and in Spanish, German, French, Polish, Portuguese,
Ukrainian, Korean, Chinese, Arabic, Hindi, Greek and Romanian. Run it as a group with `agent_tasks.py --set
fresh-2026-11-28f`; MEASURE it before anyone reads a failure of its to change the product.

The checks are those of `agent_taskset`, on the end state only, and accept every way a correct assistant could get
there: a reminder by what its schedule means (equal cron expressions, several skills that fire together as one, a
one-off time within a tolerance), a paused reminder as kept and switched off, a cancelled one as deleted or
switched off, a reminder moved to other days as the same hour on the new days with the old day gone, a corrected
fact as the old text gone and the new value stored (updated, or deleted and stored again), a forgotten number as
gone from every fact, a changed price as the new figure on its line however the rest of the file was kept, an
event from a school letter as one at its start or a whole-day one on its day, an event on "Thursday" as today or
next week when today is Thursday, a moved event as the first event about it at the new time, a cancelled event as
gone with its neighbour kept, a reply as mail to the sender (replied or written anew), a draft as a draft and not
sent. The words a check looks for are ones no other task's state uses, because every task shares one stack.
"""

from __future__ import annotations

from datetime import timedelta

from agent_taskset import (
    Task,
    World,
    all_of,
    any_of,
    at,
    cron_skills_together,
    day,
    event_at,
    event_id,
    event_moved,
    fact_gone,
    fact_id,
    fact_with,
    file_operation,
    file_with,
    lines_about,
    mail_to,
    no_event,
    no_fact_with,
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
from agent_taskset_fresh import mail_id
from agent_taskset_fresh_g import event_at_or_all_day

SET_NAME = "fresh-2026-11-28f"


def seed_trip_mail(world: World) -> None:
    """The school's letter about the Year 4 trip, six days from now, somewhere in the parent's inbox."""
    trip = day(world, 6)
    world.add_mail(
        "office@st-brendans-primary.example",
        "Year 4 visit to Thinktank - letter to parents",
        "Dear parents and carers,\n\n"
        f"On {trip:%A} {trip.day} {trip:%B}, Year 4 (Mr Achterberg's class) will visit Thinktank Science Museum in "
        "Birmingham. Children must be in school by 8:15am; the coach will be back at about 3:30pm. Please send a "
        "packed lunch in a named, disposable bag and a waterproof coat.\n\n"
        "St Brendan's Primary School office",
    )


def _thursday_at(world: World, hour: int) -> str:
    return on_weekday(3, hour)[0](world).strftime("%Y-%m-%dT%H:%M:%S")


_PRICES = (
    "Γάλα βρώμης (Alpro Barista) - 1,60 € / λίτρο\n"
    "Καφές σε κόκκους (Loumidis Espresso) - 16,40 € / κιλό\n"
    "Κρουασάν κατεψυγμένα (Kourou) - 0,52 € / τεμάχιο\n"
)
_DEADLINES = (
    "# PhD deadlines\n"
    "- Ch. 2 full draft to Prof. Ammann: 9 Jan\n"
    "- Doctoral school annual report: 30 Jan\n"
    "- Residence permit renewal (Migrationsamt): 14 Feb\n"
)
_JAN_15 = ("15 Jan", "Jan 15", "15th Jan", "Jan 15th", "15.01", "15/01", "01/15", "-01-15", "15.1.")
_DELIVERY_NOTE = (
    "HOLLYBROOK DAIRY - DELIVERY NOTE 48213\n"
    "Customer: The Copper Kettle café\n"
    "Item               Ordered  Delivered\n"
    "Whole milk 2L      18       18\n"
    "Oat milk 1L        12       8\n"
    "Double cream 1L    6        6\n"
    "Salted butter 250g 4        4\n"
)
_MATEO_OLD = "The user's youngest son Mateo is allergic to strawberries"
_CARD_OLD = "The user's Polish residence card (karta pobytu) number is RP 4471803"
_MILL = "livraisons@minoterie-vial.example"
_STUCKI = "s.stucki@geo.unibe.example"
_GUESTS = "kofi-party-guests.txt"
_SCHOOL_RUN = ("book bag", "bookbag", "water bottle", "school run", "out the door", "out of the door")

FRESH_H_TASKS: tuple[Task, ...] = (
    # reminders and skills --------------------------------------------------------------------------------------------
    Task(
        "freshh-skills-swim-pause-es",
        "skills",
        (
            "holaa, la piscina municipal cierra por obras hasta después de Reyes, así que pausa el recordatorio de "
            "natación de Lucía de los miércoles porfa. NO lo borres q en enero vuelve 🙏",
        ),
        skill_paused("natación", "natacion", "piscina", "swimming"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call("memory_update_skill", lambda w: {"skill_id": skill_id("natación")(w), "enabled": False}),
            ),
        ),
        lang="es",
        setup=seed_skill(
            "Natación de Lucía",
            "30 16 * * 3",
            "Recuerda a la usuaria que lleve a Lucía a natación en la piscina municipal (gorro, chanclas y toalla).",
        ),
    ),
    Task(
        "freshh-skills-bakery-days-pl",
        "skills",
        (
            "przypomnienie o zamówieniu pieczywa z piekarni Zawadzki przestaw na poniedziałki i czwartki zamiast "
            "wtorków. godzina bez zmian. dzięki",
        ),
        # The merged times of every such reminder: the Tuesday one left on beside the new days fails.
        cron_skills_together("0 14 * * 1,4", "Zawadzk", "pieczyw", "piekarn", "bakery"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call(
                    "memory_update_skill",
                    lambda w: {"skill_id": skill_id("Zawadzki")(w), "trigger_config": {"schedule": "0 14 * * 1,4"}},
                ),
            ),
        ),
        lang="pl",
        setup=seed_skill(
            "Zamówienie pieczywa - piekarnia Zawadzki",
            "0 14 * * 2",
            "Przypomnij użytkownikowi, żeby złożył zamówienie pieczywa w piekarni Zawadzki na następny dzień.",
        ),
    ),
    Task(
        "freshh-skills-immigration-cancel-zh",
        "skills",
        ("帮我把每周一早上提醒我去看移民局有没有预约空位的那个提醒删掉吧,终于约上了!!",),
        no_skill_with("移民局", "预约空位", "immigration office"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call("memory_delete_skill", lambda w: {"skill_id": skill_id("移民局")(w)}),
            ),
        ),
        lang="zh",
        setup=seed_skill("查移民局预约空位", "0 8 * * 1", "提醒用户去移民局网站看看居留许可的预约有没有空位。"),
    ),
    Task(
        "freshh-skills-school-run",
        "skills",
        (
            "can you remind me every school day at 7.35am: SHOES. BOOK BAGS. WATER BOTTLES. getting three kids out "
            "the door is a circus",
        ),
        cron_skills_together("35 7 * * 1-5", *_SCHOOL_RUN),
        (
            (
                reminder_call(
                    "School run checklist",
                    {"schedule": "35 7 * * 1-5"},
                    "Remind the user: SHOES. BOOK BAGS. WATER BOTTLES. Time to get the three kids out the door.",
                ),
            ),
        ),
    ),
    Task(
        "freshh-skills-boots-hi",
        "skills",
        ("कल शाम 6 बजे याद दिला देना कि आरव के फ़ुटबॉल वाले जूते धोने हैं, परसों उसका मैच है और जूते फिर से कीचड़ में लिपटे पड़े हैं",),
        once_skill(lambda w: day(w, 1) + timedelta(hours=18), timedelta(minutes=5), "आरव", "Aarav", "Arav"),
        (
            (
                tool_call(
                    "memory_store_skill",
                    lambda w: {
                        "name": "आरव के जूते धोना",
                        "trigger_type": "cron",
                        "trigger_config": {"at": at(w, 1, 18)},
                        "instructions": "उपयोगकर्ता को याद दिलाएँ कि आरव के फ़ुटबॉल वाले जूते धोने हैं।",
                    },
                ),
            ),
        ),
        lang="hi",
    ),
    # memory --------------------------------------------------------------------------------------------------------
    Task(
        "freshh-mem-office-ko",
        "memory",
        (
            "교수님 면담 장소 좀 기억해줘!! Brandauer 교수님이랑 면담은 항상 Physik 건물 Raum 3.114에서 함. 자꾸 "
            "까먹어서 엉뚱한 층 감 ㅠㅠ",
        ),
        fact_with(["Brandauer", "브란다우어"], ["3.114", "3114", "3-114"]),
        (
            (
                tool_call(
                    "store_fact",
                    {
                        "fact": "Meetings with supervisor Prof. Brandauer are always in Raum 3.114 (Physik building)",
                        "category": "background",
                    },
                ),
            ),
        ),
        lang="ko",
    ),
    Task(
        "freshh-mem-kiwi",
        "memory",
        (
            "ugh I told you wrong before, it's KIWI Mateo is allergic to, not strawberries. strawberries are totally "
            "fine!! pls fix it, my mum's doing his snacks this week",
        ),
        all_of(fact_gone(_MATEO_OLD), fact_with(["Mateo"], ["kiwi"])),
        (
            (
                tool_call("memory_list_facts"),
                tool_call(
                    "memory_update_fact",
                    lambda w: {
                        "fact_id": fact_id("Mateo")(w),
                        "fact": "The user's youngest son Mateo is allergic to kiwi (strawberries are fine)",
                    },
                ),
            ),
        ),
        setup=seed_facts((_MATEO_OLD, "contact")),
    ),
    Task(
        "freshh-mem-card-uk",
        "memory",
        (
            "Привіт. Видали, будь ласка, з пам'яті номер моєї карти побиту — стара вже недійсна, а нову ще не "
            "видали. Не хочу, щоб ти його десь випадково вставив у документи.",
        ),
        all_of(fact_gone(_CARD_OLD), no_fact_with("4471803", "4471 803")),
        (
            (
                tool_call("memory_list_facts"),
                tool_call("memory_delete_fact", lambda w: {"fact_id": fact_id("4471803")(w)}),
            ),
        ),
        lang="uk",
        setup=seed_facts((_CARD_OLD, "background")),
    ),
    Task(
        "freshh-mem-brakes-account",
        "memory",
        (
            "email dale.mercer@brakes-foodservice.example and ask if he can add 2 extra cases of clotted cream to "
            "thursday's drop. put our account number in, he always asks for it",
        ),
        mail_to("dale.mercer@brakes-foodservice.example", ["55902"], ["clotted", "cream"]),
        (
            (
                tool_call("search_memories", {"query": "Brakes account number"}),
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "dale.mercer@brakes-foodservice.example",
                        "subject": "Extra clotted cream for Thursday",
                        "body": "Hi Dale, could you add 2 extra cases of clotted cream to Thursday's delivery? "
                        "Account number BRK-55902. Thanks!",
                    },
                ),
            ),
        ),
        setup=seed_facts(("The café's customer account number with Brakes foodservice is BRK-55902", "background")),
    ),
    # files ---------------------------------------------------------------------------------------------------------
    Task(
        "freshh-files-clubs-ro",
        "files",
        (
            "Bună! Fă-mi te rog un fișier cluburi-copii.txt cu programul copiilor: Ilinca are balet marți și joi la "
            "17, Radu șah miercuri după școală, Sofia înot sâmbătă la 9. Cu trei copii nu mai țin minte nimic 😅",
        ),
        file_with(
            "cluburi-copii.txt",
            ["Ilinca"],
            ["Radu"],
            ["Sofia"],
            ["balet", "ballet"],
            ["șah", "şah", "sah", "chess"],
            ["înot", "inot", "swim"],
        ),
        (
            (
                tool_call(
                    "filer_create_file",
                    {
                        "path": "cluburi-copii.txt",
                        "content": "Ilinca - balet, marți și joi la 17:00\nRadu - șah, miercuri după școală\n"
                        "Sofia - înot, sâmbătă la 9:00\n",
                    },
                ),
            ),
        ),
        lang="ro",
    ),
    Task(
        "freshh-files-oat-price-el",
        "files",
        (
            "Καλημέρα. Στο αρχείο times-promitheftes.txt άλλαξε την τιμή του γάλακτος βρώμης, ο προμηθευτής την "
            "ανέβασε σε 1,85 το λίτρο από σήμερα. Τα υπόλοιπα άσ' τα όπως είναι.",
        ),
        all_of(
            lines_about("times-promitheftes.txt", ["βρώμης", "Alpro", "oat"], ["1,85", "1.85"]),
            file_with("times-promitheftes.txt", ["16,40", "16.40"], ["0,52", "0.52"]),
        ),
        (
            (
                tool_call("filer_read_file", {"path": "times-promitheftes.txt"}),
                tool_call(
                    "filer_update_file",
                    {"path": "times-promitheftes.txt", "content": _PRICES.replace("1,60", "1,85")},
                ),
            ),
        ),
        lang="el",
        setup=seed_files({"times-promitheftes.txt": _PRICES}),
    ),
    Task(
        "freshh-files-ethics-deadline",
        "files",
        (
            "add the ethics amendment for the interview study to thesis-deadlines.md, due 15 Jan. leave the rest alone pls",
        ),
        file_with("thesis-deadlines.md", ["Ammann"], ["annual report"], ["Migrationsamt"], ["ethics"], _JAN_15),
        (
            (
                tool_call("filer_read_file", {"path": "thesis-deadlines.md"}),
                tool_call(
                    "filer_update_file",
                    {
                        "path": "thesis-deadlines.md",
                        "content": _DEADLINES + "- Ethics amendment for the interview study: 15 Jan\n",
                    },
                ),
            ),
        ),
        setup=seed_files({"thesis-deadlines.md": _DEADLINES}),
    ),
    # email -----------------------------------------------------------------------------------------------------------
    Task(
        "freshh-email-flour-reply-fr",
        "email",
        (
            "réponds à la minoterie pour la livraison de farine : mardi ça marche mais avant 7h, après c'est le rush "
            "du petit-déj. et qu'ils passent par la porte de derrière, rue des Tanneurs",
        ),
        mail_to(
            _MILL,
            ["mardi", "Tuesday"],
            ["7h", "7 h", "7:00", "07:00", "7.00", "7 heures", "sept heures", "07h"],
            ["Tanneurs"],
        ),
        (
            (
                tool_call("gmail_list_emails", {"query": f"from:{_MILL}"}),
                tool_call(
                    "gmail_reply_email",
                    lambda w: {
                        "message_id": mail_id(f"from:{_MILL}")(w),
                        "body": "Bonjour Sandrine, mardi nous convient, mais avant 7h s'il vous plaît (après, c'est "
                        "le rush du petit-déjeuner). Merci de passer par la porte de derrière, rue des Tanneurs. "
                        "Bonne journée !",
                    },
                ),
            ),
        ),
        lang="fr",
        setup=seed_mail(
            (
                _MILL,
                "Livraison farine T65 - mardi ?",
                "Bonjour, nous pouvons livrer vos 10 sacs de farine T65 mardi prochain. Merci de nous confirmer "
                "l'heure et l'accès pour le livreur. Cordialement, Sandrine - Minoterie Vial",
            )
        ),
    ),
    Task(
        "freshh-email-coach-ar",
        "email",
        (
            "مرحبا، ابعتلي إيميل للكابتن كريم مدرب الكرة (karim.haddad@nadi-alnoor.example) وقله إنو يوسف ما رح "
            "يقدر يجي على تمرين السبت لأنه عنده حرارة. شكراً",
        ),
        mail_to(
            "karim.haddad@nadi-alnoor.example",
            ["يوسف", "Youssef", "Yusuf", "Yousef", "Yousif", "Youssif"],
            ["سبت", "Saturday"],
        ),
        (
            (
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "karim.haddad@nadi-alnoor.example",
                        "subject": "غياب يوسف عن تمرين السبت",
                        "body": "مرحباً كابتن كريم، يوسف لن يتمكن من حضور تمرين السبت لأن عنده حرارة. شكراً لتفهمك.",
                    },
                ),
            ),
        ),
        lang="ar",
    ),
    Task(
        "freshh-email-stucki-draft",
        "email",
        (
            f"draft an email to Prof. Stucki ({_STUCKI}) asking to move our thursday meeting to next week - my "
            "residence permit appointment got put in the exact same slot and I can't change it. do NOT send it, I "
            "want to reread it first, my email etiquette over here is still shaky",
        ),
        all_of(
            mail_to(
                _STUCKI,
                ["Thursday", "Thu", "Donnerstag"],
                ["permit", "appointment", "Migration", "Termin", "visa"],
                drafts=True,
            ),
            not_(mail_to(_STUCKI), "the mail to Prof. Stucki was sent, not left a draft"),
        ),
        (
            (
                tool_call(
                    "gmail_create_draft",
                    {
                        "to": _STUCKI,
                        "subject": "Moving our Thursday meeting",
                        "body": "Dear Prof. Stucki, my residence permit appointment has been scheduled for exactly "
                        "the time of our meeting on Thursday, and I cannot change it. Could we move our meeting to "
                        "next week? Kind regards",
                    },
                ),
            ),
        ),
    ),
    # calendar --------------------------------------------------------------------------------------------------------
    Task(
        "freshh-cal-okonkwo-de",
        "calendar",
        (
            "kannst du mir donnerstag 14 uhr das treffen mit meiner zweitbetreuerin dr. okonkwo eintragen? kapitel 3 "
            "besprechen. raum weiß ich noch nicht",
        ),
        any_of(*(event_at(["Okonkwo", "Zweitbetreuerin", "Kapitel 3"], when) for when in on_weekday(3, 14))),
        (
            (
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Treffen mit Dr. Okonkwo (Kapitel 3)",
                        "start_date_time": _thursday_at(w, 14),
                        "end_date_time": _thursday_at(w, 15),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        lang="de",
    ),
    Task(
        "freshh-cal-marzocco-move",
        "calendar",
        (
            "the la marzocco engineer cant come the day after tomorrow anymore. can u move him to exactly a week "
            "later but 8am, before we open",
        ),
        # The first event about the service is checked: a copy made at the new time beside the old one fails.
        event_moved(["Marzocco"], lambda w: day(w, 9) + timedelta(hours=8)),
        (
            (
                tool_call(
                    "gmail_list_events", lambda w: {"time_min": at(w, 2, 0) + "Z", "time_max": at(w, 3, 0) + "Z"}
                ),
                tool_call(
                    "gmail_update_event",
                    lambda w: {
                        "event_id": event_id("Marzocco")(w),
                        "start_date_time": at(w, 9, 8),
                        "end_date_time": at(w, 9, 9),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        setup=seed_events(("La Marzocco service - Ferris Coffee Tech", 2, 15)),
    ),
    Task(
        "freshh-cal-speech-therapy-pt",
        "calendar",
        (
            "Olá! A terapia da fala do Tomás amanhã foi desmarcada, a terapeuta está doente. Tira isso da agenda por "
            "favor, mas a reunião de pais fica, essa não mexas!",
        ),
        all_of(
            no_event("Terapia da fala", "speech therapy"),
            not_(no_event("Reunião de pais"), "the parents' meeting was deleted too"),
        ),
        (
            (
                tool_call(
                    "gmail_list_events", lambda w: {"time_min": at(w, 1, 0) + "Z", "time_max": at(w, 2, 0) + "Z"}
                ),
                tool_call("gmail_delete_event", lambda w: {"event_id": event_id("Terapia da fala")(w)}),
            ),
        ),
        lang="pt",
        setup=seed_events(("Terapia da fala - Tomás", 1, 17), ("Reunião de pais - 3.º B", 1, 18)),
    ),
    # web search ------------------------------------------------------------------------------------------------------
    Task(
        "freshh-search-barista-pay",
        "search",
        (
            "whats the going hourly rate for a barista in Bristol atm? hiring for saturdays, dont want to lowball anyone",
        ),
        searched(("web", "news"), ["barista"], ["Bristol"]),
        ((tool_call("searcher_web_search", {"query": "barista hourly pay Bristol 2026"}),),),
    ),
    Task(
        "freshh-search-permit-news",
        "search",
        (
            "any news on switzerland changing the B permit rules for non-EU doctoral students?? someone in the lab "
            "said something at lunch and now I'm panicking a bit",
        ),
        searched(
            ("news", "web"),
            ["Swiss", "Switzerland", "Schweiz", "Suisse"],
            ["permit", "Ausweis", "visa", "residence"],
        ),
        ((tool_call("searcher_news_search", {"query": "Switzerland B permit non-EU doctoral students"}),),),
    ),
    # multi-step ------------------------------------------------------------------------------------------------------
    Task(
        "freshh-multi-short-delivery",
        "multistep",
        (
            "can u check the hollybrook delivery note (hollybrook-delivery-note.txt) and email "
            "orders@hollybrook-dairy.example about whatever they shorted us. quote the note number",
        ),
        all_of(
            file_operation("read_file", "hollybrook-delivery-note.txt"),
            mail_to("orders@hollybrook-dairy.example", ["oat"], ["48213"]),
        ),
        (
            (
                tool_call("filer_read_file", {"path": "hollybrook-delivery-note.txt"}),
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "orders@hollybrook-dairy.example",
                        "subject": "Short delivery - note 48213",
                        "body": "Hello, on delivery note 48213 we ordered 12 oat milk 1L but only 8 arrived. "
                        "Could you send the missing 4 or credit them? Thanks, The Copper Kettle",
                    },
                ),
            ),
        ),
        setup=seed_files({"hollybrook-delivery-note.txt": _DELIVERY_NOTE}),
    ),
    Task(
        "freshh-multi-trip-letter",
        "multistep",
        (
            "theres an email from school about Amara's class trip (she's in year 4) somewhere in my inbox, can you "
            "dig it out and put the trip in the calendar?? 3 kids = 3 lots of school emails, I can't keep up",
        ),
        event_at_or_all_day(
            ["Thinktank", "trip", "Amara", "Year 4", "museum"], lambda w: day(w, 6) + timedelta(hours=8, minutes=15)
        ),
        (
            (
                tool_call("gmail_list_emails", {"query": "trip"}),
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Amara - Year 4 trip to Thinktank",
                        "start_date_time": at(w, 6, 8, 15),
                        "end_date_time": at(w, 6, 15, 30),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        setup=seed_trip_mail,
    ),
    # follow-ups in one conversation ----------------------------------------------------------------------------------
    Task(
        "freshh-follow-hurlimann",
        "followup",
        (
            "when's my next supervision with Hürlimann?",
            "ugh ok. push it back an hour pls, I'm stuck at the Migrationsamt till half 10 that morning",
        ),
        event_moved(["Hürlimann", "Hurlimann"], lambda w: day(w, 3) + timedelta(hours=11)),
        (
            (
                tool_call(
                    "gmail_list_events",
                    lambda w: {"time_min": at(w, 0, 0) + "Z", "time_max": at(w, 14, 0) + "Z", "query": "Hürlimann"},
                ),
            ),
            (
                tool_call(
                    "gmail_update_event",
                    lambda w: {
                        "event_id": event_id("Hürlimann")(w),
                        "start_date_time": at(w, 3, 11),
                        "end_date_time": at(w, 3, 12),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        setup=seed_events(("Supervision - Dr. Hürlimann", 3, 10)),
    ),
    Task(
        "freshh-follow-kofi-guests",
        "followup",
        (
            f"start a guest list for Kofi's 8th birthday in {_GUESTS}: Ama, Yaw, Efua, Nana B and the twins from "
            "next door",
            "add Kwesi. and take Efua off, she's in Ghana that weekend",
        ),
        all_of(
            file_with(_GUESTS, ["Ama"], ["Yaw"], ["Nana"], ["twins"], ["Kwesi"]),
            not_(file_with(_GUESTS, ["Efua"]), "Efua is still on the guest list"),
        ),
        (
            (
                tool_call(
                    "filer_create_file",
                    {"path": _GUESTS, "content": "Ama\nYaw\nEfua\nNana B\nThe twins from next door\n"},
                ),
            ),
            (
                tool_call(
                    "filer_update_file",
                    {"path": _GUESTS, "content": "Ama\nYaw\nNana B\nThe twins from next door\nKwesi\n"},
                ),
            ),
        ),
    ),
)


__all__ = ["FRESH_H_TASKS", "SET_NAME"]
