"""Tables of names the entity extractor knows: tools, services, packages, vendors.

Surface forms map to (type, canonical name). Spaces in a surface form also match a hyphen or
nothing ("argo cd" finds "Argo CD", "argo-cd" and "ArgoCD"). Names that are ordinary words in
lower case (React, Apple, Slack) count only when capitalised; tool names that are English
words (go, make, node) count only in command position (see `AMBIGUOUS_TOOLS`).
"""

from __future__ import annotations

import re

_TOOLS = {
    "git": "git", "docker": "docker", "docker compose": "docker-compose", "podman": "podman",
    "kubectl": "kubectl", "terraform": "terraform", "pytest": "pytest", "npm": "npm", "npx": "npx",
    "yarn": "yarn", "pnpm": "pnpm", "pip": "pip", "pip3": "pip", "pipx": "pipx", "cmake": "cmake", "gcc": "gcc",
    "clang": "clang", "python": "python", "python3": "python", "ruff": "ruff", "mypy": "mypy",
    "pyright": "pyright", "eslint": "eslint", "prettier": "prettier", "jest": "jest", "vitest": "vitest",
    "webpack": "webpack", "vite": "vite", "tsc": "tsc", "gradle": "gradle", "maven": "maven", "mvn": "maven",
    "bazel": "bazel", "curl": "curl", "wget": "wget", "ssh": "ssh", "rsync": "rsync", "grep": "grep",
    "ripgrep": "ripgrep", "sed": "sed", "awk": "awk", "jq": "jq", "tmux": "tmux", "vim": "vim",
    "neovim": "neovim", "nvim": "neovim", "emacs": "emacs", "vs code": "vscode", "vscode": "vscode",
    "gcloud": "gcloud", "aws cli": "aws-cli", "az cli": "azure-cli", "ansible": "ansible",
    "pre-commit": "pre-commit", "tox": "tox", "nox": "nox", "alembic": "alembic", "flyway": "flyway",
    "psql": "psql", "redis-cli": "redis-cli", "node.js": "node", "nodejs": "node", "deno": "deno",
    "homebrew": "homebrew", "ffmpeg": "ffmpeg", "openssl": "openssl", "systemctl": "systemctl",
    "journalctl": "journalctl", "uvicorn": "uvicorn", "gunicorn": "gunicorn", "playwright": "playwright",
    "cypress": "cypress", "storybook": "storybook", "isort": "isort", "flake8": "flake8", "pylint": "pylint",
    "bandit": "bandit", "hatch": "hatch", "pdm": "pdm", "conda": "conda", "virtualenv": "virtualenv",
    "rustc": "rustc", "rustup": "rustup", "dotnet": "dotnet", "minikube": "minikube", "k9s": "k9s",
    "skaffold": "skaffold", "vagrant": "vagrant", "lazygit": "lazygit", "fzf": "fzf", "buildx": "docker-buildx",
    "github cli": "gh", "hadolint": "hadolint", "shellcheck": "shellcheck", "golangci-lint": "golangci-lint",
}
_SERVICES = {
    "postgres": "postgres", "postgresql": "postgres", "mysql": "mysql", "mariadb": "mariadb", "sqlite": "sqlite",
    "redis": "redis", "valkey": "valkey", "memcached": "memcached", "mongodb": "mongodb", "mongo": "mongodb",
    "qdrant": "qdrant", "elasticsearch": "elasticsearch", "opensearch": "opensearch", "kafka": "kafka",
    "rabbitmq": "rabbitmq", "nats": "nats", "s3": "s3", "gcs": "gcs", "dynamodb": "dynamodb", "sqs": "sqs",
    "sns": "sns", "ec2": "ec2", "ecs": "ecs", "eks": "eks", "gke": "gke", "aks": "aks", "rds": "rds",
    "aws lambda": "aws-lambda", "cloudfront": "cloudfront", "kubernetes": "kubernetes", "k8s": "kubernetes",
    "nginx": "nginx", "traefik": "traefik", "argo cd": "argocd", "argocd": "argocd", "jenkins": "jenkins",
    "github actions": "github-actions", "gitlab ci": "gitlab-ci", "circleci": "circleci", "sentry": "sentry",
    "grafana": "grafana", "prometheus": "prometheus", "hashicorp vault": "vault", "vault": "vault",
    "consul": "consul", "etcd": "etcd", "minio": "minio", "supabase": "supabase", "firebase": "firebase",
    "heroku": "heroku", "vercel": "vercel", "netlify": "netlify", "cloudflare": "cloudflare",
    "clickhouse": "clickhouse", "snowflake": "snowflake", "bigquery": "bigquery", "pinecone": "pinecone",
    "weaviate": "weaviate", "chroma": "chroma", "chromadb": "chroma", "milvus": "milvus", "lancedb": "lancedb",
    "neo4j": "neo4j", "cassandra": "cassandra", "influxdb": "influxdb", "timescaledb": "timescaledb",
    "duckdb": "duckdb", "celery": "celery", "airflow": "airflow", "github": "github", "gitlab": "gitlab",
    "bitbucket": "bitbucket", "jira": "jira", "confluence": "confluence", "slack": "slack",
    "pagerduty": "pagerduty", "datadog": "datadog", "auth0": "auth0", "okta": "okta", "keycloak": "keycloak",
    "docker hub": "docker-hub", "pypi": "pypi", "ollama": "ollama", "spark": "spark", "flink": "flink",
    "splunk": "splunk", "loki": "loki", "jaeger": "jaeger", "opentelemetry": "opentelemetry",
    "envoy": "envoy", "istio": "istio", "cloud run": "cloud-run", "app engine": "app-engine",
}
_PACKAGES = {
    "react": "react", "react.js": "react", "vue": "vue", "vue.js": "vue", "angular": "angular",
    "svelte": "svelte", "next.js": "next.js", "nextjs": "next.js", "nuxt": "nuxt", "django": "django",
    "flask": "flask", "fastapi": "fastapi", "pydantic": "pydantic", "sqlalchemy": "sqlalchemy",
    "pandas": "pandas", "numpy": "numpy", "pytorch": "pytorch", "tensorflow": "tensorflow",
    "express": "express", "express.js": "express", "nestjs": "nestjs", "spring boot": "spring-boot",
    "rails": "rails", "ruby on rails": "rails", "laravel": "laravel", "tailwind": "tailwind",
    "tailwindcss": "tailwind", "prisma": "prisma", "langchain": "langchain", "llamaindex": "llamaindex",
    "fastembed": "fastembed", "typescript": "typescript", "graphql": "graphql", "grpc": "grpc",
    "tokio": "tokio", "serde": "serde", "htmx": "htmx", "jquery": "jquery", "redux": "redux",
}
_ORGS = {
    "google": "google", "microsoft": "microsoft", "amazon": "amazon", "aws": "aws", "anthropic": "anthropic",
    "openai": "openai", "meta": "meta", "apple": "apple", "ibm": "ibm", "oracle": "oracle", "nvidia": "nvidia",
    "intel": "intel", "amd": "amd", "mozilla": "mozilla", "jetbrains": "jetbrains", "hashicorp": "hashicorp",
    "atlassian": "atlassian", "stripe": "stripe", "red hat": "red-hat", "canonical": "canonical",
    "hugging face": "hugging-face", "huggingface": "hugging-face", "mistral": "mistral", "cohere": "cohere",
    "deepmind": "deepmind", "databricks": "databricks", "salesforce": "salesforce", "shopify": "shopify",
    "twilio": "twilio", "azure": "azure",
}


def _table() -> dict[str, tuple[str, str]]:
    table: dict[str, tuple[str, str]] = {}
    for etype, names in (("tool", _TOOLS), ("service", _SERVICES), ("package", _PACKAGES), ("org", _ORGS)):
        for surface, canonical in names.items():
            table[normalise_surface(surface)] = (etype, canonical)
    return table


def normalise_surface(surface: str) -> str:
    """The lookup form of a matched name: lower case, runs of spaces/hyphens as one space."""
    return re.sub(r"[\s\-]+", " ", surface.lower()).strip()


#: normalised surface form -> (entity type, canonical name)
NAMES: dict[str, tuple[str, str]] = _table()

#: Canonical names that are also ordinary lower-case words: they need a capital letter.
CASED_NAMES = frozenset({
    "react", "vue", "angular", "svelte", "express", "rails", "apple", "meta", "oracle", "stripe",
    "mistral", "cohere", "amazon", "intel", "canonical", "vault", "chroma", "spark", "slack", "snowflake",
    "pinecone", "consul", "envoy", "loki", "flask", "celery", "sentry", "tailwind", "nats", "redux",
})

#: Tool names that are English words: counted only in command position (`go test`, "run make build").
AMBIGUOUS_TOOLS = ("go", "make", "node", "black", "cargo", "poetry", "helm", "uv", "gh", "bun", "just", "rg", "az")

ERRNO_NAMES = (
    "ECONNREFUSED", "ECONNRESET", "ECONNABORTED", "ENOENT", "EACCES", "EADDRINUSE", "ETIMEDOUT", "EPERM",
    "EEXIST", "ENOTDIR", "EISDIR", "EMFILE", "ENOSPC", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND",
    "EAI_AGAIN", "EINVAL", "EBUSY", "EAGAIN", "ENOMEM", "EROFS", "ELOOP", "ENOTEMPTY",
)

FILE_EXTENSIONS = (
    "py", "pyi", "ts", "tsx", "js", "jsx", "mjs", "cjs", "json", "yaml", "yml", "toml", "md", "rst", "rs",
    "go", "java", "kt", "rb", "php", "c", "h", "cc", "cpp", "hpp", "cs", "swift", "sh", "bash", "zsh", "sql",
    "html", "css", "scss", "lock", "cfg", "ini", "txt", "env", "conf", "xml", "gradle", "tf", "proto",
    "ipynb", "vue", "svelte", "jsonl", "csv", "sqlite3", "db", "log",
)

#: "<name>.js" words that name a technology, not a file.
JS_TECH_NAMES = frozenset({"node.js", "next.js", "vue.js", "nuxt.js", "express.js", "three.js", "d3.js",
                           "react.js", "nest.js", "ember.js", "chart.js", "alpine.js", "backbone.js"})
