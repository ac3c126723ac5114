#!/usr/bin/env python3
"""Arithmetic without eval: numbers, + - * / // % **, parentheses and a few functions.

  calc.py binary <add|subtract|multiply|divide|power> A B    two numbers as arguments
  calc.py evaluate [--precision N]                           an expression on stdin
Anything else in the input (names, calls of other functions, attributes) is refused with a message.
"""
import ast
import math
import operator
import sys

OPERATORS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
FUNCTIONS = {"sqrt": math.sqrt, "abs": abs, "round": round, "min": min, "max": max}
BINARY = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul, "divide": operator.truediv, "power": operator.pow}


def value(node):
    if isinstance(node, ast.Expression):
        return value(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        return OPERATORS[type(node.op)](value(node.left), value(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return -value(node.operand) if isinstance(node.op, ast.USub) else value(node.operand)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS and not node.keywords:
        return FUNCTIONS[node.func.id](*[value(argument) for argument in node.args])
    raise ValueError(f"not allowed in an expression: {ast.unparse(node)!r}")


def number(text):
    try:
        return float(text) if any(c in text for c in ".eE") else int(text)
    except ValueError:
        raise ValueError(f"not a number: {text!r}")


def show(result, precision):
    if isinstance(result, float):
        result = round(result, precision)
        if result.is_integer():
            result = int(result)
    print(result)


def main(argv):
    try:
        if len(argv) == 4 and argv[0] == "binary" and argv[1] in BINARY:
            show(BINARY[argv[1]](number(argv[2]), number(argv[3])), 10)
        elif argv[:1] == ["evaluate"]:
            precision = int(argv[argv.index("--precision") + 1]) if "--precision" in argv else 6
            expression = sys.stdin.read().strip()
            show(value(ast.parse(expression, mode="eval")), precision)
        else:
            print(__doc__.strip(), file=sys.stderr)
            return 2
    except (ValueError, SyntaxError, ZeroDivisionError, TypeError, OverflowError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
