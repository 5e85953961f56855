"""A validated formula tree as a JavaScript function, for the site's explorer.

The JavaScript is made from the tree `formula.parse` validated, never from the formula's text:
numbers become numeric literals (the repr of the float), symbols lookups in an environment
object by a JSON-escaped key, operators and calls calls into the runtime `KBFormula` of
`assets/kb-formula.js`, which checks every intermediate result exactly where `formula._compile`
does and throws the same refusals with the same offsets. Function implementations come from
the `javascript` column of `formula.FUNCTIONS`, so a new function stays one row there.
"""

from __future__ import annotations

import ast
import json

from ..maths.formula import FUNCTIONS, Formula, FormulaError, offset_of

__all__ = ["compile_formula", "js_literal"]

_BINARY = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Pow: "pow"}


def js_literal(value: object) -> str:
    """`value` (JSON data) as a JavaScript literal, safe inside an HTML `<script>` element too:
    the characters that could end the element or a line are escaped (they can only occur
    inside JSON strings, where the escapes mean the same)."""
    return (
        json.dumps(value, separators=(",", ":"), allow_nan=False)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def compile_formula(formula: Formula) -> str:
    """`function(v){return ...;}`: the formula over the environment `v` (symbol -> number),
    throwing `KBFormula.FormulaError` (message, offset) where the Python evaluator raises."""
    return f"function(v){{return {_expression(formula.tree, formula.text)};}}"


def _expression(node: ast.AST, text: str) -> str:
    # Depth is bounded by validation (formula.MAX_DEPTH), so this recursion is safe.
    offset = offset_of(text, node)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        # Validation admitted only finite int and float literals; the evaluator works in float.
        return f"({float(node.value)!r})"
    if isinstance(node, ast.Name):
        return f"R.sym(v,{js_literal(node.id)},{offset})"
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _expression(node.left, text), _expression(node.right, text)
        return f"R.{_BINARY[type(node.op)]}({left},{right},{offset})"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return f"(-{_expression(node.operand, text)})"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd):
        return _expression(node.operand, text)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS:
        name = node.func.id
        arguments = ",".join(_expression(argument, text) for argument in node.args)
        return f"R.call({js_literal(name)},{FUNCTIONS[name].javascript},[{arguments}],{offset})"
    # Unreachable for trees that passed validation.
    raise FormulaError(f"`{type(node).__name__}` cannot be compiled", offset)
