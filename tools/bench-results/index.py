#!/usr/bin/env python3
"""Adds one run to benchmarks/results/index.md: a row in the runs table, and a row in the subjects table when the
run's subject folder is not listed there yet. Used by bin/bench after every run.

    index.py --index benchmarks/results/index.md --subject redis-throughput \
             --file redis-throughput/2026-12-03-1200.txt --date 2026-12-03 --command "bin/bench redis" \
             --about "Worker vs Spring after the ack change"

--about is what the run is for (bin/bench passes BENCH_ABOUT, else BENCH_LABEL's words, else the machine load); an
exit status other than 0 (--exit) is added to it, so a run that was stopped says so.
"""
import argparse
import sys

SUBJECTS_HEADER = "| Subject | What it measures |"


def add_run(text, subject, file, date, command, about, exit_status):
    lines = text.rstrip("\n").split("\n")
    listed = f"[`{subject}/`]({subject}/)"
    if not any(line.startswith(f"| {listed} ") for line in lines):
        start = lines.index(SUBJECTS_HEADER)
        end = start + 2
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        program = command.split(" ")[:2] if command.startswith("bin/bench ") else command.split(" ")[:1]
        lines.insert(end, f"| {listed} | runs of `{' '.join(program)}` (first run {date}) |")
    if exit_status != "0":
        about = f"{about}; stopped with exit status {exit_status}, so the run is incomplete"
    name = file.split("/", 1)[1]
    lines.append(f"| {subject} | [{name}]({file}) | {date} | `{command}` | {about.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser()
    for name in ("index", "subject", "file", "date", "command", "about"):
        parser.add_argument("--" + name, required=True)
    parser.add_argument("--exit", default="0")
    args = parser.parse_args()
    with open(args.index, encoding="utf-8") as f:
        text = f.read()
    text = add_run(text, args.subject, args.file, args.date, args.command, args.about, args.exit)
    with open(args.index, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
