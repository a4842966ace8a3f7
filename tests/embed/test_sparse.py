"""BM25 as developers write code: identifiers split, compound names as whole-name tokens."""

from __future__ import annotations

from mnemex.embed.sparse import expand_code_tokens


# ------------------------------------------------------------ tokenisation
def test_code_tokens_expand_identifiers():
    assert "parse Config" in expand_code_tokens("parseConfig failed")
    assert "HTTP Server" in expand_code_tokens("HTTPServer crashed")
    assert "Module Not Found Error" in expand_code_tokens("ModuleNotFoundError: no module named x")
    assert expand_code_tokens("plain words") == "plain words"


def test_compound_names_get_one_whole_name_token():
    # snake_case, paths, dotted and constant names: the tokenizer splits them, so the joined form is added
    assert expand_code_tokens("poll_carrier_status failed").split()[-1] == "pollcarrierstatus"
    assert "servicescommondbpy" in expand_code_tokens("see services/common/db.py").split()
    assert "errsslprotocolerror" in expand_code_tokens("ERR_SSL_PROTOCOL_ERROR again").split()
    # a file name also gives its name without extension: what the class name in PascalCase becomes
    assert "invoiceservice" in expand_code_tokens("edit invoice_service.py").split()
    # the same name in another case style meets on the same token
    assert "retrybackoffms" in expand_code_tokens("retry_backoff_ms").split()
    # numbers, dates and versions are not names
    assert expand_code_tokens("Python 3.12 since 2025-06-20") == "Python 3.12 since 2025-06-20"
