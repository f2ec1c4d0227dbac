"""PartiQL's expression grammar: a precedence-climbing parser whose syntax errors are DynamoDB's.

DynamoDB parses a whole statement as one PartiQL expression (a SELECT or an UPDATE is a term like any
other), and words its syntax errors by what the parser was doing when it stopped:

- where a term should start, by the class of the token found there: ``Unexpected keyword`` (``ORDER``),
  ``Unexpected operator`` (``IS``, ``LIKE``, ``=``), ``Unexpected term`` (anything else, the end of the
  statement included);
- an infix operator with nothing at all after it: ``Missing right-hand side expression of infix operator``;
- ``IS`` not followed by a type: ``Expected type name``;
- a closing token that is not there: ``Expected RIGHT_PAREN`` (PartiQL's token type names);
- a path component that is not a name: ``Invalid path dot component``.

The statement grammar (:mod:`.parser`) builds on this class; semantic refusals found while parsing
(aliases, unsupported clauses) are *deferred* so a syntax error later in the statement still wins, as it
does in DynamoDB, whose semantic checks run on a parsed statement.
"""

from __future__ import annotations

from .._errors import DynamoDBError, validation
from . import ast
from .errors import syntax
from .lexer import Token

# Infix binding powers (PartiQL's operator precedence groups).
INFIX = {
    "union": 5,
    "union_all": 5,
    "union_distinct": 5,
    "intersect": 5,
    "intersect_all": 5,
    "intersect_distinct": 5,
    "except": 5,
    "except_all": 5,
    "except_distinct": 5,
    "or": 10,
    "and": 20,
    "=": 40,
    "<>": 40,
    "is": 40,
    "is_not": 40,
    "in": 40,
    "not_in": 40,
    "<": 50,
    "<=": 50,
    ">": 50,
    ">=": 50,
    "between": 50,
    "not_between": 50,
    "like": 50,
    "not_like": 50,
    "+": 60,
    "-": 60,
    "||": 60,
    "*": 70,
    "/": 70,
    "%": 70,
}
NOT_PRECEDENCE = 30
SELECT_PRECEDENCE = 6  # SELECT's own clauses stop at set operators
COMPARISONS = frozenset(("=", "<>", "<", "<=", ">", ">="))

# Type names IS accepts, with PartiQL's aliases mapped to the names DynamoDB checks.
TYPE_NAMES = {
    "missing": "MISSING",
    "null": "NULL",
    "boolean": "BOOLEAN",
    "bool": "BOOLEAN",
    "smallint": "SMALLINT",
    "int2": "SMALLINT",
    "integer2": "SMALLINT",
    "integer4": "INTEGER4",
    "int4": "INTEGER4",
    "integer8": "INTEGER8",
    "int8": "INTEGER8",
    "bigint": "INTEGER8",
    "integer": "INTEGER",
    "int": "INTEGER",
    "float": "FLOAT",
    "real": "REAL",
    "double_precision": "DOUBLE_PRECISION",
    "decimal": "DECIMAL",
    "dec": "DECIMAL",
    "numeric": "NUMERIC",
    "timestamp": "TIMESTAMP",
    "date": "DATE",
    "time": "TIME",
    "character": "CHARACTER",
    "char": "CHARACTER",
    "character_varying": "CHARACTER_VARYING",
    "varchar": "CHARACTER_VARYING",
    "string": "STRING",
    "symbol": "SYMBOL",
    "clob": "CLOB",
    "blob": "BLOB",
    "struct": "STRUCT",
    "tuple": "TUPLE",
    "list": "LIST",
    "sexp": "SEXP",
    "bag": "BAG",
    "any": "ANY",
}

# Keywords that are functions when a parenthesis follows them.
FUNCTION_KEYWORDS = frozenset(
    (
        "exists",
        "count",
        "avg",
        "max",
        "min",
        "sum",
        "substring",
        "char_length",
        "character_length",
        "octet_length",
        "bit_length",
        "upper",
        "lower",
        "size",
        "sexp",
        "list",
        "bag",
    )
)
# Words with a token type of their own in PartiQL: in a term's place they are "Unexpected term".
TERM_WORDS = frozenset(("as", "at", "by", "for"))
# PartiQL's names for the closing tokens, which its "Expected X" messages use.
TOKEN_NAMES = {
    ")": "RIGHT_PAREN",
    "]": "RIGHT_BRACKET",
    "}": "RIGHT_CURLY",
    ">>": "RIGHT_DOUBLE_ANGLE_BRACKET",
    ":": "COLON",
}
MAX_DEPTH = 200
UNSUPPORTED_PATH = "Unsupported path expression: only names and list indexes are allowed"


class ExpressionParser:
    """Tokens in, expression nodes out; :meth:`statement_term` is the statement grammar's hook."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.position = 0
        self.parameters = 0
        self.depth = 0
        self.deferred: DynamoDBError | None = None
        self.projection_error: DynamoDBError | None = None  # a SELECT's first projection that is no path

    # -- token helpers ------------------------------------------------------------------------------------

    @property
    def token(self) -> Token:
        return self.tokens[self.position]

    def peek(self, ahead: int = 1) -> Token:
        return self.tokens[min(self.position + ahead, len(self.tokens) - 1)]

    def advance(self) -> Token:
        token = self.tokens[self.position]
        if token.kind != "eof":
            self.position += 1
        return token

    def expect(self, mark: str) -> Token:
        if not self.token.is_punct(mark):
            raise syntax(f"Expected {TOKEN_NAMES[mark]}")
        return self.advance()

    def defer(self, error: DynamoDBError) -> None:
        """Remember a semantic refusal; it is raised only if the whole statement parses."""
        if self.deferred is None:
            self.deferred = error

    @staticmethod
    def pos(token: Token) -> ast.Pos:
        return ast.Pos(token.line, token.column, token.length)

    def statement_term(self, token: Token) -> ast.Statement | None:
        """The statement a keyword starts (SELECT, UPDATE...), or None; the statement grammar fills it in."""
        return None

    # -- expressions --------------------------------------------------------------------------------------

    def expression(self, precedence: int = -1) -> ast.Expr:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise syntax("")
        try:
            left = self.unary()
            while True:
                token = self.token
                binding = self.binding(token)
                if binding == 0 or binding <= precedence:
                    return left
                left = self.infix(left, token, binding)
        finally:
            self.depth -= 1

    @staticmethod
    def binding(token: Token) -> int:
        if token.kind == "op" or token.is_punct("*"):
            return INFIX.get(token.text, 0)
        return 0

    def right_operand(self, operator: Token, binding: int) -> ast.Expr:
        """The right-hand side of ``operator`` (the current token), which is consumed here."""
        if self.peek().kind == "eof":
            raise syntax("Missing right-hand side expression of infix operator")
        self.advance()
        return self.expression(binding)

    def infix(self, left: ast.Expr, operator: Token, binding: int) -> ast.Expr:
        word = operator.text
        pos = self.pos(operator)
        if word in ("is", "is_not"):
            self.advance()
            return ast.IsExpr(left, self.type_name(), word == "is_not", pos)
        if word in ("in", "not_in"):
            following = self.peek()
            if following.is_punct("(") and not self.peek(2).is_kw("select", "values"):
                self.advance()
                open_paren = self.advance()
                items = self.arguments()
                self.expect(")")
                choices: ast.Expr = ast.ListExpr(items, self.pos(open_paren))
            else:
                choices = self.right_operand(operator, binding)
            return ast.InExpr(left, choices, word == "not_in", pos)
        right = self.right_operand(operator, binding)
        if word in ("between", "not_between"):
            if not self.token.is_op("and"):
                raise syntax("Expected AND keyword")
            if self.peek().kind == "eof" or (self.peek().is_punct(";") and self.peek(2).kind == "eof"):
                raise syntax("Expected expression after AND")
            self.advance()
            high = self.expression(binding)
            return ast.BetweenExpr(left, right, high, word == "not_between", pos)
        if word in ("like", "not_like"):
            if self.token.is_kw("escape"):
                if self.peek().kind == "eof":
                    raise syntax("Expected expression after ESCAPE")
                self.advance()
                self.expression(binding)
                self.defer(validation("Unsupported operation: LIKE with ESCAPE"))
            like: ast.Expr = ast.Binary("like", left, right, pos)
            return ast.Unary("NOT", like, pos) if word == "not_like" else like
        if word in ("and", "or"):
            return ast.Binary(word.upper(), left, right, pos)
        if word in COMPARISONS or word in ("+", "-", "||", "*", "/", "%"):
            return ast.Binary(word, left, right, pos)
        self.defer(validation(f"Unsupported operation: {word.upper()}"))  # UNION, INTERSECT, EXCEPT
        return left

    def type_name(self) -> str:
        token = self.token
        name = TYPE_NAMES.get(token.text) if token.kind == "kw" else None
        if name is None:
            raise syntax("Expected type name")
        self.advance()
        if self.token.is_punct("("):
            self.advance()
            self.arguments()
            self.expect(")")
        return name

    def unary(self) -> ast.Expr:
        token = self.token
        if token.is_op("+", "-"):
            self.advance()
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise syntax("")
            operand = self.unary()
            self.depth -= 1
            if isinstance(operand, ast.Lit) and "N" in operand.value:
                if token.text == "+":
                    return operand
                number = operand.value["N"]
                number = number[1:] if number.startswith("-") else "-" + number
                return ast.Lit({"N": number}, self.pos(token))
            return ast.Unary(token.text, operand, self.pos(token))
        if token.is_op("not"):
            self.advance()
            return ast.Unary("NOT", self.expression(NOT_PRECEDENCE), self.pos(token))
        return self.postfix(self.term())

    # -- terms --------------------------------------------------------------------------------------------

    def term(self) -> ast.Expr:
        token = self.token
        pos = self.pos(token)
        kind = token.kind
        if kind == "num":
            self.advance()
            return ast.Lit({"N": token.text}, pos)
        if kind == "str":
            self.advance()
            return ast.Lit({"S": token.text}, pos)
        if kind == "ion":
            self.advance()
            self.defer(validation(f"Ion Literals are not supported at {pos}"))
            return ast.Lit({"NULL": True}, pos)
        if kind in ("id", "qid"):
            self.advance()
            if self.token.is_punct("("):
                return self.call(token)
            return ast.Name(token.text, kind == "qid", pos)
        if kind == "op":
            if token.text == "@" and self.peek().kind in ("id", "qid"):
                self.advance()
                self.defer(validation("Unsupported operation: @"))
                return self.term()
            if token.text == "@":
                raise syntax("Identifier must follow @-operator")
            raise syntax("Unexpected operator")
        if kind == "kw":
            return self.keyword_term(token, pos)
        if kind == "punct":
            mark = token.text
            if mark == "?":
                self.advance()
                self.parameters += 1
                return ast.Param(self.parameters - 1, pos)
            if mark == "(":
                self.advance()
                items = self.arguments()
                self.expect(")")
                return items[0] if len(items) == 1 else ast.ListExpr(items, pos)
            if mark in ("[", "<<"):
                self.advance()
                close = "]" if mark == "[" else ">>"
                items = () if self.token.is_punct(close) else self.arguments()
                self.expect(close)
                return ast.ListExpr(items, pos) if mark == "[" else ast.BagExpr(items, pos)
            if mark == "{":
                self.advance()
                return self.struct(pos)
        raise syntax("Unexpected term")

    def keyword_term(self, token: Token, pos: ast.Pos) -> ast.Expr:
        word = token.text
        if word in ("true", "false"):
            self.advance()
            return ast.Lit({"BOOL": word == "true"}, pos)
        if word == "null":
            self.advance()
            return ast.Lit({"NULL": True}, pos)
        if word == "missing":
            self.advance()
            return ast.Missing(pos)
        statement = self.statement_term(token)
        if statement is not None:
            return ast.Subquery(statement, pos)
        if word in FUNCTION_KEYWORDS and self.peek().is_punct("("):
            self.advance()
            return self.call(token)
        if word in TERM_WORDS:
            raise syntax("Unexpected term")
        raise syntax("Unexpected keyword")

    def call(self, name: Token) -> ast.Call:
        """A function call; the current token is its opening parenthesis."""
        self.advance()
        written = name.text if name.kind != "kw" else name.raw.lower()
        pos = self.pos(name)
        if self.token.is_punct("*"):
            if name.text != "count":
                raise syntax(f"{written}(*) is not allowed")
            self.advance()
            self.expect(")")
            return ast.Call(written, (), pos)
        if self.token.is_punct(")"):
            self.advance()
            return ast.Call(written, (), pos)
        if name.is_kw("count", "avg", "max", "min", "sum") and self.token.is_kw("distinct", "all"):
            self.advance()
        args = self.arguments()
        self.expect(")")
        return ast.Call(written, args, pos)

    def arguments(self) -> tuple[ast.Expr, ...]:
        """A comma-separated list of expressions (at least one)."""
        items = [self.expression()]
        while self.token.is_punct(","):
            self.advance()
            items.append(self.expression())
        return tuple(items)

    def struct(self, pos: ast.Pos) -> ast.StructExpr:
        pairs: list[tuple[ast.Expr, ast.Expr]] = []
        if self.token.is_punct("}"):
            self.advance()
            return ast.StructExpr((), pos)
        while True:
            key = self.expression()
            self.expect(":")
            pairs.append((key, self.expression()))
            if not self.token.is_punct(","):
                break
            self.advance()
        self.expect("}")
        return ast.StructExpr(tuple(pairs), pos)

    # -- paths --------------------------------------------------------------------------------------------

    def postfix(self, base: ast.Expr) -> ast.Expr:
        steps: list[object] = []
        while True:
            if self.token.is_punct("."):
                self.advance()
                part = self.token
                if part.kind in ("id", "qid"):
                    steps.append(self.advance().text)
                elif part.is_punct("*"):
                    self.advance()
                    self.defer(validation(UNSUPPORTED_PATH))
                else:
                    raise syntax("Invalid path dot component")
            elif self.token.is_punct("["):
                self.advance()
                if self.token.is_punct("*"):
                    self.advance()
                    self.defer(validation(UNSUPPORTED_PATH))
                    self.expect("]")
                    continue
                steps.append(self.index_step(self.expression()))
                self.expect("]")
            else:
                break
        if not steps:
            return base
        if not isinstance(base, ast.Name):
            self.defer(validation(UNSUPPORTED_PATH))
            return base
        return ast.PathExpr(base, tuple(steps), base.pos)

    @staticmethod
    def index_step(inner: ast.Expr) -> object:
        if isinstance(inner, ast.Lit) and "S" in inner.value:
            return inner.value["S"]
        if isinstance(inner, ast.Lit) and "N" in inner.value and inner.value["N"].isdigit():
            return int(inner.value["N"])
        return inner

    def simple_path(self) -> ast.Name | ast.PathExpr:
        """A DML target or SET/REMOVE path: a name, then ``.name`` or ``[literal]`` steps."""
        head = self.token
        if head.kind not in ("id", "qid"):
            raise syntax("Expected identifier for simple path")
        self.advance()
        root = ast.Name(head.text, head.kind == "qid", self.pos(head))
        steps: list[object] = []
        while True:
            if self.token.is_punct("."):
                self.advance()
                part = self.token
                if part.kind in ("id", "qid"):
                    steps.append(self.advance().text)
                elif part.is_punct("*"):
                    raise syntax("Invalid path dot component for simple path")
                else:
                    raise syntax("Invalid path dot component")
            elif self.token.is_punct("["):
                self.advance()
                inner = self.expression()
                self.expect("]")
                if not isinstance(inner, ast.Lit | ast.Name):
                    raise syntax("Invalid path component for simple path")
                steps.append(self.index_step(inner))
            else:
                break
        return ast.PathExpr(root, tuple(steps), root.pos) if steps else root
