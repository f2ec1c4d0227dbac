"""Side-effect-free look-ahead used by the parser to decide between alternatives the way DynamoDB does.

DynamoDB's parser predicts an alternative by looking ahead over tokens before it builds anything, and it
reports "redundant parentheses" while building. So whether ``((a)) :w`` yields a syntax error (the
prediction runs into ``:w`` first) or a redundant-parentheses error (prediction succeeded and the
building reached ``))``) depends on how far that look-ahead went. This module answers, for a start
token, "does this construct parse, and if not, at which token does it stop being viable?" so the parser
can replay those decisions. Results are memoised per (rule, position), keeping it linear for deep
nesting.

Every function returns ``(True, end)`` with ``end`` the index after the construct, or ``(False, index)``
with the first token at which no continuation is possible.
"""

from __future__ import annotations

from .lexer import COMPARATOR, KEYWORD, NAME, NAME_PLACEHOLDER, NUMBER, PUNCT, VALUE_PLACEHOLDER, Token

Result = tuple[bool, int]


def is_discriminator(token: Token) -> bool:
    """Tokens that turn a leading operand into a comparison, BETWEEN or IN."""
    return token.kind == COMPARATOR or token.is_(KEYWORD, "BETWEEN") or token.is_(KEYWORD, "IN")


class Recognizer:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self._memo: dict[tuple[str, int], Result] = {}

    def _punct(self, i: int, char: str) -> bool:
        return self.tokens[i].is_(PUNCT, char)

    def _cached(self, rule: str, i: int, compute) -> Result:
        key = (rule, i)
        found = self._memo.get(key)
        if found is None:
            found = compute(i)
            self._memo[key] = found
        return found

    # -- operands ------------------------------------------------------------------------------------

    def path(self, i: int) -> Result:
        tokens = self.tokens
        if tokens[i].kind not in (NAME, NAME_PLACEHOLDER):
            return False, i
        i += 1
        while True:
            if self._punct(i, "."):
                if tokens[i + 1].kind not in (NAME, NAME_PLACEHOLDER, VALUE_PLACEHOLDER):
                    return False, i + 1
                i += 2
            elif self._punct(i, "["):
                if tokens[i + 1].kind != NUMBER:
                    return False, i + 1
                if not self._punct(i + 2, "]"):
                    return False, i + 2
                i += 3
            else:
                return True, i

    def operand(self, i: int) -> Result:
        return self._cached("operand", i, self._operand)

    def _operand(self, i: int) -> Result:
        token = self.tokens[i]
        if token.kind == NAME and self._punct(i + 1, "("):
            return self.function(i)
        if token.kind in (NAME, NAME_PLACEHOLDER):
            return self.path(i)
        if token.kind == VALUE_PLACEHOLDER:
            return True, i + 1
        if token.is_(PUNCT, "("):
            return self._closed(self.operand(i + 1))
        return False, i

    def _closed(self, inner: Result) -> Result:
        ok, end = inner
        if not ok:
            return inner
        return (True, end + 1) if self._punct(end, ")") else (False, end)

    def operand_list(self, i: int) -> Result:
        """``operand (',' operand)* ')'``: the tail of a function call or an IN list."""
        while True:
            ok, i = self.operand(i)
            if not ok:
                return False, i
            if self._punct(i, ","):
                i += 1
                continue
            return (True, i + 1) if self._punct(i, ")") else (False, i)

    def function(self, i: int) -> Result:
        return self._cached("function", i, lambda i: self.operand_list(i + 2))

    # -- conditions ----------------------------------------------------------------------------------

    def condition(self, i: int) -> Result:
        return self._cached("condition", i, self._condition)

    def _condition(self, i: int) -> Result:
        while True:
            ok, i = self.negation(i)
            if not ok:
                return False, i
            token = self.tokens[i]
            if token.is_(KEYWORD, "AND") or token.is_(KEYWORD, "OR"):
                i += 1
                continue
            return True, i

    def negation(self, i: int) -> Result:
        while self.tokens[i].is_(KEYWORD, "NOT"):
            i += 1
        return self.primary(i)

    def paren_condition(self, i: int) -> Result:
        return self._cached("paren_condition", i, lambda i: self._closed(self.condition(i + 1)))

    def primary(self, i: int) -> Result:
        return self._cached("primary", i, self._primary)

    def _primary(self, i: int) -> Result:
        token = self.tokens[i]
        operand_ok, operand_end = self.operand(i)
        if token.is_(PUNCT, "("):
            group = self.paren_condition(i)
            if operand_ok and is_discriminator(self.tokens[operand_end]):
                return self.comparison_tail(operand_end)
            if group[0]:
                return group
            return False, max(group[1], operand_end)
        if not operand_ok:
            return False, operand_end
        if is_discriminator(self.tokens[operand_end]):
            return self.comparison_tail(operand_end)
        if token.kind == NAME and self._punct(i + 1, "("):
            return True, operand_end  # a function used as a condition
        return False, operand_end

    def comparison_tail(self, i: int) -> Result:
        token = self.tokens[i]
        if token.kind == COMPARATOR:
            return self.operand(i + 1)
        if token.is_(KEYWORD, "BETWEEN"):
            ok, i = self.operand(i + 1)
            if not ok:
                return False, i
            if not self.tokens[i].is_(KEYWORD, "AND"):
                return False, i
            return self.operand(i + 1)
        # IN
        if not self._punct(i + 1, "("):
            return False, i + 1
        return self.operand_list(i + 2)

    # -- update SET values ---------------------------------------------------------------------------

    def set_value(self, i: int) -> Result:
        return self._cached("set_value", i, self._set_value)

    def _set_value(self, i: int) -> Result:
        operand_ok, operand_end = self.operand(i)
        if self.tokens[i].is_(PUNCT, "("):
            group = self._closed(self.set_value(i + 1))
            if operand_ok:
                return self._arithmetic_tail(operand_end)
            if group[0]:
                return group
            return False, max(group[1], operand_end)
        if not operand_ok:
            return False, operand_end
        return self._arithmetic_tail(operand_end)

    def _arithmetic_tail(self, i: int) -> Result:
        if self._punct(i, "+") or self._punct(i, "-"):
            return self.operand(i + 1)
        return True, i
