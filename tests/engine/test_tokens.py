"""Token budgets are counted by tiktoken's cl100k encoding, shipped offline — not estimated."""

from mnemex.engine.tokens import estimate_tokens, exact


def test_tokens_are_counted_by_the_offline_encoding():
    assert exact()
    # cl100k: "hello" and " world" are one token each; 4 characters a token would say 2 and 23
    assert estimate_tokens("hello world") == 2
    code = "`DATABASE_URL=postgres://db:5432/app` ERR_CONN_REFUSED"
    assert estimate_tokens(code) != len(code) // 4
    assert estimate_tokens("") == 0
