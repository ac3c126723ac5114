#!/bin/bash
# The verifier: runs after the agent (or the oracle), where it worked, with this directory at /tests.
# Harbor's protocol: the reward, 1 or 0, in /logs/verifier/reward.txt.
if [ "$(cat /app/greeting.txt)" = "hello world" ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo "expected 'hello world', found '$(cat /app/greeting.txt)'"
  echo 0 > /logs/verifier/reward.txt
fi
