"""HCL (Terraform's language) read and evaluated far enough to know what a Terraform configuration
sends to AWS: the SQL text of an application, its names, its schema.

python-hcl2 parses the files (its raw lark tree: the dict it can also give loses what an evaluator
needs, such as heredoc bodies, which it keeps raw, and the difference between a string and a
reference). This module evaluates that tree:

* literals, lists, objects, ``[for ...]`` / ``{for ... => ...}`` (with ``if`` and ``...``), ``c ? a : b``,
  ``+ - * / %``, comparisons, ``&& || !``, ``a.b``, ``a[0]``, ``a.0``, splats ``a[*].b`` and ``a.*.b``;
* templates: quoted strings with their escapes, heredocs (``<<EOF`` and ``<<-EOF``, which strips the
  lines' common indentation as Terraform does), ``${...}`` interpolation, ``%{ if }`` / ``%{ for }``
  directives with the ``~`` strip markers, the ``$${`` and ``%%{`` escapes, and the text of a
  ``templatefile()``; a template that is one interpolation only gives its value unchanged, as in HCL;
* the functions a KDA definition uses (:data:`FUNCTIONS`): string, collection, number, encoding and
  file functions, and ``try``/``can``.

What a configuration leaves open (a variable with no value, an attribute AWS sets on apply, a module
whose source is not here) is an :class:`Unknown` value: it passes through the operations that use it,
and a template writes it as ``${<expression>}`` (the form :mod:`overjoin.importer.names` knows as not a
name) and records it in :attr:`Session.gaps`, so that the caller can say what is missing. What is
wrong (a type error, a missing attribute, a function this module does not have) is an
:class:`HclError`. Names (``var``, ``local``, ``aws_kinesis_stream`` ...) mean nothing here: a
:class:`Scope` asks its `resolve` function, which :mod:`overjoin.importer.terraform` gives.
"""

from __future__ import annotations

import functools
import json
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

import hcl2
from lark import Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

__all__ = [
    "Block",
    "Body",
    "HclError",
    "Lazy",
    "Scope",
    "Session",
    "Unknown",
    "evaluate",
    "parse",
    "parse_expression",
    "source",
    "to_str",
]

Node: TypeAlias = Tree[Any]


class HclError(Exception):
    """An expression Terraform would reject, or one this module cannot evaluate (the message says why;
    `fix`, when given, what the user can do)."""

    def __init__(self, message: str, fix: str = "") -> None:
        super().__init__(message)
        self.fix = fix


@dataclass(frozen=True)
class Unknown:
    """A value the configuration does not give: `text` is the expression as written, `reason` why it is
    unknown, `fix` what the user can do (empty when nothing can)."""

    text: str
    reason: str
    fix: str = ""

    def written(self) -> str:
        """How a template writes it: as an interpolation, which no name can contain."""
        return "${" + self.text + "}"


class Lazy(ABC):
    """An object whose attributes are worked out when asked for (a resource, a module's outputs): most
    of a configuration never matters to the applications, and need not evaluate."""

    text: str

    @abstractmethod
    def attr(self, name: str) -> Any:
        """The attribute's value (an :class:`Unknown` when it is known only to AWS); HclError if none."""

    def index(self, key: Any) -> Any:
        raise HclError(f"{self.text} cannot be indexed")


@dataclass
class Session:
    """One evaluation of a configuration: the files' folder (where ``file()`` looks), what is unknown
    among what was evaluated since :meth:`begin` (`gaps`), which addresses it referred to (`refs`, for
    the caller's messages), and the values worked out once (variables, locals, module outputs)."""

    base: Path
    gaps: list[Unknown] = field(default_factory=list)
    refs: list[str] = field(default_factory=list)
    _memo: dict[Any, tuple[Any, list[Unknown], list[str]]] = field(default_factory=dict)
    _active: set[Any] = field(default_factory=set)

    def begin(self) -> None:
        self.gaps = []
        self.refs = []

    def gap(self, value: Unknown) -> None:
        if value not in self.gaps:
            self.gaps.append(value)

    def memo(self, key: Any, what: str, compute: Callable[[], Any]) -> Any:
        """`compute()` once; its gaps and references count again each time its value is used (a local
        used in two places makes both unknown)."""
        if key in self._memo:
            value, gaps, refs = self._memo[key]
            for g in gaps:
                self.gap(g)
            self.refs.extend(refs)
            return value
        if key in self._active:
            raise HclError(f"{what} refers to itself")
        outer_gaps, outer_refs = self.gaps, self.refs
        self.gaps, self.refs = [], []
        self._active.add(key)
        try:
            value = compute()
        finally:
            self._active.discard(key)
            gaps, refs = self.gaps, self.refs
            self.gaps, self.refs = outer_gaps, outer_refs
            for g in gaps:
                self.gap(g)
            self.refs.extend(refs)
        self._memo[key] = (value, gaps, refs)
        return value


Resolver = Callable[[str, "Scope"], Any]


class Scope:
    """The names an expression sees: the local ones (``for`` variables, a ``dynamic`` block's iterator,
    ``count``, ``each``) and, for the others, `resolve` (``var``, ``local``, resources ...)."""

    def __init__(self, session: Session, resolve: Resolver, names: dict[str, Any] | None = None) -> None:
        self.session = session
        self.resolve = resolve
        self.names = dict(names or {})

    def child(self, names: dict[str, Any]) -> Scope:
        return Scope(self.session, self.resolve, {**self.names, **names})

    def lookup(self, name: str) -> Any:
        if name in self.names:
            return self.names[name]
        return self.resolve(name, self)


# --------------------------------------------------------------------------------------------------
# Parsing


@dataclass
class Block:
    """A block: its type, labels and body, and where it is (for messages)."""

    type: str
    labels: list[str]
    body: Body
    file: Path
    line: int


@dataclass
class Body:
    """A body's attributes (their expressions, unevaluated) and blocks, in the order written."""

    attributes: dict[str, Node] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)

    def first(self, type_: str) -> Block | None:
        return next((b for b in self.blocks if b.type == type_), None)


def parse(text: str, file: Path) -> Body:
    """The body of a ``.tf`` or ``.tfvars`` file.

    Raises:
        ValueError: a syntax error, as ``<file>: line N: what``.
    """
    try:
        tree = hcl2.parses_to_tree(text)
    except UnexpectedInput as e:
        raise ValueError(f"{file}: line {e.line}, column {e.column}: {_syntax_message(e)}") from None
    except LarkError as e:
        raise ValueError(f"{file}: {e}") from None
    body = _kids(tree)[0]
    try:
        for node in tree.iter_subtrees():
            _check_templates(node)
        return _body(body, file)
    except HclError as e:
        raise ValueError(f"{file}: {e}") from None


def _syntax_message(e: UnexpectedInput) -> str:
    if isinstance(e, UnexpectedToken):
        token = str(e.token)
        if e.token.type == "$END" or not token:
            return "unexpected end of file"
        if token.startswith("<<"):
            return f"a heredoc that does not end ({token.splitlines()[0]} has no closing line)"
        if not token.strip():
            return "unexpected end of line"
        return f"unexpected {token.strip().splitlines()[0][:40]!r}"
    if isinstance(e, UnexpectedCharacters):
        return f"unexpected character {e.char!r}"
    if isinstance(e, UnexpectedEOF):
        return "unexpected end of file"
    return str(e).splitlines()[0]


def _check_templates(node: Node) -> None:
    """Templates are parsed once on reading, so that a broken one is a syntax error, as in Terraform."""
    line = getattr(node.meta, "line", "?") if not node.meta.empty else "?"
    try:
        if node.data == "string":
            _string_template(node)
        elif node.data in ("heredoc_template", "heredoc_template_trim"):
            _heredoc(str(node.children[0]))
    except HclError as e:
        raise HclError(f"line {line}: {e}") from None


def _kids(tree: Node) -> list[Node]:
    return [c for c in tree.children if isinstance(c, Tree) and c.data != "new_line_or_comment"]


def _name(node: Node) -> str:
    """The name an ``identifier``/``keyword``/``literal_value`` node (or a quoted label) spells."""
    if node.data == "string":
        parts = _string_template(node)
        if len(parts) == 1 and isinstance(parts[0], str):
            return parts[0]
        if not parts:
            return ""
        raise HclError("a label cannot be a template")
    if node.data == "expr_term":
        return _name(_kids(node)[0])
    return str(next(c for c in node.children if isinstance(c, Token)))


def _line(node: Node) -> int:
    return 0 if node.meta.empty else int(node.meta.line)


def _body(node: Node, file: Path) -> Body:
    body = Body()
    for item in _kids(node):
        if item.data == "attribute":
            key = _name(_kids(item)[0])
            if key in body.attributes:
                raise HclError(f"line {_line(item)}: {key} is set twice")
            body.attributes[key] = _kids(item)[-1]
            body.lines[key] = _line(item)
        elif item.data == "block":
            kids = _kids(item)
            labels = [_name(k) for k in kids[1:-1]]
            body.blocks.append(Block(_name(kids[0]), labels, _body(kids[-1], file), file, _line(item)))
    return body


@functools.lru_cache(maxsize=4096)
def parse_expression(text: str) -> Node:
    """An expression written as text (inside a template's ``${...}``).

    Raises:
        HclError: it is not an expression.
    """
    try:
        tree = hcl2.parses_to_tree(f"x = (\n{text}\n)")
    except UnexpectedInput as e:
        raise HclError(f"{text.strip()!r} is not an expression: {_syntax_message(e)}") from None
    except LarkError as e:
        raise HclError(f"{text.strip()!r} is not an expression: {e}") from None
    body = _kids(tree)[0]
    attribute = _kids(body)[0]
    wrapped = _kids(attribute)[-1]  # expr_term ( expression )
    return _kids(wrapped)[0]


def source(node: Node) -> str:
    """An expression as text again, for messages (``aws_kinesis_stream.clicks.arn``, ``var.region``)."""
    out: list[str] = []
    _source(node, out)
    return "".join(out).strip()


_SPACED = {"DOUBLE_EQ", "NEQ", "LT", "GT", "LEQ", "GEQ", "ASTERISK", "SLASH", "PERCENT", "DOUBLE_AMP",
           "DOUBLE_PIPE", "PLUS", "MINUS", "QMARK", "COLON", "EQ", "FOR_OBJECT_ARROW", "IN", "IF"}  # fmt: skip


def _source(node: Node | Token, out: list[str]) -> None:
    if isinstance(node, Token):
        value = str(node)
        if node.type == "NL_OR_COMMENT":
            return
        if node.type in _SPACED:
            out.append(f" {value.strip()} ")
        elif node.type in ("COMMA", "FOR"):
            out.append(value.strip() + " ")
        else:
            raw = node.type in ("STRING_CHARS", "HEREDOC_TEMPLATE", "HEREDOC_TEMPLATE_TRIM")
            out.append(value if raw else value.strip())
        return
    if node.data == "new_line_or_comment":
        return
    if node.data == "unary_op":
        out.append("".join(source(c) if isinstance(c, Tree) else str(c) for c in node.children))
        return
    for c in node.children:
        _source(c, out)


# --------------------------------------------------------------------------------------------------
# Templates


@dataclass
class _Interp:
    expr: Node


@dataclass
class _If:
    cond: Node
    then: list[Any]
    otherwise: list[Any]


@dataclass
class _For:
    key: str | None
    value: str
    collection: Node
    body: list[Any]


@dataclass
class _Mark:
    """A directive as scanned, before :func:`_assemble` builds the ``if``/``for`` structure."""

    kind: str  # interp, if, else, endif, for, endfor
    strip_left: bool
    strip_right: bool
    expr: Node | None = None
    names: tuple[str, ...] = ()


Template = list[Any]  # str | _Interp | _If | _For

_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.DOTALL)
_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}


def _unescape(text: str) -> str:
    def one(m: re.Match[str]) -> str:
        e = m.group(1)
        if e[0] in "uU" and len(e) > 1:
            return chr(int(e[1:], 16))
        if e in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[e]
        raise HclError(f"\\{e} is not an escape sequence HCL knows")

    return _ESCAPE.sub(one, text)


def _string_template(node: Node) -> Template:
    """A quoted string's parts, as python-hcl2 lexed them, made a template."""
    flat: list[Any] = []
    for part in node.children:
        if isinstance(part, Token):
            continue  # the quotes
        (piece,) = part.children
        if isinstance(piece, Token):
            if piece.type == "STRING_CHARS":
                flat.append(_unescape(str(piece)))
            elif piece.type in ("ESCAPED_INTERPOLATION", "ESCAPED_DIRECTIVE"):
                flat.append(str(piece)[1:])  # $${ is ${, %%{ is %{
            else:
                flat.append(str(piece))
            continue
        tokens = [c for c in piece.children if isinstance(c, Token)]  # %{ ~? keyword ... ~? }
        strip_left = len(tokens) > 3 and tokens[1].type == "STRIP_MARKER"
        strip_right = len(tokens) > 3 and tokens[-2].type == "STRIP_MARKER"
        trees = _kids(piece)
        kind = piece.data
        if kind == "interpolation":
            flat.append(_Mark("interp", False, False, trees[0]))
        elif kind == "template_if_start":
            flat.append(_Mark("if", strip_left, strip_right, trees[-1]))
        elif kind == "template_for_start":
            flat.append(_Mark("for", strip_left, strip_right, trees[-1], tuple(_name(t) for t in trees[:-1])))
        else:
            flat.append(_Mark(kind.removeprefix("template_"), strip_left, strip_right))
    return _assemble(flat)


@functools.lru_cache(maxsize=1024)
def _heredoc(token: str) -> Template:
    """A heredoc's template: its lines between the marker lines, with the final newline (python-hcl2's
    dict form loses it; Terraform keeps it); ``<<-`` takes the lines' common indentation away."""
    first, _, rest = token.partition("\n")
    flush = first.startswith("<<-")
    marker = first.removeprefix("<<-").removeprefix("<<").strip()
    lines = rest.splitlines(keepends=True)
    while lines and lines[-1].strip() != marker:
        lines.pop()  # python-hcl2's token ends after the closing line
    return template_from_text("".join(lines[:-1]), flush)


@functools.lru_cache(maxsize=1024)
def template_from_text(text: str, flush: bool = False) -> Template:
    """A template written as text (a heredoc's body, a ``templatefile()`` file): no backslash escapes,
    ``$${``/``%%{`` escape, ``${...}``/``%{...}`` with ``~`` strip markers.

    Its text is cut into one piece per line, as HCL's scanner does, because what a strip marker takes
    and which lines ``<<-`` sees as starting a line depend on it (see :func:`_assemble`)."""
    flat: list[Any] = []
    i, n = 0, len(text)
    literal: list[str] = []

    def text_pieces() -> None:
        if literal:
            flat.extend(re.findall(r"[^\n]*\n|[^\n]+", "".join(literal)))
            literal.clear()

    while i < n:
        if text.startswith(("$${", "%%{"), i):
            literal.append(text[i + 1 : i + 3])
            i += 3
            continue
        if text.startswith(("${", "%{"), i):
            end = _closing(text, i + 2)
            inner = text[i + 2 : end]
            strip_left = inner.startswith("~")
            strip_right = inner.endswith("~") and len(inner) > int(strip_left)
            inner = inner[int(strip_left) : len(inner) - int(strip_right)]
            text_pieces()
            flat.append(_mark(text[i], inner, strip_left, strip_right))
            i = end + 1
            continue
        literal.append(text[i])
        i += 1
    text_pieces()
    return _assemble(flat, flush)


_DIRECTIVE = re.compile(r"\s*(if|else|endif|for|endfor)\b(.*)", re.DOTALL)
_FOR = re.compile(r"\s*([A-Za-z_][\w-]*)\s*(?:,\s*([A-Za-z_][\w-]*)\s*)?\bin\b(.*)", re.DOTALL)


def _mark(sign: str, inner: str, strip_left: bool, strip_right: bool) -> _Mark:
    if sign == "$":
        return _Mark("interp", strip_left, strip_right, parse_expression(inner))
    found = _DIRECTIVE.fullmatch(inner)
    if not found:
        raise HclError(f"%{{{inner}}} is not a template directive (if, else, endif, for, endfor)")
    kind, rest = found.groups()
    if kind == "if":
        return _Mark("if", strip_left, strip_right, parse_expression(rest))
    if kind == "for":
        loop = _FOR.fullmatch(rest)
        if not loop:
            raise HclError(f"%{{{inner}}}: a for directive is 'for NAME in EXPRESSION' or 'for KEY, NAME in ...'")
        names = tuple(x for x in loop.groups()[:2] if x)
        return _Mark("for", strip_left, strip_right, parse_expression(loop.group(3)), names)
    if rest.strip():
        raise HclError(f"%{{{inner}}}: {kind} takes nothing after it")
    return _Mark(kind, strip_left, strip_right)


def _flush(pieces: list[Any]) -> None:
    """HCL's ``<<-``: the smallest indentation of the pieces that start a line (a blank line does not
    count; a directive or interpolation starting a line counts as none) is cut from each of them."""
    cut: int | None = None
    starts: list[int] = []
    newline = True
    for i, item in enumerate(pieces):
        if newline:
            newline = False
            if isinstance(item, str):
                rest = item.lstrip()
                if rest or not item.endswith("\n"):
                    starts.append(i)
                    cut = len(item) - len(rest) if cut is None else min(cut, len(item) - len(rest))
            else:
                cut = 0
        if isinstance(item, str) and item.endswith("\n"):
            newline = True
    for i in starts:
        pieces[i] = pieces[i][cut or 0 :]


def _closing(text: str, i: int) -> int:
    """Where the ``}`` that closes an interpolation opened just before `i` is (strings and nested braces
    skipped)."""
    depth = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i = _string_end(text, i + 1)
            continue
        if c in "{[(":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                if c == "}":
                    return i
                raise HclError(f"unbalanced {c!r} in a template interpolation")
            depth -= 1
        i += 1
    raise HclError("a template interpolation or directive (${ or %{) is not closed")


def _string_end(text: str, i: int) -> int:
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        if text.startswith(("${", "%{"), i):
            i = _closing(text, i + 2) + 1
            continue
        if c == "\n":
            break
        i += 1
    raise HclError("a quoted string in a template interpolation is not closed")


def _assemble(flat: list[Any], flush: bool = False) -> Template:
    """The template of a scanned sequence of text pieces and directives, in HCL's order: strip
    markers first (each takes the whitespace of the one piece of text next to it), then ``<<-``'s
    indentation (`flush`), then the ``if``/``for`` structure.

    As in HCL, a strip marker after a directive that ends a line takes that line's newline, so the
    next line is not seen as starting a line, and keeps its indentation under ``<<-``
    (hashicorp/terraform#23710): the text is the one Terraform sends."""
    pieces = list(flat)
    for i, item in enumerate(pieces):
        if isinstance(item, _Mark):
            if item.strip_left and i > 0 and isinstance(pieces[i - 1], str):
                pieces[i - 1] = pieces[i - 1].rstrip()
            if item.strip_right and i + 1 < len(pieces) and isinstance(pieces[i + 1], str):
                pieces[i + 1] = pieces[i + 1].lstrip()
    if flush:
        _flush(pieces)
    merged: list[Any] = []
    for item in pieces:
        if isinstance(item, str) and merged and isinstance(merged[-1], str):
            merged[-1] += item
        else:
            merged.append(item)
    root: Template = []
    stack: list[tuple[_Mark, Template, Template | None]] = []  # the open directive, its body, its else
    current = root
    for item in merged:
        if isinstance(item, str):
            if item:
                current.append(item)
        elif item.kind == "interp":
            assert item.expr is not None
            current.append(_Interp(item.expr))
        elif item.kind in ("if", "for"):
            body: Template = []
            stack.append((item, body, None))
            current = body
        elif item.kind == "else":
            if not stack or stack[-1][0].kind != "if" or stack[-1][2] is not None:
                raise HclError("%{ else } without its %{ if }")
            otherwise: Template = []
            stack[-1] = (stack[-1][0], stack[-1][1], otherwise)
            current = otherwise
        else:
            opener = "if" if item.kind == "endif" else "for"
            if not stack or stack[-1][0].kind != opener:
                raise HclError(f"%{{ {item.kind} }} without its %{{ {opener} }}")
            mark, body, otherwise_ = stack.pop()
            current = stack[-1][2] if stack and stack[-1][2] is not None else (stack[-1][1] if stack else root)
            assert mark.expr is not None
            if opener == "if":
                current.append(_If(mark.expr, body, otherwise_ or []))
            else:
                key, value = (None, mark.names[0]) if len(mark.names) == 1 else (mark.names[0], mark.names[1])
                current.append(_For(key, value, mark.expr, body))
    if stack:
        raise HclError(f"%{{ {stack[-1][0].kind} }} without its %{{ end{stack[-1][0].kind} }}")
    return root


class _UnknownControl(Exception):
    def __init__(self, value: Unknown) -> None:
        self.value = value


def render(template: Template, scope: Scope) -> Any:
    """A template's value: one interpolation alone gives its value as it is, else a string."""
    if len(template) == 1 and isinstance(template[0], _Interp):
        return evaluate(template[0].expr, scope)
    out: list[str] = []
    try:
        _render(template, scope, out)
    except _UnknownControl as e:
        scope.session.gap(e.value)
        return e.value
    return "".join(out)


def _render(template: Template, scope: Scope, out: list[str]) -> None:
    for part in template:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, _Interp):
            out.append(interpolated(evaluate(part.expr, scope), scope))
        elif isinstance(part, _If):
            cond = evaluate(part.cond, scope)
            if isinstance(cond, Unknown):
                raise _UnknownControl(cond)
            _render(part.then if to_bool(cond) else part.otherwise, scope, out)
        else:
            collection = evaluate(part.collection, scope)
            if isinstance(collection, Unknown):
                raise _UnknownControl(collection)
            for k, v in _pairs(collection):
                names = {part.value: v} if part.key is None else {part.key: k, part.value: v}
                _render(part.body, scope.child(names), out)


def interpolated(value: Any, scope: Scope) -> str:
    """A value as a template writes it; an unknown one as its ``${...}``, and recorded."""
    if isinstance(value, Unknown):
        scope.session.gap(value)
        return value.written()
    if value is None:
        raise HclError("a template cannot write null")
    return to_str(value)


# --------------------------------------------------------------------------------------------------
# Values


def number(x: float) -> int | float:
    """Terraform has one number type: whole values are kept as int, so that they print as ``3``."""
    if isinstance(x, float) and x.is_integer() and abs(x) < 2**63:
        return int(x)
    return x


def to_str(value: Any) -> str:
    """A primitive as Terraform converts it to a string."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        # Terraform computes with 512-bit floats: 0.1 + 0.2 prints as 0.3, which 15 digits give too
        return str(number(value)) if value.is_integer() else repr(float(f"{value:.15g}"))
    if value is None:
        raise HclError("null where a string is needed")
    if isinstance(value, Unknown):
        return value.written()
    raise HclError(f"{_type_name(value)} where a string is needed")


def to_number(value: Any) -> int | float:
    if isinstance(value, bool) or value is None:
        raise HclError(f"{_type_name(value)} where a number is needed")
    if isinstance(value, int | float):
        return number(value)
    if isinstance(value, str):
        try:
            return number(float(value)) if re.search(r"[.eE]", value) else int(value.strip())
        except ValueError:
            raise HclError(f"{value!r} is not a number") from None
    raise HclError(f"{_type_name(value)} where a number is needed")


def to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if value in ("true", "false"):
        return value == "true"
    raise HclError(f"{_type_name(value)} where a bool is needed")


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a bool"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "an object"


def _pairs(collection: Any) -> Iterator[tuple[Any, Any]]:
    """What ``for`` goes over: a list's index and element, a map's key and value in key order."""
    if isinstance(collection, list):
        yield from enumerate(collection)
    elif isinstance(collection, dict):
        for k in sorted(collection):
            yield k, collection[k]
    elif collection is None:
        raise HclError("a for over null")
    else:
        raise HclError(f"a for over {_type_name(collection)}")


def first_unknown(value: Any) -> Unknown | None:
    """The first unknown part of a value (a list or an object may hold one)."""
    if isinstance(value, Unknown):
        return value
    if isinstance(value, list):
        for v in value:
            found = first_unknown(v)
            if found:
                return found
    if isinstance(value, dict):
        for v in value.values():
            found = first_unknown(v)
            if found:
                return found
    return None


# --------------------------------------------------------------------------------------------------
# Expressions


def evaluate(node: Node, scope: Scope) -> Any:
    """An expression's value (see the module's docstring for what is evaluated)."""
    kind = node.data
    handler = _HANDLERS.get(kind)
    if handler is None:
        raise HclError(f"{source(node)!r}: {kind} expressions are not supported")
    return handler(node, scope)


def _expr_term(node: Node, scope: Scope) -> Any:
    return evaluate(_kids(node)[0], scope)


def _int_lit(node: Node, scope: Scope) -> Any:
    return int(str(node.children[0]))


def _float_lit(node: Node, scope: Scope) -> Any:
    return number(float(str(node.children[0])))


def _literal_value(node: Node, scope: Scope) -> Any:
    return {"true": True, "false": False, "null": None}[str(node.children[0])]


def _string(node: Node, scope: Scope) -> Any:
    return render(_string_template(node), scope)


def _template_string(node: Node, scope: Scope) -> Any:
    return _unescape(str(node.children[0])[2:-2])


def _heredoc_node(node: Node, scope: Scope) -> Any:
    return render(_heredoc(str(node.children[0])), scope)


def _tuple(node: Node, scope: Scope) -> Any:
    return [evaluate(k, scope) for k in _kids(node)]


def _object(node: Node, scope: Scope) -> Any:
    out: dict[str, Any] = {}
    for elem in _kids(node):
        key_node, value_node = _kids(elem)
        key = _object_key(key_node, scope)
        if isinstance(key, Unknown):
            return key
        out[key] = evaluate(value_node, scope)
    return out


def _object_key(node: Node, scope: Scope) -> Any:
    """A bare name is the key itself (``{a = 1}``); anything else is evaluated (``{(var.k) = 1}``)."""
    (inner,) = _kids(node)
    if inner.data == "keyword":
        return _name(inner)
    if inner.data == "expr_term":
        kids = _kids(inner)
        if len(kids) == 1 and kids[0].data == "identifier" and len(inner.children) == 1:
            return _name(kids[0])
    key = evaluate(inner, scope)
    return key if isinstance(key, Unknown) else to_str(key)


def _identifier(node: Node, scope: Scope) -> Any:
    return scope.lookup(_name(node))


def _get_attr_expr_term(node: Node, scope: Scope) -> Any:
    base, attr = _kids(node)
    return get_attr(evaluate(base, scope), _name(_kids(attr)[0]), node)


def get_attr(value: Any, name: str, node: Node | None = None) -> Any:
    """``value.name``."""
    if isinstance(value, Unknown):
        return Unknown(f"{value.text}.{name}", value.reason, value.fix)
    if isinstance(value, Lazy):
        return value.attr(name)
    if isinstance(value, dict):
        if name in value:
            return value[name]
        raise HclError(f"{source(node) if node is not None else name}: the object has no attribute {name!r}")
    raise HclError(f"{source(node) if node is not None else name}: {_type_name(value)} has no attributes")


def _index_expr_term(node: Node, scope: Scope) -> Any:
    base, index = _kids(node)
    return get_index(evaluate(base, scope), _index_value(index, scope), node)


def _index_value(index: Node, scope: Scope) -> Any:
    if index.data == "short_index":
        return int(str(index.children[-1]))
    return evaluate(_kids(index)[0], scope)


def get_index(value: Any, key: Any, node: Node | None = None) -> Any:
    """``value[key]``."""
    where = source(node) if node is not None else "index"
    if isinstance(value, Unknown):
        return Unknown(f"{value.text}[{json.dumps(key) if isinstance(key, str) else key}]", value.reason, value.fix)
    if isinstance(key, Unknown):
        return key
    if isinstance(value, Lazy):
        return value.index(key)
    if isinstance(value, list):
        i = to_number(key)
        if not isinstance(i, int):
            raise HclError(f"{where}: {key} is not a whole number")
        if not 0 <= i < len(value):
            raise HclError(f"{where}: index {i} is out of range (the list has {len(value)} elements)")
        return value[i]
    if isinstance(value, dict):
        k = to_str(key)
        if k not in value:
            raise HclError(f"{where}: the map has no element {k!r}")
        return value[k]
    raise HclError(f"{where}: {_type_name(value)} cannot be indexed")


def _splat(node: Node, scope: Scope) -> Any:
    base_node, splat = _kids(node)
    base = evaluate(base_node, scope)
    if isinstance(base, Unknown):
        return base
    items = [] if base is None else base if isinstance(base, list) else [base]
    out = []
    for item in items:
        for op in _kids(splat):
            if op.data == "get_attr":
                item = get_attr(item, _name(_kids(op)[0]), node)
            else:
                item = get_index(item, _index_value(op, scope), node)
        out.append(item)
    return out


def _for_intro(node: Node, scope: Scope) -> tuple[str | None, str, Any]:
    trees = _kids(node)
    names = [_name(t) for t in trees[:-1]]
    collection = evaluate(trees[-1], scope)
    return (None, names[0], collection) if len(names) == 1 else (names[0], names[1], collection)


def _for_items(node: Node, scope: Scope) -> Iterator[Scope] | Unknown:
    trees = _kids(node)
    key, value, collection = _for_intro(trees[0], scope)
    if isinstance(collection, Unknown):
        return collection
    cond = next((t for t in trees if t.data == "for_cond"), None)

    def scopes() -> Iterator[Scope]:
        for k, v in _pairs(collection):
            inner = scope.child({value: v} if key is None else {key: k, value: v})
            if cond is not None:
                test = evaluate(_kids(cond)[0], inner)
                if isinstance(test, Unknown):
                    raise _UnknownControl(test)
                if not to_bool(test):
                    continue
            yield inner

    return scopes()


def _for_tuple_expr(node: Node, scope: Scope) -> Any:
    items = _for_items(node, scope)
    if isinstance(items, Unknown):
        return items
    body = next(t for t in _kids(node)[1:] if t.data != "for_cond")
    try:
        return [evaluate(body, inner) for inner in items]
    except _UnknownControl as e:
        return e.value


def _for_object_expr(node: Node, scope: Scope) -> Any:
    items = _for_items(node, scope)
    if isinstance(items, Unknown):
        return items
    key_node, value_node = [t for t in _kids(node)[1:] if t.data != "for_cond"][:2]
    group = any(isinstance(c, Token) and c.type == "ELLIPSIS" for c in node.children)
    out: dict[str, Any] = {}
    try:
        for inner in items:
            key = evaluate(key_node, inner)
            if isinstance(key, Unknown):
                return key
            k = to_str(key)
            v = evaluate(value_node, inner)
            if group:
                out.setdefault(k, []).append(v)
            elif k in out:
                raise HclError(f"{source(node)}: the key {k!r} comes twice (write ... after the value to group)")
            else:
                out[k] = v
    except _UnknownControl as e:
        return e.value
    return out


def _conditional(node: Node, scope: Scope) -> Any:
    cond_node, then_node, else_node = _kids(node)
    cond = evaluate(cond_node, scope)
    if isinstance(cond, Unknown):
        return cond
    return evaluate(then_node if to_bool(cond) else else_node, scope)


def _unary_op(node: Node, scope: Scope) -> Any:
    op = str(node.children[0])
    value = evaluate(_kids(node)[0], scope)
    if isinstance(value, Unknown):
        return value
    if op == "!":
        return not to_bool(value)
    return number(-to_number(value))


def _binary_op(node: Node, scope: Scope) -> Any:
    left_node, term = _kids(node)[:2]
    operator_node, right_node = _kids(term)
    op = str(operator_node.children[0]).strip()
    left = evaluate(left_node, scope)
    if op in ("&&", "||"):
        if not isinstance(left, Unknown) and to_bool(left) == (op == "||"):
            return op == "||"
        right = evaluate(right_node, scope)
        if isinstance(left, Unknown):
            return left if isinstance(right, Unknown) or to_bool(right) != (op == "||") else op == "||"
        return right if isinstance(right, Unknown) else to_bool(right)
    right = evaluate(right_node, scope)
    for side in (left, right):
        if isinstance(side, Unknown):
            return side
    if op == "==":
        return _equal(left, right)
    if op == "!=":
        return not _equal(left, right)
    a, b = to_number(left), to_number(right)
    if op in ("<", ">", "<=", ">="):
        return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]
    if op == "+":
        return number(a + b)
    if op == "-":
        return number(a - b)
    if op == "*":
        return number(a * b)
    if b == 0:
        raise HclError(f"{source(node)}: division by zero")
    if op == "/":
        return number(a / b)
    return number(math.fmod(a, b))


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    if isinstance(a, int | float) and isinstance(b, int | float):
        return bool(a == b)
    return type(a) is type(b) and bool(a == b)


def _function_call(node: Node, scope: Scope) -> Any:
    kids = _kids(node)
    names = [_name(k) for k in kids if k.data == "identifier"]
    name = "::".join(names)
    args_node = next((k for k in kids if k.data == "arguments"), None)
    arg_nodes = _kids(args_node) if args_node is not None else []
    expand = args_node is not None and any(isinstance(c, Token) and c.type == "ELLIPSIS" for c in args_node.children)
    if name in ("try", "can"):
        return _try(name, arg_nodes, scope)
    function = FUNCTIONS.get(name)
    if function is None:
        raise HclError(
            f"{source(node)}: overjoin import does not evaluate the function {name}()",
            "write the value it gives instead, or ask for the function to be supported",
        )
    args = [evaluate(a, scope) for a in arg_nodes]
    if expand:
        last = args.pop()
        if isinstance(last, Unknown):
            return last
        if not isinstance(last, list):
            raise HclError(f"{source(node)}: ... expands a list, not {_type_name(last)}")
        args.extend(last)
    if name not in _TAKES_UNKNOWN:
        for a in args:
            if isinstance(a, Unknown):
                return a
    try:
        return function(scope, *args)
    except TypeError as e:
        raise HclError(f"{source(node)}: wrong arguments for {name}(): {e}") from None
    except (ValueError, IndexError, KeyError, OverflowError) as e:
        raise HclError(f"{source(node)}: {e}") from None


def _try(name: str, arg_nodes: list[Node], scope: Scope) -> Any:
    """``try(a, b, ...)``: the first that evaluates; ``can(a)``: whether it does."""
    last: HclError | None = None
    for a in arg_nodes:
        try:
            value = evaluate(a, scope)
        except HclError as e:
            if name == "can":
                return False
            last = e
            continue
        return True if name == "can" else value
    raise HclError(f"try(): none of its arguments evaluates ({last})")


_HANDLERS: dict[str, Callable[[Node, Scope], Any]] = {
    "expr_term": _expr_term,
    "int_lit": _int_lit,
    "float_lit": _float_lit,
    "literal_value": _literal_value,
    "string": _string,
    "template_string": _template_string,
    "heredoc_template": _heredoc_node,
    "heredoc_template_trim": _heredoc_node,
    "tuple": _tuple,
    "object": _object,
    "identifier": _identifier,
    "get_attr_expr_term": _get_attr_expr_term,
    "index_expr_term": _index_expr_term,
    "attr_splat_expr_term": _splat,
    "full_splat_expr_term": _splat,
    "for_tuple_expr": _for_tuple_expr,
    "for_object_expr": _for_object_expr,
    "conditional": _conditional,
    "unary_op": _unary_op,
    "binary_op": _binary_op,
    "function_call": _function_call,
}


# --------------------------------------------------------------------------------------------------
# Functions


_VERB = re.compile(r"%(?:\[(\d+)\])?([-+# 0]*)(\d+)?(?:\.(\d*))?([a-zA-Z%])")


def _format(scope: Scope, spec: Any, *args: Any) -> str:
    """Terraform's ``format``: Go's verbs (``%s %d %03d %03.0f %.2f %x %q %v %t %%``)."""
    if isinstance(spec, Unknown):
        scope.session.gap(spec)
        return spec.written()
    spec = to_str(spec)
    out: list[str] = []
    pos = 0
    next_arg = 0
    for m in _VERB.finditer(spec):
        out.append(spec[pos : m.start()])
        pos = m.end()
        explicit, flags, width, precision, verb = m.groups()
        if verb == "%":
            out.append("%")
            continue
        if explicit:
            next_arg = int(explicit) - 1
        if next_arg >= len(args):
            raise HclError(f"format({spec!r}): not enough arguments")
        arg = args[next_arg]
        next_arg += 1
        if isinstance(arg, Unknown):
            out.append(interpolated(arg, scope))
            continue
        out.append(_format_one(arg, flags, width, precision, verb))
    out.append(spec[pos:])
    return "".join(out)


def _format_one(arg: Any, flags: str, width: str | None, precision: str | None, verb: str) -> str:
    head = "%" + flags + (width or "") + ("." + precision if precision is not None else "")
    if verb in "dboxXc":
        value = to_number(arg)
        if not isinstance(value, int):
            raise HclError(f"%{verb} needs a whole number, not {value}")
        if verb == "b":
            text = format(value, "b")
            return text.rjust(int(width or 0), "0" if "0" in flags else " ")
        return (head + verb) % value
    if verb in "eEfFgG":
        return (head + verb) % float(to_number(arg))
    if verb == "t":
        return (head + "s") % ("true" if to_bool(arg) else "false")
    if verb == "q":
        return (head + "s") % json.dumps(to_str(arg), ensure_ascii=False)
    if verb in "sv":
        text = to_str(arg) if not isinstance(arg, list | dict) else _jsonencode(None, arg)
        return (head + "s") % text
    raise HclError(f"%{verb} is not a format verb Terraform has")


def _jsonencode(scope: Scope | None, value: Any) -> str:
    unknown = first_unknown(value)
    if unknown:
        raise HclError(f"jsonencode() of a value that is not known ({unknown.text}: {unknown.reason})")
    text = json.dumps(_json_ready(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    for c, e in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(c, e)  # as Go's encoder writes them
    return text


def _json_ready(value: Any) -> Any:
    if isinstance(value, Lazy):
        raise HclError(f"jsonencode() of {value.text}")
    if isinstance(value, list):
        return [_json_ready(v) for v in value]
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    return value


def _from_json(value: Any) -> Any:
    if isinstance(value, float):
        return number(value)
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _from_json(v) for k, v in value.items()}
    return value


def _read(scope: Scope, path: Any) -> tuple[Path, str]:
    p = Path(to_str(path))
    full = p if p.is_absolute() else scope.session.base / p
    try:
        return full, full.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise HclError(
            f"no file {to_str(path)} (relative to {scope.session.base})",
            "put it there: file() reads relative to the folder Terraform runs in",
        ) from None
    except UnicodeDecodeError:
        raise HclError(f"{to_str(path)} is not UTF-8 text") from None
    except OSError as e:
        raise HclError(f"cannot read {to_str(path)}: {e.strerror}") from None


def _file(scope: Scope, path: Any) -> str:
    return _read(scope, path)[1]


def _templatefile(scope: Scope, path: Any, variables: Any = None) -> Any:
    _, text = _read(scope, path)
    if variables is not None and not isinstance(variables, dict):
        raise HclError("templatefile()'s second argument is an object of the template's variables")
    try:
        template = template_from_text(text)
    except HclError as e:
        raise HclError(f"{to_str(path)}: {e}") from None

    def nothing(name: str, inner: Scope) -> Any:
        raise HclError(f"{to_str(path)}: the template uses {name}, which templatefile() is not given")

    return render(template, Scope(scope.session, nothing, dict(variables or {})))


def _fileexists(scope: Scope, path: Any) -> bool:
    p = Path(to_str(path))
    return (p if p.is_absolute() else scope.session.base / p).is_file()


def _lookup(scope: Scope, m: Any, key: Any, *default: Any) -> Any:
    if not isinstance(m, dict):
        raise HclError(f"lookup() of {_type_name(m)}")
    k = to_str(key)
    if k in m:
        return m[k]
    if default:
        return default[0]
    raise HclError(f"lookup(): no key {k!r} and no default")


def _element(scope: Scope, xs: Any, i: Any) -> Any:
    if not isinstance(xs, list) or not xs:
        raise HclError("element() of an empty list or of something not a list")
    return xs[int(to_number(i)) % len(xs)]


def _coalesce(scope: Scope, *args: Any) -> Any:
    for a in args:
        if isinstance(a, Unknown):
            return a
        if a is not None and a != "":
            return a
    raise HclError("coalesce(): every argument is null or empty")


def _join(scope: Scope, sep: Any, *lists: Any) -> Any:
    if isinstance(sep, Unknown):
        return sep
    parts: list[str] = []
    for xs in lists:
        if isinstance(xs, Unknown):
            return xs
        if not isinstance(xs, list):
            raise HclError(f"join() of {_type_name(xs)}")
        parts.extend(interpolated(x, scope) for x in xs)
    return to_str(sep).join(parts)


def _replace(scope: Scope, s: Any, old: Any, new: Any) -> str:
    """``replace``: a ``/regex/`` with Go's ``$1``/``${name}`` in the replacement, else plain text."""
    s, old, new = to_str(s), to_str(old), to_str(new)
    if len(old) > 1 and old.startswith("/") and old.endswith("/"):
        try:
            pattern = re.compile(re.sub(r"\(\?P?<", "(?P<", old[1:-1]))
        except re.error as e:
            raise HclError(f"replace(): {old} is not a regular expression: {e}") from None
        return pattern.sub(lambda m: _expand(m, new), s)
    return s.replace(old, new)


_GROUP = re.compile(r"\$(?:\$|\{(\w+)\}|(\w+))")


def _expand(found: re.Match[str], template: str) -> str:
    """Go's ``Regexp.Expand``: ``$name`` takes the longest name (``$1_`` is the group ``1_``), a group
    that does not exist is empty, ``$$`` is ``$``."""

    def group(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        if name is None:
            return "$"
        try:
            value = found.group(int(name)) if name.isdigit() else found.group(name)
        except IndexError:  # no such group
            return ""
        return value or ""

    return _GROUP.sub(group, template)


def _substr(scope: Scope, s: Any, offset: Any, length: Any) -> str:
    text, start, count = to_str(s), int(to_number(offset)), int(to_number(length))
    if start < 0:
        start += len(text)
    return text[start:] if count < 0 else text[start : start + count]


def _length(scope: Scope, x: Any) -> int:
    if isinstance(x, str | list | dict):
        return len(x)
    raise HclError(f"length() of {_type_name(x)}")


def _range(scope: Scope, *args: Any) -> list[int | float]:
    nums = [to_number(a) for a in args]
    start, stop, step = (0, nums[0], 1) if len(nums) == 1 else (nums[0], nums[1], nums[2] if len(nums) > 2 else 1)
    if step == 0:
        raise HclError("range(): the step cannot be 0")
    if len(nums) < 3 and stop < start:
        step = -1
    out: list[int | float] = []
    x = start
    while (x < stop) if step > 0 else (x > stop):
        out.append(number(x))
        x += step
        if len(out) > 1024:
            raise HclError("range(): more than 1024 elements")
    return out


def _tostring(scope: Scope, x: Any) -> Any:
    return None if x is None else to_str(x)


def _tonumber(scope: Scope, x: Any) -> Any:
    return None if x is None else to_number(x)


def _tobool(scope: Scope, x: Any) -> Any:
    return None if x is None else to_bool(x)


def _tolist(scope: Scope, x: Any) -> list[Any]:
    if isinstance(x, list):
        return x
    raise HclError(f"tolist() of {_type_name(x)}")


def _toset(scope: Scope, x: Any) -> list[Any]:
    """A set as the list of its distinct elements, in the order Terraform gives strings and numbers."""
    if not isinstance(x, list):
        raise HclError(f"toset() of {_type_name(x)}")
    out: list[Any] = []
    for v in x:
        if not any(_equal(v, w) for w in out):
            out.append(v)
    if all(isinstance(v, str) for v in out):
        return sorted(out)
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in out):
        return sorted(out)
    return out


def _tomap(scope: Scope, x: Any) -> dict[str, Any]:
    if isinstance(x, dict):
        return x
    raise HclError(f"tomap() of {_type_name(x)}")


def _concat(scope: Scope, *lists: Any) -> list[Any]:
    out: list[Any] = []
    for xs in lists:
        if not isinstance(xs, list):
            raise HclError(f"concat() of {_type_name(xs)}")
        out.extend(xs)
    return out


def _merge(scope: Scope, *maps: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for m in maps:
        if m is None:
            continue
        if not isinstance(m, dict):
            raise HclError(f"merge() of {_type_name(m)}")
        out.update(m)
    return out


def _flatten(scope: Scope, xs: Any) -> list[Any]:
    out: list[Any] = []
    for x in xs if isinstance(xs, list) else [xs]:
        out.extend(_flatten(scope, x) if isinstance(x, list) else [x])
    return out


def _split(scope: Scope, sep: Any, s: Any) -> list[str]:
    return to_str(s).split(to_str(sep))


def _trim(scope: Scope, s: Any, chars: Any) -> str:
    return to_str(s).strip(to_str(chars))


def _indent(scope: Scope, n: Any, s: Any) -> str:
    pad = " " * int(to_number(n))
    return to_str(s).replace("\n", "\n" + pad)


def _title(scope: Scope, s: Any) -> str:
    return re.sub(r"\b(\w)", lambda m: m.group(1).upper(), to_str(s))


def _contains(scope: Scope, xs: Any, v: Any) -> bool:
    if not isinstance(xs, list):
        raise HclError(f"contains() of {_type_name(xs)}")
    return any(_equal(x, v) for x in xs)


def _index_of(scope: Scope, xs: Any, v: Any) -> int:
    for i, x in enumerate(xs if isinstance(xs, list) else []):
        if _equal(x, v):
            return i
    raise HclError("index(): the list does not hold the value")


def _keys(scope: Scope, m: Any) -> list[str]:
    if not isinstance(m, dict):
        raise HclError(f"keys() of {_type_name(m)}")
    return sorted(m)


def _values(scope: Scope, m: Any) -> list[Any]:
    if not isinstance(m, dict):
        raise HclError(f"values() of {_type_name(m)}")
    return [m[k] for k in sorted(m)]


def _slice(scope: Scope, xs: Any, start: Any, end: Any) -> list[Any]:
    if not isinstance(xs, list):
        raise HclError(f"slice() of {_type_name(xs)}")
    return xs[int(to_number(start)) : int(to_number(end))]


def _zipmap(scope: Scope, ks: Any, vs: Any) -> dict[str, Any]:
    return {to_str(k): v for k, v in zip(ks, vs)}


def _distinct(scope: Scope, xs: Any) -> list[Any]:
    out: list[Any] = []
    for x in xs:
        if not any(_equal(x, y) for y in out):
            out.append(x)
    return out


def _one(scope: Scope, xs: Any) -> Any:
    if not isinstance(xs, list) or len(xs) > 1:
        raise HclError("one() of a list with more than one element")
    return xs[0] if xs else None


def _regex(scope: Scope, pattern: Any, s: Any) -> Any:
    found = re.search(to_str(pattern), to_str(s))
    if not found:
        raise HclError(f"regex(): {to_str(pattern)!r} does not match")
    if found.re.groupindex:
        return found.groupdict()
    return list(found.groups()) if found.re.groups else found.group(0)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "format": _format,
    "formatlist": lambda scope, spec, *lists: [
        _format(scope, spec, *(x[i] if isinstance(x, list) else x for x in lists))
        for i in range(max((len(x) for x in lists if isinstance(x, list)), default=1))
    ],
    "upper": lambda scope, s: to_str(s).upper(),
    "lower": lambda scope, s: to_str(s).lower(),
    "title": _title,
    "join": _join,
    "concat": _concat,
    "replace": _replace,
    "trimspace": lambda scope, s: to_str(s).strip(),
    "trim": _trim,
    "trimsuffix": lambda scope, s, x: to_str(s).removesuffix(to_str(x)),
    "trimprefix": lambda scope, s, x: to_str(s).removeprefix(to_str(x)),
    "chomp": lambda scope, s: re.sub(r"(\r\n|\r|\n)+$", "", to_str(s)),
    "indent": _indent,
    "split": _split,
    "substr": _substr,
    "strrev": lambda scope, s: to_str(s)[::-1],
    "startswith": lambda scope, s, x: to_str(s).startswith(to_str(x)),
    "endswith": lambda scope, s, x: to_str(s).endswith(to_str(x)),
    "regex": _regex,
    "length": _length,
    "range": _range,
    "lookup": _lookup,
    "element": _element,
    "coalesce": _coalesce,
    "coalescelist": lambda scope, *xs: next((x for x in xs if x), []),
    "compact": lambda scope, xs: [x for x in xs if x not in (None, "")],
    "contains": _contains,
    "index": _index_of,
    "keys": _keys,
    "values": _values,
    "merge": _merge,
    "flatten": _flatten,
    "slice": _slice,
    "zipmap": _zipmap,
    "distinct": _distinct,
    "reverse": lambda scope, xs: list(reversed(xs)),
    "sort": lambda scope, xs: sorted(to_str(x) for x in xs),
    "one": _one,
    "jsonencode": _jsonencode,
    "jsondecode": lambda scope, s: _from_json(json.loads(to_str(s))),
    "tostring": _tostring,
    "tonumber": _tonumber,
    "tobool": _tobool,
    "tolist": _tolist,
    "toset": _toset,
    "tomap": _tomap,
    "max": lambda scope, *xs: max(to_number(x) for x in xs),
    "min": lambda scope, *xs: min(to_number(x) for x in xs),
    "abs": lambda scope, x: abs(to_number(x)),
    "ceil": lambda scope, x: math.ceil(to_number(x)),
    "floor": lambda scope, x: math.floor(to_number(x)),
    "sum": lambda scope, xs: number(sum(to_number(x) for x in xs)),
    "file": _file,
    "templatefile": _templatefile,
    "fileexists": _fileexists,
    "basename": lambda scope, p: to_str(p).rstrip("/").rsplit("/", 1)[-1],
    "dirname": lambda scope, p: to_str(p).rsplit("/", 1)[0] if "/" in to_str(p) else ".",
}

#: The functions that write an unknown argument as ``${...}`` (so that an ARN built with them still
#: names its resource) or that choose among their arguments, instead of being unknown themselves.
_TAKES_UNKNOWN = {"format", "join", "coalesce"}
