"""Due logic of skills with an injected clock: DST days, month ends, weekdays, intervals, one-shots, downtime, backoff."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from orchestrator.skills.errors import TriggerError
from orchestrator.skills.triggers import (
    AUTO_DISABLE_AFTER,
    CronTrigger,
    IntervalTrigger,
    OneShotTrigger,
    backoff_after,
    backoff_until,
    check_cron,
    cron_next,
    first_due,
    is_due,
    missed_runs_decision,
    next_fire,
    parse_moment,
    parse_trigger,
    should_auto_disable,
    zone,
)

NY = zone("America/New_York")
BERLIN = zone("Europe/Berlin")


def fires(expression: str, tz_name: str, start: datetime, end: datetime) -> list[datetime]:
    """Every fire time in (start, end], walking next_fire like the scheduler does."""
    tz = zone(tz_name)
    out: list[datetime] = []
    moment = start
    while True:
        following = cron_next(expression, tz, moment)
        if following is None or following > end:
            return out
        out.append(following)
        moment = following


def local(moments: list[datetime], tz_name: str) -> list[str]:
    tz = zone(tz_name)
    return [m.astimezone(tz).strftime("%Y-%m-%d %H:%M %Z") for m in moments]


def day(tz_name: str, date: str) -> tuple[datetime, datetime]:
    """The UTC bounds of one local calendar day."""
    tz = zone(tz_name)
    start = datetime.fromisoformat(date).replace(tzinfo=tz)
    return start.astimezone(UTC) - timedelta(microseconds=1), (start + timedelta(days=1)).astimezone(UTC)


# -- DST -------------------------------------------------------------------------------------------------------

# 2026: US spring forward 8 March (02:00 → 03:00), fall back 1 November (02:00 → 01:00);
# EU spring forward 29 March (02:00 → 03:00), fall back 25 October (03:00 → 02:00).
DST_DAYS = [
    ("America/New_York", "2026-03-08", "30 2 * * *", ["2026-03-08 03:00 EDT"]),
    ("America/New_York", "2026-03-08", "30 1 * * *", ["2026-03-08 01:30 EST"]),
    ("America/New_York", "2026-03-08", "30 3 * * *", ["2026-03-08 03:30 EDT"]),
    ("America/New_York", "2026-11-01", "30 1 * * *", ["2026-11-01 01:30 EDT"]),
    ("America/New_York", "2026-11-01", "30 2 * * *", ["2026-11-01 02:30 EST"]),
    ("America/New_York", "2026-11-01", "0 9 * * *", ["2026-11-01 09:00 EST"]),
    ("Europe/Berlin", "2026-03-29", "30 2 * * *", ["2026-03-29 03:00 CEST"]),
    ("Europe/Berlin", "2026-03-29", "0 2 * * *", ["2026-03-29 03:00 CEST"]),
    ("Europe/Berlin", "2026-10-25", "30 2 * * *", ["2026-10-25 02:30 CEST"]),
    ("Europe/Berlin", "2026-10-25", "0 2 * * *", ["2026-10-25 02:00 CEST"]),
    ("Europe/Berlin", "2026-10-25", "0 7 * * *", ["2026-10-25 07:00 CET"]),
]


@pytest.mark.parametrize(("tz_name", "date", "expression", "expected"), DST_DAYS)
def test_a_daily_job_fires_exactly_once_on_a_dst_day(tz_name: str, date: str, expression: str, expected: list[str]):
    start, end = day(tz_name, date)
    assert local(fires(expression, tz_name, start, end), tz_name) == expected


@pytest.mark.parametrize(
    ("tz_name", "date", "hours"), [("America/New_York", "2026-03-08", 23), ("Europe/Berlin", "2026-10-25", 25)]
)
def test_an_hourly_job_fires_once_per_real_hour_on_dst_days(tz_name: str, date: str, hours: int):
    start, end = day(tz_name, date)
    moments = fires("0 * * * *", tz_name, start, end - timedelta(microseconds=1))
    assert len(moments) == hours
    assert len(set(moments)) == len(moments)
    assert all(b - a == timedelta(hours=1) for a, b in itertools.pairwise(moments))


def test_the_repeated_hour_runs_twice_for_a_wildcard_hour_in_new_york():
    start, end = day("America/New_York", "2026-11-01")
    moments = local(fires("15 * * * *", "America/New_York", start, end), "America/New_York")
    assert "2026-11-01 01:15 EDT" in moments and "2026-11-01 01:15 EST" in moments
    assert len(moments) == 25


def test_every_minute_skips_the_missing_hour_without_a_burst():
    start = datetime(2026, 3, 8, 6, 55, tzinfo=UTC)  # 01:55 EST
    moments = fires("* * * * *", "America/New_York", start, start + timedelta(minutes=10))
    assert local(moments[:6], "America/New_York") == [
        "2026-03-08 01:56 EST",
        "2026-03-08 01:57 EST",
        "2026-03-08 01:58 EST",
        "2026-03-08 01:59 EST",
        "2026-03-08 03:00 EDT",
        "2026-03-08 03:01 EDT",
    ]
    assert len(set(moments)) == len(moments)


def test_a_weekly_sunday_job_before_the_us_change_and_after():
    start = datetime(2026, 2, 28, tzinfo=UTC)
    moments = fires("0 18 * * 0", "America/New_York", start, start + timedelta(days=14))
    assert local(moments, "America/New_York") == ["2026-03-01 18:00 EST", "2026-03-08 18:00 EDT"]


# -- month ends and weekdays -----------------------------------------------------------------------------------


def test_day_31_skips_short_months():
    start = datetime(2026, 1, 1, tzinfo=UTC)
    moments = fires("0 9 31 * *", "Europe/Berlin", start, datetime(2026, 12, 31, 23, tzinfo=UTC))
    assert [m.astimezone(BERLIN).month for m in moments] == [1, 3, 5, 7, 8, 10, 12]
    assert all(m.astimezone(BERLIN).hour == 9 for m in moments)


def test_l_means_the_last_day_of_each_month_leap_years_included():
    moments = fires("0 0 L * *", "UTC", datetime(2028, 1, 15, tzinfo=UTC), datetime(2028, 4, 30, 12, tzinfo=UTC))
    assert [m.date().isoformat() for m in moments] == ["2028-01-31", "2028-02-29", "2028-03-31", "2028-04-30"]


def test_february_29_waits_for_the_next_leap_year():
    assert cron_next("0 8 29 2 *", zone("UTC"), datetime(2026, 3, 1, tzinfo=UTC)) == datetime(
        2028, 2, 29, 8, tzinfo=UTC
    )


@pytest.mark.parametrize("expression", ["0 9 * * 0", "0 9 * * 7", "0 9 * * sun", "0 9 * * SUN"])
def test_sunday_is_0_and_7_as_in_cron(expression: str):
    friday = datetime(2026, 1, 30, 12, tzinfo=UTC)
    assert cron_next(expression, zone("UTC"), friday) == datetime(2026, 2, 1, 9, tzinfo=UTC)


def test_weekdays_1_to_5_are_monday_to_friday_not_apschedulers_numbering():
    start = datetime(2026, 2, 1, 12, tzinfo=UTC)  # a Sunday
    moments = fires("0 9 * * 1-5", "UTC", start, start + timedelta(days=7))
    assert [m.strftime("%a") for m in moments] == ["Mon", "Tue", "Wed", "Thu", "Fri"]


@pytest.mark.parametrize(
    ("expression", "normal"),
    [("@daily", "0 0 * * *"), ("@hourly", "0 * * * *"), ("  0   9 * *  1 ", "0 9 * * 1"), ("@WEEKLY", "0 0 * * 0")],
)
def test_check_cron_returns_the_five_field_form(expression: str, normal: str):
    assert check_cron(expression) == normal


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("0 0 31 2 *", "never fires"),
        ("61 * * * *", "not a valid cron"),
        ("* * * * * *", "has 6 fields"),
        ("every day", "has 2 fields"),
        ("", "must be a cron expression"),
        ("@reboot", "has 1 fields"),
    ],
)
def test_check_cron_refuses_with_a_reason(expression: str, message: str):
    with pytest.raises(TriggerError, match=message):
        check_cron(expression)


def test_unknown_zones_are_refused():
    with pytest.raises(TriggerError, match="not an IANA zone"):
        zone("Mars/Olympus_Mons")
    with pytest.raises(TriggerError, match="IANA zone"):
        zone("")


# -- parse_trigger ----------------------------------------------------------------------------------------------


def test_parse_trigger_reads_each_kind():
    assert parse_trigger({"schedule": "0 9 * * *", "timezone": "Europe/Berlin"}, default_tz="UTC") == CronTrigger(
        "0 9 * * *", BERLIN
    )
    assert parse_trigger({"schedule": "0 9 * * *"}, default_tz="America/New_York") == CronTrigger("0 9 * * *", NY)
    assert parse_trigger({"interval_minutes": "60"}, default_tz="UTC") == IntervalTrigger(60)
    assert parse_trigger({"at": "2026-02-14T15:00:00"}, default_tz="Europe/Berlin") == OneShotTrigger(
        datetime(2026, 2, 14, 14, tzinfo=UTC)
    )
    assert parse_trigger({"keywords": ["x"], "priority": 5}, default_tz="UTC") is None
    assert parse_trigger(None, default_tz="UTC") is None


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"schedule": "0 9 * * *", "interval_minutes": 5}, "give exactly one"),
        ({"interval_minutes": 0}, "at least 1"),
        ({"interval_minutes": 1.5}, "whole number"),
        ({"interval_minutes": "soon"}, "whole number"),
        ({"at": "tomorrow at 3"}, "not a date-time"),
        ({"schedule": "0 9 * * *", "timezone": "Nowhere/City"}, "not an IANA zone"),
    ],
)
def test_parse_trigger_refuses_bad_configs(config: dict[str, object], message: str):
    with pytest.raises(TriggerError, match=message):
        parse_trigger(config, default_tz="UTC")


def test_a_naive_at_is_wall_time_in_the_zone_and_an_offset_is_kept():
    assert parse_moment("2026-07-01 09:00", NY) == datetime(2026, 7, 1, 13, tzinfo=UTC)
    assert parse_moment("2026-07-01T09:00:00Z", NY) == datetime(2026, 7, 1, 9, tzinfo=UTC)
    assert parse_moment("2026-07-01T09:00:00+02:00", NY) == datetime(2026, 7, 1, 7, tzinfo=UTC)


# -- intervals and one-shots -----------------------------------------------------------------------------------

CREATED = datetime(2026, 5, 4, 8, 0, tzinfo=UTC)


def test_an_interval_counts_from_creation_then_from_the_last_run():
    trigger = IntervalTrigger(60)
    assert first_due(trigger, created_at=CREATED) == CREATED + timedelta(hours=1)
    assert not is_due(trigger, CREATED + timedelta(minutes=59), created_at=CREATED)
    assert is_due(trigger, CREATED + timedelta(minutes=60), created_at=CREATED)
    last = CREATED + timedelta(minutes=61)
    assert first_due(trigger, created_at=CREATED, last_run_at=last) == last + timedelta(hours=1)


def test_an_interval_ignores_dst_because_it_counts_real_minutes():
    trigger = IntervalTrigger(60)
    before = datetime(2026, 3, 8, 6, 30, tzinfo=UTC)  # 01:30 EST
    assert next_fire(trigger, before) == datetime(2026, 3, 8, 7, 30, tzinfo=UTC)  # 03:30 EDT, one real hour


def test_a_one_shot_fires_once_and_never_again():
    at = datetime(2026, 5, 4, 15, 0, tzinfo=UTC)
    trigger = OneShotTrigger(at)
    assert not is_due(trigger, at - timedelta(seconds=1), created_at=CREATED)
    assert is_due(trigger, at, created_at=CREATED)
    assert first_due(trigger, created_at=CREATED, last_run_at=at + timedelta(seconds=2)) is None
    assert next_fire(trigger, at) is None
    assert next_fire(trigger, at - timedelta(minutes=1)) == at


def test_a_cron_skill_is_due_from_its_creation_and_then_from_its_last_run():
    trigger = CronTrigger("0 9 * * *", BERLIN)
    created = datetime(2026, 5, 4, 6, 59, 30, tzinfo=UTC)  # 08:59:30 CEST
    assert first_due(trigger, created_at=created) == datetime(2026, 5, 4, 7, 0, tzinfo=UTC)
    ran = datetime(2026, 5, 4, 7, 0, 0, tzinfo=UTC)
    assert first_due(trigger, created_at=created, last_run_at=ran) == datetime(2026, 5, 5, 7, 0, tzinfo=UTC)
    assert not is_due(trigger, ran + timedelta(hours=23), created_at=created, last_run_at=ran)


# -- missed runs -----------------------------------------------------------------------------------------------


def test_a_slot_found_within_the_grace_window_runs():
    trigger = CronTrigger("0 9 * * *", zone("UTC"))
    now = datetime(2026, 5, 4, 9, 10, tzinfo=UTC)
    decision = missed_runs_decision(trigger, now=now, created_at=CREATED - timedelta(days=1))
    assert decision.action == "run"
    assert decision.due_at == datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
    assert "older slots were missed" in decision.reason
    assert decision.next_fire == datetime(2026, 5, 5, 9, 0, tzinfo=UTC)


def test_a_slot_found_after_the_grace_window_is_recorded_as_missed():
    trigger = CronTrigger("0 9 * * *", zone("UTC"))
    now = datetime(2026, 5, 4, 11, 0, tzinfo=UTC)
    decision = missed_runs_decision(trigger, now=now, created_at=CREATED - timedelta(days=1))
    assert decision.action == "missed"
    assert decision.due_at == datetime(2026, 5, 3, 9, 0, tzinfo=UTC)
    assert "missed by 26 h" in decision.reason
    assert decision.next_fire == datetime(2026, 5, 5, 9, 0, tzinfo=UTC)


def test_a_slot_found_within_the_grace_window_of_a_fresh_skill_runs():
    trigger = CronTrigger("0 9 * * *", zone("UTC"))
    created = datetime(2026, 5, 4, 8, 0, tzinfo=UTC)
    decision = missed_runs_decision(trigger, now=datetime(2026, 5, 4, 9, 0, 1, tzinfo=UTC), created_at=created)
    assert (decision.action, decision.reason) == ("run", "due")


def test_an_interval_skill_runs_when_its_rhythm_has_a_slot_within_the_grace():
    trigger = IntervalTrigger(60)
    last = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)
    on_beat = missed_runs_decision(
        trigger, now=last + timedelta(hours=5, minutes=10), created_at=CREATED, last_run_at=last
    )
    off_beat = missed_runs_decision(
        trigger, now=last + timedelta(hours=5, minutes=40), created_at=CREATED, last_run_at=last
    )
    assert (on_beat.action, on_beat.due_at) == ("run", last + timedelta(hours=5))
    assert off_beat.action == "missed"
    assert off_beat.next_fire == last + timedelta(hours=6, minutes=40)


def test_a_one_shot_found_too_late_is_missed_not_run():
    at = datetime(2026, 5, 4, 15, 0, tzinfo=UTC)
    decision = missed_runs_decision(OneShotTrigger(at), now=at + timedelta(hours=3), created_at=CREATED)
    assert (decision.action, decision.next_fire) == ("missed", None)


def test_waiting_reports_when_to_look_again():
    trigger = IntervalTrigger(15)
    decision = missed_runs_decision(trigger, now=CREATED + timedelta(minutes=5), created_at=CREATED)
    assert (decision.action, decision.next_fire) == ("wait", CREATED + timedelta(minutes=15))


def test_a_finished_one_shot_waits_forever():
    trigger = OneShotTrigger(CREATED + timedelta(hours=1))
    decision = missed_runs_decision(
        trigger, now=CREATED + timedelta(days=3), created_at=CREATED, last_run_at=CREATED + timedelta(hours=1)
    )
    assert (decision.action, decision.next_fire) == ("wait", None)


def test_a_backoff_delays_the_slot_and_the_grace_counts_from_its_end():
    trigger = IntervalTrigger(5)
    failed = CREATED + timedelta(minutes=5)
    until = failed + timedelta(minutes=60)
    early = missed_runs_decision(trigger, now=failed + timedelta(minutes=30), created_at=CREATED, backoff_until=until)
    assert (early.action, early.next_fire) == ("wait", until)
    assert "backing off" in early.reason
    retry = missed_runs_decision(trigger, now=until + timedelta(seconds=30), created_at=CREATED, backoff_until=until)
    assert retry.action == "run"


SKILLS = [
    CronTrigger("* * * * *", zone("UTC")),
    CronTrigger("*/5 * * * *", BERLIN),
    CronTrigger("0 9 * * *", NY),
    CronTrigger("0 * * * *", zone("Asia/Kolkata")),
    IntervalTrigger(1),
    IntervalTrigger(60),
    IntervalTrigger(1440),
    OneShotTrigger(datetime(2026, 5, 4, 20, 0, tzinfo=UTC)),
]


@pytest.mark.parametrize("trigger", SKILLS, ids=lambda t: type(t).__name__)
def test_24_hours_of_downtime_produce_at_most_one_run_per_skill(trigger):
    last = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)
    restart = last + timedelta(hours=24, seconds=20)
    first = missed_runs_decision(trigger, now=restart, created_at=CREATED, last_run_at=last)
    assert first.action in ("run", "missed")
    last = restart
    regular = next_fire(trigger, restart)
    end = restart + timedelta(hours=2) if regular is None else regular
    now = restart + timedelta(seconds=1)
    while now < end:  # every second until the schedule's own next slot: nothing to catch up
        assert missed_runs_decision(trigger, now=now, created_at=CREATED, last_run_at=last).action == "wait"
        now += timedelta(seconds=7)


def test_after_downtime_a_minutely_skill_resumes_its_normal_pace():
    trigger = CronTrigger("* * * * *", zone("UTC"))
    last = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)
    now = last + timedelta(hours=24, seconds=5)
    runs = []
    for _ in range(600):  # ten minutes, one tick per second
        decision = missed_runs_decision(trigger, now=now, created_at=CREATED, last_run_at=last)
        if decision.action != "wait":
            last = now
            if decision.action == "run":
                runs.append(now)
        now += timedelta(seconds=1)
    assert runs[0] == datetime(2026, 5, 5, 12, 0, 5, tzinfo=UTC)  # the 12:00 slot, five seconds late: one run
    assert runs[1:] == [datetime(2026, 5, 5, 12, m, tzinfo=UTC) for m in range(1, 11)]


# -- backoff ---------------------------------------------------------------------------------------------------


def test_backoff_is_graduated_then_the_skill_is_disabled():
    waits = [backoff_after(failures) for failures in range(7)]
    assert waits == [timedelta(0), *(timedelta(minutes=m) for m in (1, 5, 15, 60)), None, None]
    assert [should_auto_disable(f) for f in range(7)] == [False] * 5 + [True] * 2
    assert AUTO_DISABLE_AFTER == 5


def test_backoff_until_adds_the_wait_to_the_failure_time():
    failed = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
    assert backoff_until(3, failed) == failed + timedelta(minutes=15)
    assert backoff_until(5, failed) is None


def test_negative_failure_counts_are_a_programming_error():
    with pytest.raises(ValueError, match="negative"):
        backoff_after(-1)
