#!/usr/bin/env python3
"""Record the operator's streamsmemory_* metrics for render.py.

Scrapes a Prometheus text endpoint every --interval seconds for --minutes and appends one JSON line per scrape:
  {"t": <epoch seconds>, "samples": [{"name": ..., "labels": {...}, "value": ...}]}
Only streamsmemory_* samples are kept: the picture shows the dashboard, and the dashboard reads nothing else.
A scrape that fails is reported on stderr and skipped (a gap in the lines, as in Prometheus); the script exits
non-zero when no scrape at all succeeded, so an empty recording is never mistaken for a quiet one.

Python 3 standard library only.
"""
import argparse
import json
import math
import re
import sys
import time
import urllib.request

PREFIX = "streamsmemory_"
# name, optional {labels}, value, optional timestamp (ms). Label values may hold '}' and escaped quotes, so the
# label block is matched as a sequence of quoted strings rather than "anything up to '}'".
SAMPLE_LINE = re.compile(
    r'^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)'
    r'(?:\{(?P<labels>(?:[^"}]|"(?:[^"\\]|\\.)*")*)\})?'
    r'\s+(?P<value>\S+)(?:\s+(?P<ts>-?\d+))?\s*$')
LABEL_PAIR = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')
ESCAPES = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}


def unescape(value):
    """Undo the text format's three escapes (\\\\, \\", \\n) in a label value."""
    return re.sub(r'\\[\\"n]', lambda m: ESCAPES[m.group(0)], value)


def parse_labels(text):
    """'a="1",b="x\\"y"' -> {"a": "1", "b": 'x"y'}; an unparsable block is an error, not a silent drop."""
    labels, pos = {}, 0
    while pos < len(text):
        m = LABEL_PAIR.match(text, pos)
        if not m:
            if text[pos:].strip():
                raise ValueError("bad label block: {%s}" % text)
            break
        labels[m.group(1)] = unescape(m.group(2))
        pos = m.end()
    return labels


def parse_value(text):
    """Go's float syntax as Prometheus writes it: NaN, +Inf, -Inf and ordinary numbers."""
    special = {"NaN": math.nan, "+Inf": math.inf, "Inf": math.inf, "-Inf": -math.inf}
    return special[text] if text in special else float(text)


def parse_exposition(text, prefix=PREFIX):
    """All samples whose metric name starts with prefix; comments (# HELP, # TYPE) and blank lines are skipped."""
    samples = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or not line.startswith(prefix):
            continue
        m = SAMPLE_LINE.match(line)
        if not m:
            raise ValueError("not a Prometheus sample line: %r" % line)
        samples.append({"name": m.group("name"), "labels": parse_labels(m.group("labels") or ""),
                        "value": parse_value(m.group("value"))})
    return samples


def to_json(value):
    """JSON has no NaN or Infinity: write them as the strings Prometheus uses; render.py reads them back."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return value


def scrape(url, timeout):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return parse_exposition(response.read().decode("utf-8"))


def record(url, interval, minutes, out):
    """Scrape on a fixed schedule (not sleep-after-scrape, which drifts) until the duration is over."""
    start = time.time()
    end = start + minutes * 60
    ok = 0
    tick = start
    while tick <= end:
        try:
            samples = scrape(url, timeout=min(interval, 10))
            out.write(json.dumps({"t": round(time.time(), 3), "samples": [
                dict(s, value=to_json(s["value"])) for s in samples]}, separators=(",", ":")) + "\n")
            out.flush()
            ok += 1
            print("record.py: %d samples at +%ds" % (len(samples), time.time() - start), file=sys.stderr)
        except (OSError, ValueError) as e:
            print("record.py: scrape of %s failed: %s" % (url, e), file=sys.stderr)
        tick += interval
        time.sleep(max(0.0, tick - time.time()))
    return ok


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", default="http://127.0.0.1:8080/q/metrics", help="Prometheus endpoint (default %(default)s)")
    p.add_argument("--interval", type=float, default=10, help="seconds between scrapes (default %(default)s)")
    p.add_argument("--minutes", type=float, default=10, help="how long to record (default %(default)s)")
    p.add_argument("--out", default="-", help="JSON lines file to write (default stdout)")
    args = p.parse_args()
    out = sys.stdout if args.out == "-" else open(args.out, "w", encoding="utf-8")
    try:
        ok = record(args.url, args.interval, args.minutes, out)
    finally:
        if out is not sys.stdout:
            out.close()
    if ok == 0:
        print("record.py: ERROR: no scrape of %s succeeded" % args.url, file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
