#!/usr/bin/env python3
"""Folds the journal's older iterations into a short Markdown summary (spec 2.4.6, memory folding).

Run by Delta Engine before every model call, as a context.yaml computed_file generator, with the
workspace as the working directory and JOURNAL_PATH set. Every iteration except the last --keep ones
(which the journal source shows in full) becomes one line: the model's decision. The tools it used are
counted. At most --max-lines decisions are listed (the newest); older ones are folded into a count, so the
summary never grows past a known size (context.yaml's max_tokens is only the safety net).
"""
import argparse
import json
import os

OUTPUT = os.path.join(".delta", "context_artifacts", "summary.md")


def one_line(text, limit=160):
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def decision(content):
    """The model's "Decided: ..." line if it wrote one, else its first sentence."""
    for line in (content or "").splitlines():
        if line.strip().lower().startswith("decided:"):
            return line.strip()[len("decided:"):].strip()
    return (content or "").strip().split(". ")[0]


def read_iterations(journal_path):
    thoughts = {}
    with open(journal_path, encoding="utf-8") as journal:
        for line in journal:
            line = line.strip()
            if not line:
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line: the engine repairs it
            if event.get("type") == "THOUGHT":
                thoughts[event["iteration"]] = event
    return [thoughts[number] for number in sorted(thoughts)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--keep", type=int, default=5, help="iterations the journal source shows in full")
    parser.add_argument("--max-lines", type=int, default=60, help="folded decisions listed, one a line")
    options = parser.parse_args()

    iterations = read_iterations(os.environ["JOURNAL_PATH"])
    folded = iterations[: max(0, len(iterations) - options.keep)]
    lines = ["## Memory summary", ""]
    if not folded:
        lines.append("Nothing folded yet: every iteration so far is in the conversation below.")
    else:
        first, last = folded[0]["iteration"], folded[-1]["iteration"]
        lines.append(f"Iterations {first}-{last} are folded here; the conversation below starts after them.")
        lines.append("")
        counts = {}
        for thought in folded:
            for call in thought.get("tool_calls", []):
                counts[call["name"]] = counts.get(call["name"], 0) + 1
        lines.append("### Tools used")
        lines.extend(f"- {name}: {count}" for name, count in sorted(counts.items()))
        lines.append("")
        lines.append("### Decisions")
        older, listed = folded[: -options.max_lines], folded[-options.max_lines :]
        if older:
            lines.append(f"- (iterations {older[0]['iteration']}-{older[-1]['iteration']}: {len(older)} earlier decisions, folded away)")
        for thought in listed:
            lines.append(f"- [{thought['iteration']}] {one_line(decision(thought.get('content')))}")

    os.makedirs(os.path.dirname(OUTPUT), exist_ok=True)
    with open(OUTPUT, "w", encoding="utf-8") as summary:
        summary.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
