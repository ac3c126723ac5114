#!/usr/bin/env python3
"""pre_tool_execution gate: no tool may open a file that holds secrets; every other call goes through.

The engine gives the call in $DELTA_HOOK_IO_PATH/input/tool_call.json; writing output/control.json with
{"skip": true, "reason": ...} stops the call, and the model is told the reason.
"""
import fnmatch
import json
import os

SECRET_PATTERNS = ["*credentials*", "*.env", ".env", "*.pem", "*secret*", "*id_rsa*"]
PATH_ARGUMENTS = ["path", "file", "directory"]  # the arguments that name files in this agent's tools

io_path = os.environ["DELTA_HOOK_IO_PATH"]
with open(os.path.join(io_path, "input", "tool_call.json"), encoding="utf-8") as file:
    call = json.load(file)

for key, value in call.get("arguments", {}).items():
    if key not in PATH_ARGUMENTS:
        continue
    name = os.path.basename(str(value))
    if any(fnmatch.fnmatch(name.lower(), pattern) for pattern in SECRET_PATTERNS):
        reason = f"{value} may hold secrets; reviews never read secret files. Mention the file in the review instead."
        with open(os.path.join(io_path, "output", "control.json"), "w", encoding="utf-8") as file:
            json.dump({"skip": True, "reason": reason}, file)
        break
