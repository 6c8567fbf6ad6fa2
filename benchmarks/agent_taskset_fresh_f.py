"""A sixth fresh batch of agent tasks, written on 2026-11-28 by a seventh author, never used to fix the product.

The earlier batches are read once measured, and the product is fixed from what they show; this batch is for
measuring in a later session, after those fixes, so it was written without looking at what any run found. Its
voices are new: a freelance translator juggling deadlines (terse, clients and agencies, word counts, rates, job
numbers) and a hobby gardener who keeps bees (chatty, hives, the allotment, the weather), in English and in
Icelandic, Estonian, Welsh, Albanian, Serbian (Latin script), Bengali, Tamil, Amharic, Basque, Urdu, Yoruba and
Irish. Run it as a group with `agent_tasks.py --set fresh-2026-11-28d`; MEASURE it before anyone reads a failure
of its to change the product.

The checks are those of `agent_taskset`, on the end state only, and accept every way a correct assistant could get
there: a reminder by what its schedule means (equal cron expressions, several skills that fire together as one, a
one-off time within a tolerance), a resumed reminder as any switched-on reminder at the old times, a retimed one
as the same days at the new hour, a cancelled one as deleted or switched off, a forgotten fact as gone however it
went, a corrected fact as the new value with or without the old one beside it, a renamed file as moved or copied
and removed, an appended log as the new entry with the old ones kept, digits in the script of the language too.
The words a check looks for are ones no other task's state uses, because every task shares one stack.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from agent_taskset import (
    Check,
    Setup,
    Task,
    World,
    all_of,
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
    has_any,
    mail_to,
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
    skill_text,
    tool_call,
    trigger,
    user_skills,
)
from agent_taskset_fresh import mail_id

from shared.timeutil import parse_timestamp

SET_NAME = "fresh-2026-11-28d"


def seed_paused_skill(name: str, schedule: str, instructions: str) -> Setup:
    """A reminder stored and then switched off, as the owner paused it before the task."""
    store = seed_skill(name, schedule, instructions)

    def setup(world: World) -> None:
        store(world)
        envelope = world.call("memory_update_skill", {"skill_id": skill_id(name)(world), "enabled": False})
        if not envelope.get("success"):
            raise RuntimeError(f"pausing the skill {name!r} failed: {envelope.get('error')}")

    return setup


def no_live_once_skill(when: Callable[[World], datetime], tolerance: timedelta, *words: str) -> Check:
    """No switched-on one-off reminder about `words` near `when`: a replaced time deleted or switched off alike."""

    def check(world: World) -> str | None:
        target = when(world)
        for skill in user_skills(world):
            moment = parse_timestamp(trigger(skill).get("at"))
            if (
                moment is not None
                and skill.get("enabled", True)
                and has_any(skill_text(skill), words)
                and abs(moment - target) <= tolerance
            ):
                return f"a reminder at {target:%H:%M} is still on: {skill.get('name')!r}"
        return None

    return check


_HONEY = ("honey", "med", "tegl")
_NEW_PRICE = ("1400", "1.400", "1,400", "1 400")
_JOBS = (
    "Tessera Translations - November 2026 jobs\n"
    "T-2291  patient leaflet DE>EN        2,400 words\n"
    "T-2304  app strings FR>EN            1,850 words\n"
    "T-2317  annual report excerpt DE>EN  3,100 words\n"
)
_HIVE_LOG = "# Hive log\n- 14 Nov: Hive 1, fondant block added, cluster tight\n- 21 Nov: Hive 2, mouse guard fitted\n"
_SEEDS = "Gernikako piperra - 2 pakete\nTomate beltza - 1 pakete\nBaratxuri morea - 10 ale\n"
_MAREN = ("Maren", "chapter", "Fjordbok")

FRESH_F_TASKS: tuple[Task, ...] = (
    # reminders and skills --------------------------------------------------------------------------------------------
    Task(
        "freshf-skills-portal-is",
        "skills",
        (
            "Minntu mig á það alla mánudaga og miðvikudaga klukkan 8:30 að kíkja á nýju verkefnin í "
            "verkefnagáttinni hjá Orðabrú. Þeir úthluta verkum til þess sem svarar fyrst.",
        ),
        cron_skills_together("30 8 * * 1,3", "Orðabr", "Ordabr", "verkefn", "portal"),
        (
            (
                reminder_call(
                    "Verkefnagátt Orðabrúar",
                    {"every": ["monday", "wednesday"], "time": "08:30"},
                    "Minntu notandann á að kíkja á nýju verkefnin í verkefnagáttinni hjá Orðabrú.",
                ),
            ),
        ),
        lang="is",
    ),
    Task(
        "freshf-skills-oxalic",
        "skills",
        (
            "remind me the day after tomorrow at 7 in the morning to slide the oxalic acid strips into hive 2, "
            "before the girls start flying",
        ),
        once_skill(lambda w: day(w, 2) + timedelta(hours=7), timedelta(minutes=5), "oxalic", "varroa", "hive 2"),
        (
            (
                reminder_call(
                    "Oxalic acid strips, hive 2",
                    {"in_days": 2, "time": "07:00"},
                    "Remind the user to put the oxalic acid strips into hive 2 before the bees fly.",
                ),
            ),
        ),
    ),
    Task(
        "freshf-skills-cancel-et",
        "skills",
        (
            "Palun kustuta see meeldetuletus, mis tuletab mulle igal reedel meelde Keelesillale tunnilehte saata. "
            "Lõpetasin nendega lepingu eile, rohkem tööd neilt ei tule.",
        ),
        no_skill_with("Keelesil", "tunnileht", "timesheet"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call("memory_delete_skill", lambda w: {"skill_id": skill_id("Keelesil")(w)}),
            ),
        ),
        lang="et",
        setup=seed_skill(
            "Keelesilla tunnileht", "0 16 * * 5", "Tuleta kasutajale meelde saata Keelesillale nädala tunnileht."
        ),
    ),
    Task(
        "freshf-skills-resume-cy",
        "skills",
        (
            "Rydw i adref o'r Wladfa o'r diwedd. Wnei di droi'n ôl ymlaen y nodyn atgoffa ar fore Sul i archwilio'r "
            "cychod gwenyn? Fe wnes i ei oedi tra oeddwn i i ffwrdd.",
        ),
        # Only switched-on reminders count: the paused one left off fails, however a new one is timed.
        cron_skills_together("0 11 * * 0", "gwenyn", "cychod", "beehive", "hives"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call("memory_update_skill", lambda w: {"skill_id": skill_id("gwenyn")(w), "enabled": True}),
            ),
        ),
        lang="cy",
        setup=seed_paused_skill(
            "Archwilio'r cychod gwenyn", "0 11 * * 0", "Atgoffa'r defnyddiwr i archwilio'r cychod gwenyn yn yr ardd."
        ),
    ),
    Task(
        "freshf-skills-retime-sq",
        "skills",
        (
            "Kujtesën për ujitjen e serrës kaloje nga ora 19:00 në 6:00 të mëngjesit, ditët le të mbeten të "
            "njëjtat. Në mbrëmje tani bën shumë ftohtë për të ujitur.",
        ),
        # The merged times of every such reminder: the 19:00 one left on beside a new 6:00 one fails.
        cron_skills_together("0 6 * * 1,3,5", "serrë", "serrës", "serre", "ujit", "greenhouse"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call(
                    "memory_update_skill",
                    lambda w: {"skill_id": skill_id("serrës")(w), "trigger_config": {"time": "06:00"}},
                ),
            ),
        ),
        lang="sq",
        setup=seed_skill("Ujitja e serrës", "0 19 * * 1,3,5", "Kujto përdoruesin të ujisë domatet në serrë."),
    ),
    # memory --------------------------------------------------------------------------------------------------------
    Task(
        "freshf-mem-rate",
        "memory",
        (
            "Note for future quotes: Brekke & Lund, the law firm in Oslo, pay me 0.14 EUR per source word and want "
            "their invoices in NOK.",
        ),
        fact_with(["Brekke"], ["0.14", "0,14"]),
        (
            (
                tool_call(
                    "store_fact",
                    {
                        "fact": "Brekke & Lund (Oslo law firm) pay 0.14 EUR per source word; invoices in NOK",
                        "category": "contact",
                    },
                ),
            ),
        ),
    ),
    Task(
        "freshf-mem-honey-sr",
        "memory",
        (
            "Ispravka: tegla mog livadskog meda sada košta 1.400 dinara, a ne 1.200 kao pre. Molim te, ispravi to "
            "što si zapamtio.",
        ),
        all_of(
            fact_with(_HONEY, _NEW_PRICE),
            no_fact_saying(_HONEY, ["1200", "1.200", "1,200", "1 200"], unless=_NEW_PRICE),
        ),
        (
            (
                tool_call("memory_list_facts"),
                tool_call(
                    "memory_update_fact",
                    lambda w: {
                        "fact_id": fact_id("meadow honey")(w),
                        "fact": "A jar of the user's meadow honey sells for 1,400 dinars",
                    },
                ),
            ),
        ),
        lang="sr",
        setup=seed_facts(("A jar of the user's meadow honey sells for 1,200 dinars", "background")),
    ),
    Task(
        "freshf-mem-forget-bn",
        "memory",
        ("আমি যে পলিগ্লোসা এজেন্সির জন্য কাজ করি, ওই কথাটা ভুলে যাও। ওদের সঙ্গে আমার চুক্তি শেষ হয়ে গেছে।",),
        fact_gone("The user also translates for the Dhaka agency Polyglossa"),
        (
            (
                tool_call("memory_list_facts"),
                tool_call("memory_delete_fact", lambda w: {"fact_id": fact_id("Polyglossa")(w)}),
            ),
        ),
        lang="bn",
        setup=seed_facts(("The user also translates for the Dhaka agency Polyglossa", "background")),
    ),
    Task(
        "freshf-mem-gate-ta",
        "memory",
        ("என் தோட்ட நிலத்தின் (அலாட்மென்ட் 14B) வாயில் பூட்டின் குறியீடு 4721. இதை நினைவில் வைத்துக்கொள்.",),
        fact_with(["4721", "௪௭௨௧"]),
        (
            (
                tool_call(
                    "store_fact",
                    {"fact": "The gate lock code of the user's allotment (plot 14B) is 4721", "category": "background"},
                ),
            ),
        ),
        lang="ta",
    ),
    # files ---------------------------------------------------------------------------------------------------------
    Task(
        "freshf-files-glossary-am",
        "files",
        ("እባክህ glossary-am.txt የሚባል ፋይል ፍጠርና እነዚህን ቃላት ጻፍበት፦ ውል = contract፣ ደረሰኝ = invoice፣ የማስረከቢያ ቀን = deadline።",),
        file_with("glossary-am.txt", ["ውል"], ["ደረሰኝ"], ["ማስረከቢያ"]),
        (
            (
                tool_call(
                    "filer_create_file",
                    {
                        "path": "glossary-am.txt",
                        "content": "ውል = contract\nደረሰኝ = invoice\nየማስረከቢያ ቀን = deadline\n",
                    },
                ),
            ),
        ),
        lang="am",
    ),
    Task(
        "freshf-files-hivelog",
        "files",
        (
            "add today's check to hive-log.md under the others: hive 3, queen spotted, brood on 6 frames, calm as "
            "anything, took the super off. don't lose the older notes!",
        ),
        file_with("hive-log.md", ["fondant"], ["mouse guard"], ["queen"], ["super"]),
        (
            (
                tool_call("filer_read_file", {"path": "hive-log.md"}),
                tool_call(
                    "filer_update_file",
                    lambda w: {
                        "path": "hive-log.md",
                        "content": _HIVE_LOG
                        + f"- {day(w, 0).day} {day(w, 0):%b}: Hive 3, queen spotted, brood on 6 frames, calm, "
                        "super taken off\n",
                    },
                ),
            ),
        ),
        setup=seed_files({"hive-log.md": _HIVE_LOG}),
    ),
    Task(
        "freshf-files-rename-eu",
        "files",
        (
            "Mesedez, aldatu haziak-zerrenda.txt fitxategiaren izena: aurrerantzean haziak-2027.txt izan behar du. "
            "Edukia ez ukitu.",
        ),
        all_of(no_file("haziak-zerrenda.txt"), file_with("haziak-2027.txt", ["Gernika"], ["Baratxuri"])),
        ((tool_call("filer_move_file", {"source": "haziak-zerrenda.txt", "destination": "haziak-2027.txt"}),),),
        lang="eu",
        setup=seed_files({"haziak-zerrenda.txt": _SEEDS}),
    ),
    # email -----------------------------------------------------------------------------------------------------------
    Task(
        "freshf-email-urdu-ur",
        "email",
        (
            "عائشہ قریشی کو ای میل کر دو (ayesha.qureshi@example.pk) کہ کتابچے کا اردو ترجمہ مکمل ہو گیا ہے اور میں "
            "کل صبح فائل بھیج دوں گی۔",
        ),
        mail_to("ayesha.qureshi@example.pk", ["ترجم", "translat"]),
        (
            (
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "ayesha.qureshi@example.pk",
                        "subject": "کتابچے کا ترجمہ",
                        "body": "السلام علیکم عائشہ، کتابچے کا اردو ترجمہ مکمل ہو گیا ہے۔ میں کل صبح فائل بھیج دوں گی۔",
                    },
                ),
            ),
        ),
        lang="ur",
    ),
    Task(
        "freshf-email-extension-draft",
        "email",
        (
            "Draft an email to Sigrún at Orðabrú (sigrun@ordabru.example) asking for two more days on the Brekke & "
            "Lund contract job, the client added another 3,000 words this morning. Don't send it, I want to soften "
            "the wording first.",
        ),
        all_of(
            mail_to(
                "sigrun@ordabru.example",
                ["extension", "extend", "more time", "more days", "two days", "2 days", "extra days"],
                drafts=True,
            ),
            not_(mail_to("sigrun@ordabru.example"), "the mail to Sigrún was sent, not left a draft"),
        ),
        (
            (
                tool_call(
                    "gmail_create_draft",
                    {
                        "to": "sigrun@ordabru.example",
                        "subject": "Brekke & Lund contract: two more days?",
                        "body": "Hi Sigrún, the client added another 3,000 words this morning. Could I have two "
                        "more days for the job?",
                    },
                ),
            ),
        ),
    ),
    Task(
        "freshf-email-honey-yo",
        "email",
        (
            "Jọ̀wọ́ fèsì sí ímeèlì Túndé Adéyẹmí nípa oyin. Sọ fún un pé bẹ́ẹ̀ ni, màá mú ìgò oyin mẹ́fà wá "
            "fún un ní Ọjọ́ Àbámẹ́ta.",
        ),
        mail_to("tunde.adeyemi@example.ng", ["oyin", "honey"], ["Àbámẹ́ta", "Abameta", "Àbámẹta", "Saturday"]),
        (
            (
                tool_call("gmail_list_emails", {"query": "from:tunde.adeyemi@example.ng"}),
                tool_call(
                    "gmail_reply_email",
                    lambda w: {
                        "message_id": mail_id("from:tunde.adeyemi@example.ng")(w),
                        "body": "Ẹ kú ọjọ́ o Túndé, bẹ́ẹ̀ ni, màá mú ìgò oyin mẹ́fà wá ní Ọjọ́ Àbámẹ́ta.",
                    },
                ),
            ),
        ),
        lang="yo",
        setup=seed_mail(
            (
                "tunde.adeyemi@example.ng",
                "Honey order",
                "Good afternoon, I would like six jars of your wildflower honey. Could you bring them on Saturday? "
                "Tunde Adeyemi",
            )
        ),
    ),
    # calendar --------------------------------------------------------------------------------------------------------
    Task(
        "freshf-cal-beekeepers-ga",
        "calendar",
        (
            "Cuir cruinniú Chumann Beachairí an Chontae isteach i m'fhéilire amárach ag leathuair tar éis a seacht "
            "tráthnóna, i Halla an Pharóiste.",
        ),
        event_at(
            ["Beachair", "beekeep", "Cumann", "Chumann", "cruinni"],
            lambda w: day(w, 1) + timedelta(hours=19, minutes=30),
        ),
        (
            (
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Cruinniú Chumann Beachairí an Chontae",
                        "location": "Halla an Pharóiste",
                        "start_date_time": at(w, 1, 19, 30),
                        "end_date_time": at(w, 1, 21, 0),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        lang="ga",
    ),
    Task(
        "freshf-cal-move-kessler",
        "calendar",
        (
            "Kessler's PM wants to push our terminology call from tomorrow morning to the day after, half three in "
            "the afternoon. Can you move it in my calendar?",
        ),
        # The first event about Kessler is checked: a copy made at the new time beside the old one fails.
        event_moved(["Kessler"], lambda w: day(w, 2) + timedelta(hours=15, minutes=30)),
        (
            (
                tool_call(
                    "gmail_list_events", lambda w: {"time_min": at(w, 1, 0) + "Z", "time_max": at(w, 2, 0) + "Z"}
                ),
                tool_call(
                    "gmail_update_event",
                    lambda w: {
                        "event_id": event_id("Kessler")(w),
                        "start_date_time": at(w, 2, 15, 30),
                        "end_date_time": at(w, 2, 16, 30),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        setup=seed_events(("Terminology call - Kessler Medizintechnik", 1, 10)),
    ),
    Task(
        "freshf-cal-orlov",
        "calendar",
        (
            "Put the Orlov Pharma subtitling kickoff in my calendar three days from now at 2 pm, 45 minutes, it's on "
            "Zoom.",
        ),
        event_at(["Orlov", "kickoff", "kick-off", "subtit"], lambda w: day(w, 3) + timedelta(hours=14)),
        (
            (
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Orlov Pharma subtitling kickoff (Zoom)",
                        "start_date_time": at(w, 3, 14),
                        "end_date_time": at(w, 3, 14, 45),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
    ),
    # web search ------------------------------------------------------------------------------------------------------
    Task(
        "freshf-search-queenless",
        "search",
        (
            "hive 4 has been really tetchy all week and I can't spot any eggs. could you look up the signs that a "
            "colony has gone queenless?",
        ),
        searched(("web", "news"), ["queen"]),
        ((tool_call("searcher_web_search", {"query": "signs a bee colony is queenless"}),),),
    ),
    Task(
        "freshf-search-bookfair",
        "search",
        ("Search the news: when is the Frankfurt Book Fair next year? I want a room before the prices jump.",),
        searched(("news", "web"), ["Frankfurt", "Buchmesse"]),
        ((tool_call("searcher_news_search", {"query": "Frankfurt Book Fair 2027 dates"}),),),
    ),
    # multi-step ------------------------------------------------------------------------------------------------------
    Task(
        "freshf-multi-invoice",
        "multistep",
        (
            "Add up the words in jobs-2026-11.txt and email accounts@tessera-translations.example my November "
            "invoice total at 0.10 EUR a word. Put the job numbers in the mail too.",
        ),
        all_of(
            file_operation("read_file", "jobs-2026-11.txt"),
            mail_to("accounts@tessera-translations.example", ["735", "7,350", "7 350", "7.350"], ["2317"]),
        ),
        (
            (
                tool_call("filer_read_file", {"path": "jobs-2026-11.txt"}),
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "accounts@tessera-translations.example",
                        "subject": "Invoice November 2026",
                        "body": "Hello, my November jobs T-2291, T-2304 and T-2317 came to 7,350 words; at "
                        "0.10 EUR a word the invoice total is 735.00 EUR.",
                    },
                ),
            ),
        ),
        setup=seed_files({"jobs-2026-11.txt": _JOBS}),
    ),
    Task(
        "freshf-multi-swarm",
        "multistep",
        (
            "Hive 1 swarmed this morning and I got them into a spare box, so that's hive 5 now, I'm calling it "
            "Bramble. Remember that, and remind me a week from today at 9am to check whether Bramble's new queen "
            "is laying.",
        ),
        all_of(
            fact_with(["Bramble"]),
            once_skill(lambda w: day(w, 7) + timedelta(hours=9), timedelta(minutes=5), "Bramble", "hive 5", "queen"),
        ),
        (
            (
                tool_call(
                    "store_fact",
                    {"fact": "Hive 5, called Bramble, is the swarm that left hive 1", "category": "background"},
                ),
                reminder_call(
                    "Check Bramble's queen",
                    {"in_days": 7, "time": "09:00"},
                    "Remind the user to check whether the new queen in hive 5 (Bramble) is laying.",
                ),
            ),
        ),
    ),
    # follow-ups in one conversation ----------------------------------------------------------------------------------
    Task(
        "freshf-follow-maren",
        "followup",
        (
            "remind me in 2 hours to send the proofread chapter back to Maren at Fjordbok",
            "actually make it 3 hours, she's in meetings till then",
        ),
        all_of(
            once_skill(lambda w: w.now + timedelta(hours=3), timedelta(minutes=20), *_MAREN),
            no_live_once_skill(lambda w: w.now + timedelta(hours=2), timedelta(minutes=15), *_MAREN),
        ),
        (
            (
                reminder_call(
                    "Chapter back to Maren",
                    {"in_hours": 2},
                    "Remind the user to send the proofread chapter back to Maren at Fjordbok.",
                ),
            ),
            (
                tool_call("memory_list_skills"),
                tool_call(
                    "memory_update_skill",
                    lambda w: {"skill_id": skill_id("Maren")(w), "trigger_config": {"in_hours": 3}},
                ),
            ),
        ),
    ),
    Task(
        "freshf-follow-woodchip",
        "followup",
        (
            "when's the allotment committee meeting again?",
            "right, book the woodchip delivery straight after it, give it an hour",
        ),
        event_at(["woodchip", "wood chip", "mulch"], lambda w: day(w, 3) + timedelta(hours=12)),
        (
            (
                tool_call(
                    "gmail_list_events",
                    lambda w: {"time_min": at(w, 0, 0) + "Z", "time_max": at(w, 8, 0) + "Z", "query": "allotment"},
                ),
            ),
            (
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Woodchip delivery",
                        "start_date_time": at(w, 3, 12),
                        "end_date_time": at(w, 3, 13),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        setup=seed_events(("Allotment committee meeting", 3, 11)),
    ),
)


__all__ = ["FRESH_F_TASKS", "SET_NAME"]
