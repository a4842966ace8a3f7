"""Chatter: conversation lines that carry no knowledge are flagged; anything that may hold some is not."""

from __future__ import annotations

import pytest

from mnemex.engine.write.observe import observe
from mnemex.engine.write.observe.chatter import is_chatter
from mnemex.engine.write.observe.shape import ObserveFlag

CHATTER = [
    "thanks, that did it",
    "ok cool",
    "great, go ahead",
    "hmm, it still doesn't work",
    "good afternoon, picking up where we left off",
    "let me look at the failing job first",
    "looking into the payment worker now",
    "trying another way for the login ticket",
    "Priya said hi",
    "Marco asked if the invoicing service is affected",
    "Lena is off tomorrow",
    "lunch, back in a bit",
    "done for the day, will continue tomorrow",
    # the speaker naming the file they read, and nothing about it
    "Let me read src/billing/invoice.py to understand the rounding",
    "Now let me look at tests/test_sync.py",
    "opened services/api/routes.py, nothing to change",
    "looking through web/src/hooks/useCart.ts to get oriented",
    "I'll check docker-compose.yml first",
    # a digit inside a name is the name's, not a number
    "reading through i18n-service code to get oriented",
    "Max asked whether the k8s operator is affected",
    "trying a different approach for the tax-rules-2026 ticket",
    # a short hunch said while debugging: a guess, not a claim
    "I think the test in services/billing/config.py is wrong, not the code",
    "maybe the retry count is too low",
    # plans to talk or pair some other time, and the speaker's own branch housekeeping
    "let's pair on the importer later with Dana",
    "can we sync up about the release tomorrow?",
    "let's talk about it after standup",
    "Let's discuss this with Omar next week",
    "the payment-retries branch is getting long, will rebase",
    "my branch is getting stale",
    "ok, gonna squash these commits",
    # a verdict on the last run and the next move; asking for it again; a slip owned; a pause
    "looks flaky, re-running",
    "seems stuck, retrying",
    "probably a fluke, rerunning now",
    "can you re-run that?",
    "could you try it again please",
    "sorry, typo in my last message",
    "oops, wrong window",
    "wait, not yet",
    "hmm, never mind",
]

KNOWLEDGE = [
    "ok, the staging database moved to eu-west-1",
    "thanks, that means invoicing uses Stripe now",
    "sure, run make lint before pushing",
    "sounds good, go ahead with the rollout plan",
    "ok, use yarn",
    "no, use the staging cluster",
    "hey, redis is down again",
    "looking at the logs, the worker runs out of memory on big uploads",
    "reading settings from config.toml",
    "read config/app.yaml before deploying",  # an instruction, not narration
    "checked src/db.py, the pool is too small",
    "looked at src/db.py, pool size is 20",
    "let me read src/a.py and src/b.py",  # a second path: more than one file named
    "opened services/api/routes.py, it uses the old auth middleware",
    "The API listens on port 8080",
    "ok, pod-7 keeps restarting",
    "let me check, i18n-service went to 3 replicas",
    "Inline indexing is off",
    "the feature flag is off today",
    "we never force-push to main",
    "Could you use pnpm instead of npm?",
    "yes, retries are capped at three",
    "let's use Postgres for the importer",  # a decision
    "let's pair-program on reviews every Friday",  # a practice
    "we sync the replicas nightly",
    "I think we should keep the retry count at 3 because the acquirer throttles bursts above that",  # long: room for a reason
    "let's discuss later: the importer needs a retry queue",  # states something
    "Always rebase feature branches onto main before merging",  # a rule
    "never squash commits that touch migrations",
    "we rebase the release branch every Monday",
    "the merge bot runs nightly and will rebase open pull requests",  # a fact about the bot
    "the worker restarts at midnight, will clean up stale locks",
    "looks like the cache is stale, clearing it",  # says what
    "seems the importer runs twice, checking",  # states something
    "looks flaky: the e2e suite retries 3 times",
    "can you re-run the migration on staging?",  # names what
    "could you retry the deploy with --force?",
    "sorry, typo: the port is 8443",
    "wait, the worker needs Redis 7",
    "ok " + "and then the session cache keeps every token for a week " * 2,  # too long to be chatter
]


@pytest.mark.parametrize("text", CHATTER)
def test_conversation_without_knowledge_is_chatter(text):
    assert is_chatter(text)
    assert ObserveFlag.CHATTER in observe(text).flags


@pytest.mark.parametrize("text", KNOWLEDGE)
def test_a_line_that_may_hold_knowledge_is_not_chatter(text):
    assert not is_chatter(text)


def test_chatter_counts_as_noise_for_importance():
    plain = observe("the invoicing service is affected")
    chat = observe("Marco asked if the invoicing service is affected")
    assert chat.has(ObserveFlag.CHATTER) and not plain.has(ObserveFlag.CHATTER)
    assert chat.importance < plain.importance
