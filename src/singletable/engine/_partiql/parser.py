"""The PartiQL statements DynamoDB runs: SELECT, INSERT, UPDATE (also written FROM-first), DELETE, EXISTS.

A statement is a term of the expression grammar (:mod:`.expressions`), parsed as PartiQL parses it, so a
statement with a syntax error anywhere is refused in DynamoDB's words before anything about its meaning is
checked. The semantic refusals met on the way (an alias, ``DISTINCT``, ``LIMIT``, an index named where a
write goes) are deferred and raised once the whole statement has parsed.
"""

from __future__ import annotations

from .._errors import validation
from . import ast
from .errors import BAD_TABLE_NAME, INSERT_STRUCT, at, syntax
from .expressions import SELECT_PRECEDENCE, ExpressionParser
from .lexer import Token, tokenize

NOT_A_STATEMENT = "Invalid operation. Only select, insert, update and delete operations are valid"
ALIASING = "Aliasing is not supported"
SINGLE_SOURCE = "Only select from a single table or index is supported."
ON_INDEX = "This operation is not supported on an index"
RETURNING = {
    "all_old": "ALL_OLD",
    "all_new": "ALL_NEW",
    "modified_old": "UPDATED_OLD",
    "modified_new": "UPDATED_NEW",
}
STAR_NOT_ALONE = (
    "Other expressions may not be present in the select list when '*' is used without dot notation."
)
RETURNING_STAR = "Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause"
DML_WORDS = ("set", "remove", "insert_into")
JOINS = ("cross_join", "inner_join", "left_join", "right_join", "outer_join", "join")
# A lone expression's refusal names its node as DynamoDB's PartiQL tree does.
EXPRESSION_NAMES = {
    ast.Name: "VariableReference",
    ast.PathExpr: "VariableReference",
    ast.Lit: "Literal",
    ast.IsExpr: "IsType",
}


class _Source:
    """A FROM clause's table and optional index, as written."""

    __slots__ = ("index", "table")

    def __init__(self, table: str, index: str | None) -> None:
        self.table = table
        self.index = index


class _Parser(ExpressionParser):
    def statement_term(self, token: Token) -> ast.Statement | None:
        word = token.text
        if word == "select":
            self.advance()
            return self.select()
        if word == "update":
            self.advance()
            return self.update()
        if word == "delete":
            self.advance()
            return self.delete()
        if word == "insert_into":
            self.advance()
            return self.insert()
        if word == "from":
            self.advance()
            return self.from_first()
        if word in ("set", "remove"):  # a DML clause with no table: parsed, then refused
            actions = self.actions()
            self.defer(validation(NOT_A_STATEMENT))
            return ast.Update("", actions, None, None)
        return None

    # -- SELECT -------------------------------------------------------------------------------------------

    def select(self) -> ast.Select:
        if self.token.is_kw("distinct"):
            self.advance()
            self.defer(validation("Unsupported token in expression: DISTINCT"))
        elif self.token.is_kw("all"):
            self.advance()
        projection: tuple[ast.Expr, ...] | None = None
        if self.token.is_kw("value"):
            self.advance()
            self.defer(validation("Select projection doesn't support value or pivot keywords"))
            self.expression()
        else:
            projection = self.select_list()
        if not self.token.is_kw("from"):
            raise syntax("Expected FROM after SELECT list")
        self.advance()
        source = self.source(read=True)
        where = None
        if self.token.is_kw("where"):
            self.advance()
            where = self.expression(SELECT_PRECEDENCE)
        order: list[tuple[ast.Expr, bool]] = []
        if self.token.is_kw("order"):
            self.advance()
            self.by()
            while True:
                path = self.expression()
                descending = self.token.is_kw("desc")
                if descending or self.token.is_kw("asc"):
                    self.advance()
                order.append((path, descending))
                if not self.token.is_punct(","):
                    break
                self.advance()
        if self.token.is_kw("group"):
            self.advance()
            if self.token.is_kw("partial"):
                self.advance()
            self.by()
            self.defer(validation("Unsupported clause: GROUP BY"))
            self.arguments()
        for clause in ("having", "limit", "offset"):
            if self.token.is_kw(clause):
                self.advance()
                value = self.token
                self.expression(SELECT_PRECEDENCE)
                where_at = "" if clause == "having" else f" at {self.pos(value)}"
                self.defer(validation(f"Unsupported clause: {clause.upper()}{where_at}"))
        return ast.Select(projection, source.table, source.index, where, tuple(order), self.projection_error)

    def by(self) -> None:
        if not self.token.is_kw("by"):
            raise syntax("Expected BY")
        self.advance()

    def select_list(self) -> tuple[ast.Expr, ...] | None:
        star: Token | None = None
        items: list[ast.Expr] = []
        count = 0
        while True:
            count += 1
            if self.token.is_punct("*"):
                star = self.advance()
            else:
                first = self.token
                item = self.expression()
                self.alias()
                if not isinstance(item, ast.Name | ast.PathExpr) and self.projection_error is None:
                    self.projection_error = at("Unexpected path component", self.pos(first))
                items.append(item)
            if not self.token.is_punct(","):
                break
            self.advance()
        if star is not None and count > 1:
            raise syntax(STAR_NOT_ALONE)
        return None if star is not None else tuple(items)

    def alias(self) -> None:
        """An optional ``[AS] name``, ``AT name``, ``BY name``: parsed, then refused."""
        if self.token.is_kw("as"):
            self.advance()
            if self.token.kind not in ("id", "qid"):
                raise syntax("Expected identifier for AS-alias")
            self.advance()
            self.defer(validation(ALIASING))
        elif self.token.kind in ("id", "qid"):
            self.advance()
            self.defer(validation(ALIASING))
        for word in ("at", "by"):
            if self.token.is_kw(word):
                self.advance()
                if self.token.kind not in ("id", "qid"):
                    raise syntax(f"Expected identifier for {word.upper()}-alias")
                self.advance()
                self.defer(validation(ALIASING))

    def source(self, *, read: bool) -> _Source:
        """A FROM clause: one table, or with a SELECT ``"table"."index"``; joins parse, then are refused."""
        first = self.token
        expr = self.expression(SELECT_PRECEDENCE)
        self.alias()
        while self.token.is_punct(",") or self.token.is_kw(*JOINS):
            joined = self.advance()
            self.defer(validation(SINGLE_SOURCE))
            self.expression(SELECT_PRECEDENCE)
            self.alias()
            if joined.kind == "kw" and "cross" not in joined.text and self.token.is_kw("on"):
                self.advance()
                self.expression(SELECT_PRECEDENCE)
        names = self.source_names(expr, first)
        if len(names) > 2:
            self.defer(validation("A path may contain at most 2 components in the FROM clause"))
        if any(name == "" for name in names):
            self.defer(validation("Path component cannot be an empty string"))
        if len(names) > 1 and not read:
            self.defer(validation(ON_INDEX))
        return _Source(names[0] if names else "", names[1] if len(names) > 1 else None)

    def source_names(self, expr: ast.Expr, first: Token) -> list[str]:
        if isinstance(expr, ast.Name):
            return [expr.name]
        if isinstance(expr, ast.PathExpr) and all(isinstance(step, str) for step in expr.steps):
            return [expr.root.name, *(str(step) for step in expr.steps)]
        self.defer(validation(BAD_TABLE_NAME))
        return []

    # -- writes -------------------------------------------------------------------------------------------

    def target(self) -> str:
        """UPDATE's and DELETE's table: a simple path with an optional alias."""
        path = self.simple_path()
        self.alias()
        if isinstance(path, ast.PathExpr):
            self.defer(validation(ON_INDEX))
            return path.root.name
        return path.name

    def actions(self) -> tuple[ast.UpdateAction, ...]:
        """One or more SET (a comma list of assignments) and REMOVE (one path each) clauses."""
        actions: list[ast.UpdateAction] = []
        clauses = 0
        while self.token.is_kw(*DML_WORDS):
            clauses += 1
            word = self.advance().text
            if word == "set":
                while True:
                    path = self.simple_path()
                    if not self.token.is_op("="):
                        raise syntax("Expected '='")
                    self.advance()
                    actions.append(ast.UpdateAction("SET", path, self.expression()))
                    if not self.token.is_punct(","):
                        break
                    self.advance()
            elif word == "remove":
                actions.append(ast.UpdateAction("REMOVE", self.simple_path(), None))
            else:
                self.insert_body()
                self.defer(validation(NOT_A_STATEMENT))
        if not clauses:
            raise syntax("Expected data manipulation")
        return tuple(actions)

    def update(self) -> ast.Update:
        table = self.target()
        actions = self.actions()
        where = self.where()
        return ast.Update(table, actions, where, self.returning())

    def from_first(self) -> ast.Update:
        source = self.source(read=False)
        where = self.where()
        actions = self.actions()
        return ast.Update(source.table, actions, where, self.returning(), from_first=True)

    def delete(self) -> ast.Delete:
        if not self.token.is_kw("from"):
            raise syntax("Expected FROM after DELETE")
        self.advance()
        table = self.target()
        where = self.where()
        returning = self.returning()
        if returning is not None and returning != "ALL_OLD":
            words = returning.replace("UPDATED", "MODIFIED").replace("_", " ")
            self.defer(
                validation(
                    f"Invalid returning clause: RETURNING {words} *. Only RETURNING ALL OLD * is allowed in "
                    "DELETE statements."
                )
            )
        return ast.Delete(table, where, returning)

    def insert(self) -> ast.Insert:
        table, value = self.insert_body()
        return ast.Insert(table, value)

    def insert_body(self) -> tuple[str, ast.Expr]:
        target = self.token
        path = self.simple_path()
        if isinstance(path, ast.PathExpr):
            self.defer(at("FROM clause may only contain a single table name", self.pos(target)))
        table = path.root.name if isinstance(path, ast.PathExpr) else path.name
        if not self.token.is_kw("value"):
            value = self.expression()
            self.defer(at(INSERT_STRUCT, value.pos))
            return table, value
        self.advance()
        value = self.expression()
        if self.token.is_kw("at"):
            self.advance()
            self.expression()
            self.defer(validation("Unsupported clause: AT"))
        if self.token.is_kw("on_conflict"):
            self.advance()
            if not self.token.is_kw("where"):
                raise syntax("invalid ON CONFLICT syntax")
            self.advance()
            self.expression()
            if not self.token.is_kw("do_nothing"):
                raise syntax("invalid ON CONFLICT syntax")
            self.advance()
            self.defer(validation("Unsupported clause: ON CONFLICT"))
        if self.returning() is not None:
            self.defer(validation("Unsupported clause: RETURNING in INSERT"))
        return table, value

    def where(self) -> ast.Expr | None:
        if not self.token.is_kw("where"):
            return None
        self.advance()
        return self.expression()

    def returning(self) -> str | None:
        if not self.token.is_kw("returning"):
            return None
        self.advance()
        chosen: list[str] = []
        while True:
            mapping = self.token
            if not mapping.is_kw(*RETURNING):
                raise syntax("Expected ( MODIFIED | ALL ) ( NEW | OLD ) in each returning element.")
            self.advance()
            chosen.append(RETURNING[mapping.text])
            if self.token.is_punct("*"):
                self.advance()
            else:
                column = self.expression()
                if not isinstance(column, ast.Name | ast.PathExpr | ast.Lit):
                    raise syntax("Unsupported syntax in RETURNING columns.")
                self.defer(validation(RETURNING_STAR))
            if not self.token.is_punct(","):
                break
            self.advance()
        if len(chosen) > 1:
            self.defer(validation("Only one RETURNING element is supported"))
        return chosen[0]

    # -- the statement ------------------------------------------------------------------------------------

    def statement(self, batch: bool) -> ast.Statement:
        expr = self.expression()
        token = self.token
        if token.is_punct(";") and self.peek().kind != "eof":
            raise syntax("Unexpected token after semicolon. (Only one query is allowed.)")
        if not (token.kind == "eof" or token.is_punct(";")):
            raise syntax("Unexpected token after expression")
        if self.projection_error is not None and (
            self.deferred is not None
            or not isinstance(expr, ast.Subquery)
            or not isinstance(expr.statement, ast.Select)
        ):
            raise self.projection_error  # the first semantic refusal, unless the planner words it later
        if self.deferred is not None:
            raise self.deferred
        if isinstance(expr, ast.Subquery):
            return expr.statement
        if (
            isinstance(expr, ast.Call)
            and expr.name.lower() == "exists"
            and len(expr.args) == 1
            and isinstance(expr.args[0], ast.Subquery)
            and isinstance(expr.args[0].statement, ast.Select)
        ):
            return ast.Exists(expr.args[0].statement)
        if batch:
            raise validation(NOT_A_STATEMENT)
        name = EXPRESSION_NAMES.get(type(expr), type(expr).__name__)
        raise validation(f"Unsupported operation: {name}")


def parse_statement(text: str, batch: bool = False) -> tuple[ast.Statement, int]:
    """Parse one statement; returns it with the number of ``?`` parameters it uses.

    ``batch``: BatchExecuteStatement words a lone expression (``SELEC``) differently from ExecuteStatement.
    """
    if not isinstance(text, str):
        raise syntax("")
    parser = _Parser(tokenize(text))
    try:
        statement = parser.statement(batch)
    except RecursionError:
        raise syntax("") from None
    return statement, parser.parameters
