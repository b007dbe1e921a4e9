"""A scripted session through the Python client generated from openapi.yaml.

Run by scripts/client-check.sh, with the generated package
(`proactive_service_client`) installed: donate a batch, donate one with a
Unix-seconds date, predict, suggest with and without `developer`, put
timelines, post feedback, delete, stats, and a 404 parsed as `ApiError`. Each
step asserts its status code and a few fields; the first failure exits 1
naming the step.

Usage: PROACTIVE_CREDENTIAL=... client_session.py BASE_URL DONATIONS.jsonl
"""

import datetime
import json
import os
import sys

from proactive_service_client import AuthenticatedClient
from proactive_service_client.api.default import (
    delete_donations, donate, post_feedback, predict, put_timelines, stats, suggest,
)
from proactive_service_client.models import (
    ApiError, Donation, FeedbackEvent, FeedbackEventKind, Question, SuggestionQuestion,
    WidgetConfiguration, WidgetTimeline, WidgetTimelineEntriesItem,
)

USER = "me"
PACIFIC = datetime.timezone(datetime.timedelta(hours=-8))
AT = datetime.datetime(2026, 11, 20, 7, 30, tzinfo=PACIFIC)


def check(step, condition, detail):
    if not condition:
        print(f"FAILED: {step}: {detail}", file=sys.stderr)
        sys.exit(1)


def expect(step, response, status):
    """The parsed body of `response`, after checking its status code."""
    check(step, response.status_code == status,
          f"status {int(response.status_code)}, expected {status}: {response.content[:300]!r}")
    return response.parsed


def main(base_url, credential, donations_path):
    client = AuthenticatedClient(base_url=base_url, token=credential, timeout=30.0, raise_on_unexpected_status=True)
    with open(donations_path, encoding="utf-8") as file:
        batch = [Donation.from_dict(json.loads(line)) for line in file if line.strip()]

    batch_result = expect("donate a batch", donate.sync_detailed(client=client, body=batch), 200)
    check("donate a batch", batch_result.stored == len(batch) and batch_result.rejected == 0,
          f"stored {batch_result.stored}, rejected {batch_result.rejected} of {len(batch)}")
    print(f"donate: a batch of {len(batch)} stored")

    one = Donation(user=USER, app="com.example.coffee", intent="OrderCoffeeIntent",
                   date=AT.timestamp() - 900, identifier="client-1")
    stored = expect("donate one with Unix seconds", donate.sync_detailed(client=client, body=one), 201)
    check("donate one with Unix seconds", stored.identifier == "client-1", f"identifier {stored.identifier!r}")

    prediction = expect("predict", predict.sync_detailed(client=client, body=Question(user=USER, at=AT.isoformat(), k=3)), 200)
    check("predict", 1 <= len(prediction.suggestions) <= 3, f"{len(prediction.suggestions)} suggestions")
    check("predict", all(0 <= s.probability <= 1 for s in prediction.suggestions), "a probability outside [0, 1]")
    # One shape for one answer (issue 43): `why` is a list of phrases in predict and suggestions alike.
    check("predict", all(isinstance(s.why, list) and all(isinstance(w, str) for w in s.why) for s in prediction.suggestions),
          "a why that is not a list of strings")
    print(f"predict: {prediction.suggestions[0].target} first")

    plain = expect("suggest", suggest.sync_detailed(client=client, body=SuggestionQuestion(user=USER, at=AT.isoformat(), k=8)), 200)
    developer = expect("suggest (developer)", suggest.sync_detailed(
        client=client, body=SuggestionQuestion(user=USER, at=AT.isoformat(), k=8, developer=True)), 200)
    check("suggest (developer)", developer.user == USER and len(developer.suggestions) >= 1, "no suggestion")
    check("suggest (developer)", len(developer.suggestions) >= len(plain.suggestions),
          f"developer mode lists {len(developer.suggestions)}, fewer than the {len(plain.suggestions)} without it")
    check("suggest", all(isinstance(s.why, list) and len(s.why) >= 1 and all(isinstance(w, str) for w in s.why)
                         for s in developer.suggestions), "a why that is not a non-empty list of strings")
    print(f"suggest: {len(plain.suggestions)} suggestions, {len(developer.suggestions)} with developer")

    timeline = WidgetTimeline(app="com.example.bank", widget_kind="recentPurchases", entries=[
        WidgetTimelineEntriesItem(date=AT, score=0),
        WidgetTimelineEntriesItem(date=AT + datetime.timedelta(hours=1), score=52.6, duration=1800),
    ])
    replaced = expect("put timelines", put_timelines.sync_detailed(client=client, body=[timeline], user=USER), 200)
    check("put timelines", [(w.widget, w.entries) for w in replaced.widgets] == [("com.example.bank/recentPurchases", 2)],
          f"widgets {[(w.widget, w.entries) for w in replaced.widgets]}")

    latte = "com.example.coffee:OrderCoffeeIntent(item=latte)"
    events = [
        FeedbackEvent(date=AT, kind=FeedbackEventKind.IMPRESSION, target=latte, app="com.example.coffee"),
        FeedbackEvent(date=AT.timestamp() + 60, kind=FeedbackEventKind.NEVER, app="com.example.news"),
        FeedbackEvent(date=AT + datetime.timedelta(minutes=2), kind=FeedbackEventKind.TAP, target=latte, app="com.example.coffee",
                      action=WidgetConfiguration.from_dict({"intent": "OrderCoffeeIntent", "parameters": {"item": "latte"}})),
    ]
    feedback = expect("post feedback", post_feedback.sync_detailed(client=client, body=events, user=USER), 200)
    check("post feedback", feedback.recorded == 3 and feedback.donated == 1,
          f"recorded {feedback.recorded}, donated {feedback.donated}")

    deleted = expect("delete", delete_donations.sync_detailed(client=client, app="com.example.coffee", identifier=["client-1"]), 200)
    check("delete", deleted.deleted == 1, f"deleted {deleted.deleted}")

    counts = expect("stats", stats.sync_detailed(client=client, user=USER), 200)
    expected_rows = len(batch) + 1 + feedback.donated - deleted.deleted
    check("stats", counts.rows == expected_rows, f"{counts.rows} rows, expected {expected_rows}")
    check("stats", [u.user for u in counts.users] == [USER], f"users {[u.user for u in counts.users]}")
    print(f"stats: {counts.rows} rows after the feedback's tap and the delete")

    missing = expect("predict for nobody", predict.sync_detailed(client=client, body=Question(user="nobody")), 404)
    check("predict for nobody", isinstance(missing, ApiError) and missing.error.code == "no_donations",
          f"{missing!r}")
    print("client session passed")


if __name__ == "__main__":
    if len(sys.argv) != 3 or "PROACTIVE_CREDENTIAL" not in os.environ:
        sys.exit(__doc__)
    main(sys.argv[1], os.environ["PROACTIVE_CREDENTIAL"], sys.argv[2])
