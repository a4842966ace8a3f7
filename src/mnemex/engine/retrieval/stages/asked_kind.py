"""A question can ask for a kind of memory, and a memory of that kind answers it better than a fact
that shares its words.

* What was decided ("what did we decide about the cache?", "which database did we choose?"): the
  memories the observer classified as decisions get their relevance scaled by `decision_boost`.
  Valid facts about the same component otherwise outrank the decision on the shared name alone.
* What the rule is ("how should services log?", "what's our convention for branch names?", "are
  we allowed to push to main?"): conventions and preferences get `rule_boost`. A fact that names
  the same component ("orders-service is written in TypeScript") otherwise outranks the rule, whose
  wording rarely repeats the question's ("use structlog with bound request ids").
* Which datastore ("which database does the storefront use?", "what datastore does cdn-purger
  use?", "where does ledger-service store its data?"): memories that name a datastore product
  (the observer's entity `service:<name>` for a name in `DATASTORES`) get `store_boost`. The
  embedding puts "cdn-purger keeps its state in Kafka." below the same component's port, language
  and database connection string for such a question (cosine 0.63 against 0.65-0.77): the
  answer is the one naming a datastore."""

from __future__ import annotations

import re
from collections.abc import Callable

from mnemex.config.retrieval import RetrievalConfig
from mnemex.engine.retrieval.candidates import Candidate, Candidates
from mnemex.engine.retrieval.fusion import ranked
from mnemex.models import MemoryKind

_ASKS_DECISION = re.compile(r"\b(?:decide[ds]?|deciding|decisions?|agreed|agree on|chose|chosen|choose|"
                            r"settled on|went with|go with)\b", re.I)
# normative questions: what one should or may do, what the convention or style is (not "rules" or
# "policy": "the firewall rules", "the retention policy" are as often facts)
_ASKS_RULE = re.compile(r"\b(?:ought to|supposed to|(?:are|am|is) (?:we|I|it) allowed|allowed to|"
                        r"conventions?|guidelines?|style|best practices?|etiquette|"
                        r"preferred|prefer(?:s|ence)?|expected to)\b", re.I)
_SHOULD = re.compile(r"\bshould(?:n'?t)?\b", re.I)
# "whom should I ask", "where should the file go": a person, a place or a time, not a rule
_ASKS_OTHER = re.compile(r"^\W*(?:who|whom|whose|where|when|which|what time)\b", re.I)
# the question asks which datastore: "which database/datastore/db does X use", "what data store is X
# on", "where does X store (or keep) its data (or state)"; not "the database connection string"
_ASKS_STORE = re.compile(r"\b(?:which|what)\s+(?:kind of\s+|type of\s+|\w+\s+)?(?:data ?stores?|databases?|dbs?|"
                         r"storage backends?|persistence layers?)\s+(?:does|do|did|is|are|was|were|will|should|backs?|holds?)\b|"
                         r"\bwhere (?:does|do|did) .{1,60}? (?:store|keep|persist|put) (?:its|their|the)? ?(?:data|state)\b",
                         re.I)
#: Canonical names (as the observer's entity keys spell them, `service:<name>`) of products that
#: hold a service's data: databases, caches, search engines, object stores and the logs and brokers
#: a service keeps its state in.
DATASTORES = frozenset({
    "postgres", "mysql", "mariadb", "sqlite", "redis", "valkey", "memcached", "mongodb", "qdrant", "elasticsearch",
    "opensearch", "kafka", "rabbitmq", "nats", "s3", "gcs", "dynamodb", "rds", "minio", "supabase", "firebase",
    "clickhouse", "snowflake", "bigquery", "pinecone", "weaviate", "chroma", "milvus", "lancedb", "neo4j",
    "cassandra", "influxdb", "timescaledb", "duckdb", "etcd",
})
_STORE_KEYS = frozenset(f"service:{name}" for name in DATASTORES)
_DECISION_KINDS = frozenset({MemoryKind.DECISION.value})
_RULE_KINDS = frozenset({MemoryKind.CONVENTION.value, MemoryKind.PREFERENCE.value})


def asks_for_decision(query: str) -> bool:
    return _ASKS_DECISION.search(query) is not None


def asks_for_store(query: str) -> bool:
    return _ASKS_STORE.search(query) is not None


def asks_for_rule(query: str) -> bool:
    if _ASKS_RULE.search(query):
        return True
    return _SHOULD.search(query) is not None and not _ASKS_OTHER.search(query)


def favour_asked(order: list[str], cands: Candidates, cfg: RetrievalConfig, query: str) -> list[str]:
    """`order` with the memories of the kind the question asks for (decisions: `decision_boost`;
    conventions and preferences: `rule_boost`; memories naming a datastore: `store_boost`) scaled up
    and re-ranked; unchanged when it asks for none. A question asking for several favours each."""
    wanted: list[tuple[Callable[[Candidate], bool], float, str]] = []
    if cfg.decision_boost > 1.0 and asks_for_decision(query):
        wanted.append((lambda c: c.hit.kind in _DECISION_KINDS, cfg.decision_boost, "a decision, asked for"))
    if cfg.rule_boost > 1.0 and asks_for_rule(query):
        wanted.append((lambda c: c.hit.kind in _RULE_KINDS, cfg.rule_boost, "a rule, asked for"))
    if cfg.store_boost > 1.0 and asks_for_store(query):
        wanted.append((lambda c: not _STORE_KEYS.isdisjoint(c.memory.entities), cfg.store_boost,
                       "names a datastore, asked for"))
    changed = False
    for holds, factor, why in wanted:
        for key in order:
            if holds(cands[key]):
                cands[key].relevance *= factor
                cands[key].why.append(why)
                changed = True
    return ranked({key: cands[key].relevance for key in order}) if changed else order
