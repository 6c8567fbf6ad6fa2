"""A fifth fresh batch of agent tasks, written on 2026-11-28 by a sixth author, never used to fix the product.

The earlier batches are read once measured, and the product is fixed from what they show; this batch is for
measuring after those fixes, so it was written without looking at what they found. Its voices are new: a busy
parent dictating to the phone on the go (speech-to-text run-ons, little punctuation, "like", "wait no") and a small
landlord with a few flats let out, writing businesslike requests about tenants, rents and repairs, in English and
in Swahili, Thai, Malay, Slovak, Croatian, Tagalog, Persian, Lithuanian, Latvian and Slovenian. Run it as a group
with `agent_tasks.py --set fresh-2026-11-28c`; MEASURE it before anyone reads a failure of its to change the
product.

The checks are those of `agent_taskset`, on the end state only, and accept every way a correct assistant could get
there: a reminder by what its schedule means (equal cron expressions, several skills that fire together as one, a
one-off time within a tolerance), a cancelled reminder as deleted or switched off, a paused one as kept but off, a
corrected fact as the new value written with or without the old one beside it, a changed line of a file however
the rest of the file was kept, an event taken out while its neighbour stays. The words a check looks for are ones
no other task's reminders use, because every task's skills share one stack.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    fact_id,
    fact_with,
    file_with,
    has_any,
    lines_about,
    mail_to,
    no_event,
    no_fact_saying,
    no_file,
    no_skill_with,
    not_,
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

SET_NAME = "fresh-2026-11-28c"


def no_line_saying(path: str, about: Sequence[str], stale: Sequence[str]) -> Check:
    """No line about `about` still says one of `stale`: an old status replaced, not kept beside the new one."""

    def check(world: World) -> str | None:
        content = world.file(path) or ""
        left = [line for line in content.splitlines() if has_any(line, about) and has_any(line, stale)]
        return f"{path} still says {left[0].strip()!r}" if left else None

    return check


def seed_electrician_mail(world: World) -> None:
    when = day(world, 4)
    world.add_mail(
        "bookings@brightspark-electrical.example",
        "Booking confirmed: electrical safety inspection (EICR), Flat 1A",
        f"Dear landlord, our electrician will carry out the EICR at 12 Elm Row, Flat 1A on {when:%A %d %B %Y} at "
        "08:00 (allow about three hours). Please make sure the tenant knows and that the consumer unit is "
        "reachable. Brightspark Electrical",
    )


_RENTS = "Rent received - November 2026\nFlat 1A  £820  paid 1 Nov\nFlat 2B  £850  owing\nFlat 3C  £790  paid 3 Nov\n"
_BUS_TIMES = ("6:50", "6.50", "۶:۵۰", "۶.۵۰", "٦:٥٠")
"""6:50 as it may be written: Latin, Persian or Arabic-Indic digits."""
_PICKUP_WORDS = ("Leo", "football", "soccer")

FRESH_E_TASKS: tuple[Task, ...] = (
    # reminders and skills --------------------------------------------------------------------------------------------
    Task(
        "freshe-skills-parking",
        "skills",
        ("okay remind me in 45 minutes to move the car off Hollis Street the parking meter runs out",),
        once_skill(lambda w: w.now + timedelta(minutes=45), timedelta(minutes=10), "parking", "Hollis", "car"),
        (
            (
                reminder_call(
                    "Move the car",
                    {"in_minutes": 45},
                    "Remind the user to move the car off Hollis Street before the parking meter runs out.",
                ),
            ),
        ),
    ),
    Task(
        "freshe-skills-rent-sk",
        "skills",
        (
            "Nastav mi pripomienku každý mesiac 25. o 9:00, aby som skontroloval, či všetci nájomníci zaplatili "
            "nájomné.",
        ),
        cron_skill("0 9 25 * *", "nájom", "najom", "rent"),
        (
            (
                reminder_call(
                    "Kontrola nájomného",
                    {"every": "month", "day": 25, "time": "09:00"},
                    "Pripomeň používateľovi, aby skontroloval, či všetci nájomníci zaplatili nájomné.",
                ),
            ),
        ),
        lang="sk",
    ),
    Task(
        "freshe-skills-cancel-hr",
        "skills",
        (
            "Molim te, izbriši podsjetnik za očitavanje vodomjera u stanu na Trešnjevci. Novi stanar sam plaća "
            "vodu, pa mi više ne treba.",
        ),
        no_skill_with("vodomjer", "Trešnjev", "water meter"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call("memory_delete_skill", lambda w: {"skill_id": skill_id("vodomjer")(w)}),
            ),
        ),
        lang="hr",
        setup=seed_skill(
            "Očitavanje vodomjera – Trešnjevka", "0 10 1 * *", "Podsjeti korisnika da očita vodomjer u stanu."
        ),
    ),
    Task(
        "freshe-skills-pause-tl",
        "skills",
        (
            "Pwede mo bang i-pause muna yung paalala ko tuwing Sabado para sa swimming lesson ni Migo? Bakasyon "
            "kasi sila ng isang buwan. Huwag mong burahin ha, ibabalik ko rin pagkatapos.",
        ),
        skill_paused("Migo"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call("memory_update_skill", lambda w: {"skill_id": skill_id("Migo")(w), "enabled": False}),
            ),
        ),
        lang="tl",
        setup=seed_skill(
            "Swimming lesson ni Migo", "0 8 * * 6", "Paalalahanan ang user na dalhin si Migo sa swimming lesson."
        ),
    ),
    Task(
        "freshe-skills-move-lt",
        "skills",
        (
            "Šiukšlių išvežimo priminimą perkelk iš antradienio į ketvirtadienį – nuo gruodžio šiukšliavežė "
            "atvažiuoja ketvirtadieniais. Laikas lieka tas pats.",
        ),
        # The merged times of every such reminder: a Tuesday one left on beside the new Thursday one fails.
        cron_skills_together("30 19 * * 4", "šiukšl", "konteiner", "trash", "garbage", "rubbish"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call(
                    "memory_update_skill",
                    lambda w: {"skill_id": skill_id("šiukšl")(w), "trigger_config": {"every": "thursday"}},
                ),
            ),
        ),
        lang="lt",
        setup=seed_skill(
            "Šiukšlių išvežimas", "30 19 * * 2", "Priminti naudotojui išstumti šiukšlių konteinerį prie gatvės."
        ),
    ),
    # memory --------------------------------------------------------------------------------------------------------
    Task(
        "freshe-mem-plumber-sw",
        "memory",
        (
            "Kumbuka: fundi bomba wangu ni Juma Mwangi, namba yake ya simu ni 0722 418 905. Yeye ndiye "
            "anayetengeneza mabomba kwenye nyumba zangu zote tatu za kupangisha.",
        ),
        fact_with(["Juma", "Mwangi"], ["418"]),
        (
            (
                tool_call(
                    "store_fact",
                    {"fact": "The user's plumber is Juma Mwangi, phone 0722 418 905", "category": "contact"},
                ),
            ),
        ),
        lang="sw",
    ),
    Task(
        "freshe-mem-tenant",
        "memory",
        (
            "For your records: from 1 December the tenant in flat 2B is Adaeze Obi. Her deposit of £950 is "
            "protected with the DPS.",
        ),
        fact_with(["Adaeze"], ["2B"]),
        (
            (
                tool_call(
                    "store_fact",
                    {
                        "fact": "From 1 December the tenant in flat 2B is Adaeze Obi; deposit £950 with the DPS",
                        "category": "contact",
                    },
                ),
            ),
        ),
    ),
    Task(
        "freshe-mem-correct-fa",
        "memory",
        (
            "ساعت سرویس مدرسه‌ی آرمان عوض شده. از این هفته ساعت ۶:۵۰ صبح میاد، نه ۷:۱۵. لطفاً چیزی که یادت بود رو "
            "درست کن.",
        ),
        all_of(
            fact_with(["Arman", "آرمان"], _BUS_TIMES),
            no_fact_saying(["Arman", "آرمان"], ["7:15", "7.15", "۷:۱۵", "٧:١٥"], unless=_BUS_TIMES),
        ),
        (
            (
                tool_call("memory_list_facts"),
                tool_call(
                    "memory_update_fact",
                    lambda w: {
                        "fact_id": fact_id("Arman")(w),
                        "fact": "The school bus for the user's son Arman comes at 6:50",
                    },
                ),
            ),
        ),
        lang="fa",
        setup=seed_facts(("The school bus for the user's son Arman comes at 7:15", "background")),
    ),
    # files ---------------------------------------------------------------------------------------------------------
    Task(
        "freshe-files-party-ms",
        "files",
        (
            "Tolong buat fail senarai-parti-aisyah.txt untuk parti hari jadi Aisyah: belon, kek coklat, lilin "
            "nombor 7, beg cenderamata dan pinggan kertas.",
        ),
        file_with("senarai-parti-aisyah.txt", ["belon"], ["kek"], ["lilin"], ["cenderamata"]),
        (
            (
                tool_call(
                    "filer_create_file",
                    {
                        "path": "senarai-parti-aisyah.txt",
                        "content": "- belon\n- kek coklat\n- lilin nombor 7\n- beg cenderamata\n- pinggan kertas\n",
                    },
                ),
            ),
        ),
        lang="ms",
    ),
    Task(
        "freshe-files-rents",
        "files",
        (
            "Flat 2B's November rent came in today, £850 by bank transfer. Please mark it as paid in rents-2026.txt "
            "and leave the other flats' lines as they are.",
        ),
        all_of(
            lines_about("rents-2026.txt", ["2B"], ["paid", "received"]),
            no_line_saying("rents-2026.txt", ["2B"], ["owing"]),
            file_with("rents-2026.txt", ["1A"], ["3C"]),
        ),
        (
            (
                tool_call("filer_read_file", {"path": "rents-2026.txt"}),
                tool_call(
                    "filer_update_file",
                    lambda w: {
                        "path": "rents-2026.txt",
                        "content": _RENTS.replace("£850  owing", f"£850  paid {day(w, 0).day} {day(w, 0):%b}"),
                    },
                ),
            ),
        ),
        setup=seed_files({"rents-2026.txt": _RENTS}),
    ),
    Task(
        "freshe-files-lease-lv",
        "files",
        (
            "Lūdzu, izdzēs failu nomas-ligums-melnraksts.txt. Galīgo versiju nomas-ligums.txt neaiztiec – tā jau ir "
            "parakstīta.",
        ),
        all_of(no_file("nomas-ligums-melnraksts.txt"), file_with("nomas-ligums.txt", ["parakst"])),
        ((tool_call("filer_delete_file", {"path": "nomas-ligums-melnraksts.txt"}),),),
        lang="lv",
        setup=seed_files(
            {
                "nomas-ligums-melnraksts.txt": "Nomas līgums (melnraksts): dzīvoklis Nr. 4, īre 420 EUR mēnesī.\n",
                "nomas-ligums.txt": "Nomas līgums: dzīvoklis Nr. 4, īre 430 EUR mēnesī. Parakstīts 2026-11-20.\n",
            }
        ),
    ),
    # email -----------------------------------------------------------------------------------------------------------
    Task(
        "freshe-email-boiler-sl",
        "email",
        (
            "Pošlji e-pošto najemniku Marku Novaku (marko.novak@example.si): v četrtek ob 10. uri pride serviser "
            "pregledat bojler, naj bo kdo doma ali naj mi pusti ključ.",
        ),
        mail_to("marko.novak@example.si", ["bojler", "grelnik", "boiler"], ["četrt", "thursday"]),
        (
            (
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "marko.novak@example.si",
                        "subject": "Pregled bojlerja v četrtek",
                        "body": "Pozdravljeni, v četrtek ob 10. uri pride serviser pregledat bojler. Prosim, naj "
                        "bo kdo doma ali mi pustite ključ.",
                    },
                ),
            ),
        ),
        lang="sl",
    ),
    Task(
        "freshe-email-trip-draft",
        "email",
        (
            "reply to mrs ferreira's email about the wetland trip but just draft it don't send it yet say yes Noah "
            "can go and I'll pay the 12 pounds on Monday",
        ),
        all_of(
            mail_to("r.ferreira@oakfield-primary.example", ["Noah"], ["12"], drafts=True),
            not_(mail_to("r.ferreira@oakfield-primary.example"), "the reply to Mrs Ferreira was sent, not drafted"),
        ),
        (
            (
                tool_call("gmail_list_emails", {"query": "wetland"}),
                tool_call(
                    "gmail_create_draft",
                    {
                        "to": "r.ferreira@oakfield-primary.example",
                        "subject": "Re: Year 3 trip to the Wetland Centre",
                        "body": "Dear Mrs Ferreira, yes, Noah can go on the trip. I will pay the £12 on Monday.",
                    },
                ),
            ),
        ),
        setup=seed_mail(
            (
                "r.ferreira@oakfield-primary.example",
                "Year 3 trip to the Wetland Centre",
                "Dear parents, Year 3 will visit the Wetland Centre next Thursday. Please reply to confirm that your "
                "child may attend, and pay the £12 contribution by Monday. Kind regards, Mrs R. Ferreira",
            )
        ),
    ),
    # calendar --------------------------------------------------------------------------------------------------------
    Task(
        "freshe-cal-parents-th",
        "calendar",
        ("ช่วยลงปฏิทินให้หน่อยนะ มะรืนนี้บ่ายสองโมงครึ่ง มีประชุมผู้ปกครองที่โรงเรียนของน้องมายด์ ประมาณชั่วโมงนึง",),
        event_at(
            ["ผู้ปกครอง", "ประชุม", "parent", "teacher", "มายด์", "Mind"],
            lambda w: day(w, 2) + timedelta(hours=14, minutes=30),
        ),
        (
            (
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "ประชุมผู้ปกครอง โรงเรียนน้องมายด์",
                        "start_date_time": at(w, 2, 14, 30),
                        "end_date_time": at(w, 2, 15, 30),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        lang="th",
    ),
    Task(
        "freshe-cal-viewing",
        "calendar",
        (
            "The viewing at flat 3C the day after tomorrow is off - the applicant has found somewhere else. Please "
            "take it out of my calendar.",
        ),
        all_of(no_event("3C"), not_(no_event("Gas safety"), "the gas safety check that day was deleted as well")),
        (
            (
                tool_call(
                    "gmail_list_events", lambda w: {"time_min": at(w, 2, 0) + "Z", "time_max": at(w, 3, 0) + "Z"}
                ),
                tool_call("gmail_delete_event", lambda w: {"event_id": event_id("3C")(w)}),
            ),
        ),
        setup=seed_events(("Viewing flat 3C", 2, 11), ("Gas safety check flat 1A", 2, 15)),
    ),
    # web search ------------------------------------------------------------------------------------------------------
    Task(
        "freshe-search-museum",
        "search",
        (
            "ok the kids want dinosaurs on Sunday can you look up when the Natural History Museum opens on Sundays "
            "and if we have to book",
        ),
        searched(("web", "news"), ["Natural History"]),
        ((tool_call("searcher_web_search", {"query": "Natural History Museum Sunday opening hours booking"}),),),
    ),
    # multi-step ------------------------------------------------------------------------------------------------------
    Task(
        "freshe-multi-inspection",
        "multistep",
        (
            "The electricians have emailed me the date for the safety inspection at flat 1A. Please put it in my "
            "calendar, and remind me at 8 pm the evening before to let the tenant know.",
        ),
        all_of(
            event_at(["EICR", "inspection", "electric", "1A"], lambda w: day(w, 4) + timedelta(hours=8)),
            once_skill(
                lambda w: day(w, 3) + timedelta(hours=20),
                timedelta(minutes=5),
                "1A",
                "tenant",
                "EICR",
                "inspection",
                "electric",
            ),
        ),
        (
            (
                tool_call("gmail_list_emails", {"query": "EICR"}),
                tool_call(
                    "gmail_get_email",
                    lambda w: {"message_id": mail_id("from:bookings@brightspark-electrical.example")(w)},
                ),
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "EICR electrical inspection - Flat 1A",
                        "start_date_time": at(w, 4, 8),
                        "end_date_time": at(w, 4, 11),
                        "time_zone": "UTC",
                    },
                ),
                tool_call(
                    "memory_store_skill",
                    lambda w: {
                        "name": "Tell the 1A tenant about the inspection",
                        "trigger_type": "cron",
                        "trigger_config": {"at": at(w, 3, 20)},
                        "instructions": "Remind the user to tell the Flat 1A tenant about tomorrow's 08:00 EICR.",
                    },
                ),
            ),
        ),
        setup=seed_electrician_mail,
    ),
    Task(
        "freshe-multi-packing",
        "multistep",
        (
            "can you email the camp packing list to my sister jo hart jo.hart@example.com her twins are going too "
            "it's in camp-packing.txt",
        ),
        mail_to("jo.hart@example.com", ["sleeping bag"], ["torch"], ["wellies"]),
        (
            (
                tool_call("filer_read_file", {"path": "camp-packing.txt"}),
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "jo.hart@example.com",
                        "subject": "Camp packing list",
                        "body": "Hi Jo, here's the camp list: sleeping bag, torch, wellies, sun cream, 2 water "
                        "bottles.",
                    },
                ),
            ),
        ),
        setup=seed_files({"camp-packing.txt": "sleeping bag\ntorch\nwellies\nsun cream\n2 water bottles\n"}),
    ),
    # follow-ups in one conversation ----------------------------------------------------------------------------------
    Task(
        "freshe-follow-football",
        "followup",
        (
            "remind me every tuesday and thursday at 4:45 pm to pick Leo up from football",
            "wait no his dad has him on thursdays so just tuesdays",
        ),
        cron_skills_together("45 16 * * 2", *_PICKUP_WORDS),
        (
            (
                reminder_call(
                    "Pick Leo up from football",
                    {"every": ["tuesday", "thursday"], "time": "16:45"},
                    "Remind the user to pick Leo up from football.",
                ),
            ),
            (
                tool_call("memory_list_skills"),
                tool_call(
                    "memory_update_skill",
                    lambda w: {"skill_id": skill_id("Leo")(w), "trigger_config": {"every": "tuesday"}},
                ),
            ),
        ),
    ),
    Task(
        "freshe-follow-repairs",
        "followup",
        (
            "Please start a file repairs-todo.txt with two jobs: flat 1A kitchen tap drips; flat 3C bathroom "
            "extractor fan dead.",
            "The plumber sorted the 1A tap this morning, so take that one off. And add: 2B front door lock sticking.",
        ),
        all_of(
            file_with("repairs-todo.txt", ["fan"], ["lock"]),
            not_(file_with("repairs-todo.txt", ["tap"]), "repairs-todo.txt still lists the 1A tap"),
        ),
        (
            (
                tool_call(
                    "filer_create_file",
                    {
                        "path": "repairs-todo.txt",
                        "content": "- Flat 1A: kitchen tap drips\n- Flat 3C: bathroom extractor fan dead\n",
                    },
                ),
            ),
            (
                tool_call(
                    "filer_update_file",
                    {
                        "path": "repairs-todo.txt",
                        "content": "- Flat 3C: bathroom extractor fan dead\n- Flat 2B: front door lock sticking\n",
                    },
                ),
            ),
        ),
    ),
)


__all__ = ["FRESH_E_TASKS", "SET_NAME"]
