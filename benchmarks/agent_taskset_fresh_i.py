"""A ninth fresh batch of agent tasks, written on 2026-11-28 by a tenth author, never used to fix the product.

The earlier batches are read once measured, and the product is fixed from what they show; this batch is for
measuring in a later session, after those fixes, so it was written without looking at what any run found. Its
voices are new: a retired secondary-school teacher who volunteers at a food bank (polite, in long and careful
sentences: the sorting shifts, the warehouse keys, the Christmas hampers, a letter to the supermarket that must not
go out unread), a night-shift nurse (short, tired, abbreviations: compression socks, occupational health, the bank
staff office, sleeping through the day) and a small landlord with two rental flats (tenants, the rent and its
standing orders, repairs and what they cost, the deposit at check-out, viewings, the boiler man), in English and in
Dutch, German, Finnish, Turkish, Hungarian, Swedish, Indonesian, Italian, Polish, Vietnamese, French and Spanish.
Run it as a group with `agent_tasks.py --set fresh-2026-11-28g`; MEASURE it before anyone reads a failure of its to
change the product.

The checks are those of `agent_taskset`, on the end state only, and accept every way a correct assistant could get
there: a reminder by what its schedule means (equal cron expressions, several skills that fire together as one, a
one-off time within a tolerance), a paused reminder as kept and switched off, a cancelled one as deleted or
switched off, a reminder moved to another day of the month as the same hour on the new day with the old one gone
or off, a corrected fact as the old text gone and the new value stored (updated, or deleted and stored again), a
forgotten code as gone from every fact, a fact the mail needs as that value in the mail however it was looked up,
a mistyped amount as the right figure on its line however the rest of the file was kept, an event on "Wednesday"
as today or next week when today is Wednesday, a moved event as the first event about it at the new time, a
cancelled event as gone with its neighbour kept, a reply as mail to the sender (replied or written anew), a draft
as a draft and not sent, the day of a visit in a mail as its weekday or its date in any usual spelling. The words
a check looks for are ones no other task's state uses, because every task shares one stack.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from agent_taskset import (
    Check,
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

SET_NAME = "fresh-2026-11-28g"


def _wednesday_at(world: World, hour: int, minute: int = 0) -> str:
    return on_weekday(2, hour, minute)[0](world).strftime("%Y-%m-%dT%H:%M:%S")


def _day_words(when: datetime) -> list[str]:
    """How a mail may name a day: its weekday, or its date as people and models write it."""
    suffix = "th" if 10 <= when.day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(when.day % 10, "th")
    ordinal = f"{when.day}{suffix}"
    return [
        f"{when:%A}",
        f"{when.day} {when:%B}",
        f"{when:%B} {when.day}",
        f"{when.day} {when:%b}",
        f"{when:%b} {when.day}",
        f"{ordinal} {when:%B}",
        f"{when:%B} {ordinal}",
        f"{ordinal} of {when:%B}",
        f"{when.day}/{when.month}",
        f"{when.day:02d}/{when.month:02d}",
        f"{when.month}/{when.day}",
        f"{when.day}.{when.month}.",
        f"{when:%Y-%m-%d}",
    ]


def mail_naming_day(address: str, offset: int, *groups: list[str]) -> Check:
    """Mail sent to `address` that names the day `offset` days from today (and one word of each group)."""

    def check(world: World) -> str | None:
        return mail_to(address, _day_words(day(world, offset)), *groups)(world)

    return check


_PRIYA_OLD = "Flat 2 at 14 Alder Court is let to Priya Raman at £925 a month"
_CARPARK_OLD = "A Szent Margit Kórház dolgozói parkolójának sorompókódja: 5817"
_FENWICK = "j.fenwick@harwell-coop.example"
_JOHANNA = "johanna.ek@hyresgast-post.example"
_RATNA = "ratna.wulandari@rs-medika-sejahtera.example"
_MARCUS = "marcus.obi@fastpost.example"
_ABI = "abi.oyelaran@flatmail.example"
_BANK_OFFICE = "bankstaff@northgate-nhs.example"
_HAMPERS = "hampers-2026.txt"
_REPAIRS = (
    "14 Alder Court - repairs 2026 (for the accountant)\n"
    "12 Feb  Flat 2  Replaced kitchen mixer tap (AquaFix)         £68\n"
    "03 May  Flat 1  Gutter clearing + downpipe (R. Doyle)        £410\n"
    "19 Aug  Flat 1  Bathroom extractor fan (Sparks Electrical)   £85\n"
    "21 Oct  Flat 2  Annual boiler service (Pruitt Heating)       £95\n"
)
_CHECKOUT = (
    "CHECK-OUT - Flat 1, 14 Alder Court\n"
    "Tenant: Marcus Obi (tenancy 1 Sep 2024 - 31 Oct 2026)\n"
    "Deposit held with TDS: £1,100\n"
    "\n"
    "Deductions agreed with the tenant at check-out:\n"
    "- Professional oven clean: £85\n"
    "- Broken bathroom roller blind, replaced: £42\n"
    "- Missing fob for the bin store: £25\n"
    "\n"
    "Everything else in good order. Meter readings taken.\n"
)

FRESH_I_TASKS: tuple[Task, ...] = (
    # reminders and skills --------------------------------------------------------------------------------------------
    Task(
        "freshi-skills-sorting-pause-nl",
        "skills",
        (
            "Goedemiddag. Zou u zo vriendelijk willen zijn mijn herinnering voor het sorteren bij de voedselbank op "
            "dinsdagochtend even stil te zetten? De Schakel is tot half januari dicht omdat het magazijn verbouwd "
            "wordt, maar daarna ga ik gewoon weer, dus verwijdert u hem alstublieft niet.",
        ),
        skill_paused("Schakel", "voedselbank", "food bank"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call("memory_update_skill", lambda w: {"skill_id": skill_id("Schakel")(w), "enabled": False}),
            ),
        ),
        lang="nl",
        setup=seed_skill(
            "Voedselbank De Schakel - sorteren",
            "0 9 * * 2",
            "Herinner de gebruiker eraan dat ze om half tien bij Voedselbank De Schakel helpt met het sorteren van de "
            "houdbare producten.",
        ),
    ),
    Task(
        "freshi-skills-rent-check-de",
        "skills",
        (
            "die erinnerung mit den mieteingängen bitte vom 1. auf den 3. jedes monats legen, die daueraufträge von "
            "beiden wohnungen gehen eh erst am 2. ein. uhrzeit bleibt gleich",
        ),
        # The merged times of every such reminder: the one on the 1st left on beside the new one fails.
        cron_skills_together("0 10 3 * *", "Mieteing", "Mieten", "Lindenstr", "rent payment", "rent check"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call(
                    "memory_update_skill",
                    lambda w: {"skill_id": skill_id("Mieteing")(w), "trigger_config": {"schedule": "0 10 3 * *"}},
                ),
            ),
        ),
        lang="de",
        setup=seed_skill(
            "Mieteingänge prüfen (Lindenstraße 12)",
            "0 10 1 * *",
            "Erinnere den Nutzer daran, auf dem Konto nachzusehen, ob die Mieten für beide Wohnungen in der "
            "Lindenstraße 12 eingegangen sind.",
        ),
    ),
    Task(
        "freshi-skills-union-cancel-fi",
        "skills",
        ("poista se tehyn jäsenmaksumuistutus, maksu menee nyt suoraan palkasta. kiitti",),
        no_skill_with("Tehy", "jäsenmaks", "union fee", "union dues"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call("memory_delete_skill", lambda w: {"skill_id": skill_id("Tehy")(w)}),
            ),
        ),
        lang="fi",
        setup=seed_skill(
            "Tehyn jäsenmaksu", "0 12 5 * *", "Muistuta käyttäjää maksamaan Tehyn jäsenmaksu verkkopankissa."
        ),
    ),
    Task(
        "freshi-skills-compression",
        "skills",
        (
            "my nights are always mon wed fri. remind me those days 6.30pm: compression socks, lunch out of fridge, "
            "ID badge. forgot the socks again last wk + legs were dead by 4am",
        ),
        cron_skills_together("30 18 * * 1,3,5", "compression"),
        (
            (
                reminder_call(
                    "Before night shift",
                    {"schedule": "30 18 * * 1,3,5"},
                    "Remind the user before their night shift: compression socks, lunch out of the fridge, ID badge.",
                ),
            ),
        ),
    ),
    Task(
        "freshi-skills-serkan-tr",
        "skills",
        (
            "yarın sabah 8.30'da bana hatırlat, 2 numaralı dairedeki kiracım Serkan Bey'i arayacağım. kombici "
            "perşembe geliyor, anahtarı kapıcıya bırakabilir mi diye soracağım",
        ),
        once_skill(lambda w: day(w, 1) + timedelta(hours=8, minutes=30), timedelta(minutes=5), "Serkan"),
        (
            (
                tool_call(
                    "memory_store_skill",
                    lambda w: {
                        "name": "Serkan Bey'i ara",
                        "trigger_type": "cron",
                        "trigger_config": {"at": at(w, 1, 8, 30)},
                        "instructions": "Kullanıcıya 2 numaralı dairedeki kiracısı Serkan Bey'i aramasını hatırlat: "
                        "kombici perşembe geliyor, anahtar kapıcıya bırakılabilir mi?",
                    },
                ),
            ),
        ),
        lang="tr",
    ),
    # memory --------------------------------------------------------------------------------------------------------
    Task(
        "freshi-mem-priya-rent",
        "memory",
        (
            "i gave u the wrong rent for priya earlier, i was looking at last years contract. flat 2 is £960 a month "
            "not £925. pls correct it",
        ),
        all_of(fact_gone(_PRIYA_OLD), fact_with(["Priya", "Raman"], ["960"])),
        (
            (
                tool_call("memory_list_facts"),
                tool_call(
                    "memory_update_fact",
                    lambda w: {
                        "fact_id": fact_id("Priya")(w),
                        "fact": "Flat 2 at 14 Alder Court is let to Priya Raman at £960 a month",
                    },
                ),
            ),
        ),
        setup=seed_facts((_PRIYA_OLD, "background")),
    ),
    Task(
        "freshi-mem-carpark-hu",
        "memory",
        ("felejtsd el a dolgozói parkoló sorompókódját, lecserélték. ha megkapom az újat majd szólok",),
        all_of(fact_gone(_CARPARK_OLD), no_fact_with("5817")),
        (
            (
                tool_call("memory_list_facts"),
                tool_call("memory_delete_fact", lambda w: {"fact_id": fact_id("5817")(w)}),
            ),
        ),
        lang="hu",
        setup=seed_facts((_CARPARK_OLD, "background")),
    ),
    Task(
        "freshi-mem-keyholder",
        "memory",
        (
            "I wonder whether you might remember something for me, as my memory is not what it was: the gentleman "
            "who holds the keys to the food bank's warehouse on Brindley Way is Mr Desmond Achebe, and should I ever "
            "be the first to arrive on a Saturday morning, I am to telephone him rather than the coordinator.",
        ),
        fact_with(["Achebe", "Desmond"], ["key"], ["warehouse", "food bank", "Brindley"]),
        (
            (
                tool_call(
                    "store_fact",
                    {
                        "fact": "Desmond Achebe holds the keys to the food bank's warehouse on Brindley Way; if first "
                        "to arrive on a Saturday, phone him rather than the coordinator",
                        "category": "contact",
                    },
                ),
            ),
        ),
    ),
    Task(
        "freshi-mem-pin-mail",
        "memory",
        (
            f"email {_BANK_OFFICE} my nmc pin pls, they need it for the bank contract. cant find my card anywhere "
            "and im too tired to look",
        ),
        mail_to(_BANK_OFFICE, ["09A1873E"]),
        (
            (
                tool_call("search_memories", {"query": "NMC PIN"}),
                tool_call(
                    "gmail_send_email",
                    {
                        "to": _BANK_OFFICE,
                        "subject": "NMC PIN for my bank contract",
                        "body": "Hello, my NMC PIN for the bank contract is 09A1873E. Thanks.",
                    },
                ),
            ),
        ),
        setup=seed_facts(("The user's NMC PIN (nursing registration number) is 09A1873E", "background")),
    ),
    # files ---------------------------------------------------------------------------------------------------------
    Task(
        "freshi-files-shift-bag",
        "files",
        (
            "make shift-bag.md, checklist for my work bag: fob watch, pen torch, 3 black pens, trauma shears, hand "
            "cream, phone charger, snacks. so i stop turning up without the fob watch",
        ),
        file_with("shift-bag.md", ["fob watch"], ["pen torch", "penlight", "torch"], ["shears"], ["charger"]),
        (
            (
                tool_call(
                    "filer_create_file",
                    {
                        "path": "shift-bag.md",
                        "content": "# Shift bag\n- [ ] Fob watch\n- [ ] Pen torch\n- [ ] 3 black pens\n"
                        "- [ ] Trauma shears\n- [ ] Hand cream\n- [ ] Phone charger\n- [ ] Snacks\n",
                    },
                ),
            ),
        ),
    ),
    Task(
        "freshi-files-gutter-fix",
        "files",
        (
            "typo in repairs-2026.txt - the gutter job in may was £140 not £410. fix that line and dont touch the "
            "rest, its going to the accountant friday",
        ),
        all_of(
            lines_about("repairs-2026.txt", ["Gutter"], ["140"]),
            file_with("repairs-2026.txt", ["AquaFix"], ["£68", "68"], ["Sparks"], ["£85", "85"], ["Pruitt"], ["95"]),
        ),
        (
            (
                tool_call("filer_read_file", {"path": "repairs-2026.txt"}),
                tool_call(
                    "filer_update_file",
                    {"path": "repairs-2026.txt", "content": _REPAIRS.replace("£410", "£140")},
                ),
            ),
        ),
        setup=seed_files({"repairs-2026.txt": _REPAIRS}),
    ),
    Task(
        "freshi-files-turnos-es",
        "files",
        (
            "Hola, buenas tardes. ¿Sería tan amable de crearme un archivo turnos-banco-alimentos.txt con los turnos "
            "de reparto de diciembre? Los martes vamos Mercedes y yo, los jueves Julián y Araceli, y el sábado 20, "
            "que es la gran recogida de Navidad, vamos todos. Muchísimas gracias.",
        ),
        file_with(
            "turnos-banco-alimentos.txt",
            ["Mercedes"],
            ["Julián", "Julian"],
            ["Araceli"],
            ["sábado", "sabado", "Saturday", "20"],
        ),
        (
            (
                tool_call(
                    "filer_create_file",
                    {
                        "path": "turnos-banco-alimentos.txt",
                        "content": "Turnos de reparto - diciembre\nMartes: Mercedes y yo\nJueves: Julián y Araceli\n"
                        "Sábado 20 (gran recogida de Navidad): todos\n",
                    },
                ),
            ),
        ),
        lang="es",
    ),
    # email -----------------------------------------------------------------------------------------------------------
    Task(
        "freshi-email-surplus-draft",
        "email",
        (
            f"Would you be so kind as to draft an email to the manager of the Harwell Co-op, Mrs Fenwick ({_FENWICK}), "
            "asking whether they might set aside their surplus bread and fruit for the food bank on Friday "
            "afternoons? Please do not send it: I taught English for thirty-one years and I should like to read it "
            "over properly before it goes anywhere.",
        ),
        all_of(
            mail_to(_FENWICK, ["surplus", "left over", "leftover", "bread"], ["Friday"], drafts=True),
            not_(mail_to(_FENWICK), "the mail to Mrs Fenwick was sent, not left a draft"),
        ),
        (
            (
                tool_call(
                    "gmail_create_draft",
                    {
                        "to": _FENWICK,
                        "subject": "Surplus bread and fruit for the food bank",
                        "body": "Dear Mrs Fenwick,\n\nI volunteer at our local food bank, and I am writing to ask "
                        "whether the Harwell Co-op might set aside its surplus bread and fruit for us on Friday "
                        "afternoons. We would gladly collect it.\n\nWith kind regards",
                    },
                ),
            ),
        ),
    ),
    Task(
        "freshi-email-radiator-reply-sv",
        "email",
        (
            "svara johanna på mejlet om elementet: rörmokaren kommer torsdag förmiddag, hon behöver inte vara hemma "
            "han har egen nyckel. och be henne lufta elementet innan om hon hinner",
        ),
        mail_to(_JOHANNA, ["torsdag", "Thursday"], ["rörmokare", "VVS", "plumber"]),
        (
            (
                tool_call("gmail_list_emails", {"query": f"from:{_JOHANNA}"}),
                tool_call(
                    "gmail_reply_email",
                    lambda w: {
                        "message_id": mail_id(f"from:{_JOHANNA}")(w),
                        "body": "Hej Johanna! Rörmokaren kommer på torsdag förmiddag. Du behöver inte vara hemma, han "
                        "har egen nyckel. Om du hinner får du gärna lufta elementet innan. Hälsningar",
                    },
                ),
            ),
        ),
        lang="sv",
        setup=seed_mail(
            (
                _JOHANNA,
                "Elementet i sovrummet",
                "Hej! Elementet i sovrummet blir inte varmt längre, det har varit kallt i tre dagar nu. När kan någon "
                "komma och titta på det? Mvh Johanna, lgh 1102",
            )
        ),
    ),
    Task(
        "freshi-email-extra-shift-id",
        "email",
        (
            f"tolong kirim email ke bu ratna ({_RATNA}), bilang aku gak bisa ambil shift tambahan sabtu malam ini, "
            "udah 4 malam berturut2. makasih ya",
        ),
        mail_to(_RATNA, ["Sabtu", "Saturday"]),
        (
            (
                tool_call(
                    "gmail_send_email",
                    {
                        "to": _RATNA,
                        "subject": "Shift tambahan Sabtu malam",
                        "body": "Selamat siang Bu Ratna, mohon maaf saya tidak bisa mengambil shift tambahan Sabtu "
                        "malam ini karena sudah dinas malam 4 hari berturut-turut. Terima kasih.",
                    },
                ),
            ),
        ),
        lang="id",
    ),
    # calendar --------------------------------------------------------------------------------------------------------
    Task(
        "freshi-cal-volunteers-it",
        "calendar",
        (
            "Buongiorno, potrebbe cortesemente segnarmi in calendario la riunione dei volontari del Banco Alimentare "
            "mercoledì alle 18:30, nella sala parrocchiale di San Rocco? La ringrazio molto.",
        ),
        any_of(*(event_at(["Banco Alimentare", "volontari", "San Rocco"], when) for when in on_weekday(2, 18, 30))),
        (
            (
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Riunione volontari Banco Alimentare",
                        "location": "Sala parrocchiale di San Rocco",
                        "start_date_time": _wednesday_at(w, 18, 30),
                        "end_date_time": _wednesday_at(w, 20),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        lang="it",
    ),
    Task(
        "freshi-cal-hepb-move",
        "calendar",
        ("occ health appt tmrw 10am - can u move it to 3pm same day. coming off a night, no way im awake at 10",),
        # The first event about the appointment is checked: a copy made at the new time beside the old one fails.
        event_moved(["Hep B", "booster"], lambda w: day(w, 1) + timedelta(hours=15)),
        (
            (
                tool_call(
                    "gmail_list_events", lambda w: {"time_min": at(w, 1, 0) + "Z", "time_max": at(w, 2, 0) + "Z"}
                ),
                tool_call(
                    "gmail_update_event",
                    lambda w: {
                        "event_id": event_id("Hep B")(w),
                        "start_date_time": at(w, 1, 15),
                        "end_date_time": at(w, 1, 16),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        setup=seed_events(("Occ health - Hep B booster", 1, 10)),
    ),
    Task(
        "freshi-cal-viewing-cancel-pl",
        "calendar",
        (
            "odwołaj mi oglądanie mieszkania pojutrze o 11, państwo Zielińscy już coś znaleźli. to o 12 z panem "
            "Kaczmarkiem zostaje!!",
        ),
        all_of(
            no_event("Zielińs", "Zielins"),
            not_(no_event("Kaczmarek"), "the viewing with Mr Kaczmarek was deleted too"),
        ),
        (
            (
                tool_call(
                    "gmail_list_events", lambda w: {"time_min": at(w, 2, 0) + "Z", "time_max": at(w, 3, 0) + "Z"}
                ),
                tool_call("gmail_delete_event", lambda w: {"event_id": event_id("Zielińs")(w)}),
            ),
        ),
        lang="pl",
        setup=seed_events(
            ("Oglądanie mieszkania (Ogrodowa 7/3) - państwo Zielińscy", 2, 11),
            ("Oglądanie mieszkania (Ogrodowa 7/3) - p. Kaczmarek", 2, 12),
        ),
    ),
    # web search ------------------------------------------------------------------------------------------------------
    Task(
        "freshi-search-renters-rights",
        "search",
        (
            "has the renters rights act actually come in yet or not? what does it change for someone like me with "
            "just 2 flats, esp rent increases",
        ),
        searched(("web", "news"), ["Renters", "Section 21"]),
        ((tool_call("searcher_web_search", {"query": "Renters' Rights Act commencement date landlords"}),),),
    ),
    Task(
        "freshi-search-melatonin-vi",
        "search",
        (
            "tra giúp mình xem làm ca đêm thì uống melatonin có ổn không, nên uống lúc mấy giờ. mệt lắm mà ban ngày "
            "ngủ không nổi",
        ),
        searched(("web", "news"), ["melatonin"]),
        ((tool_call("searcher_web_search", {"query": "melatonin ca đêm nên uống lúc nào"}),),),
        lang="vi",
    ),
    # multi-step ------------------------------------------------------------------------------------------------------
    Task(
        "freshi-multi-deposit",
        "multistep",
        (
            f"can u look at flat1-checkout.txt and email marcus ({_MARCUS}) how much of his deposit he's getting back "
            "and what came off it. be nice, he was a good tenant",
        ),
        all_of(file_operation("read_file", "flat1-checkout.txt"), mail_to(_MARCUS, ["948"])),
        (
            (
                tool_call("filer_read_file", {"path": "flat1-checkout.txt"}),
                tool_call(
                    "gmail_send_email",
                    {
                        "to": _MARCUS,
                        "subject": "Your deposit for Flat 1",
                        "body": "Hi Marcus, thanks for being a great tenant. From your £1,100 deposit we deducted "
                        "£85 for the oven clean, £42 for the bathroom blind and £25 for the missing bin store fob "
                        "(£152 in all), so you'll get £948 back. All the best!",
                    },
                ),
            ),
        ),
        setup=seed_files({"flat1-checkout.txt": _CHECKOUT}),
    ),
    Task(
        "freshi-multi-secours-fr",
        "multistep",
        (
            "Bonjour, pourriez-vous chercher sur internet les horaires de la permanence du Secours populaire de "
            "Villeurbanne et les noter dans un fichier permanences-aide.md ? J'aimerais pouvoir orienter les familles "
            "que nous recevons à la banque alimentaire. Merci beaucoup.",
        ),
        all_of(
            searched(("web", "news"), ["Secours"], ["Villeurbanne"]),
            file_with("permanences-aide.md", ["Secours"]),
        ),
        (
            (
                tool_call("searcher_web_search", {"query": "Secours populaire Villeurbanne horaires permanence"}),
                tool_call(
                    "filer_create_file",
                    {
                        "path": "permanences-aide.md",
                        "content": "# Permanences d'aide\n\n## Secours populaire - Villeurbanne\n"
                        "Horaires : voir le site du Secours populaire du Rhône.\n",
                    },
                ),
            ),
        ),
        lang="fr",
    ),
    # follow-ups in one conversation ----------------------------------------------------------------------------------
    Task(
        "freshi-follow-hampers",
        "followup",
        (
            f"Good morning. Would you please begin a list for this year's Christmas hampers in a file called "
            f"{_HAMPERS}? The families we have been given so far are the Oseis (five of them), Mrs Kowalczyk on her "
            "own, and the Brennans, who are four.",
            "I have just come off the telephone with the coordinator: the Hussain family, six of them, have been "
            "referred as well, and the Brennans are now five, as the grandmother has moved in with them. Would you "
            "kindly bring the list up to date?",
        ),
        all_of(
            file_with(_HAMPERS, ["Osei"], ["Kowalczyk"], ["Hussain"]),
            lines_about(_HAMPERS, ["Brennan"], ["5", "five"]),
        ),
        (
            (
                tool_call(
                    "filer_create_file",
                    {
                        "path": _HAMPERS,
                        "content": "Christmas hampers 2026\nOsei family - 5\nMrs Kowalczyk - 1\nBrennan family - 4\n",
                    },
                ),
            ),
            (
                tool_call(
                    "filer_update_file",
                    {
                        "path": _HAMPERS,
                        "content": "Christmas hampers 2026\nOsei family - 5\nMrs Kowalczyk - 1\nBrennan family - 5\n"
                        "Hussain family - 6\n",
                    },
                ),
            ),
        ),
    ),
    Task(
        "freshi-follow-boiler-tenant",
        "followup",
        (
            "when is pruitt heating doing the boiler service at flat 1? cant remember what day i booked",
            f"ok. email the tenant abi ({_ABI}) and tell her the day, he'll be there 8 till 10 and needs the "
            "cupboard under the stairs cleared so he can get at the boiler",
        ),
        mail_naming_day(_ABI, 4, ["boiler", "Pruitt", "engineer"]),
        (
            (
                tool_call(
                    "gmail_list_events",
                    lambda w: {"time_min": at(w, 0, 0) + "Z", "time_max": at(w, 21, 0) + "Z", "query": "Pruitt"},
                ),
            ),
            (
                tool_call(
                    "gmail_send_email",
                    lambda w: {
                        "to": _ABI,
                        "subject": "Boiler service at Flat 1",
                        "body": f"Hi Abi, Pruitt Heating are doing the boiler service on {day(w, 4):%A %-d %B}, "
                        "between 8 and 10am. Could you clear the cupboard under the stairs so the engineer can get "
                        "to the boiler? Thanks!",
                    },
                ),
            ),
        ),
        setup=seed_events(("Boiler service flat 1 - Pruitt Heating", 4, 8)),
    ),
)


__all__ = ["FRESH_I_TASKS", "SET_NAME"]
