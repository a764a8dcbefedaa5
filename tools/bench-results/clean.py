#!/usr/bin/env python3
"""Turns a benchmark's console output into a result file: a header (subject, date, command, commit, machine, load)
followed by the output without ANSI escapes and without log noise (logger lines, SLF4J notices, stack traces of
client threads closing at shutdown, script chatter). Used by bin/bench for every run.

    clean.py --subject redis-throughput --command "bin/bench redis" --commit 1a2b3c4 \
             --machine "..." --load "1.2 -> 3.4" --date 2026-12-02T19:00Z < raw.txt > result.txt

Fields not given are written as "not recorded". The measured lines (rounds, RESULT, RATIO, BROKER, PROBE, tables)
are kept byte for byte apart from the escapes.
"""
import argparse
import re
import sys

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
NOISE = [
    re.compile(r"^SLF4J(\(\w\))?: "),                                              # SLF4J provider notices
    re.compile(r"^\d{2}:\d{2}:\d{2}(\.\d+)? \[[^\]]*\] (TRACE|DEBUG|INFO|WARN|ERROR) "),  # simplelogger/logback
    re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z? (TRACE|DEBUG|INFO|WARN|ERROR) "),
    re.compile(r"^[A-Z][a-z]{2} \d{1,2}, \d{4} \d{1,2}:\d{2}:\d{2} [AP]M \S+ \S+$"),  # java.util.logging, first line
    re.compile(r"^(SEVERE|WARNING|INFO|CONFIG|FINE|FINER|FINEST): "),               # java.util.logging, second line
    re.compile(r'^Exception in thread "[^"]*" '),                                   # a client thread dying at close
    re.compile(r"^\s+at [\w$.<>/]+\(.*\)$"),                                        # its stack
    re.compile(r"^\s*\.\.\. \d+ more$"),
    re.compile(r"^Caused by: "),
    re.compile(r"^\[control-plane\] "),                                             # script chatter
    re.compile(r"^fetching helm and kubectl "),
    re.compile(r"^starting (Redis|RabbitMQ) on "),
    re.compile(r"^\[INFO\]|^\[WARNING\]"),                                          # Maven
]


def clean(text):
    out = []
    for line in ANSI.sub("", text).replace("\r\n", "\n").split("\n"):
        line = line.rstrip()
        if any(p.search(line) for p in NOISE):
            continue
        out.append(line)
    cleaned = "\n".join(out)
    cleaned = re.sub(r"\n{3,}", "\n\n", cleaned)
    return cleaned.strip("\n") + "\n"


def header(subject, date, command, commit, machine, load, notes=None):
    def value(v):
        return v if v else "not recorded"
    lines = [
        "subject: " + subject,
        "date:    " + value(date),
        "command: " + value(command),
        "commit:  " + value(commit),
        "machine: " + value(machine),
        "load:    " + value(load),
    ]
    if notes:
        lines.append("notes:   " + notes)
    return "\n".join(lines) + "\n" + "-" * 100 + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name in ("subject", "date", "command", "commit", "machine", "load", "notes"):
        parser.add_argument("--" + name, required=(name == "subject"))
    args = parser.parse_args()
    raw = sys.stdin.read()
    sys.stdout.write(header(args.subject, args.date, args.command, args.commit, args.machine, args.load, args.notes))
    sys.stdout.write(clean(raw))


if __name__ == "__main__":
    main()
