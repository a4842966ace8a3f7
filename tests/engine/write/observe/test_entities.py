"""Entity extraction: files, services, hosts, errors, code symbols; what is not an entity."""

from __future__ import annotations

import pytest

from mnemex.engine.write.observe import observe
from mnemex.engine.write.observe.entities import Entity, EntityType, extract_entities

# ---------------------------------------------------------------------- entities
ENTITY_CASES = [
    ("Edit src/mnemex/engine/write/redact.py and ./web/app.ts", ["file:src/mnemex/engine/write/redact.py", "file:./web/app.ts"]),
    ("The log is at C:\\Users\\dev\\proj\\app.log.", ["file:C:\\Users\\dev\\proj\\app.log"]),
    ("Config lives in package.json, pyproject.toml, .env and the Dockerfile.",
     ["file:package.json", "file:pyproject.toml", "file:.env", "file:Dockerfile"]),
    ("Call `getUserById()` from `mnemex.engine.service`; see `snake_case_name` and `MemoryEngine`.",
     ["function:getUserById", "module:mnemex.engine.service", "function:snake_case_name", "class:MemoryEngine"]),
    ("def build_engine(settings): return make_store()", ["function:build_engine", "function:make_store"]),
    ("Use `logger = logging.getLogger(__name__)`, then log.info(msg) if(ok)",
     ["function:logging.getLogger", "function:log.info"]),
    ("pip install fastembed==0.7.1 qdrant-client[fastembed] and restart; npm i -D @types/node left-pad@^1.3",
     ["tool:pip", "package:fastembed", "package:qdrant-client", "tool:npm", "package:@types/node", "package:left-pad"]),
    ("import numpy as np\nfrom mnemex.models import Memory", ["package:numpy", "module:mnemex.models", "package:mnemex"]),
    ("git rebase, then docker compose up; kubectl get pods; run make build; go test ./...",
     ["tool:git", "tool:docker-compose", "tool:kubectl", "tool:make", "tool:go"]),
    ("Use Redis as the cache for S3 uploads on k8s behind Postgres.",
     ["service:redis", "service:s3", "service:kubernetes", "service:postgres"]),
    ("https://api.github.com/repos/x and api.internal.example.com gave ECONNREFUSED then HTTP 503",
     ["host:api.github.com", "host:api.internal.example.com", "error:ECONNREFUSED", "error:HTTP 503"]),
    ("flake8 reports E501 and tsc TS2345; then a ValueError and exit code 137",
     ["tool:flake8", "error:E501", "tool:tsc", "error:TS2345", "error:ValueError", "error:exit 137"]),
    ("Acme Labs and Initech Corp. partner with Anthropic, Google and OpenAI.",
     ["org:acme labs", "org:initech corp", "org:anthropic", "org:google", "org:openai"]),
    ("Node.js and Next.js with React, deployed on Vercel via Argo CD.",
     ["tool:node", "package:next.js", "package:react", "service:vercel", "service:argocd"]),
]


@pytest.mark.parametrize(("text", "keys"), ENTITY_CASES, ids=[t[:40] for t, _ in ENTITY_CASES])
def test_entities(text, keys):
    assert [e.key for e in extract_entities(text, limit=20)] == keys


ENTITY_FALSE_POSITIVES = [
    "CI/CD, TCP/IP, I/O, and/or, 1/2 are not paths.",
    "Please react to the review; an apple a day; I will go home and make dinner.",
    "SHA256, ISO8601 and A100 are not error codes; neither is version 1.2.3.",
    "The request id was 550e8400-e29b-41d4-a716-446655440000.",
    "Check the item(s) you changed (e.g. the first one).",
]


@pytest.mark.parametrize("text", ENTITY_FALSE_POSITIVES, ids=[t[:30] for t in ENTITY_FALSE_POSITIVES])
def test_entity_false_positives(text):
    assert extract_entities(text) == ()


def test_entities_are_capped_deduplicated_and_typed():
    text = "git git GIT docker kubectl pytest npm yarn pnpm ruff mypy eslint"
    found = extract_entities(text, limit=8)
    assert len(found) == 8 and found[0] == Entity(EntityType.TOOL, "git") and str(found[0]) == "tool:git"
    assert observe(text).entity_keys == tuple(e.key for e in found)  # max_entities defaults to 8


def test_a_path_is_not_also_a_service():
    assert [e.key for e in extract_entities("see src/redis/client.py")] == ["file:src/redis/client.py"]
