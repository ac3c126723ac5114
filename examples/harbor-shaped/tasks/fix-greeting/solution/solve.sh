#!/bin/bash
# The oracle: what a correct agent does. `delta batch ... --oracle` runs it in the task's image, then the verifier.
echo 'hello world' > /app/greeting.txt
