"""A user's question as a safe SQLite FTS5 query for BM25 retrieval over attachment chunks.

FTS5's query language gives meaning to double quotes, ``*``, ``^``, ``:``,
parentheses, ``-``, ``+`` and the words AND, OR, NOT and NEAR, and raises on
an unbalanced quote or a stray operator. A question is prose, so none of it
may be read as syntax: the words are taken out (letters and digits, any
script), each is written as a quoted string (so ``NOT`` is the word "not" and
``col:x`` two words), and they are joined with OR, which lets BM25 rank every
chunk that has any of them, best first, instead of demanding all of them.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+", re.UNICODE)
# Enough words to carry a question; a pasted page as the "question" must not build a huge query.
MAX_TERMS = 48
# Words too common in questions to say which passage answers it (BM25 weighs them down anyway,
# but with OR each would match nearly every chunk).
_STOP = frozenset(
    (
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "me",
        "my",
        "of",
        "on",
        "or",
        "please",
        "that",
        "the",
        "this",
        "to",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    )
)


def fts_query(question: str, max_terms: int = MAX_TERMS) -> str | None:
    """An FTS5 MATCH expression for ``question`` (quoted words joined by OR), or None when it has no words."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(question):
        folded = word.casefold().replace("_", " ").strip()
        for part in folded.split():
            if part in _STOP or (len(part) < 2 and not part.isdigit()):
                continue
            seen.setdefault(part, None)
    terms = list(seen)[:max_terms]
    if not terms:
        return None
    # Inside an FTS5 string a double quote is written twice; \w+ holds none, but the rule is kept.
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)
