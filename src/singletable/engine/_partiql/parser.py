"""A recursive-descent parser for the PartiQL statements DynamoDB accepts.

The grammar is the subset DynamoDB runs (SELECT, INSERT, UPDATE, DELETE and, in transactions,
EXISTS), plus enough of the rest of PartiQL to answer with DynamoDB's own "unsupported" messages rather
than a generic syntax error. Anything else is "Statement wasn't well formed".
"""

from __future__ import annotations

from .._errors import DynamoDBError, validation
from . import ast
from .errors import at, malformed
from .lexer import RESERVED, Token, tokenize

NOT_A_STATEMENT = "Invalid operation. Only select, insert, update and delete operations are valid"
TYPE_NAMES = frozenset(("MISSING", "NULL", "BOOLEAN", "BOOL", "STRING"))
COMPARISONS = frozenset(("=", "<>", "!=", "<", "<=", ">", ">="))
RETURNING = {
    ("ALL", "OLD"): "ALL_OLD",
    ("ALL", "NEW"): "ALL_NEW",
    ("MODIFIED", "OLD"): "UPDATED_OLD",
    ("MODIFIED", "NEW"): "UPDATED_NEW",
}
MAX_DEPTH = 200


class _Parser:
    def __init__(self, text: str, batch: bool = False) -> None:
        self.text = text
        self.batch = batch
        self.tokens = tokenize(text)
        self.position = 0
        self.parameters = 0
        self.depth = 0

    # -- token helpers ------------------------------------------------------------------------------------

    @property
    def token(self) -> Token:
        return self.tokens[self.position]

    def advance(self) -> Token:
        token = self.tokens[self.position]
        if token.kind != "eof":
            self.position += 1
        return token

    def fail(self) -> DynamoDBError:
        return malformed(self.text)

    def is_keyword(self, *words: str) -> bool:
        return self.token.upper in words

    def accept_keyword(self, *words: str) -> Token | None:
        if self.token.upper in words:
            return self.advance()
        return None

    def keyword(self, word: str) -> Token:
        if self.token.upper != word:
            raise self.fail()
        return self.advance()

    def is_op(self, *ops: str) -> bool:
        return self.token.kind == "op" and self.token.text in ops

    def accept_op(self, op: str) -> Token | None:
        if self.is_op(op):
            return self.advance()
        return None

    def op(self, op: str) -> Token:
        if not self.is_op(op):
            raise self.fail()
        return self.advance()

    @staticmethod
    def pos(token: Token) -> ast.Pos:
        return ast.Pos(token.line, token.column, token.length)

    def end(self) -> None:
        self.accept_op(";")
        if self.token.kind != "eof":
            raise self.fail()

    # -- statements ---------------------------------------------------------------------------------------

    def statement(self) -> ast.Statement:
        word = self.token.upper
        if word == "SELECT":
            result: ast.Statement = self.select()
        elif word == "INSERT":
            result = self.insert()
        elif word == "UPDATE":
            result = self.update()
        elif word == "DELETE":
            result = self.delete()
        elif word == "EXISTS":
            self.advance()
            self.op("(")
            if not self.is_keyword("SELECT"):
                raise self.fail()
            select = self.select(nested=True)
            self.op(")")
            result = ast.Exists(select)
        else:
            expression = self.expression()
            self.end()
            kind = "VariableReference" if isinstance(expression, ast.Name | ast.PathExpr) else "Literal"
            if not isinstance(expression, ast.Name | ast.PathExpr | ast.Lit):
                raise self.fail()
            raise validation(NOT_A_STATEMENT if self.batch else f"Unsupported operation: {kind}")
        self.end()
        return result

    def table_name(self) -> str:
        token = self.advance()
        if token.kind == "qid" or (token.kind == "id" and token.upper not in RESERVED):
            return token.text
        raise self.fail()

    def select(self, nested: bool = False) -> ast.Select:
        self.keyword("SELECT")
        if self.is_keyword("DISTINCT"):
            raise validation("Unsupported token in expression: DISTINCT")
        if self.is_keyword("VALUE", "PIVOT"):
            raise validation("Select projection doesn't support value or pivot keywords")
        self.accept_keyword("ALL")
        projection: tuple[ast.Expr, ...] | None = None
        if not self.accept_op("*"):
            items = [self.projected()]
            while self.accept_op(","):
                items.append(self.projected())
            projection = tuple(items)
        self.keyword("FROM")
        table = self.table_name()
        index = None
        if self.accept_op("."):
            index = self.table_name()
        if self.is_keyword("AS") or (self.token.kind in ("id", "qid") and self.token.upper not in RESERVED):
            raise validation("Aliasing is not supported")
        if self.is_op(","):
            raise validation("Only select from a single table or index is supported.")
        where = self.expression() if self.accept_keyword("WHERE") else None
        if self.is_keyword("GROUP"):
            raise validation("Unsupported clause: GROUP BY")
        if self.is_keyword("HAVING"):
            raise validation("Unsupported clause: HAVING")
        order: list[tuple[ast.Expr, bool]] = []
        if self.accept_keyword("ORDER"):
            self.keyword("BY")
            while True:
                path = self.additive()
                descending = bool(self.accept_keyword("DESC"))
                if not descending:
                    self.accept_keyword("ASC")
                order.append((path, descending))
                if not self.accept_op(","):
                    break
        for clause in ("LIMIT", "OFFSET"):
            if self.accept_keyword(clause):
                value = self.token
                self.primary()
                raise at(f"Unsupported clause: {clause}", self.pos(value))
        if not nested:
            self.end()
        return ast.Select(projection, table, index, where, tuple(order))

    def projected(self) -> ast.Expr:
        token = self.token
        if token.kind == "id" and self.tokens[self.position + 1].text == "(":
            raise at("Unexpected path component", self.pos(token))
        item = self.additive()
        if not isinstance(item, ast.Name | ast.PathExpr):
            raise at("Unexpected path component", self.pos(token))
        if self.is_keyword("AS"):
            raise validation("Aliasing is not supported")
        return item

    def insert(self) -> ast.Insert:
        self.keyword("INSERT")
        self.keyword("INTO")
        table = self.table_name()
        self.keyword("VALUE")
        value = self.expression()
        return ast.Insert(table, value)

    def update(self) -> ast.Update:
        self.keyword("UPDATE")
        table = self.table_name()
        actions: list[ast.UpdateAction] = []
        while True:
            if self.accept_keyword("SET"):
                while True:
                    path = self.path()
                    self.op("=")
                    actions.append(ast.UpdateAction("SET", path, self.expression()))
                    if not self.accept_op(","):
                        break
            elif self.accept_keyword("REMOVE"):
                while True:
                    actions.append(ast.UpdateAction("REMOVE", self.path(), None))
                    if not self.accept_op(","):
                        break
            else:
                break
        if not actions:
            raise self.fail()
        where = self.expression() if self.accept_keyword("WHERE") else None
        return ast.Update(table, tuple(actions), where, self.returning())

    def delete(self) -> ast.Delete:
        self.keyword("DELETE")
        self.keyword("FROM")
        table = self.table_name()
        where = self.expression() if self.accept_keyword("WHERE") else None
        returning = self.returning()
        if returning is not None and returning != "ALL_OLD":
            words = returning.replace("UPDATED", "MODIFIED").replace("_", " ")
            raise validation(
                f"Invalid returning clause: RETURNING {words} *. Only RETURNING ALL OLD * is allowed in "
                "DELETE statements."
            )
        return ast.Delete(table, where, returning)

    def returning(self) -> str | None:
        if not self.accept_keyword("RETURNING"):
            return None
        scope = self.accept_keyword("ALL", "MODIFIED")
        age = self.accept_keyword("OLD", "NEW") if scope else None
        if scope is None or age is None:
            raise self.fail()
        if not self.accept_op("*"):
            raise validation("Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause")
        return RETURNING[(scope.upper, age.upper)]

    def path(self) -> ast.Expr:
        item = self.postfix()
        if not isinstance(item, ast.Name | ast.PathExpr):
            raise self.fail()
        return item

    # -- expressions --------------------------------------------------------------------------------------

    def expression(self) -> ast.Expr:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail()
        try:
            return self.disjunction()
        finally:
            self.depth -= 1

    def disjunction(self) -> ast.Expr:
        left = self.conjunction()
        while (token := self.accept_keyword("OR")) is not None:
            left = ast.Binary("OR", left, self.conjunction(), self.pos(token))
        return left

    def conjunction(self) -> ast.Expr:
        left = self.negation()
        while (token := self.accept_keyword("AND")) is not None:
            left = ast.Binary("AND", left, self.negation(), self.pos(token))
        return left

    def negation(self) -> ast.Expr:
        token = self.accept_keyword("NOT")
        if token is not None:
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise self.fail()
            operand = self.negation()
            self.depth -= 1
            return ast.Unary("NOT", operand, self.pos(token))
        return self.predicate()

    def predicate(self) -> ast.Expr:
        left = self.additive()
        while True:
            token = self.token
            if token.kind == "op" and token.text in COMPARISONS:
                self.advance()
                op = "<>" if token.text == "!=" else token.text
                left = ast.Binary(op, left, self.additive(), self.pos(token))
                continue
            if token.upper == "IS":
                self.advance()
                negated = bool(self.accept_keyword("NOT"))
                kind = self.advance()
                if kind.upper not in TYPE_NAMES:
                    raise self.fail()
                left = ast.IsExpr(left, kind.upper, negated, self.pos(token))
                continue
            negated = False
            if token.upper == "NOT" and self.tokens[self.position + 1].upper in ("IN", "BETWEEN", "LIKE"):
                self.advance()
                negated = True
            word = self.token.upper
            if word == "IN":
                self.advance()
                left = ast.InExpr(left, self.additive(), negated, self.pos(token))
            elif word == "BETWEEN":
                self.advance()
                low = self.additive()
                self.keyword("AND")
                left = ast.BetweenExpr(left, low, self.additive(), negated, self.pos(token))
            elif word == "LIKE":
                self.advance()
                like: ast.Expr = ast.Binary("like", left, self.additive(), self.pos(token))
                left = ast.Unary("NOT", like, self.pos(token)) if negated else like
            else:
                return left

    def additive(self) -> ast.Expr:
        left = self.multiplicative()
        while self.is_op("+", "-", "||"):
            token = self.advance()
            left = ast.Binary(token.text, left, self.multiplicative(), self.pos(token))
        return left

    def multiplicative(self) -> ast.Expr:
        left = self.unary()
        while self.is_op("*", "/", "%"):
            token = self.advance()
            left = ast.Binary(token.text, left, self.unary(), self.pos(token))
        return left

    def unary(self) -> ast.Expr:
        if self.is_op("-", "+"):
            token = self.advance()
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise self.fail()
            operand = self.unary()
            self.depth -= 1
            if isinstance(operand, ast.Lit) and "N" in operand.value:
                if token.text == "+":
                    return operand
                number = operand.value["N"]
                number = number[1:] if number.startswith("-") else "-" + number
                return ast.Lit({"N": number}, self.pos(token))
            return ast.Unary(token.text, operand, self.pos(token))
        return self.postfix()

    def postfix(self) -> ast.Expr:
        start = self.token
        base = self.primary()
        steps: list[object] = []
        while True:
            if self.accept_op("."):
                name = self.advance()
                if name.kind == "qid" or (name.kind == "id" and name.upper not in RESERVED):
                    steps.append(name.text)
                else:
                    raise self.fail()
            elif self.accept_op("["):
                inner = self.expression()
                self.op("]")
                if isinstance(inner, ast.Lit) and "S" in inner.value:
                    steps.append(inner.value["S"])
                elif isinstance(inner, ast.Lit) and "N" in inner.value and inner.value["N"].isdigit():
                    steps.append(int(inner.value["N"]))
                else:
                    steps.append(inner)
            else:
                break
        if not steps:
            return base
        if not isinstance(base, ast.Name):
            raise self.fail()
        return ast.PathExpr(base, tuple(steps), self.pos(start))

    def sequence(self, close: str) -> tuple[ast.Expr, ...]:
        items: list[ast.Expr] = []
        if self.accept_op(close):
            return ()
        while True:
            items.append(self.expression())
            if self.accept_op(close):
                return tuple(items)
            self.op(",")

    def primary(self) -> ast.Expr:
        token = self.advance()
        pos = self.pos(token)
        kind = token.kind
        if kind == "num":
            return ast.Lit({"N": token.text}, pos)
        if kind == "str":
            return ast.Lit({"S": token.text}, pos)
        if kind == "qid":
            return ast.Name(token.text, True, pos)
        if kind == "ion":
            raise at("Ion Literals are not supported", pos)
        if kind == "id":
            word = token.upper
            if word in ("TRUE", "FALSE"):
                return ast.Lit({"BOOL": word == "TRUE"}, pos)
            if word == "NULL":
                return ast.Lit({"NULL": True}, pos)
            if word == "MISSING":
                return ast.Missing(pos)
            if self.is_op("("):
                self.advance()
                return ast.Call(token.text, self.sequence(")"), pos)
            if word in RESERVED:
                raise self.fail()
            return ast.Name(token.text, False, pos)
        if kind == "op":
            text = token.text
            if text == "?":
                self.parameters += 1
                return ast.Param(self.parameters - 1, pos)
            if text == "(":
                items = self.sequence(")")
                if len(items) == 1:
                    return items[0]
                if not items:
                    raise self.fail()
                return ast.ListExpr(items, pos)
            if text == "[":
                return ast.ListExpr(self.sequence("]"), pos)
            if text == "<<":
                return ast.BagExpr(self.sequence(">>"), ast.Pos(pos.line, pos.column, 2))
            if text == "{":
                return self.struct(pos)
        raise self.fail()

    def struct(self, pos: ast.Pos) -> ast.StructExpr:
        pairs: list[tuple[ast.Expr, ast.Expr]] = []
        if self.accept_op("}"):
            return ast.StructExpr((), pos)
        while True:
            key = self.expression()
            self.op(":")
            pairs.append((key, self.expression()))
            if self.accept_op("}"):
                return ast.StructExpr(tuple(pairs), pos)
            self.op(",")


def parse_statement(text: str, batch: bool = False) -> tuple[ast.Statement, int]:
    """Parse one statement; returns it with the number of ``?`` parameters it uses.

    ``batch``: BatchExecuteStatement words a lone expression (``SELEC``) differently from ExecuteStatement.
    """
    if not isinstance(text, str):
        raise malformed(str(text))
    try:
        parser = _Parser(text, batch)
        statement = parser.statement()
    except RecursionError:
        raise malformed(text) from None
    return statement, parser.parameters
