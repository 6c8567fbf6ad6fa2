"""A fourth fresh batch of agent tasks, written on 2026-11-27 by a fifth author, never used to fix the product.

The earlier batches are read once measured, and the product is fixed from what they show; this batch is for
measuring after those fixes, so it was written without looking at what they found. Its voice is a fifth one: a
nurse on night shifts writing short practical requests between rounds (times in 24h and 12h mixed: "1730",
"6:30pm", "0700") and a retired engineer writing precise but wordy requests in full sentences, in English and in
Finnish, Danish, Norwegian, Korean, Hebrew, Vietnamese, Indonesian, Catalan and Bulgarian. Run it as a group with
`agent_tasks.py --set fresh-2026-11-28b`; MEASURE it before anyone reads a failure of its to change the product.

The checks are those of `agent_taskset`, on the end state only, and accept every way a correct assistant could get
there: a reminder by what its schedule means (equal cron expressions, a weekday as one skill, a one-off time within
a tolerance), a moved thing as updated or deleted and made again, a cancelled reminder as deleted or switched off,
a corrected fact as the new value written with or without the old one beside it, a forgotten fact as deleted or
superseded, a line added to a file by appending or by writing the file again whole.
"""

from __future__ import annotations

from datetime import timedelta

from agent_taskset import (
    Check,
    Task,
    World,
    all_of,
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
    mail_to,
    no_fact_saying,
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
    tool_call,
)
from agent_taskset_fresh import mail_id

SET_NAME = "fresh-2026-11-28b"


def seed_flu_mail(world: World) -> None:
    when = day(world, 3)
    world.add_mail(
        "occhealth@stmarys-hospital.example",
        "Your flu vaccination appointment",
        f"Hello, your staff flu vaccination is booked for {when:%A %d %B %Y} at 14:00 (2pm) in Room B12, "
        "Occupational Health, ground floor. Please bring your staff badge.",
    )


def _scrubs_at(hour: int, minute: int) -> Check:
    return once_skill(lambda w: day(w, 1) + timedelta(hours=hour, minutes=minute), timedelta(minutes=5), "scrubs")


FRESH_D_TASKS: tuple[Task, ...] = (
    # reminders and skills --------------------------------------------------------------------------------------------
    Task(
        "freshd-skills-pharmacy",
        "skills",
        ("reminder in 4 hrs to call the pharmacy about my insulin refill. going to sleep now, nights all week",),
        once_skill(lambda w: w.now + timedelta(hours=4), timedelta(minutes=10), "pharmacy", "insulin"),
        (
            (
                reminder_call(
                    "Call the pharmacy", {"in_hours": 4}, "Remind the user to call the pharmacy about the insulin."
                ),
            ),
        ),
    ),
    Task(
        "freshd-skills-biowaste-fi",
        "skills",
        ("Muistuta minua joka keskiviikko klo 7.45 viemään biojäteastia tien varteen.",),
        cron_skills_together("45 7 * * 3", "biojäte", "bio", "jäte", "waste", "compost", "roska"),
        (
            (
                reminder_call(
                    "Biojäte",
                    {"every": "wednesday", "time": "07:45"},
                    "Muistuta käyttäjää viemään biojäteastia tien varteen.",
                ),
            ),
        ),
        lang="fi",
    ),
    Task(
        "freshd-skills-meter",
        "skills",
        (
            "I should like a standing reminder, on the first day of every month at half past eight in the morning, "
            "to read the electricity meter and write the figure down; the supplier otherwise estimates my usage "
            "and, in my experience, invariably overestimates it.",
        ),
        cron_skill("30 8 1 * *", "meter", "electric"),
        (
            (
                reminder_call(
                    "Read the electricity meter",
                    {"every": "month", "day": 1, "time": "08:30"},
                    "Remind the user to read the electricity meter and note the figure.",
                ),
            ),
        ),
    ),
    Task(
        "freshd-skills-cancel-da",
        "skills",
        ("Du kan godt slette påmindelsen om svømning om torsdagen. Holdet er blevet nedlagt.",),
        no_skill_with("svøm", "swim"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call("memory_delete_skill", lambda w: {"skill_id": skill_id("svøm")(w)}),
            ),
        ),
        lang="da",
        setup=seed_skill("Svømning", "0 17 * * 4", "Mind brugeren om at pakke tasken til svømning."),
    ),
    Task(
        "freshd-skills-move-ko",
        "skills",
        ("토요일 아침 9시 분리수거 알림, 10시로 바꿔 줘. 요일은 그대로 토요일.",),
        all_of(
            cron_skill("0 10 * * 6", "분리수거", "recycl"),
            not_(cron_skill("0 9 * * 6", "분리수거", "recycl"), "the recycling reminder still fires at 9"),
        ),
        (
            (
                tool_call("memory_list_skills"),
                tool_call(
                    "memory_update_skill",
                    lambda w: {"skill_id": skill_id("분리수거")(w), "trigger_config": {"time": "10:00"}},
                ),
            ),
        ),
        lang="ko",
        setup=seed_skill("분리수거", "0 9 * * 6", "사용자에게 분리수거를 하라고 알려 주세요."),
    ),
    # memory --------------------------------------------------------------------------------------------------------
    Task(
        "freshd-mem-charge-nurse",
        "memory",
        ("remember: charge nurse on nights is Priya Okafor, pager 3321",),
        fact_with(["Priya", "Okafor"], ["3321"]),
        (
            (
                tool_call(
                    "store_fact",
                    {"fact": "The night-shift charge nurse is Priya Okafor, pager 3321", "category": "contact"},
                ),
            ),
        ),
    ),
    Task(
        "freshd-mem-correct-no",
        "memory",
        ("Det stemmer ikke lenger at Ingrid bor i Bergen – hun flyttet til Tromsø i høst. Kan du rette det?",),
        all_of(
            fact_with(["Ingrid"], ["Tromsø", "Tromso"]),
            no_fact_saying(["Ingrid"], ["Bergen"], unless=["Tromsø", "Tromso"]),
        ),
        (
            (
                tool_call("memory_list_facts"),
                tool_call(
                    "memory_update_fact",
                    lambda w: {"fact_id": fact_id("Bergen")(w), "fact": "The user's daughter Ingrid lives in Tromsø"},
                ),
            ),
        ),
        lang="no",
        setup=seed_facts(("The user's daughter Ingrid lives in Bergen", "contact")),
    ),
    Task(
        "freshd-mem-forget-he",
        "memory",
        ("תמחק בבקשה את מה ששמרת על החניה שלי בקומה 3 בחניון של בית החולים. אני נוסעת עכשיו ברכבת.",),
        fact_gone("The user parks on level 3 of the hospital garage"),
        (
            (
                tool_call("memory_list_facts"),
                tool_call("memory_delete_fact", lambda w: {"fact_id": fact_id("level 3")(w)}),
            ),
        ),
        lang="he",
        setup=seed_facts(("The user parks on level 3 of the hospital garage", "background")),
    ),
    Task(
        "freshd-mem-recall-brother",
        "memory",
        (
            "Would you be so kind as to send my brother an email letting him know that the drawings for the garden "
            "shed are finished, and that he may collect them from me on Saturday afternoon at his convenience?",
        ),
        mail_to("des.whitlock@example.org", ["shed", "drawing"], ["Saturday"]),
        (
            (
                tool_call("search_memories", {"query": "brother email"}),
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "des.whitlock@example.org",
                        "subject": "Garden shed drawings",
                        "body": "Dear Desmond, the drawings for the garden shed are finished; you may collect them "
                        "on Saturday afternoon.",
                    },
                ),
            ),
        ),
        setup=seed_facts(("The user's brother Desmond Whitlock's email is des.whitlock@example.org", "contact")),
    ),
    # files ---------------------------------------------------------------------------------------------------------
    Task(
        "freshd-files-shifts-ca",
        "files",
        (
            "Crea un fitxer guardies-desembre.txt amb les meves guàrdies: dilluns 1 nit, dimecres 3 nit, "
            "divendres 5 lliure",
        ),
        file_with("guardies-desembre.txt", ["nit", "night"], ["lliure", "free", "off"]),
        (
            (
                tool_call(
                    "filer_create_file",
                    {
                        "path": "guardies-desembre.txt",
                        "content": "dilluns 1: nit\ndimecres 3: nit\ndivendres 5: lliure\n",
                    },
                ),
            ),
        ),
        lang="ca",
    ),
    Task(
        "freshd-files-workshop-log",
        "files",
        (
            "Kindly add an entry to workshop-log.txt recording that I have today replaced the drive belt on the "
            "lathe, part number B-2240. The existing entries are to remain exactly as they are, if you please.",
        ),
        file_with("workshop-log.txt", ["B-2240"], ["belt"], ["bandsaw"], ["Oiled"]),
        (
            (
                tool_call(
                    "filer_update_file",
                    {
                        "path": "workshop-log.txt",
                        "content": "Replaced the lathe drive belt (part B-2240).",
                        "append": True,
                    },
                ),
            ),
        ),
        setup=seed_files(
            {
                "workshop-log.txt": "2026-10-02 Replaced the bandsaw blade (93.5 in, 6 tpi).\n"
                "2026-11-03 Oiled the lathe ways and the headstock bearings.\n"
            }
        ),
    ),
    # email -----------------------------------------------------------------------------------------------------------
    Task(
        "freshd-email-extra-nights",
        "email",
        ("email staffing@stmarys-hospital.example - I can pick up extra nights Dec 9 + Dec 11, 1900-0700 both",),
        mail_to(
            "staffing@stmarys-hospital.example",
            ["night", "shift"],
            ["Dec 11", "December 11", "11 Dec", "11th", "12/11", "11/12", "11.12"],
        ),
        (
            (
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "staffing@stmarys-hospital.example",
                        "subject": "Extra night shifts",
                        "body": "Hello, I can pick up extra night shifts on Dec 9 and Dec 11, 19:00-07:00 both.",
                    },
                ),
            ),
        ),
    ),
    Task(
        "freshd-email-draft-vi",
        "email",
        (
            "Soạn giúp mình một bản nháp email gửi chị Lan (lan.nguyen@example.vn) hỏi chị có đổi ca đêm thứ Sáu "
            "với mình được không. Đừng gửi nhé, mình muốn đọc lại trước.",
        ),
        all_of(
            mail_to("lan.nguyen@example.vn", ["ca đêm", "thứ sáu", "thứ 6", "shift", "friday"], drafts=True),
            not_(mail_to("lan.nguyen@example.vn"), "the mail to lan.nguyen@example.vn was sent, not drafted"),
        ),
        (
            (
                tool_call(
                    "gmail_create_draft",
                    {
                        "to": "lan.nguyen@example.vn",
                        "subject": "Đổi ca đêm thứ Sáu",
                        "body": "Chị Lan ơi, chị có thể đổi ca đêm thứ Sáu với em được không ạ?",
                    },
                ),
            ),
        ),
        lang="vi",
    ),
    # calendar --------------------------------------------------------------------------------------------------------
    Task(
        "freshd-cal-dentist-id",
        "calendar",
        ("Tolong catat di kalender: besok jam 3 sore kontrol gigi di Klinik Sehat Sentosa, kira-kira satu jam.",),
        event_at(["gigi", "dentist", "dental", "Sehat"], lambda w: day(w, 1) + timedelta(hours=15)),
        (
            (
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Kontrol gigi - Klinik Sehat Sentosa",
                        "start_date_time": at(w, 1, 15),
                        "end_date_time": at(w, 1, 16),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        lang="id",
    ),
    Task(
        "freshd-cal-boiler",
        "calendar",
        (
            "The engineer who is to service the boiler tomorrow has telephoned to say that he cannot arrive before "
            "13:30. Would you move the appointment in my calendar accordingly, keeping it on the same day?",
        ),
        event_moved(["boiler"], lambda w: day(w, 1) + timedelta(hours=13, minutes=30)),
        (
            (
                tool_call(
                    "gmail_list_events", lambda w: {"time_min": at(w, 1, 0) + "Z", "time_max": at(w, 2, 0) + "Z"}
                ),
                tool_call(
                    "gmail_update_event",
                    lambda w: {
                        "event_id": event_id("boiler")(w),
                        "start_date_time": at(w, 1, 13, 30),
                        "end_date_time": at(w, 1, 14, 30),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        setup=seed_events(("Boiler service", 1, 10)),
    ),
    # web search ------------------------------------------------------------------------------------------------------
    Task(
        "freshd-search-ibuprofen",
        "search",
        (
            "quick one - can you look up if ibuprofen is ok to take with sertraline? off at 0700, want to know b4 "
            "i sleep",
        ),
        searched(("web", "news"), ["ibuprofen", "advil", "nsaid"], ["sertraline", "zoloft", "ssri"]),
        ((tool_call("searcher_web_search", {"query": "ibuprofen sertraline interaction"}),),),
    ),
    # multi-step ------------------------------------------------------------------------------------------------------
    Task(
        "freshd-multi-flu-jab",
        "multistep",
        ("occ health emailed me my flu jab time. set a reminder 2 hrs before it pls, ill be asleep after nights",),
        once_skill(
            lambda w: day(w, 3) + timedelta(hours=12), timedelta(minutes=5), "flu", "jab", "vaccin", "occupational"
        ),
        (
            (
                tool_call("gmail_list_emails", {"query": "flu"}),
                tool_call(
                    "gmail_get_email", lambda w: {"message_id": mail_id("from:occhealth@stmarys-hospital.example")(w)}
                ),
                tool_call(
                    "memory_store_skill",
                    lambda w: {
                        "name": "Flu jab in two hours",
                        "trigger_type": "cron",
                        "trigger_config": {"at": at(w, 3, 12)},
                        "instructions": "Remind the user that their flu vaccination is at 14:00 in Room B12.",
                    },
                ),
            ),
        ),
        setup=seed_flu_mail,
    ),
    Task(
        "freshd-multi-tyres",
        "multistep",
        (
            "Would you please look up the recommended tyre pressures for a 2019 Škoda Octavia estate, and save what "
            "you find to a file called tyre-pressures.txt, so that I may consult it at the filling station?",
        ),
        all_of(
            searched(("web", "news"), ["Octavia"]),
            file_with("tyre-pressures.txt", ["bar", "psi", "kpa", "pressure"]),
        ),
        (
            (
                tool_call("searcher_web_search", {"query": "2019 Skoda Octavia estate recommended tyre pressure"}),
                tool_call(
                    "filer_create_file",
                    {
                        "path": "tyre-pressures.txt",
                        "content": "2019 Skoda Octavia estate tyre pressures: about 2.3 bar front, 2.2 bar rear "
                        "(check the label on the driver's door pillar).\n",
                    },
                ),
            ),
        ),
    ),
    # follow-ups in one conversation ----------------------------------------------------------------------------------
    Task(
        "freshd-follow-scrubs",
        "followup",
        (
            "remind me tmrw 6:30pm to grab my scrubs from the laundry",
            "change that to 1730, the laundry shuts at 6",
        ),
        all_of(_scrubs_at(17, 30), not_(_scrubs_at(18, 30), "the scrubs reminder still fires at 18:30")),
        (
            (
                tool_call(
                    "memory_store_skill",
                    lambda w: {
                        "name": "Scrubs from the laundry",
                        "trigger_type": "cron",
                        "trigger_config": {"at": at(w, 1, 18, 30)},
                        "instructions": "Remind the user to pick up their scrubs from the laundry.",
                    },
                ),
            ),
            (
                tool_call("memory_list_skills"),
                tool_call(
                    "memory_update_skill",
                    lambda w: {"skill_id": skill_id("scrubs")(w), "trigger_config": {"at": at(w, 1, 17, 30)}},
                ),
            ),
        ),
    ),
    Task(
        "freshd-follow-list-bg",
        "followup",
        ("Направи файл pazar.txt със списък: мляко, яйца, хляб", "Махни хляба и добави сирене"),
        all_of(
            file_with("pazar.txt", ["мляко"], ["яйца"], ["сирене"]),
            not_(file_with("pazar.txt", ["хляб"]), "pazar.txt still lists the bread"),
        ),
        (
            (tool_call("filer_create_file", {"path": "pazar.txt", "content": "мляко\nяйца\nхляб\n"}),),
            (tool_call("filer_update_file", {"path": "pazar.txt", "content": "мляко\nяйца\nсирене\n"}),),
        ),
        lang="bg",
    ),
)


__all__ = ["FRESH_D_TASKS", "SET_NAME"]
