"""A seventh fresh batch of agent tasks, written on 2026-11-28 by an eighth author, never used to fix the product.

The earlier batches are read once measured, and the product is fixed from what they show; this batch is for
measuring in a later session, after those fixes, so it was written without looking at what any run found. Its
voices are new: a retired couple's shared assistant, typed by one partner (polite, long-winded, a little unsure of
technology, the grandchildren, the choir, the stairlift), and a junior doctor on rotation (clipped, shift times,
handovers, rota swaps, study notes), in English and in Spanish, German, French, Italian, Portuguese, Dutch, Polish,
Russian, Japanese, Turkish, Swedish and Czech. Run it as a group with `agent_tasks.py --set fresh-2026-11-28e`;
MEASURE it before anyone reads a failure of its to change the product.

The checks are those of `agent_taskset`, on the end state only, and accept every way a correct assistant could get
there: a reminder by what its schedule means (equal cron expressions, several skills that fire together as one, a
one-off time within a tolerance, "on Thursday" as today or next week when today is Thursday), a paused reminder as
kept and switched off, a cancelled one as deleted or switched off, a reminder moved to other days as the same hour
on the new days, a forgotten fact as gone however it went, a corrected fact as the new value with or without the
old one beside it, an edited line as the new number however the rest of the file was kept, a visit read from a
letter as an event at its start or a whole-day one on its day, a cancelled event as gone with its neighbour kept.
The words a check looks for are ones no other task's state uses, because every task shares one stack.
"""

from __future__ import annotations

from collections.abc import Callable
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
    has_any,
    lines_about,
    mail_to,
    no_event,
    no_fact_saying,
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

SET_NAME = "fresh-2026-11-28e"


def event_at_or_all_day(summary_words: list[str], when: Callable[[World], datetime]) -> Check:
    """A created event about `summary_words` starting at `when`, or a whole-day one on its date: a visit given as
    "between 8am and 12 noon" is rightly put in either way."""

    def all_day(world: World) -> str | None:
        wanted = when(world).strftime("%Y-%m-%d")
        for method, path, _, body in world.google_calls():
            if method != "POST" or "/calendar/v3/calendars/" not in path or not isinstance(body, dict):
                continue
            if has_any(str(body.get("summary", "")), summary_words) and (body.get("start") or {}).get("date") == wanted:
                return None
        return f"no whole-day event about {'/'.join(summary_words)} on {wanted}"

    return any_of(event_at(summary_words, when), all_day)


def seed_stairlift_letter(world: World) -> None:
    """The service letter, dated five days from now, as the couple typed it into a file."""
    visit = day(world, 5)
    world.write_file(
        "stairlift-letter.txt",
        "Dear Mr and Mrs Whitcombe,\n\n"
        f"Your annual Stannah stairlift service is booked for {visit:%A} {visit.day} {visit:%B %Y}, between 8am and "
        "12 noon. Our engineer will telephone about 30 minutes before arriving.\n\n"
        "Service reference: SL-44817\n",
    )


def _thursday_at(world: World) -> str:
    return on_weekday(3, 7, 15)[0](world).strftime("%Y-%m-%dT%H:%M:%S")


_SWAP = ("swap form", "rota swap", "medical staffing")
_TOMMASO_NEW = ("17",)
_CONTACTS = (
    "Chimney sweep (Mr Ashworth): 01632 960 118\n"
    "Window cleaner (Dougie): 01632 960 305\n"
    "Dr Rahman's surgery: 01632 960 772\n"
)
_NEW_SWEEP = ("960 447", "960447", "960-447")
_STUDY = (
    "# Rotation study notes\n"
    "## Resp\n"
    "- CURB-65: confusion, urea >7, RR >=30, BP <90/60, age >=65\n"
    "## Cardio\n"
    "- Wells PE score >4: CTPA\n"
)
_HANDOVER = (
    "Ward 7B evening handover\n"
    "Bed 4  - Mr D., chase CT head report, escalate to reg if bleed\n"
    "Bed 11 - Mrs K., repeat potassium at 22:00 (was 5.9)\n"
    "Bed 17 - Mr P., review fluid balance, consider stopping IV fluids\n"
    "Bed 20 - Ms L., no jobs, for discharge in the morning\n"
)
_PARISH = "gwen.pryce@stmichaels-parish.example"

FRESH_G_TASKS: tuple[Task, ...] = (
    # reminders and skills --------------------------------------------------------------------------------------------
    Task(
        "freshg-skills-aquagym-es",
        "skills",
        (
            "Buenos días. Le escribe Carmen, disculpe las molestias, que yo con estas cosas no me apaño mucho. ¿Sería "
            "tan amable de recordarnos todos los martes y jueves a las nueve y cuarto de la mañana que tenemos "
            "aquagym en el polideportivo? Mi marido siempre se olvida la toalla. Muchísimas gracias.",
        ),
        cron_skills_together("15 9 * * 2,4", "aquagym", "aqua gym", "aqua-gym", "water aerobics", "polideport"),
        (
            (
                reminder_call(
                    "Aquagym en el polideportivo",
                    {"every": ["tuesday", "thursday"], "time": "09:15"},
                    "Recuerda a los usuarios que tienen aquagym en el polideportivo (y la toalla).",
                ),
            ),
        ),
        lang="es",
    ),
    Task(
        "freshg-skills-swapform",
        "skills",
        ("remind me thurs 0715 to drop the rota swap form at medical staffing before handover",),
        any_of(*(once_skill(when, timedelta(minutes=5), *_SWAP) for when in on_weekday(3, 7, 15))),
        (
            (
                tool_call(
                    "memory_store_skill",
                    lambda w: {
                        "name": "Rota swap form",
                        "trigger_type": "cron",
                        "trigger_config": {"at": _thursday_at(w)},
                        "instructions": "Remind the user to drop the rota swap form at medical staffing before "
                        "handover.",
                    },
                ),
            ),
        ),
    ),
    Task(
        "freshg-skills-choir-de",
        "skills",
        (
            "Guten Tag, hier schreibt Hannelore. Ich hoffe, ich mache das richtig. Könnten Sie bitte die Erinnerung "
            "an die Probe vom Seniorenchor am Donnerstag vorerst anhalten? Unsere Chorleiterin ist bis Januar zur "
            "Kur. Bitte nicht ganz löschen, wir brauchen sie danach wieder. Vielen herzlichen Dank!",
        ),
        skill_paused("Seniorenchor", "choir"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call("memory_update_skill", lambda w: {"skill_id": skill_id("Seniorenchor")(w), "enabled": False}),
            ),
        ),
        lang="de",
        setup=seed_skill(
            "Probe Seniorenchor", "0 15 * * 4", "Erinnere die Nutzer an die Probe vom Seniorenchor im Gemeindehaus."
        ),
    ),
    Task(
        "freshg-skills-mrcp-weekends",
        "skills",
        ("my MRCP questions reminder: weekends only from now on, same time. no chance on weekdays on this rotation",),
        # The merged times of every such reminder: the weekday one left on beside a new weekend one fails.
        cron_skills_together("30 20 * * 0,6", "MRCP"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call(
                    "memory_update_skill",
                    lambda w: {"skill_id": skill_id("MRCP")(w), "trigger_config": {"every": "weekend"}},
                ),
            ),
        ),
        setup=seed_skill(
            "MRCP question bank", "30 20 * * 1-5", "Remind the user to do 25 MRCP Part 1 practice questions."
        ),
    ),
    Task(
        "freshg-skills-rubbish-ja",
        "skills",
        (
            "こんにちは。主人に頼まれて打っております。毎週水曜日の朝の「燃えないゴミ」のお知らせを消して"
            "いただけますか。先月から回収日が変わりまして、もう要らなくなりました。よろしくお願いいたします。",
        ),
        no_skill_with("燃えない", "non-burnable", "nonburnable"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call("memory_delete_skill", lambda w: {"skill_id": skill_id("燃えない")(w)}),
            ),
        ),
        lang="ja",
        setup=seed_skill("燃えないゴミの日", "30 7 * * 3", "燃えないゴミを出す日だとユーザーに知らせる。"),
    ),
    # memory --------------------------------------------------------------------------------------------------------
    Task(
        "freshg-mem-plumber-fr",
        "memory",
        (
            "Bonjour, c'est Colette qui écrit, mon mari Bernard est à côté de moi. Pourriez-vous, s'il vous plaît, "
            "retenir le numéro de notre nouveau plombier, M. Lefèvre ? C'est le 06 12 48 93 70. L'ancien a pris sa "
            "retraite. Je vous remercie infiniment.",
        ),
        fact_with(["Lefèvre", "Lefevre", "plomb", "plumber"], ["93 70", "9370", "93.70", "93-70"]),
        (
            (
                tool_call(
                    "store_fact",
                    {"fact": "The couple's new plumber, M. Lefèvre, is on 06 12 48 93 70", "category": "contact"},
                ),
            ),
        ),
        lang="fr",
    ),
    Task(
        "freshg-mem-gmc",
        "memory",
        ("email locum.bank@stmarys-nhs.example to get me on the locum bank. include my GMC number",),
        mail_to("locum.bank@stmarys-nhs.example", ["7712094", "771 2094", "7712 094"]),
        (
            (
                tool_call("search_memories", {"query": "GMC number"}),
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "locum.bank@stmarys-nhs.example",
                        "subject": "Joining the locum bank",
                        "body": "Hello, please add me to the locum bank. My GMC number is 7712094. Thanks.",
                    },
                ),
            ),
        ),
        setup=seed_facts(("The user's GMC registration number is 7712094", "background")),
    ),
    Task(
        "freshg-mem-tommaso-it",
        "memory",
        (
            "Buongiorno, sono Luciana. Scusi il disturbo, credo di aver fatto un pasticcio l'altra volta: il "
            "compleanno di nostro nipote Tommaso non è il 14 marzo, è il 17 marzo. Potrebbe correggerlo, per "
            "cortesia? Non vorrei che gli facessimo gli auguri nel giorno sbagliato.",
        ),
        all_of(
            fact_with(["Tommaso"], _TOMMASO_NEW),
            no_fact_saying(["Tommaso"], ["14"], unless=_TOMMASO_NEW),
        ),
        (
            (
                tool_call("memory_list_facts"),
                tool_call(
                    "memory_update_fact",
                    lambda w: {
                        "fact_id": fact_id("Tommaso")(w),
                        "fact": "The couple's grandson Tommaso's birthday is on 17 March",
                    },
                ),
            ),
        ),
        lang="it",
        setup=seed_facts(("The couple's grandson Tommaso's birthday is on 14 March", "contact")),
    ),
    Task(
        "freshg-mem-locker-pl",
        "memory",
        ("zapomnij numer mojej szafki w szatni. oddałam klucz, od poniedziałku jestem na innym oddziale",),
        fact_gone("The user's locker in the hospital staff changing room is number 212"),
        (
            (
                tool_call("memory_list_facts"),
                tool_call("memory_delete_fact", lambda w: {"fact_id": fact_id("locker")(w)}),
            ),
        ),
        lang="pl",
        setup=seed_facts(("The user's locker in the hospital staff changing room is number 212", "background")),
    ),
    # files ---------------------------------------------------------------------------------------------------------
    Task(
        "freshg-files-caravan-nl",
        "files",
        (
            "Goedemiddag, mijn man zegt dat ik dit gewoon aan u kan vragen, dus daar ga ik. Zou u een bestandje "
            "caravan-paklijst.txt willen maken met daarin: de gasfles, de waterpomp, de dekbedden en de "
            "vouwstoelen? Dan vergeten we dit keer niets. Hartelijk dank alvast.",
        ),
        file_with("caravan-paklijst.txt", ["gasfles"], ["waterpomp"], ["dekbed"], ["vouwstoel"]),
        (
            (
                tool_call(
                    "filer_create_file",
                    {"path": "caravan-paklijst.txt", "content": "gasfles\nwaterpomp\ndekbedden\nvouwstoelen\n"},
                ),
            ),
        ),
        lang="nl",
    ),
    Task(
        "freshg-files-studynotes",
        "files",
        ("add to rotation-study-notes.md, new renal section: AKI stage 2 = creatinine 2-2.9x baseline. keep the rest",),
        file_with("rotation-study-notes.md", ["CURB-65"], ["Wells"], ["AKI"], ["2.9"]),
        (
            (
                tool_call("filer_read_file", {"path": "rotation-study-notes.md"}),
                tool_call(
                    "filer_update_file",
                    {
                        "path": "rotation-study-notes.md",
                        "content": _STUDY + "## Renal\n- AKI stage 2: creatinine 2-2.9x baseline\n",
                    },
                ),
            ),
        ),
        setup=seed_files({"rotation-study-notes.md": _STUDY}),
    ),
    Task(
        "freshg-files-chimney",
        "files",
        (
            "Good morning, this is Margaret. I hope I'm doing this the right way, Harold usually sees to the "
            "computer. In our file house-contacts.txt the chimney sweep's number is out of date: Mr Ashworth has a "
            "new one now, 01632 960 447. Could you change it in there for me, and please leave the other numbers "
            "just as they are? Thank you ever so much.",
        ),
        all_of(
            lines_about("house-contacts.txt", ["chimney", "Ashworth"], _NEW_SWEEP),
            file_with("house-contacts.txt", ["Dougie"], ["Rahman"]),
        ),
        (
            (
                tool_call("filer_read_file", {"path": "house-contacts.txt"}),
                tool_call(
                    "filer_update_file",
                    {
                        "path": "house-contacts.txt",
                        "content": _CONTACTS.replace("01632 960 118", "01632 960 447"),
                    },
                ),
            ),
        ),
        setup=seed_files({"house-contacts.txt": _CONTACTS}),
    ),
    # email -----------------------------------------------------------------------------------------------------------
    Task(
        "freshg-email-train-pt",
        "email",
        (
            "Bom dia. Peço desculpa, ainda não me entendo bem com isto. Podia mandar um e-mail à nossa filha Inês "
            "(ines.albuquerque@example.pt) a dizer que chegamos a Coimbra no sábado, no comboio das 16h40, e que "
            "levamos o bolo de laranja? Muito obrigada.",
        ),
        mail_to("ines.albuquerque@example.pt", ["16h40", "16:40", "16.40", "16 h 40", "4:40", "4.40"]),
        (
            (
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "ines.albuquerque@example.pt",
                        "subject": "Chegamos no sábado",
                        "body": "Querida Inês, chegamos a Coimbra no sábado, no comboio das 16h40, e levamos o bolo "
                        "de laranja. Beijinhos, mãe e pai",
                    },
                ),
            ),
        ),
        lang="pt",
    ),
    Task(
        "freshg-email-swap-reply",
        "email",
        ("reply to Nkechi's swap email: yes, I'll do her sat long day if she takes my wed nights",),
        mail_to("nkechi.oduya@stmarys-nhs.example", ["Saturday", "Sat"], ["Wednesday", "Wed"]),
        (
            (
                tool_call("gmail_list_emails", {"query": "from:nkechi.oduya@stmarys-nhs.example"}),
                tool_call(
                    "gmail_reply_email",
                    lambda w: {
                        "message_id": mail_id("from:nkechi.oduya@stmarys-nhs.example")(w),
                        "body": "Hi Nkechi, yes - I'll do your Saturday long day if you take my Wednesday nights.",
                    },
                ),
            ),
        ),
        setup=seed_mail(
            (
                "nkechi.oduya@stmarys-nhs.example",
                "Weekend swap?",
                "Hi, any chance you could take my long day on Saturday? I'd cover your Wednesday nights in return. "
                "Nkechi",
            )
        ),
    ),
    Task(
        "freshg-email-exam-draft-sv",
        "email",
        (
            "skriv ett utkast till studierektorn Anders Lindqvist (anders.lindqvist@sus-lund.example): jag behöver "
            "flytta min AT-tentamen från 12 till 19 december pga jourschemat. skicka inte, jag läser igenom först",
        ),
        all_of(
            mail_to("anders.lindqvist@sus-lund.example", ["tentamen", "AT-prov", "exam"], drafts=True),
            not_(mail_to("anders.lindqvist@sus-lund.example"), "the mail to Lindqvist was sent, not left a draft"),
        ),
        (
            (
                tool_call(
                    "gmail_create_draft",
                    {
                        "to": "anders.lindqvist@sus-lund.example",
                        "subject": "Flytt av AT-tentamen",
                        "body": "Hej Anders, jag behöver flytta min AT-tentamen från 12 till 19 december på grund av "
                        "jourschemat. Går det bra?",
                    },
                ),
            ),
        ),
        lang="sv",
    ),
    # calendar --------------------------------------------------------------------------------------------------------
    Task(
        "freshg-cal-eye-tr",
        "calendar",
        (
            "Merhaba, kusura bakmayın, bu işlerden pek anlamam. Eşimle yarın sabah saat on birde Dr. Aydın'da göz "
            "muayenemiz var. Takvime ekleyebilir misiniz acaba? Çok teşekkür ederim.",
        ),
        event_at(["göz", "Aydın", "Aydin", "eye", "ophthalm"], lambda w: day(w, 1) + timedelta(hours=11)),
        (
            (
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Göz muayenesi - Dr. Aydın",
                        "start_date_time": at(w, 1, 11),
                        "end_date_time": at(w, 1, 12),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        lang="tr",
    ),
    Task(
        "freshg-cal-horak-cs",
        "calendar",
        ("přesuň zítřejší konzultaci s MUDr. Horákem ohledně atestace na pozítří na 16:00. ráno mám příjem",),
        # The first event about Horák is checked: a copy made at the new time beside the old one fails.
        event_moved(["Horák", "Horak"], lambda w: day(w, 2) + timedelta(hours=16)),
        (
            (
                tool_call(
                    "gmail_list_events", lambda w: {"time_min": at(w, 1, 0) + "Z", "time_max": at(w, 2, 0) + "Z"}
                ),
                tool_call(
                    "gmail_update_event",
                    lambda w: {
                        "event_id": event_id("Horák")(w),
                        "start_date_time": at(w, 2, 16),
                        "end_date_time": at(w, 2, 17),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        lang="cs",
        setup=seed_events(("Konzultace atestace - MUDr. Horák", 1, 9)),
    ),
    Task(
        "freshg-cal-beryl-lunch",
        "calendar",
        (
            "Hello, it's Margaret again. Harold has his hearing aid fitting at the audiology clinic sometime in the "
            "next week or so, but I can't for the life of me remember which day. Could you look it up and, on that "
            "same day, put in a lunch with my sister Beryl at half past twelve? Thank you, dear.",
        ),
        event_at(["Beryl"], lambda w: day(w, 4) + timedelta(hours=12, minutes=30)),
        (
            (
                tool_call(
                    "gmail_list_events",
                    lambda w: {"time_min": at(w, 0, 0) + "Z", "time_max": at(w, 10, 0) + "Z", "query": "hearing"},
                ),
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Lunch with Beryl",
                        "start_date_time": at(w, 4, 12, 30),
                        "end_date_time": at(w, 4, 14),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        setup=seed_events(("Hearing aid fitting - audiology clinic", 4, 10)),
    ),
    # web search ------------------------------------------------------------------------------------------------------
    Task(
        "freshg-search-tver-ru",
        "search",
        (
            "Здравствуйте! Простите, что беспокою. Не могли бы вы поискать в интернете расписание электричек из "
            "Твери в Москву на субботу? Мы с мужем собираемся к внукам, а расписание всё время меняют. Спасибо "
            "большое.",
        ),
        searched(("web", "news"), ["Твер", "Tver"]),
        ((tool_call("searcher_web_search", {"query": "расписание электричек Тверь Москва суббота"}),),),
        lang="ru",
    ),
    Task(
        "freshg-search-dka",
        "search",
        ("quick one - search the current JBDS guidance on DKA fluid regime in adults",),
        searched(("web", "news"), ["DKA", "ketoacidosis"]),
        ((tool_call("searcher_web_search", {"query": "JBDS DKA guidance adults fluid regime"}),),),
    ),
    # multi-step ------------------------------------------------------------------------------------------------------
    Task(
        "freshg-multi-handover",
        "multistep",
        ("read handover-ward7b.txt and email the outstanding jobs to tonight's F1, tom.brennan@stmarys-nhs.example",),
        all_of(
            file_operation("read_file", "handover-ward7b.txt"),
            mail_to("tom.brennan@stmarys-nhs.example", ["CT"], ["potassium", "K+"], ["fluid"]),
        ),
        (
            (
                tool_call("filer_read_file", {"path": "handover-ward7b.txt"}),
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "tom.brennan@stmarys-nhs.example",
                        "subject": "7B handover - outstanding jobs",
                        "body": "Hi Tom, jobs for tonight on 7B:\n- Bed 4: chase CT head report, escalate to reg "
                        "if bleed\n- Bed 11: repeat potassium at 22:00 (was 5.9)\n- Bed 17: review fluid balance, "
                        "consider stopping IV fluids\nThanks",
                    },
                ),
            ),
        ),
        setup=seed_files({"handover-ward7b.txt": _HANDOVER}),
    ),
    Task(
        "freshg-multi-stairlift",
        "multistep",
        (
            "Good afternoon. We've had a letter from the stairlift people about the yearly service and Harold has "
            "typed it into stairlift-letter.txt, I hope that's where it went. Would you be kind enough to read it "
            "and put the visit in our calendar on the right day and time? We never manage to keep track of these "
            "things ourselves.",
        ),
        all_of(
            file_operation("read_file", "stairlift-letter.txt"),
            event_at_or_all_day(["stairlift", "Stannah", "SL-44817"], lambda w: day(w, 5) + timedelta(hours=8)),
        ),
        (
            (
                tool_call("filer_read_file", {"path": "stairlift-letter.txt"}),
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Stannah stairlift service (SL-44817)",
                        "start_date_time": at(w, 5, 8),
                        "end_date_time": at(w, 5, 12),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        setup=seed_stairlift_letter,
    ),
    # follow-ups in one conversation ----------------------------------------------------------------------------------
    Task(
        "freshg-follow-ecg-teaching",
        "followup",
        (
            "what've I got tmrw? need to plan around the take",
            "bin the ECG teaching, I'm covering the acute take",
        ),
        all_of(
            no_event("ECG interpretation", "ECG teaching"),
            not_(no_event("Adeyinka"), "the grand round was deleted too"),
        ),
        (
            (tool_call("gmail_list_events", lambda w: {"time_min": at(w, 1, 0) + "Z", "time_max": at(w, 2, 0) + "Z"}),),
            (tool_call("gmail_delete_event", lambda w: {"event_id": event_id("ECG interpretation")(w)}),),
        ),
        setup=seed_events(("Grand round - Prof. Adeyinka", 1, 12), ("F1 teaching: ECG interpretation", 1, 13)),
    ),
    Task(
        "freshg-follow-tombola",
        "followup",
        (
            "Would you be so kind as to write a letter, I mean an email, to the parish secretary, Mrs Gwendolyn "
            f"Pryce ({_PARISH}), offering our help with the tombola at the Christmas bazaar? Please don't send it "
            "yet, I'd like Harold to look it over first.",
            "Harold has read it and says it's lovely, only could you add that we can bring our own folding table "
            "for the stall? Then please do send it. Thank you.",
        ),
        mail_to(_PARISH, ["tombola"], ["table"]),
        (
            (
                tool_call(
                    "gmail_create_draft",
                    {
                        "to": _PARISH,
                        "subject": "Help with the tombola",
                        "body": "Dear Mrs Pryce, we would be glad to help with the tombola at the Christmas "
                        "bazaar. With kind regards, Margaret and Harold Whitcombe",
                    },
                ),
            ),
            (
                tool_call(
                    "gmail_update_draft",
                    lambda w: {
                        "draft_id": draft_id(_PARISH)(w),
                        "to": _PARISH,
                        "subject": "Help with the tombola",
                        "body": "Dear Mrs Pryce, we would be glad to help with the tombola at the Christmas "
                        "bazaar, and we can bring our own folding table for the stall. With kind regards, "
                        "Margaret and Harold Whitcombe",
                    },
                ),
                tool_call("gmail_send_draft", lambda w: {"draft_id": draft_id(_PARISH)(w)}),
            ),
        ),
    ),
)


__all__ = ["FRESH_G_TASKS", "SET_NAME"]
