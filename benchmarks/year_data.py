"""A deterministic year of use of one coding project, for the lifecycle benchmark (`lifecycle_year.py`).

    generate(n=20_000, seed=13) -> Year

Written blind to the engine: only what a team's agent would write into its memory over a year
(2026) of work on one web shop's backend, in time order, each item labelled with the truth:

* facts that change: per component its port, owner, config path, base image, deploy command,
  database variable and alert channel, and the team's tools (linter, CI, ...). A later statement
  replaces the earlier one in developer wording ("billing-api moved to port 8123"); while a
  value holds it is restated now and then in other words (near duplicates);
* stable facts, conventions and decisions (restated too), production incidents and security
  findings, foresight that expires ("until the freeze on 2026-06-30 ..."), and a lot of tool
  events (test runs, builds, lint, git) and chit-chat;
* reuse: a few memories are recalled every Monday (sometimes rated as helpful), most never;
* questions at the end of each month whose answer (a substring, together with the subject) is
  held by the memories still valid then.

A label is a function of time: `Item.label(t)` is "valid" while the item's statement holds,
"stale" once it was replaced or expired, "tool" for tool events and "noise" for chit-chat.
Change anything that alters the output -> bump GENERATOR_VERSION (it keys the harness cache).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

GENERATOR_VERSION = 1
YEAR_START = datetime(2026, 1, 5, tzinfo=UTC)
YEAR_END = datetime(2026, 12, 31, 18, 0, tzinfo=UTC)
PROJECT = "/work/acme-shop"

COMPONENTS = (
    "billing-api", "orders-service", "auth-gateway", "search-indexer", "notification-worker",
    "inventory-sync", "payments-adapter", "reporting-etl", "user-profile", "cart-service",
    "shipping-quotes", "pricing-engine", "feature-flags", "audit-trail", "media-resizer",
    "checkout-web", "admin-console", "email-relay", "webhooks-dispatcher", "ledger-core",
    "recommendation-api", "geo-lookup", "session-store", "rate-limiter", "catalog-importer",
    "tax-calculator", "refunds-worker", "fraud-scoring", "metrics-exporter", "job-scheduler",
    "pdf-renderer", "i18n-service", "coupon-service", "returns-portal", "loyalty-points",
    "warehouse-bridge", "sso-connector", "graphql-gateway", "cdn-purger", "backup-agent",
)
OWNERS = (
    "Priya Raman", "Tomasz Kowalski", "Aiko Tanaka", "Mateo Alvarez", "Grace Okafor", "Lukas Brandt",
    "Sofia Marchetti", "Daniel Cohen", "Mei Lin", "Olusegun Adeyemi", "Hannah Becker", "Ravi Menon",
    "Elena Petrova", "Jonas Lindqvist", "Fatima Haddad", "Noah Williams", "Chloe Dubois", "Arjun Nair",
    "Ingrid Solberg", "Marcus Reid", "Yara Nasser", "Kenji Watanabe", "Lucia Romero", "Pavel Novak",
)
CHATTERS = ("Sam", "Alex", "Jo", "Kim", "Robin", "Charlie", "Dana", "Max", "Toni", "Kai")
LANGS = ("Python", "Go", "TypeScript", "Rust", "Kotlin")
STORES = ("Postgres", "Redis", "Kafka", "S3", "Elasticsearch", "RabbitMQ", "DynamoDB", "ClickHouse")
MODULES = ("handlers", "models", "client", "routes", "tasks", "schema", "retry", "cache", "auth", "utils",
           "serializers", "queries", "events", "metrics", "config", "validators")
BRANCH_TOPICS = ("refund-flow", "currency-rounding", "retry-backoff", "bulk-import", "dark-mode", "pagination",
                 "idempotency-keys", "rate-limits", "audit-export", "sso-saml", "tax-rules-2026", "vat-ids",
                 "webhook-signing", "image-cdn", "coupon-stacking", "gift-cards", "address-validation")

# The team-wide tools that change during the year: subject word, value sequence, question.
TOOL_SLOTS = (
    ("linter", ("flake8", "ruff"), "Which linter does the project use?"),
    ("formatter", ("black", "ruff format"), "What is the code formatter?"),
    ("type checker", ("mypy", "pyright", "basedpyright"), "Which type checker do we run?"),
    ("package manager", ("pip-tools", "poetry", "uv"), "Which package manager do we use for dependencies?"),
    ("CI system", ("Jenkins", "GitHub Actions"), "What CI system runs the pipelines?"),
    ("task runner", ("make", "just", "nox"), "What task runner do we use?"),
    ("error tracker", ("Sentry", "Rollbar", "Honeybadger"), "Where do application errors get tracked?"),
    ("container registry", ("Docker Hub", "GHCR", "Harbor at registry.acme.internal"),
     "Which container registry do we push images to?"),
    ("log shipper", ("Fluentd", "Vector"), "What ships the logs?"),
    ("secrets store", ("Vault", "AWS Secrets Manager", "SOPS files"), "Where are secrets kept?"),
)


@dataclass(frozen=True)
class Item:
    """One memory as the agent writes it, with the truth about it."""
    key: str
    at: datetime
    text: str
    group: str  # fact | stable | convention | decision | incident | security | foresight | tool | noise
    session: str
    slot: str | None = None  # the changing fact it states
    value: str | None = None
    ends: datetime | None = None  # when the statement stopped holding (replaced, expired); None: holds

    def label(self, t: datetime) -> str:
        if self.group == "tool":
            return "tool"
        if self.group == "noise":
            return "noise"
        return "stale" if self.ends is not None and self.ends <= t else "valid"


@dataclass(frozen=True)
class Question:
    at: datetime
    text: str
    subject: str  # a hit holds both the subject and the answer (case-insensitive)
    answer: str
    keys: tuple[str, ...]  # the items valid at `at` that hold the answer
    topic: str  # the group of the answer: fact | stable | convention | decision | incident | security


@dataclass(frozen=True)
class Recall:
    at: datetime
    key: str  # the item recalled (the harness recalls the memory that holds it)
    helped: bool  # also rated as helpful


@dataclass
class Year:
    items: list[Item]
    questions: list[Question]
    recalls: list[Recall]
    checkpoints: list[datetime]
    version: int = GENERATOR_VERSION
    counts: dict[str, int] = field(default_factory=dict)


def _work_time(rng: random.Random, start: datetime = YEAR_START, end: datetime = YEAR_END) -> datetime:
    """A random moment in working hours (weekends rarely) between start and end."""
    span = max(1, int((end - start).total_seconds() // 60))
    for _ in range(50):
        t = start + timedelta(minutes=rng.randrange(span))
        if t.weekday() < 5 or rng.random() < 0.08:
            return t.replace(hour=rng.randint(8, 18), minute=rng.randrange(60), second=rng.randrange(60))
    return t


def _session(t: datetime) -> str:
    return f"s{t:%Y%m%d}{'am' if t.hour < 13 else 'pm'}"


def _sha(rng: random.Random) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(7))


def _file(rng: random.Random, comp: str) -> str:
    return f"services/{comp}/{rng.choice(MODULES)}.py"


class _Builder:
    def __init__(self, seed: int, scale: float):
        self.rng = random.Random(seed)
        self.scale = scale
        self.items: list[Item] = []
        self.questions: list[Question] = []
        self.facts_for_questions: list[tuple[str, str, tuple[str, ...], str, list[Item]]] = []
        self._ports = list(range(3100, 9900, 7))
        self.rng.shuffle(self._ports)

    def add(self, at: datetime, text: str, group: str, *, slot: str | None = None, value: str | None = None,
            ends: datetime | None = None) -> Item:
        item = Item(f"i{len(self.items):05d}", at, text, group, _session(at), slot, value, ends)
        self.items.append(item)
        return item

    def n(self, full: int) -> int:
        return max(1, round(full * self.scale))

    # ------------------------------------------------------------ changing facts
    def component_slots(self, comps: tuple[str, ...]) -> None:
        rng = self.rng
        kinds = [self._port, self._owner, self._config, self._image, self._deploy, self._dbvar, self._alerts]
        for comp in comps:
            for make in kinds:
                if rng.random() < 0.62:
                    make(comp)

    def _chain(self, slot: str, subject: str, values: list[str], first: list[str], change: list[str],
               restate: list[str], questions: list[str], group: str = "fact") -> None:
        """A slot's statements: the first value, its changes, restatements while each holds."""
        rng = self.rng
        start = _work_time(rng, YEAR_START, YEAR_START + timedelta(days=120))
        times = sorted(_work_time(rng, start + timedelta(days=10), YEAR_END - timedelta(days=5))
                       for _ in range(len(values) - 1))
        bounds = [start, *times, None]
        for i, value in enumerate(values):
            begin, end = bounds[i], bounds[i + 1]
            old = values[i - 1] if i else ""
            template = rng.choice(first if i == 0 else change)
            fmt = {"s": subject, "v": value, "old": old}
            self.add(begin, template.format(**fmt), group, slot=slot, value=value, ends=end)
            until = end or YEAR_END
            for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
                if until - begin <= timedelta(days=1):
                    continue
                at = _work_time(rng, begin + timedelta(hours=2), until - timedelta(hours=1))
                if begin < at < until:
                    self.add(at, rng.choice(restate).format(**fmt), group, slot=slot, value=value, ends=end)
        self.facts_for_questions.append((slot, subject, tuple(questions), group, []))

    def _port(self, comp: str) -> None:
        values = [str(self._ports.pop()) for _ in range(self._changes(3))]
        self._chain(f"port:{comp}", comp, values,
                    ["{s} listens on port {v}.", "The {s} service runs on port {v} in dev and staging.",
                     "Local {s} binds to port {v}; point the frontend proxy there."],
                    ["{s} moved to port {v}, {old} is no longer used.", "Heads up: {s} is on port {v} now (was {old}).",
                     "We changed the {s} port to {v} because {old} clashed with the metrics sidecar.",
                     "From today {s} listens on {v}; update your .env files."],
                    ["reminder: {s} is on port {v}", "{s} answers on port {v}, checked with curl just now.",
                     "The {s} healthcheck hits localhost:{v}/healthz."],
                    ["What port does {s} listen on?", "which port is {s} running on", "{s} port number?"])

    def _owner(self, comp: str) -> None:
        values = self.rng.sample(OWNERS, self._changes(3))
        self._chain(f"owner:{comp}", comp, values,
                    ["{s} is owned by {v}.", "{v} owns {s}; ask them before changing its API.",
                     "Code owner for {s}: {v}."],
                    ["{v} took over {s} from {old}.", "Ownership of {s} moved to {v}; {old} switched teams.",
                     "New owner of {s} is {v} (previously {old})."],
                    ["{v} is the person to ask about {s}.", "PRs touching {s} need a review from {v}."],
                    ["Who owns {s}?", "who is responsible for {s}", "whom should I ask about {s} changes?"])

    def _config(self, comp: str) -> None:
        options = [f"config/{comp}.toml", f"services/{comp}/settings.yaml", f"deploy/{comp}/values-prod.yaml",
                   f"etc/{comp}/{comp}.ini", f"infra/helm/{comp}/config.yaml"]
        values = self.rng.sample(options, self._changes(3))
        self._chain(f"config:{comp}", comp, values,
                    ["The configuration of {s} lives in {v}.", "{s} reads its settings from {v}."],
                    ["{s} config moved from {old} to {v}.", "We relocated the {s} settings file to {v}."],
                    ["Edit {v} to change {s} settings.", "{s} settings: see {v}."],
                    ["Where is the config file of {s}?", "which file holds the {s} settings"])

    def _image(self, comp: str) -> None:
        options = ["python:3.11-slim-bookworm", "python:3.12-slim-bookworm", "python:3.12-alpine3.20",
                   "gcr.io/distroless/python3-debian12", "python:3.13-slim-bookworm", "cgr.dev/chainguard/python"]
        start = self.rng.randrange(3)
        values = options[start:start + self._changes(3)]
        self._chain(f"image:{comp}", comp, values,
                    ["{s} is built on the {v} base image.", "The Dockerfile of {s} starts FROM {v}."],
                    ["{s} switched its base image from {old} to {v}.", "Rebased {s} onto {v} to cut CVEs."],
                    ["{s} image: FROM {v}.", "base image of {s} is {v}"],
                    ["What base image does {s} use?", "which Docker base image is {s} built from"])

    def _deploy(self, comp: str) -> None:
        options = [f"make deploy-{comp}", f"./scripts/release.sh {comp}", f"helm upgrade {comp} charts/{comp}",
                   f"argocd app sync {comp}-prod", f"just ship {comp}"]
        values = self.rng.sample(options, self._changes(3))
        self._chain(f"deploy:{comp}", comp, values,
                    ["To deploy {s}, run `{v}` from the repo root.", "Deploying {s}: `{v}`, then watch the rollout."],
                    ["Deploying {s} is now `{v}`; `{old}` is retired.",
                     "New deploy procedure for {s}: `{v}` (replaces `{old}`)."],
                    ["{s} deploys with `{v}`.", "ran `{v}` to ship {s}, works as documented"],
                    ["How do I deploy {s}?", "what is the deploy command for {s}"], group="fact")

    def _dbvar(self, comp: str) -> None:
        up = comp.upper().replace("-", "_")
        options = ["DATABASE_URL", f"{up}_DB_DSN", f"PG_{up}_URL", f"{up}_POSTGRES_URI"]
        values = self.rng.sample(options, self._changes(2))
        self._chain(f"dbvar:{comp}", comp, values,
                    ["{s} reads its database connection string from the {v} environment variable."],
                    ["{s} now takes the database DSN from {v} instead of {old}.",
                     "Renamed the {s} database env var: {old} is now {v}."],
                    ["{s} needs {v} set or it refuses to start."],
                    ["Which environment variable holds the database URL of {s}?",
                     "what env var configures the {s} database connection"])

    def _alerts(self, comp: str) -> None:
        options = [f"#alerts-{comp}", "#oncall-backend", "#ops-pager", f"#team-{comp.split('-')[0]}", "#sre-alerts"]
        values = self.rng.sample(options, self._changes(3))
        self._chain(f"alerts:{comp}", comp, values,
                    ["Alerts for {s} go to {v}.", "{s} pages into the {v} channel."],
                    ["{s} alerts now route to {v} instead of {old}.", "Moved the {s} alert routing to {v}."],
                    ["{s} alerting: {v}."],
                    ["Where do alerts for {s} go?", "which Slack channel gets {s} alerts"])

    def _changes(self, most: int) -> int:
        return min(most, self.rng.choice((1, 2, 2, 2, 3, 3, 4)))

    def tool_slots(self) -> None:
        for subject, options, question in TOOL_SLOTS:
            values = list(options)
            self._chain(f"tool:{subject}", subject, values,
                        ["Our {s} is {v}.", "We use {v} as the {s} for the whole monorepo."],
                        ["We switched the {s} from {old} to {v}.", "The {s} is now {v}; {old} was dropped.",
                         "Migrated to {v} as our {s} (goodbye {old})."],
                        ["{v} is the {s} everywhere in the repo.", "as a reminder, the {s} is {v}"],
                        [question])

    # -------------------------------------------------------------- stable knowledge
    def stable(self, comps: tuple[str, ...]) -> None:
        rng = self.rng
        for comp in comps:
            lang = rng.choice(LANGS)
            dep = rng.choice(STORES)
            facts = [
                (f"lang:{comp}", lang, f"{comp} is written in {lang}.", ["What language is {s} written in?"]),
                (f"dep:{comp}", dep, f"{comp} keeps its state in {dep}.", ["What datastore does {s} use?"]),
            ]
            for slot, value, text, qs in facts:
                at = _work_time(rng, YEAR_START, YEAR_START + timedelta(days=200))
                self.add(at, text, "stable", slot=slot, value=value)
                for _ in range(rng.choice((0, 1, 2))):
                    self.add(_work_time(rng, at + timedelta(days=1)), rng.choice(
                        [f"Remember that {comp} is {value}-based.", f"{comp} uses {value}, as noted before."]),
                        "stable", slot=slot, value=value)
                self.facts_for_questions.append((slot, comp, tuple(qs), "stable", []))

    def conventions(self, comps: tuple[str, ...]) -> None:
        rules = [
            ("timestamps", "store timestamps in UTC and convert only in the UI", "How are timestamps stored?"),
            ("branch names", "branch names follow feat/<ticket>-<slug> or fix/<ticket>-<slug>",
             "What is the branch naming convention?"),
            ("logging", "use structlog with bound request ids; never print() in service code",
             "How should services log?"),
            ("migrations", "every Alembic migration ships with a working downgrade",
             "What is the rule for database migrations?"),
            ("money", "money is stored as integer cents with an ISO currency code, never floats",
             "How do we represent money amounts?"),
            ("commit messages", "commit messages use the imperative mood and reference the ticket id",
             "What is the commit message style?"),
            ("feature flags", "feature flags are removed within two sprints after full rollout",
             "How long may a feature flag live?"),
            ("API versions", "public endpoints are versioned in the path as /v1, /v2",
             "How are public API versions expressed?"),
            ("tests", "unit tests must not touch the network; use the recorded fixtures in tests/cassettes",
             "Can unit tests call the network?"),
            ("errors", "services return RFC 7807 problem+json bodies on errors",
             "What error format do services return?"),
            ("retries", "HTTP clients retry idempotent calls three times with jittered exponential backoff",
             "What is the retry policy for HTTP clients?"),
            ("reviews", "every PR needs one approving review and green CI before merge",
             "What does a PR need before merging?"),
            ("secrets in code", "secrets never go into the repo, not even in tests; use the fake vault fixture",
             "May tests contain real secrets?"),
            ("naming", "Kafka topics are named <domain>.<entity>.<event> in lowercase",
             "How are Kafka topics named?"),
            ("ids", "public identifiers are ULIDs, internal joins use bigint keys", "What kind of ids are public?"),
            ("docs", "each service has a README with run, test and deploy sections",
             "What must a service README contain?"),
            ("dependencies", "new runtime dependencies need a short ADR in docs/adr",
             "What is needed to add a dependency?"),
            ("pagination", "list endpoints paginate with opaque cursors, never offsets",
             "How do list endpoints paginate?"),
        ]
        rng = self.rng
        for topic, rule, question in rules:
            slot = f"conv:{topic}"
            at = _work_time(rng, YEAR_START, YEAR_START + timedelta(days=150))
            self.add(at, f"Convention: {rule}.", "convention", slot=slot, value=rule)
            for _ in range(rng.choice((1, 2, 3, 4))):
                self.add(_work_time(rng, at + timedelta(days=2)), rng.choice(
                    [f"Reminder: {rule}.", f"As agreed in the team, {rule}.", f"Rule of the repo - {rule}."]),
                    "convention", slot=slot, value=rule)
            answer = rule.split(",")[0].split(";")[0]
            self.facts_for_questions.append((slot, "", (question,), "convention", [_Answer(answer)]))
        decisions = [  # (decision, the words a question's answer quotes)
            ("use {x} for {c} because the access pattern is key-value", "access pattern is key-value"),
            ("split {c} out of the monolith to deploy it on its own schedule", "on its own schedule"),
            ("keep {c} synchronous for now; async adds no value at current load", "synchronous for now"),
            ("cache {c} responses for 60 seconds at the gateway", "60 seconds at the gateway"),
            ("run {c} as two replicas minimum in production", "two replicas minimum"),
        ]
        for comp in rng.sample(comps, min(len(comps), self.n(30))):
            template, answer = rng.choice(decisions)
            text = template.format(c=comp, x=rng.choice(STORES))
            at = _work_time(rng)
            self.add(at, f"Decision ({at:%Y-%m-%d}): we {text}.", "decision", slot=f"dec:{comp}", value=text)
            if rng.random() < 0.5:
                self.add(_work_time(rng, at + timedelta(days=1)), f"We decided earlier to {text}; still holds.",
                         "decision", slot=f"dec:{comp}", value=text)
            self.facts_for_questions.append((f"dec:{comp}", comp, (f"What did we decide about {comp}?",),
                                             "decision", [_Answer(answer)]))

    def incidents(self, comps: tuple[str, ...]) -> None:
        rng = self.rng
        causes = ["an expired TLS certificate", "a connection pool exhausted by a retry storm",
                  "a migration that locked the orders table", "a bad feature flag rollout",
                  "a full disk on the primary database", "a DNS change that dropped the internal zone",
                  "an unbounded query from the admin export", "a memory leak in the image decoder"]
        fixes = ["rolled back the release", "rotated the certificate and added an expiry alert",
                 "raised the pool size and capped retries", "killed the query and added a statement timeout",
                 "expanded the volume and added a disk alert", "restored the DNS record"]
        for k in range(self.n(36)):
            comp = rng.choice(comps)
            at = _work_time(rng)
            cause, fix = rng.choice(causes), rng.choice(fixes)
            minutes = rng.randint(6, 140)
            self.add(at, f"INCIDENT {at:%Y-%m-%d}: {comp} was down for {minutes} minutes in production after "
                         f"{cause}; we {fix}.", "incident", slot=f"inc:{k}", value=cause)
            self.add(at + timedelta(hours=rng.randint(2, 30)),
                     f"Postmortem for the {comp} outage of {at:%B %d}: root cause was {cause}.", "incident",
                     slot=f"inc:{k}", value=cause)
            self.facts_for_questions.append((f"inc:{k}", comp, (f"What caused the {comp} outage in {at:%B}?",),
                                             "incident", [_Answer(cause), _When(at)]))
        vulns = [("SQL injection", "the search filter"), ("SSRF", "the webhook URL validator"),
                 ("stored XSS", "product review rendering"), ("path traversal", "the invoice download"),
                 ("JWT signature bypass", "the token middleware"), ("open redirect", "the login callback")]
        for k in range(self.n(24)):
            comp = rng.choice(comps)
            vuln, where = rng.choice(vulns)
            cve = f"CVE-2026-{rng.randint(10000, 59999)}"
            at = _work_time(rng)
            self.add(at, f"SECURITY: {vuln} in {where} of {comp} ({cve}); patched the same day, tokens rotated.",
                     "security", slot=f"sec:{k}", value=cve)
            self.facts_for_questions.append((f"sec:{k}", comp, (f"Which CVE did the {vuln} in {comp} get?",),
                                             "security", [_Answer(cve), _When(at)]))

    def foresight(self, comps: tuple[str, ...]) -> None:
        rng = self.rng
        freeze = datetime(2026, 6, 30, 23, 0, tzinfo=UTC)
        self.add(datetime(2026, 5, 18, 10, 5, tzinfo=UTC),
                 "Until the freeze on 2026-06-30, merges to release/2026.2 need two approvals.", "foresight",
                 ends=freeze)
        templates = [
            "Until {d:%Y-%m-%d}, {c} stays pinned to the old API while the partner migrates.",
            "Staging for {c} is read-only until {d:%Y-%m-%d} (data migration running).",
            "Do not deploy {c} before {d:%Y-%m-%d}: the marketing campaign freeze is on.",
            "Until {d:%B %d}, {c} traffic is mirrored to the new cluster for the load test.",
            "{c} runs with debug logging until {d:%Y-%m-%d}, then we switch it back.",
        ]
        for _ in range(self.n(60)):
            comp = rng.choice(comps)
            at = _work_time(rng, YEAR_START, YEAR_END - timedelta(days=30))
            until = (at + timedelta(days=rng.randint(5, 60))).replace(hour=23, minute=0, second=0)
            self.add(at, rng.choice(templates).format(c=comp, d=until), "foresight", ends=until)

    # ------------------------------------------------------------------- filler
    def tool_event(self, comps: tuple[str, ...]) -> None:
        rng = self.rng
        comp = rng.choice(comps)
        at = _work_time(rng)
        kind = rng.random()
        if kind < 0.32:
            passed, failed = rng.randint(40, 900), rng.choice((0, 0, 0, 1, 2, 5))
            text = (f"pytest services/{comp}/tests: {passed} passed, {failed} failed in {rng.uniform(3, 240):.1f}s"
                    + (f"; failing: test_{rng.choice(MODULES)}_{rng.choice(('retry', 'empty', 'timeout', 'unicode'))}"
                       if failed else ""))
        elif kind < 0.48:
            text = (f"git commit {_sha(rng)} on feat/{rng.choice(BRANCH_TOPICS)}: "
                    f"{rng.choice(('fix', 'add', 'refactor', 'tidy', 'test'))} {rng.choice(MODULES)} in {comp}")
        elif kind < 0.60:
            text = (f"docker build {comp}:{rng.randint(1, 4)}.{rng.randint(0, 30)}.{rng.randint(0, 9)} "
                    f"finished in {rng.randint(20, 400)}s, image {rng.randint(80, 900)} MB")
        elif kind < 0.72:
            errors = rng.choice((0, 0, 1, 3, 12))
            text = (f"lint {_file(rng, comp)}: {errors} issue(s)"
                    + (f", first: line {rng.randint(1, 400)} {rng.choice(('E501', 'F401', 'B008', 'UP035'))}"
                       if errors else ", clean"))
        elif kind < 0.80:
            text = f"git push origin feat/{rng.choice(BRANCH_TOPICS)} ({rng.randint(1, 9)} commits)"
        elif kind < 0.87:
            text = (f"CI pipeline #{rng.randint(1000, 99999)} for {comp}: "
                    f"{rng.choice(('passed', 'passed', 'passed', 'failed at unit stage', 'cancelled'))}")
        elif kind < 0.93:
            text = f"alembic upgrade head on {comp} dev db: {rng.randint(1, 4)} migration(s) applied"
        else:
            text = (f"coverage for {comp}: {rng.uniform(55, 97):.1f}% lines, "
                    f"{rng.randint(0, 40)} uncovered branches in {rng.choice(MODULES)}")
        self.add(at, text, "tool")

    def chit_chat(self, comps: tuple[str, ...]) -> None:
        rng = self.rng
        comp = rng.choice(comps)
        at = _work_time(rng)
        who = rng.choice(CHATTERS)
        templates = [
            "ok, thanks", "sounds good, go ahead", "let me check the logs first", "hmm, that didn't work",
            "nice, that fixed it", "I'll look at it after lunch", "can you re-run that?", "wait, not yet",
            "{w} says hi", "{w} is out today", "brb, meeting with {w}", "coffee first",
            "opened {f} to see how it works, nothing to change", "reading through {c} code to get oriented",
            "trying a different approach for the {t} ticket", "looks flaky, re-running",
            "{w} asked whether {c} is affected, told them I'd check", "sorry, typo in my last message",
            "good morning, continuing with {t}", "done for today, will pick up {t} tomorrow",
            "ignore the previous output, wrong branch", "let's pair on {c} later with {w}",
            "the {t} branch is getting long, will rebase", "I think the test in {f} is wrong, not the code",
        ]
        text = rng.choice(templates).format(w=who, c=comp, f=_file(rng, comp), t=rng.choice(BRANCH_TOPICS))
        self.add(at, text, "noise")


@dataclass(frozen=True)
class _Answer:
    text: str


@dataclass(frozen=True)
class _When:
    at: datetime


def generate(n: int = 20_000, seed: int = 13, *, weekly_recalls: int = 20) -> Year:
    """The year: at least `n` items in time order, the month-end questions and the Monday recalls."""
    b = _Builder(seed, scale=n / 20_000)
    comps = COMPONENTS[:max(4, round(len(COMPONENTS) * min(1.0, (n / 20_000) ** 0.5)))]
    b.component_slots(comps)
    b.tool_slots()
    b.stable(comps)
    b.conventions(comps)
    b.incidents(comps)
    b.foresight(comps)
    knowledge = len(b.items)
    rest = max(0, n - knowledge)
    for _ in range(round(rest * 0.62)):
        b.tool_event(comps)
    while len(b.items) < n:
        b.chit_chat(comps)
    items = sorted(b.items, key=lambda i: (i.at, i.key))
    checkpoints = [_month_end(m) for m in range(1, 13)]
    questions = _questions(b, items, checkpoints, random.Random(seed + 1))
    recalls = _recalls(items, random.Random(seed + 2), weekly_recalls)
    counts: dict[str, int] = {}
    for item in items:
        counts[item.group] = counts.get(item.group, 0) + 1
    return Year(items, questions, recalls, checkpoints, counts=counts)


def _month_end(month: int) -> datetime:
    nxt = datetime(2026 + month // 12, month % 12 + 1, 1, tzinfo=UTC)
    return nxt - timedelta(minutes=1)


def _questions(b: _Builder, items: list[Item], checkpoints: list[datetime], rng: random.Random) -> list[Question]:
    by_slot: dict[str, list[Item]] = {}
    for item in items:
        if item.slot:
            by_slot.setdefault(item.slot, []).append(item)
    out = []
    for t in checkpoints:
        for slot, subject, texts, group, extra in b.facts_for_questions:
            valid = [i for i in by_slot.get(slot, ()) if i.at <= t and i.label(t) == "valid"]
            if not valid:
                continue
            answers = [e.text for e in extra if isinstance(e, _Answer)]
            answer = answers[0] if answers else valid[-1].value
            holders = tuple(i.key for i in valid if answer.lower() in i.text.lower())
            if not holders:
                continue
            when = [e.at for e in extra if isinstance(e, _When)]
            if when and t - when[0] > timedelta(days=150):  # old incidents are asked about for five months
                continue
            out.append(Question(t, rng.choice(texts).format(s=subject), subject, answer, holders, group))
    return out


def _recalls(items: list[Item], rng: random.Random, count: int) -> list[Recall]:
    """Every Monday 09:30 the agent recalls a few favourite memories (the current statement of a
    handful of facts, conventions and one incident), and rates some as helpful."""
    by_slot: dict[str, list[Item]] = {}
    for item in items:
        if item.slot and item.group in ("fact", "convention", "stable", "incident", "decision"):
            by_slot.setdefault(item.slot, []).append(item)
    slots = sorted(by_slot)
    favourites = rng.sample(slots, min(count, len(slots)))
    out = []
    t = YEAR_START.replace(hour=9, minute=30)
    while t < YEAR_END:
        for slot in favourites:
            current = [i for i in by_slot[slot] if i.at <= t and i.label(t) == "valid"]
            if current:
                out.append(Recall(t, current[0].key, rng.random() < 0.3))
        t += timedelta(days=7)
    return out
