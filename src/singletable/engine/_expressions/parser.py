"""Parser for DynamoDB's condition, filter, key-condition, projection and update expressions.

A precedence-climbing parser (OR < AND < NOT < comparison/BETWEEN/IN/function/parentheses) that must fail
exactly where and how DynamoDB fails, so it reproduces DynamoDB's order of checks:

1. empty text, then text longer than 4096 UTF-16 units;
2. while parsing: syntax errors and "redundant parentheses" (``((x))``), whichever DynamoDB meets first.
   DynamoDB decides some alternatives by looking ahead (see :mod:`.recognizer`), and a syntax error met
   during that look-ahead wins over redundant parentheses that would only be noticed while building;
3. after a successful parse, in document order: reserved words, list indexes beyond 2^31-1, unknown
   function names, functions not allowed in this kind, functions used as the wrong thing; then the
   internal error DynamoDB answers for a ``:value`` used as a path element (``a.:v``);
4. an IN with more than 100 operands, then more than 300 operators;
5. update clauses repeated.

Function arity and operand types are left to the evaluator, which DynamoDB also checks later.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import contextmanager
from functools import lru_cache, wraps
from typing import TypeVar

from .._errors import DynamoDBError, validation
from .ast import (
    AddAction,
    And,
    Arithmetic,
    Between,
    Comparison,
    Condition,
    DeleteAction,
    FunctionCall,
    In,
    NamePlaceholder,
    Not,
    Operand,
    Or,
    Path,
    PathElement,
    ProjectionExpression,
    RemoveAction,
    SetAction,
    UpdateExpression,
    ValuePlaceholder,
)
from .lexer import (
    COMPARATOR,
    EOF,
    KEYWORD,
    NAME,
    NAME_PLACEHOLDER,
    NUMBER,
    PUNCT,
    VALUE_PLACEHOLDER,
    Token,
    near_text,
    tokenize,
)
from .recognizer import Recognizer, is_discriminator
from .reserved import is_reserved

MAX_EXPRESSION_LENGTH = 4096
MAX_IN_OPERANDS = 100
MAX_OPERATORS = 300
MAX_LIST_INDEX = 2**31 - 1

CONDITION_FUNCTIONS = frozenset(
    {"attribute_exists", "attribute_not_exists", "attribute_type", "begins_with", "contains", "size"}
)
# Functions that yield a boolean, so in a condition they must stand where a condition is expected.
BOOLEAN_FUNCTIONS = CONDITION_FUNCTIONS - {"size"}
UPDATE_FUNCTIONS = frozenset({"if_not_exists", "list_append"})
CLAUSES = ("SET", "REMOVE", "ADD", "DELETE")

# 4096 characters of "(" nest the recursive descent and its look-ahead up to ~12 frames per character,
# far past Python's default limit (and the one Hypothesis imposes inside tests). Python 3.11 frames do
# not use the C stack, so parsing runs with a raised limit instead of failing with RecursionError.
_FRAMES_NEEDED = 16 * MAX_EXPRESSION_LENGTH + 1000
_T = TypeVar("_T")


@contextmanager
def _deep_recursion():
    before = sys.getrecursionlimit()
    if before >= _FRAMES_NEEDED + 200:
        yield
        return
    sys.setrecursionlimit(_FRAMES_NEEDED + 200 + before)
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def _allowing_deep_nesting(parse: Callable[..., _T]) -> Callable[..., _T]:
    @wraps(parse)
    def wrapper(*args: str) -> _T:
        with _deep_recursion():
            return parse(*args)

    return wrapper


def _size(text: str) -> int:
    """Length as DynamoDB (Java) measures it: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


class _Parser:
    """One parse of one text; raises on the first error in DynamoDB's order."""

    def __init__(self, text: str, kind: str) -> None:
        self.text = text
        self.kind = kind
        self.is_update = kind == "UpdateExpression"
        self.tokens = tokenize(text)
        self.pos = 0
        self.recognizer = Recognizer(self.tokens)
        self.deferred: DynamoDBError | None = None  # first post-parse (document order) error
        self.oversized_in: int | None = None
        self.operators = 0
        self.value_in_path = False  # ``a.:v``, which DynamoDB parses but cannot evaluate

    # -- errors ---------------------------------------------------------------------------------------

    def error(self, message: str) -> DynamoDBError:
        return validation(f"Invalid {self.kind}: {message}")

    def syntax_error(self, index: int) -> DynamoDBError:
        token = self.tokens[index]
        near = near_text(self.text, self.tokens, index)
        return self.error(f'Syntax error; token: "{token.text}", near: "{near}"')

    def redundant(self) -> DynamoDBError:
        return self.error("The expression has redundant parentheses;")

    def defer(self, message: str) -> None:
        if self.deferred is None:
            self.deferred = self.error(message)

    def finish(self) -> None:
        """Raise the checks DynamoDB makes after building the tree, in its order."""
        if self.deferred is not None:
            raise self.deferred
        if self.value_in_path:
            raise self.error("Internal server error")
        if self.oversized_in is not None:
            raise self.error(
                f"The IN operator is provided with too many operands; number of operands: {self.oversized_in}"
            )
        if self.operators > MAX_OPERATORS:
            # DynamoDB stops counting at the first operator over the limit.
            count = MAX_OPERATORS + 1
            raise self.error(f"The expression contains too many operators; operator count: {count}")

    # -- token helpers --------------------------------------------------------------------------------

    @property
    def token(self) -> Token:
        return self.tokens[self.pos]

    def at_punct(self, char: str) -> bool:
        return self.tokens[self.pos].is_(PUNCT, char)

    def at_keyword(self, word: str) -> bool:
        return self.tokens[self.pos].is_(KEYWORD, word)

    def expect_punct(self, char: str) -> None:
        if not self.at_punct(char):
            raise self.syntax_error(self.pos)
        self.pos += 1

    def expect_eof(self) -> None:
        if self.token.kind != EOF:
            raise self.syntax_error(self.pos)

    def count_operator(self) -> None:
        self.operators += 1

    # -- paths and operands ---------------------------------------------------------------------------

    def path_name(self, nested: bool = False) -> str | NamePlaceholder:
        token = self.token
        if nested and token.kind == VALUE_PLACEHOLDER:
            # DynamoDB's grammar takes ``a.:v``; its projection binder then reports ":v" as an undefined
            # attribute name, while the other kinds fail with an internal error after the document walk.
            self.pos += 1
            if self.kind != "ProjectionExpression":
                self.value_in_path = True
            return NamePlaceholder(token.text)
        if token.kind == NAME:
            if is_reserved(token.text):
                self.defer(f"Attribute name is a reserved keyword; reserved keyword: {token.text}")
            self.pos += 1
            return token.text
        if token.kind == NAME_PLACEHOLDER:
            self.pos += 1
            return NamePlaceholder(token.text)
        raise self.syntax_error(self.pos)

    def path(self) -> Path:
        elements: list[PathElement] = [self.path_name()]
        while True:
            if self.at_punct("."):
                self.pos += 1
                elements.append(self.path_name(nested=True))
            elif self.at_punct("["):
                self.pos += 1
                if self.token.kind != NUMBER:
                    raise self.syntax_error(self.pos)
                digits = self.token.text
                index = int(digits)
                if index > MAX_LIST_INDEX:
                    self.defer(f"List index is not within the allowable range; index: [{digits}]")
                self.pos += 1
                self.expect_punct("]")
                elements.append(index)
            else:
                return Path(tuple(elements))

    def operand(self) -> tuple[Operand, bool]:
        """An operand, and whether it was written as one parenthesised group."""
        token = self.token
        if token.kind == NAME and self.tokens[self.pos + 1].is_(PUNCT, "("):
            return self.function(as_condition=False), False
        if token.kind in (NAME, NAME_PLACEHOLDER):
            return self.path(), False
        if token.kind == VALUE_PLACEHOLDER:
            self.pos += 1
            return ValuePlaceholder(token.text), False
        if token.is_(PUNCT, "("):
            return self.group(self.operand)
        raise self.syntax_error(self.pos)

    def group(self, parse: Callable[[], tuple[_T, bool]]) -> tuple[_T, bool]:
        """``'(' parse ')'`` at an opening parenthesis, marked as a group: DynamoDB rejects a group whose
        only content is another group (``((x))``) as redundant."""
        self.pos += 1
        inner, grouped = parse()
        self.expect_punct(")")
        if grouped:
            raise self.redundant()
        return inner, True

    def call_end(self, start: int) -> int:
        """Where the function call at ``start`` ends; a call that does not parse is a syntax error there."""
        call_ok, end = self.recognizer.function(start)
        if not call_ok:
            raise self.syntax_error(end)
        return end

    def operand_list(self) -> list[Operand]:
        """``operand (',' operand)* ')'`` after an opening parenthesis."""
        items = [self.operand()[0]]
        while self.at_punct(","):
            self.pos += 1
            items.append(self.operand()[0])
        self.expect_punct(")")
        return items

    def check_function(self, name: str, as_condition: bool) -> None:
        if name not in CONDITION_FUNCTIONS and name not in UPDATE_FUNCTIONS:
            self.defer(f"Invalid function name; function: {name}")
        elif self.is_update:
            if name not in UPDATE_FUNCTIONS:
                self.defer(f"The function is not allowed in an update expression; function: {name}")
        elif name not in CONDITION_FUNCTIONS:
            self.defer(f"The function is not allowed in a condition expression; function: {name}")
        elif as_condition != (name in BOOLEAN_FUNCTIONS):
            self.defer(f"The function is not allowed to be used this way in an expression; function: {name}")

    def function(self, as_condition: bool) -> FunctionCall:
        name = self.token.text
        self.check_function(name, as_condition)
        if not self.is_update:
            self.count_operator()
        self.pos += 2  # the name and "("
        return FunctionCall(name, tuple(self.operand_list()))

    # -- conditions -----------------------------------------------------------------------------------

    def condition(self) -> tuple[Condition, bool]:
        """OR binds loosest; the flag says the whole condition was one parenthesised group."""
        return self.chain("OR", Or, self.conjunction)

    def conjunction(self) -> tuple[Condition, bool]:
        return self.chain("AND", And, self.negation)

    def chain(
        self,
        keyword: str,
        node: Callable[[Condition, Condition], Condition],
        operand: Callable[[], tuple[Condition, bool]],
    ) -> tuple[Condition, bool]:
        """``operand (keyword operand)*``, grouped to the left: one precedence level of AND/OR."""
        left, grouped = operand()
        while self.at_keyword(keyword):
            self.pos += 1
            self.count_operator()
            right, _ = operand()
            left, grouped = node(left, right), False
        return left, grouped

    def negation(self) -> tuple[Condition, bool]:
        nots = 0
        while self.at_keyword("NOT"):
            self.pos += 1
            self.count_operator()
            nots += 1
        node, grouped = self.primary()
        if nots:
            for _ in range(nots):
                node = Not(node)
            grouped = False
        return node, grouped

    def primary(self) -> tuple[Condition, bool]:
        """Choose between a parenthesised condition, a function used as a condition and a comparison.

        DynamoDB makes this choice by look-ahead before building anything, so a syntax error inside
        the look-ahead window is raised here, ahead of any redundant parentheses inside it.
        """
        start = self.pos
        token = self.token
        recognizer = self.recognizer
        if token.is_(PUNCT, "("):
            operand_ok, operand_end = recognizer.operand(start)
            if not (operand_ok and is_discriminator(self.tokens[operand_end])):
                group_ok, group_end = recognizer.paren_condition(start)
                if not group_ok and (operand_ok or group_end <= operand_end):
                    raise self.syntax_error(operand_end)
                return self.group(self.condition)
        elif (
            token.kind == NAME
            and self.tokens[start + 1].is_(PUNCT, "(")
            and not is_discriminator(self.tokens[self.call_end(start)])
        ):
            return self.function(as_condition=True), False
        left, _ = self.operand()
        return self.comparison_tail(left), False

    def comparison_tail(self, left: Operand) -> Condition:
        token = self.token
        if token.kind == COMPARATOR:
            self.pos += 1
            self.count_operator()
            return Comparison(token.text, left, self.operand()[0])
        if token.is_(KEYWORD, "BETWEEN"):
            self.pos += 1
            self.count_operator()
            low, _ = self.operand()
            if not self.at_keyword("AND"):
                raise self.syntax_error(self.pos)
            self.pos += 1
            return Between(left, low, self.operand()[0])
        if token.is_(KEYWORD, "IN"):
            self.pos += 1
            self.count_operator()
            self.expect_punct("(")
            choices = self.operand_list()
            if len(choices) > MAX_IN_OPERANDS and self.oversized_in is None:
                self.oversized_in = len(choices)
            return In(left, tuple(choices))
        raise self.syntax_error(self.pos)

    # -- update expressions ---------------------------------------------------------------------------

    def set_value(self) -> tuple[Operand, bool]:
        """``operand``, ``operand + operand``, ``operand - operand``, or one of these in parentheses."""
        start = self.pos
        token = self.token
        recognizer = self.recognizer
        if token.is_(PUNCT, "("):
            operand_ok, operand_end = recognizer.operand(start)
            if not operand_ok:
                group_ok, group_end = recognizer.set_value(start + 1)
                if group_ok:
                    group_ok = self.tokens[group_end].is_(PUNCT, ")")
                if not group_ok and group_end <= operand_end:
                    raise self.syntax_error(operand_end)
                return self.group(self.set_value)
        elif token.kind == NAME and self.tokens[start + 1].is_(PUNCT, "("):
            self.call_end(start)
        left, grouped = self.operand()
        if self.at_punct("+") or self.at_punct("-"):
            op = self.token.text
            self.pos += 1
            right, _ = self.operand()
            return Arithmetic(op, left, right), False
        return left, grouped

    def update(self) -> UpdateExpression:
        sections: dict[str, list] = {name: [] for name in CLAUSES}
        seen: list[str] = []
        while True:
            token = self.token
            clause = token.value if token.kind == KEYWORD and token.value in CLAUSES else None
            if clause is None:
                raise self.syntax_error(self.pos)
            self.pos += 1
            seen.append(clause)
            actions = sections[clause]
            while True:
                actions.append(self.action(clause))
                if not self.at_punct(","):
                    break
                self.pos += 1
            if self.token.kind == EOF:
                break
        self.finish()
        repeated = sorted((name for name in set(seen) if seen.count(name) > 1), key=_second_index(seen))
        if repeated:
            raise self.error(f'The "{repeated[0]}" section can only be used once in an update expression;')
        return UpdateExpression(*(tuple(sections[name]) for name in CLAUSES))

    def action(self, clause: str) -> SetAction | RemoveAction | AddAction | DeleteAction:
        path = self.path()
        if clause == "SET":
            if not self.token.is_(COMPARATOR, "="):
                raise self.syntax_error(self.pos)
            self.pos += 1
            return SetAction(path, self.set_value()[0])
        if clause == "REMOVE":
            return RemoveAction(path)
        token = self.token
        if token.kind != VALUE_PLACEHOLDER:
            raise self.syntax_error(self.pos)
        self.pos += 1
        value = ValuePlaceholder(token.text)
        return AddAction(path, value) if clause == "ADD" else DeleteAction(path, value)

    # -- projections ----------------------------------------------------------------------------------

    def projection(self) -> ProjectionExpression:
        paths = [self.path()]
        while self.at_punct(","):
            self.pos += 1
            paths.append(self.path())
        self.expect_eof()
        self.finish()
        return ProjectionExpression(tuple(paths))


def _second_index(seen: list[str]):
    """Order repeated clauses by where their second occurrence appears."""

    def key(name: str) -> int:
        first = seen.index(name)
        return seen.index(name, first + 1)

    return key


def _start(text: str, kind: str) -> _Parser:
    if text == "":
        raise validation(f"Invalid {kind}: The expression can not be empty;")
    size = _size(text)
    if size > MAX_EXPRESSION_LENGTH:
        # Only the condition-like kinds state the size; DynamoDB's other two messages stop at the ';'.
        condition_like = kind not in ("UpdateExpression", "ProjectionExpression")
        detail = f" expression size: {size}" if condition_like else ""
        raise validation(f"Invalid {kind}: Expression size has exceeded the maximum allowed size;{detail}")
    return _Parser(text, kind)


@lru_cache(maxsize=4096)
@_allowing_deep_nesting
def parse_condition(text: str, kind: str = "ConditionExpression") -> Condition:
    """Parse a Condition-, Filter- or KeyConditionExpression; ``kind`` names it in error messages."""
    parser = _start(text, kind)
    node, _ = parser.condition()
    parser.expect_eof()
    parser.finish()
    return node


@lru_cache(maxsize=4096)
@_allowing_deep_nesting
def parse_projection(text: str) -> ProjectionExpression:
    """Parse a ProjectionExpression: comma-separated document paths."""
    return _start(text, "ProjectionExpression").projection()


@lru_cache(maxsize=4096)
@_allowing_deep_nesting
def parse_update(text: str) -> UpdateExpression:
    """Parse an UpdateExpression: SET/REMOVE/ADD/DELETE clauses, each at most once, in any order."""
    return _start(text, "UpdateExpression").update()
