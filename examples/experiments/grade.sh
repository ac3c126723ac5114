#!/bin/sh
# The grader of this example (agent.yaml's `grader:`): `delta batch` runs it in each completed run's workspace.
# DELTA_EXPECTED is the task's "expected" as JSON ("391" with its quotes); DELTA_FINAL_ANSWER is the answer.
# It prints {"score": ...} with details; exit codes 0 and 1 alone would mean pass and fail.
expected=$(printf '%s' "$DELTA_EXPECTED" | tr -d '"')
answer=$(printf '%s' "$DELTA_FINAL_ANSWER" | tr -d ' \n')
if [ "$answer" = "$expected" ]; then score=1; else score=0; fi
printf '{"score": %s, "expected": "%s", "answer": "%s"}\n' "$score" "$expected" "$answer"
