"""Annotations library code may evaluate: only plain types may be written there.

``typing.get_type_hints`` (which ``functools.singledispatch`` calls) evaluates a string
annotation with the real ``eval``, outside the compiler's rewriting; so the compiler
(``learner``) refuses any annotation that is not a plain type and rewrites the strings
that are, and this module says what "plain" is.
"""

from __future__ import annotations

import ast


def plain_type(node: ast.AST, in_string: bool = False) -> bool:
    """Is ``node`` a plain type expression: names, public attribute chains, subscripts of
    those, ``|``, constants, and (outside a string) strings that are plain in turn? Library
    code evaluates a string annotation with the real ``eval`` (``typing.get_type_hints``,
    which ``functools.singledispatch`` calls), so nothing but a type may be written there;
    and a string inside one would be evaluated as written, unrewritten (``_annotation``)."""
    if isinstance(node, ast.Name):
        return not node.id.startswith("__")
    if isinstance(node, ast.Attribute):
        return (
            not node.attr.startswith("_")
            and isinstance(node.value, (ast.Name, ast.Attribute))
            and plain_type(node.value, in_string)
        )
    if isinstance(node, ast.Subscript):
        literal = dotted_last(node.value) == "Literal"  # its arguments are never evaluated
        return (
            isinstance(node.value, (ast.Name, ast.Attribute))
            and plain_type(node.value, in_string)
            and (literal and constants_only(node.slice) or plain_type(node.slice, in_string))
        )
    if isinstance(node, (ast.Tuple, ast.List)):  # Callable[[int, str], int], Dict[str, int]
        return all(plain_type(e, in_string) for e in node.elts)
    if isinstance(node, ast.BinOp):
        return (
            isinstance(node.op, ast.BitOr)
            and plain_type(node.left, in_string)
            and plain_type(node.right, in_string)
        )
    if isinstance(node, ast.Constant):
        if not isinstance(node.value, str):
            return node.value is None or isinstance(node.value, (int, float, bytes, type(...)))
        inner = parsed(node.value)
        return not in_string and inner is not None and plain_type(inner, True)
    return False


def parsed(text: str) -> ast.expr | None:
    try:
        return ast.parse(text.strip(), "<annotation>", "eval").body
    except SyntaxError:
        return None


def dotted_last(node: ast.AST) -> str:
    return node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")


def constants_only(node: ast.AST) -> bool:
    elts = node.elts if isinstance(node, ast.Tuple) else [node]
    return all(isinstance(e, ast.Constant) for e in elts)


def plain_text(text: str) -> bool:
    """Is ``text`` a plain type as written (``plain_type``), or no expression at all?"""
    tree = parsed_exactly(text)
    return tree is None or plain_type(tree, True)


def compiled_type(text: str, guarded_read: str) -> bool:
    """Is ``text`` a type as the compiler leaves an annotation it checked: a plain type
    whose every attribute read is a call of ``guarded_read`` (``__graders_attr__(torch,
    'Tensor')``), never a bare ``torch.Tensor``? ``typing.ForwardRef`` compiles such text
    and the real ``eval`` runs it: read through the guards, it reads no more than learner
    code may (a dotted text, however plain, would read ``torch.sys`` unguarded)."""
    tree = parsed_exactly(text)
    if tree is None:
        return True  # not an expression: typing's own compile fails with a SyntaxError
    if any(isinstance(n, ast.Attribute) for n in ast.walk(tree)):
        return False
    try:
        unguarded = _Unguard(guarded_read).visit(tree)
    except ValueError:
        return False
    return plain_type(unguarded, True)


def parsed_exactly(text: str) -> ast.expr | None:
    """``text`` parsed as ``compile(text, ..., 'eval')`` parses it, else None."""
    try:
        return ast.parse(text, "<annotation>", "eval").body
    except (SyntaxError, ValueError):
        return None


class _Unguard(ast.NodeTransformer):
    """``guarded_read(obj, 'name')`` back to ``obj.name``, for ``plain_type`` to judge; any
    other call is no type."""

    def __init__(self, guarded_read: str) -> None:
        self.guarded_read = guarded_read

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if not (
            isinstance(node.func, ast.Name)
            and node.func.id == self.guarded_read
            and len(node.args) == 2
            and not node.keywords
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and node.args[1].value.isidentifier()
        ):
            raise ValueError("not a guarded read")
        return ast.Attribute(self.visit(node.args[0]), node.args[1].value, ast.Load())
