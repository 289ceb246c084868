"""Where a reply's LaTeX math is: delimiters, money that is not math, and the bounds that keep bad input raw."""

from __future__ import annotations

from app.core.display.math_spans import MAX_GROUP_DEPTH, MAX_LATEX_CHARS, MathSpan, find_math


def _latex(text: str) -> list[tuple[str, bool]]:
    return [(span.latex, span.display) for span in find_math(text)]


def test_every_delimiter_is_found_with_its_source_range() -> None:
    text = r"so $x^2$, \(a+b\), $$\frac{1}{2}$$ and \[\boxed{4}\]."
    assert _latex(text) == [("x^2", False), ("a+b", False), (r"\frac{1}{2}", True), (r"\boxed{4}", True)]
    first = find_math(text)[0]
    assert first == MathSpan(start=3, end=8, latex="x^2", display=False)
    assert text[first.start : first.end] == "$x^2$"


def test_display_math_may_run_over_lines_and_inline_dollars_may_not() -> None:
    assert _latex("\\[\nx = 1\n\\]") == [("x = 1", True)]
    assert _latex("$$\ny\n$$") == [("y", True)]
    assert _latex("a $x\n+ y$ b") == []


def test_money_is_not_math() -> None:
    assert _latex("It costs $5 and $10 a month.") == []
    assert _latex("between $ 3 and 4 $") == []  # spaces inside the dollars
    assert _latex("from $a$5") == []  # a closing dollar followed by a digit
    assert _latex(r"an escaped \$x\$ sign") == []


def test_an_open_formula_is_no_formula_until_it_closes() -> None:
    assert _latex(r"the root is $\sqrt{2") == []
    assert _latex(r"then \[ x") == []
    assert _latex(r"the root is $\sqrt{2}$") == [(r"\sqrt{2}", False)]


def test_unbalanced_deep_or_huge_latex_stays_text() -> None:
    assert _latex(r"$\frac{a$") == []
    assert _latex(r"$a}{b$") == []
    deep = "{" * (MAX_GROUP_DEPTH + 1) + "x" + "}" * (MAX_GROUP_DEPTH + 1)
    assert _latex(f"${deep}$") == []
    assert _latex("$" + "{" * MAX_GROUP_DEPTH + "x" + "}" * MAX_GROUP_DEPTH + "$") != []
    assert _latex("$" + "x" * (MAX_LATEX_CHARS + 1) + "$") == []
    assert _latex("$" + "x" * MAX_LATEX_CHARS + "$") == [("x" * MAX_LATEX_CHARS, False)]
    assert _latex(r"$\{ x$") == [(r"\{ x", False)]  # an escaped brace is a character
