"""The 7 shipped scheduled skills (reference §6.10), all agent tier, seeded disabled.

They are stored `enabled: false`; the scheduler enables one when all its required tools are routable (and never
one the user disabled). Times are the user's: no `timezone`, so ANNABELLE_TIMEZONE applies (the original pinned
America/New_York or UTC, its author's zones). Results reach the user through `notify_on_completion`, which is why
none of them needs a Telegram tool; a run with nothing to report says so in one line and is not sent.

The Morning Briefing reads unread mail of the last day with a mailbox search, not the new-mail queue: the hourly
Email Processor empties that queue, and a briefing has the day's meetings and projects to tell even without mail,
so it must not depend on (or be skipped for) an empty queue.
"""

from __future__ import annotations

from orchestrator.skills.seeds.model import SeedSkill


def _scheduled(
    name: str, trigger: dict[str, object], max_steps: int, tools: tuple[str, ...], description: str, instructions: str
) -> SeedSkill:
    return SeedSkill(
        name=name,
        description=description,
        trigger_type="cron",
        trigger_config=trigger,
        instructions=instructions.strip(),
        required_tools=tools,
        max_steps=max_steps,
        notify_on_completion=True,
        enabled=False,
    )


SCHEDULED: tuple[SeedSkill, ...] = (
    _scheduled(
        "Email Processor",
        {"interval_minutes": 60},
        15,
        ("gmail_get_new_emails", "memory_list_contacts", "memory_list_projects"),
        "Every hour: sort new mail and flag what needs the user.",
        """
1. Call gmail_get_new_emails with clear true. If it returns nothing, answer exactly "Nothing new." and stop.
2. For each email, check the sender against memory_list_contacts (by email) and the subject against
   memory_list_projects, so known people and active projects are recognised.
3. Classify each: needs a reply, FYI, newsletter/notification, likely spam.
4. Report only the "needs a reply" and important FYI emails: sender (with contact name), subject, one line why.
5. Keep it under ten lines. Do not reply to or change any email.
""",
    ),
    _scheduled(
        "Morning Briefing",
        {"schedule": "0 6 * * *"},
        15,
        ("gmail_list_events", "gmail_list_emails", "memory_list_projects", "memory_list_facts"),
        "Every morning at 06:00: today's meetings, overnight mail and active projects.",
        """
1. gmail_list_events from now to the end of today: list each event with time and title.
2. gmail_list_emails with query "is:unread newer_than:1d": pick the emails that need attention today.
3. memory_list_projects with status active: mention deadlines or projects linked to today's events.
4. memory_list_facts with category preference to match the user's style (short, language).
5. Write a briefing with three short sections: Today, Email, Projects. Lead with what needs action.
""",
    ),
    _scheduled(
        "Evening Recap",
        {"schedule": "0 18 * * *"},
        12,
        ("gmail_list_events", "gmail_list_emails", "memory_list_facts"),
        "Every evening at 18:00: what happened today and what is first tomorrow.",
        """
1. gmail_list_events for today (what happened) and for tomorrow until noon (what comes first).
2. gmail_list_emails with query "is:unread newer_than:1d" for mail still waiting for an answer.
3. memory_list_facts with category preference for the user's style.
4. Write a recap: today's meetings in one line each, unanswered mail, tomorrow morning's first events.
5. If the day was empty and nothing is waiting, answer exactly "Nothing to recap." and stop.
""",
    ),
    _scheduled(
        "Weekly Digest",
        {"schedule": "0 18 * * 0"},
        15,
        ("gmail_list_events", "gmail_list_emails", "memory_list_projects"),
        "Sundays at 18:00: the week behind and the week ahead.",
        """
1. gmail_list_events for the past seven days and for the next seven days.
2. gmail_list_emails with query "is:important newer_than:7d" for the week's important threads.
3. memory_list_projects with status active: what moved this week, what is due next week.
4. Write two sections: This week (meetings, important threads, project progress) and Next week (busy days,
   deadlines, preparation needed). At most fifteen lines.
""",
    ),
    _scheduled(
        "Follow-up Tracker",
        {"schedule": "0 9 * * *"},
        10,
        ("gmail_list_emails", "memory_list_contacts", "memory_list_projects"),
        "Every morning at 09:00: emails the user sent that got no answer.",
        """
1. gmail_list_emails with query "in:sent newer_than:7d older_than:2d" for emails the user sent.
2. For each thread, check with gmail_list_emails (query "from:<recipient> newer_than:7d") whether they answered.
3. Use memory_list_contacts and memory_list_projects to say who the person is and which project it concerns.
4. List the unanswered ones: recipient, subject, days waiting, and a suggested follow-up line.
5. If every email got an answer, answer exactly "No follow-ups needed." and stop.
""",
    ),
    _scheduled(
        "Pre-meeting Prep",
        {"interval_minutes": 15},
        10,
        ("gmail_list_events", "memory_list_contacts", "memory_list_projects", "gmail_list_emails", "memory_list_facts"),
        "Every 15 minutes: a short brief before a meeting that starts within the hour.",
        """
1. gmail_list_events from now to one hour ahead. No event with other attendees → answer exactly
   "No meeting soon." and stop.
2. For each such meeting: memory_list_contacts for the attendees (by email), memory_list_projects for the topic.
3. gmail_list_emails with query "from:<attendee> newer_than:14d" for recent threads with them.
4. memory_list_facts for anything the user said about these people or the topic.
5. Write a brief per meeting: time, who (role, company), recent threads, open questions. At most eight lines.
""",
    ),
    _scheduled(
        "Meeting Overload Warning",
        {"schedule": "0 20 * * *"},
        6,
        ("gmail_list_events",),
        "Every evening at 20:00: a warning when tomorrow is overbooked.",
        """
1. gmail_list_events for tomorrow (00:00 to 24:00 in the user's zone).
2. Add up the meeting time and find back-to-back runs and overlaps.
3. If tomorrow has more than five hours of meetings, overlaps, or no break of 30 minutes between 09:00 and
   17:00, warn: total hours, the overlaps, the longest run without a break, and one suggestion.
4. Otherwise answer exactly "Tomorrow looks fine." and stop.
""",
    ),
)

QUIET_REPLIES = frozenset(
    {"Nothing new.", "Nothing to recap.", "No follow-ups needed.", "No meeting soon.", "Tomorrow looks fine."}
)
"""The exact answers the seeds give when there is nothing to report: a notification of one of these is skipped."""
