#!/usr/bin/env python3
"""check.py [--] FILE...: the project's mechanical checks, one finding a line as FILE:LINE: message."""
import ast
import sys


def check(path):
    findings = []
    source = open(path, encoding="utf-8").read()
    for number, line in enumerate(source.splitlines(), 1):
        if "TODO" in line:
            findings.append((number, "unfinished work (TODO)"))
        if len(line) > 100:
            findings.append((number, f"line is {len(line)} characters (limit 100)"))
    tree = ast.parse(source, filename=path)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_") and ast.get_docstring(node) is None:
            findings.append((node.lineno, f"public function {node.name} has no docstring"))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            findings.append((node.lineno, "print in library code (use logging)"))
        if isinstance(node, ast.ExceptHandler) and node.type is None:
            findings.append((node.lineno, "bare except"))
    return [f"{path}:{number}: {message}" for number, message in sorted(findings)]


def main(paths):
    paths = paths[1:] if paths[:1] == ["--"] else paths
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    findings = [finding for path in paths for finding in check(path)]
    print("\n".join(findings) if findings else "no findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
