"""A tenth fresh batch of agent tasks, written on 2026-11-28 by an eleventh author, never used to fix the product.

The earlier batches are read once measured, and the product is fixed from what they show; this batch is for
measuring in a later session, after those fixes, so it was written without looking at what any run found. Its
voices are new: a long-distance lorry driver who talks to his phone in the cab (voice dictation, no punctuation at
all: the walkaround check, the tacho card, per diems for the haulier, the depot gate code, drops, the tyre fitter,
the Brenner), a retired mechanical engineer (precise, formal, complete sentences: the water meter, his old Rover's
tyre pressures, the solar panels' monthly yield, the electricity readings, a talk at the model engineering
society, the tree surgeon) and a teenager who runs his grandmother's errands on his phone (slang, and her own words
in quotes: her glasses, her bingo, her tablets, her kuih recipe, her hairdresser, the pension office, "the
dancing"), in English and in Czech, Romanian, Slovak, Ukrainian, Danish, Greek, Japanese, Catalan, Portuguese
(Brazil), Korean, Malay and Hebrew. Run it as a group with `agent_tasks.py --set fresh-2026-11-28h`; MEASURE it
before anyone reads a failure of its to change the product.

The checks are those of `agent_taskset`, on the end state only, and accept every way a correct assistant could get
there: a reminder by what its schedule means (equal cron expressions, several skills that fire together as one, a
one-off time within a tolerance), a paused reminder as kept and switched off, a cancelled one as deleted or
switched off, a reminder moved to another weekday as the same hour on the new day with the old one gone or off, a
corrected fact as the old text gone and the new value stored (updated, or deleted and stored again), a forgotten
code as gone from every fact, a fact the mail needs as that value in the mail however it was looked up, a mistyped
figure as the right one on its line however the rest of the file was kept, a stop taken off a list as no longer in
the file, an event on "Thursday" as today or next week when today is Thursday, a moved event as the first event
about it at the new time, a cancelled event as gone with its neighbour kept, a reply as mail to the sender (replied
or written anew), a draft as a draft and not sent, the day of a visit in a mail as its weekday or its date in any
usual spelling. The words a check looks for are ones no other task's state uses, because every task shares one
stack.
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
from agent_taskset_fresh_i import mail_naming_day

SET_NAME = "fresh-2026-11-28h"


def _thursday_at(world: World, hour: int, minute: int = 0) -> str:
    return on_weekday(3, hour, minute)[0](world).strftime("%Y-%m-%dT%H:%M:%S")


_ROVER_OLD = "The tyre pressure for the user's 1971 Rover P6 is 1.9 bar front and rear"
_GATE_OLD = "Codul de la poarta depozitului Rutier-Vest din Arad este 7314"
_ZUZANA = "zuzana.hrncarova@tatralog.example"
_HALDANE = "r.haldane@northfield-mes.example"
_DEYA = "logariasmoi@deya-kalamatas.example"
_THOMAS = "thomas.whitcombe@kestrelmail.example"
_GOODCHILD = "m.goodchild@larchfield-post.example"
_PENSION = "address.changes@pensions-office.example"
_DROPS = "drops-run.txt"
_SOLAR = (
    "太陽光発電 月間発電量 2026年 (kWh)\n"
    "2026-05  512\n"
    "2026-06  548\n"
    "2026-07  573\n"
    "2026-08  418\n"
    "2026-09  402\n"
    "2026-10  307\n"
)
_READINGS = (
    "Electricity meter, serial E17Z0442913 - readings taken at 08:00 on the first of the month\n"
    "01 Sep 2026   47390\n"
    "01 Oct 2026   47802\n"
    "01 Nov 2026   48213\n"
    "01 Dec 2026   48674\n"
)

FRESH_J_TASKS: tuple[Task, ...] = (
    # reminders and skills --------------------------------------------------------------------------------------------
    Task(
        "freshj-skills-watermeter-pause-da",
        "skills",
        (
            "Goddag. Vil De være så venlig at sætte min ugentlige påmindelse om aflæsning af vandmåleren i bero? Min "
            "hustru og jeg opholder os i sommerhuset i Skagen til udgangen af februar, og huset står imens tomt. "
            "Påmindelsen må under ingen omstændigheder slettes; den skal blot midlertidigt være slået fra.",
        ),
        skill_paused("vandmåler"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call("memory_update_skill", lambda w: {"skill_id": skill_id("vandmåler")(w), "enabled": False}),
            ),
        ),
        lang="da",
        setup=seed_skill(
            "Aflæs vandmåleren",
            "0 8 * * 1",
            "Mind brugeren om at aflæse vandmåleren i kælderen og skrive tallet ind i logbogen.",
        ),
    ),
    Task(
        "freshj-skills-perdiem-move-cs",
        "skills",
        (
            "tu připomínku na vyúčtování stravnýho přesuň z neděle na sobotu čas nech stejnej v neděli už jsem "
            "většinou zase na cestě",
        ),
        # The merged times of every such reminder: the Sunday one left on beside a new Saturday one fails.
        cron_skills_together("0 18 * * 6", "stravn", "Kovotrans", "per diem"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call(
                    "memory_update_skill",
                    lambda w: {"skill_id": skill_id("Kovotrans")(w), "trigger_config": {"schedule": "0 18 * * 6"}},
                ),
            ),
        ),
        lang="cs",
        setup=seed_skill(
            "Vyúčtování stravného (Kovotrans)",
            "0 18 * * 0",
            "Připomeň uživateli, aby poslal dispečinku Kovotrans vyúčtování stravného a cestovních náhrad za "
            "uplynulý týden.",
        ),
    ),
    Task(
        "freshj-skills-bingo-cancel-pt",
        "skills",
        (
            "apaga aquele lembrete do bingo da vó na paróquia pfv, acabou o bingo lá. a vó falou que 'o padre "
            "acabou com a jogatina' kkkkk",
        ),
        no_skill_with("bingo", "São Judas", "Sao Judas"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call("memory_delete_skill", lambda w: {"skill_id": skill_id("bingo")(w)}),
            ),
        ),
        lang="pt",
        setup=seed_skill(
            "Bingo da vó na paróquia São Judas",
            "0 14 * * 4",
            "Lembrar o usuário de levar a avó ao bingo da paróquia São Judas Tadeu às 15h.",
        ),
    ),
    Task(
        "freshj-skills-walkaround",
        "skills",
        (
            "remind me every tuesday and friday at 4 45 in the morning to do my walkaround check before i pull out "
            "of the yard tyres lights straps and the tacho card them two are my early starts",
        ),
        cron_skills_together("45 4 * * 2,5", "walkaround", "walk-around", "walk around", "tacho"),
        (
            (
                reminder_call(
                    "Walkaround check",
                    {"schedule": "45 4 * * 2,5"},
                    "Remind the user to do the walkaround check before pulling out of the yard: tyres, lights, "
                    "straps and the tacho card.",
                ),
            ),
        ),
    ),
    Task(
        "freshj-skills-nan-glasses",
        "skills",
        (
            "yo can u remind me the day after tomorrow at 4pm to grab nan's glasses from the optician on mill st. "
            "she keeps calling them her 'reading specs' and says they were 'ever so dear' lol",
        ),
        once_skill(lambda w: day(w, 2) + timedelta(hours=16), timedelta(minutes=5), "optician", "glasses", "specs"),
        (
            (
                tool_call(
                    "memory_store_skill",
                    lambda w: {
                        "name": "Pick up nan's glasses",
                        "trigger_type": "cron",
                        "trigger_config": {"at": at(w, 2, 16)},
                        "instructions": "Remind the user to pick up his nan's glasses from the optician on Mill "
                        "Street.",
                    },
                ),
            ),
        ),
    ),
    # memory --------------------------------------------------------------------------------------------------------
    Task(
        "freshj-mem-rover-tyres",
        "memory",
        (
            "I must ask you to correct a figure I gave you previously. The tyre pressure for my Rover P6 is 2.1 "
            "bar, not 1.9 bar, front and rear alike; I had mistakenly quoted from the handbook for the earlier "
            "model. Please amend your record accordingly.",
        ),
        all_of(fact_gone(_ROVER_OLD), fact_with(["Rover"], ["2.1", "2,1"])),
        (
            (
                tool_call("memory_list_facts"),
                tool_call(
                    "memory_update_fact",
                    lambda w: {
                        "fact_id": fact_id("Rover P6")(w),
                        "fact": "The tyre pressure for the user's 1971 Rover P6 is 2.1 bar front and rear",
                    },
                ),
            ),
        ),
        setup=seed_facts((_ROVER_OLD, "background")),
    ),
    Task(
        "freshj-mem-gatecode-ro",
        "memory",
        ("uită codul de la poarta depozitului din arad l-au schimbat săptămâna asta oricum cel vechi nu mai merge",),
        all_of(fact_gone(_GATE_OLD), no_fact_with("7314")),
        (
            (
                tool_call("memory_list_facts"),
                tool_call("memory_delete_fact", lambda w: {"fact_id": fact_id("7314")(w)}),
            ),
        ),
        lang="ro",
        setup=seed_facts((_GATE_OLD, "background")),
    ),
    Task(
        "freshj-mem-amlodipine-ko",
        "memory",
        (
            "할머니 혈압약 좀 기억해줘 ㅋㅋ 암로디핀 5mg 매일 아침 8시에 드셔야 됨. 할머니는 그냥 '하얀 알약'이라고 부르심",
        ),
        fact_with(["암로디핀", "amlodipine", "Amlodipin"], ["8", "여덟", "eight"]),
        (
            (
                tool_call(
                    "store_fact",
                    {
                        "fact": "할머니는 혈압약 암로디핀 5mg을 매일 아침 8시에 드신다 (할머니는 '하얀 알약'이라고 부름)",
                        "category": "background",
                    },
                ),
            ),
        ),
        lang="ko",
    ),
    Task(
        "freshj-mem-water-account-el",
        "memory",
        (
            f"Καλημέρα σας. Θα σας παρακαλούσα να στείλετε ένα μήνυμα ηλεκτρονικού ταχυδρομείου στη ΔΕΥΑ Καλαμάτας "
            f"({_DEYA}) με τον αριθμό παροχής του νερού μου, τον οποίο σας έχω ήδη δώσει. Τον χρειάζονται για να "
            "διορθώσουν τον τελευταίο λογαριασμό, ο οποίος εκδόθηκε με εκτιμώμενη κατανάλωση.",
        ),
        mail_to(_DEYA, ["40-118-2297", "401182297", "40 118 2297"]),
        (
            (
                tool_call("search_memories", {"query": "αριθμός παροχής νερού ΔΕΥΑ"}),
                tool_call(
                    "gmail_send_email",
                    {
                        "to": _DEYA,
                        "subject": "Αριθμός παροχής για διόρθωση λογαριασμού",
                        "body": "Αξιότιμοι κύριοι,\n\nο αριθμός παροχής νερού μου είναι 40-118-2297. Παρακαλώ "
                        "διορθώστε τον τελευταίο λογαριασμό, ο οποίος εκδόθηκε με εκτιμώμενη κατανάλωση.\n\n"
                        "Με εκτίμηση",
                    },
                ),
            ),
        ),
        lang="el",
        setup=seed_facts(("Ο αριθμός παροχής νερού (ΔΕΥΑ Καλαμάτας) του χρήστη είναι 40-118-2297", "background")),
    ),
    # files ---------------------------------------------------------------------------------------------------------
    Task(
        "freshj-files-cabkit",
        "files",
        (
            "make me a file called cabkit.txt with what lives in the cab hi vis vest spare bulbs and fuses wheel "
            "chocks ratchet straps the cool box and the adblue funnel so i can tick it off before a long run",
        ),
        file_with(
            "cabkit.txt",
            ["hi vis", "hi-vis", "high vis", "high-vis", "hivis"],
            ["bulb"],
            ["chock"],
            ["adblue", "ad blue", "ad-blue"],
        ),
        (
            (
                tool_call(
                    "filer_create_file",
                    {
                        "path": "cabkit.txt",
                        "content": "Cab kit\n[ ] Hi-vis vest\n[ ] Spare bulbs and fuses\n[ ] Wheel chocks\n"
                        "[ ] Ratchet straps\n[ ] Cool box\n[ ] AdBlue funnel\n",
                    },
                ),
            ),
        ),
    ),
    Task(
        "freshj-files-solar-fix-ja",
        "files",
        (
            "恐れ入りますが、solar-2026.txt の記録に誤りがございました。2026年8月の発電量は 418 kWh ではなく 481 kWh です。"
            "該当の行のみ訂正し、その他の行には手を加えないでください。",
        ),
        all_of(
            lines_about("solar-2026.txt", ["2026-08"], ["481"]),
            file_with("solar-2026.txt", ["512"], ["548"], ["573"], ["402"], ["307"]),
        ),
        (
            (
                tool_call("filer_read_file", {"path": "solar-2026.txt"}),
                tool_call(
                    "filer_update_file",
                    {"path": "solar-2026.txt", "content": _SOLAR.replace("2026-08  418", "2026-08  481")},
                ),
            ),
        ),
        lang="ja",
        setup=seed_files({"solar-2026.txt": _SOLAR}),
    ),
    Task(
        "freshj-files-kuih-ms",
        "files",
        (
            "tolong buat fail resipi-kuih-nenek.txt, resipi kuih kosui nenek aku: tepung ubi, gula melaka, air "
            "daun pandan, sikit air kapur, kelapa parut untuk tabur atas. nenek cakap 'jangan lupa air kapur, nanti "
            "tak kenyal' haha",
        ),
        file_with("resipi-kuih-nenek.txt", ["gula melaka", "palm sugar"], ["pandan"], ["kapur", "lime"]),
        (
            (
                tool_call(
                    "filer_create_file",
                    {
                        "path": "resipi-kuih-nenek.txt",
                        "content": "Resipi kuih kosui nenek\n- Tepung ubi\n- Gula melaka\n- Air daun pandan\n"
                        "- Sedikit air kapur (jangan lupa, nanti tak kenyal!)\n- Kelapa parut untuk ditabur\n",
                    },
                ),
            ),
        ),
        lang="ms",
    ),
    # email -----------------------------------------------------------------------------------------------------------
    Task(
        "freshj-email-pension-draft",
        "email",
        (
            f"can u write a draft email from my gran to the pension office ({_PENSION}) saying she moved to 12 "
            "Rowan Close, Ashby, LE65 2QT and they should send her letters there from now on. her words: 'kindly "
            "amend my particulars'. DONT send it she wants to read it first with her magnifying glass lol",
        ),
        all_of(
            mail_to(_PENSION, ["Rowan"], drafts=True),
            not_(mail_to(_PENSION), "the mail to the pension office was sent, not left a draft"),
        ),
        (
            (
                tool_call(
                    "gmail_create_draft",
                    {
                        "to": _PENSION,
                        "subject": "Change of address",
                        "body": "Dear Sir or Madam,\n\nI have moved, and I should be grateful if you would kindly "
                        "amend my particulars and send all letters to my new address from now on:\n12 Rowan Close, "
                        "Ashby, LE65 2QT\n\nYours faithfully",
                    },
                ),
            ),
        ),
    ),
    Task(
        "freshj-email-lyon-reply-sk",
        "email",
        (
            "odpíš zuzane na ten mail o lyone že v stredu to beriem ale nakladať môžem najskôr o siedmej lebo mi "
            "dovtedy beží povinný odpočinok",
        ),
        mail_to(_ZUZANA, ["stred", "Wednesday"], ["7", "siedm", "seven"]),
        (
            (
                tool_call("gmail_list_emails", {"query": f"from:{_ZUZANA}"}),
                tool_call(
                    "gmail_reply_email",
                    lambda w: {
                        "message_id": mail_id(f"from:{_ZUZANA}")(w),
                        "body": "Ahoj Zuzana, v stredu ten náklad do Lyonu beriem. Nakladať môžem najskôr o 7:00, "
                        "dovtedy mi beží povinný odpočinok. Vďaka",
                    },
                ),
            ),
        ),
        lang="sk",
        setup=seed_mail(
            (
                _ZUZANA,
                "Náklad Trnava - Lyon, streda?",
                "Ahoj, vedel by si v stredu zobrať náklad z Trnavy do Lyonu? Nakládka od 6:00 v sklade Tatralog. "
                "Daj vedieť čím skôr. Zuzana, dispečing",
            )
        ),
    ),
    Task(
        "freshj-email-beam-engine",
        "email",
        (
            f"Kindly send an email to Mr Robert Haldane, secretary of the Northfield Model Engineering Society "
            f"({_HALDANE}), confirming that I shall give my talk on the restoration of the Hargreaves beam engine at "
            "the January meeting. It will run to forty-five minutes, and I shall require a projector with an HDMI "
            "input.",
        ),
        mail_to(_HALDANE, ["beam engine", "Hargreaves"], ["projector", "HDMI"]),
        (
            (
                tool_call(
                    "gmail_send_email",
                    {
                        "to": _HALDANE,
                        "subject": "Talk at the January meeting: the Hargreaves beam engine",
                        "body": "Dear Mr Haldane,\n\nI write to confirm that I shall give my talk on the "
                        "restoration of the Hargreaves beam engine at the January meeting. It will run to "
                        "forty-five minutes, and I shall require a projector with an HDMI input.\n\nYours sincerely",
                    },
                ),
            ),
        ),
    ),
    # calendar --------------------------------------------------------------------------------------------------------
    Task(
        "freshj-cal-enginyers-ca",
        "calendar",
        (
            "Bon dia. Us agrairia que m'anotéssiu al calendari la conferència del Col·legi d'Enginyers Industrials "
            "sobre la restauració del pont de ferro de Girona, aquest dijous a les 19:00, a la seu del Col·legi. "
            "Moltes gràcies.",
        ),
        any_of(
            *(
                event_at(["Enginyers", "Col·legi", "Collegi", "conferència", "conferencia", "pont"], when)
                for when in on_weekday(3, 19)
            )
        ),
        (
            (
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Conferència del Col·legi d'Enginyers: restauració del pont de ferro de Girona",
                        "location": "Seu del Col·legi d'Enginyers Industrials",
                        "start_date_time": _thursday_at(w, 19),
                        "end_date_time": _thursday_at(w, 20, 30),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        lang="ca",
    ),
    Task(
        "freshj-cal-hairdresser-move-he",
        "calendar",
        ("אפשר להזיז את התור של סבתא במספרה מחר מ11 לשתיים בצהריים? היא אומרת 'בבוקר יש לי התעמלות עם הבנות' חחח",),
        # The first event about the appointment is checked: a copy made at the new time beside the old one fails.
        event_moved(["מספרה", "ציפי"], lambda w: day(w, 1) + timedelta(hours=14)),
        (
            (
                tool_call(
                    "gmail_list_events", lambda w: {"time_min": at(w, 1, 0) + "Z", "time_max": at(w, 2, 0) + "Z"}
                ),
                tool_call(
                    "gmail_update_event",
                    lambda w: {
                        "event_id": event_id("מספרה")(w),
                        "start_date_time": at(w, 1, 14),
                        "end_date_time": at(w, 1, 15),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        lang="he",
        setup=seed_events(("סבתא - מספרה אצל ציפי", 1, 11)),
    ),
    Task(
        "freshj-cal-tyres-cancel-uk",
        "calendar",
        (
            "скасуй шиномонтаж післязавтра о восьмій я вже перевзувся в дорозі під львовом а мийку о десятій не "
            "чіпай хай буде",
        ),
        all_of(
            no_event("Шиномонтаж"),
            not_(no_event("Мийка"), "the truck wash was deleted too"),
        ),
        (
            (
                tool_call(
                    "gmail_list_events", lambda w: {"time_min": at(w, 2, 0) + "Z", "time_max": at(w, 3, 0) + "Z"}
                ),
                tool_call("gmail_delete_event", lambda w: {"event_id": event_id("Шиномонтаж")(w)}),
            ),
        ),
        lang="uk",
        setup=seed_events(
            ("Шиномонтаж - зимова гума (Автодім)", 2, 8),
            ("Мийка тягача (Автодім)", 2, 10),
        ),
    ),
    # web search ------------------------------------------------------------------------------------------------------
    Task(
        "freshj-search-brenner",
        "search",
        (
            "is the brenner closed for trucks this weekend heard something on the cb about a block in tyrol check "
            "it for me i need to know before i load",
        ),
        searched(("web", "news"), ["Brenner"]),
        ((tool_call("searcher_news_search", {"query": "Brenner pass truck ban this weekend Tyrol"}),),),
    ),
    Task(
        "freshj-search-strictly",
        "search",
        (
            "can u look up when the new series of strictly starts?? gran is literally counting the days, she just "
            "calls it 'the dancing'",
        ),
        searched(("web", "news"), ["Strictly"]),
        ((tool_call("searcher_web_search", {"query": "Strictly Come Dancing new series start date"}),),),
    ),
    # multi-step ------------------------------------------------------------------------------------------------------
    Task(
        "freshj-multi-electricity",
        "multistep",
        (
            f"Would you kindly read electricity-readings.txt and send my son Thomas ({_THOMAS}) an email stating how "
            "many units we used during November? He is comparing tariffs on our behalf and requires the exact "
            "figure, not an estimate.",
        ),
        all_of(file_operation("read_file", "electricity-readings.txt"), mail_to(_THOMAS, ["461"])),
        (
            (
                tool_call("filer_read_file", {"path": "electricity-readings.txt"}),
                tool_call(
                    "gmail_send_email",
                    {
                        "to": _THOMAS,
                        "subject": "Electricity used in November",
                        "body": "Dear Thomas,\n\nThe meter read 48213 on 1 November and 48674 on 1 December, so we "
                        "used 461 units (kWh) during November.\n\nWith love, Dad",
                    },
                ),
            ),
        ),
        setup=seed_files({"electricity-readings.txt": _READINGS}),
    ),
    Task(
        "freshj-multi-pudding",
        "multistep",
        (
            "find an easy bread and butter pudding recipe online and save it in nans-pudding.txt pls. she lost the "
            "page from her old cookbook and has been going on about it all week, 'the one with the sultanas'",
        ),
        all_of(searched(("web", "news"), ["pudding"]), file_with("nans-pudding.txt", ["pudding"])),
        (
            (
                tool_call("searcher_web_search", {"query": "easy bread and butter pudding recipe sultanas"}),
                tool_call(
                    "filer_create_file",
                    {
                        "path": "nans-pudding.txt",
                        "content": "Bread and butter pudding (with sultanas)\n\n- 8 slices buttered bread\n"
                        "- 50 g sultanas\n- 350 ml milk, 50 ml cream, 2 eggs, 25 g sugar, nutmeg\n\n"
                        "Layer bread and sultanas, pour over the custard, rest 30 min, bake 180C for 35-40 min.\n",
                    },
                ),
            ),
        ),
    ),
    # follow-ups in one conversation ----------------------------------------------------------------------------------
    Task(
        "freshj-follow-drops",
        "followup",
        (
            f"start me a file called {_DROPS} with tomorrows drops leeds wakefield doncaster in that order",
            "take wakefield off the list its not happening anymore and put grimsby on the end",
        ),
        all_of(
            file_with(_DROPS, ["Leeds"], ["Doncaster"], ["Grimsby"]),
            not_(file_with(_DROPS, ["Wakefield"]), f"Wakefield is still on {_DROPS}"),
        ),
        (
            (
                tool_call(
                    "filer_create_file",
                    {"path": _DROPS, "content": "Drops tomorrow\n1. Leeds\n2. Wakefield\n3. Doncaster\n"},
                ),
            ),
            (
                tool_call(
                    "filer_update_file",
                    {"path": _DROPS, "content": "Drops tomorrow\n1. Leeds\n2. Doncaster\n3. Grimsby\n"},
                ),
            ),
        ),
    ),
    Task(
        "freshj-follow-tree-surgeon",
        "followup",
        (
            "On which day did I arrange for the tree surgeon to come? I do not recall the date I agreed with them.",
            f"Very good. Please write to my neighbour, Mrs Goodchild ({_GOODCHILD}), to inform her of the day, and "
            "that the tree surgeon will be cutting back the copper beech on our boundary and will need access to her "
            "garden between nine and noon.",
        ),
        mail_naming_day(_GOODCHILD, 5, ["tree surgeon", "arborist", "Hawthorne", "beech"]),
        (
            (
                tool_call(
                    "gmail_list_events",
                    lambda w: {"time_min": at(w, 0, 0) + "Z", "time_max": at(w, 21, 0) + "Z", "query": "tree surgeon"},
                ),
            ),
            (
                tool_call(
                    "gmail_send_email",
                    lambda w: {
                        "to": _GOODCHILD,
                        "subject": "Tree surgeon on the boundary",
                        "body": f"Dear Mrs Goodchild,\n\nThe tree surgeon will come on {day(w, 5):%A %-d %B} to cut "
                        "back the copper beech on our boundary, and will need access to your garden between nine "
                        "and noon. I hope this is convenient.\n\nKind regards",
                    },
                ),
            ),
        ),
        setup=seed_events(("Tree surgeon (Hawthorne Arboriculture) - copper beech", 5, 9)),
    ),
)


__all__ = ["FRESH_J_TASKS", "SET_NAME"]
