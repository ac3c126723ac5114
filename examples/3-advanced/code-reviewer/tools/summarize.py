#!/usr/bin/env python3
"""summarize.py ROOT OUT: write a map of the Python code under ROOT (files, sizes, functions) to OUT.

A stand-in for a real code indexer (tree-sitter, ctags). The computed_file source in context.yaml runs it
before every model call, so the map the model sees is always current.
"""
import ast
import os
import sys

root, out = sys.argv[1], sys.argv[2]
lines = ["## Codebase map", ""]
for directory, subdirectories, files in sorted(os.walk(root)):
    subdirectories[:] = sorted(d for d in subdirectories if not d.startswith("."))
    for name in sorted(files):
        if name.endswith(".py"):
            path = os.path.join(directory, name)
            source = open(path, encoding="utf-8").read()
            functions = [node.name for node in ast.walk(ast.parse(source)) if isinstance(node, ast.FunctionDef)]
            lines.append(f"- {os.path.relpath(path, root)} ({len(source.splitlines())} lines): {', '.join(functions) or 'no functions'}")
os.makedirs(os.path.dirname(out), exist_ok=True)
with open(out, "w", encoding="utf-8") as file:
    file.write("\n".join(lines) + "\n")
