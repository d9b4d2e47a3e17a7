#!/usr/bin/env python3
"""Render a Grafana dashboard's timeseries panels to a PNG from a recording made by record.py.

Not Grafana (its licence keeps it out of this project): each panel target's expr is evaluated here the way
Prometheus would at every recorded scrape, for the subset of PromQL the dashboard uses:
  - a selector: name{label="v", label!="v", label=~"regex", label!~"regex"} (regexes fully anchored);
  - sum by (labels) (selector), also written sum (selector) by (labels), and sum (selector);
  - template variables $var, ${var} and [[var]] of the dashboard mean "All", i.e. the regex .*; they are only
    allowed in =~ and !~ matchers, where .* means what Grafana's "All" does.
Anything else is an error naming the expr. legendFormat's {{label}} is applied as Grafana does; the panels are
laid out by gridPos on Grafana's 24-column grid.

The renderer does not draw a picture that hides missing data: it exits non-zero (status 3) when any panel target
yields no series in the recording, naming the panel, refId and expr. A target named with --allow-empty
'PANEL TITLE/REFID' is drawn instead, with "No data" in its panel and legend, as Grafana would show it.
"""
import argparse
import datetime
import json
import math
import re
import sys

import matplotlib

matplotlib.use("Agg")  # no display: the only output is the PNG
import matplotlib.dates as mdates  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402
from matplotlib.ticker import FuncFormatter, MaxNLocator  # noqa: E402

# Grafana's dark theme and its classic palette, so the picture reads like the dashboard it stands for.
BACKGROUND, PANEL, BORDER, TEXT, GRID = "#111217", "#181b1f", "#2c3235", "#ccccdc", "#2c3235"
PALETTE = ["#7EB26D", "#EAB839", "#6ED0E0", "#EF843C", "#E24D42", "#1F78C1", "#BA43A9", "#705DA0", "#508642",
           "#CCA300", "#447EBC", "#C15C17"]
# Pixels: Grafana's row height (30) plus its vertical margin (8); the picture's width; the fixed parts of a panel.
ROW_PX, WIDTH_PX, HEADER_PX, FOOTER_PX, MARGIN_PX = 38, 1600, 44, 26, 8
TITLE_PX, XAXIS_PX, YAXIS_PX, LEGEND_ROW_PX = 30, 22, 64, 19  # a 9 pt legend row with its spacing, at 100 dpi
DPI = 100


class NoSeries(Exception):
    """A panel target found nothing in the recording: a picture without it would look complete and not be."""


class Unsupported(Exception):
    """An expr or panel outside what this renderer evaluates: failing beats drawing what Grafana would not."""


# --- PromQL subset ---------------------------------------------------------------------------------------------

AGGREGATION = re.compile(
    r'^\s*sum\s*(?:by\s*\((?P<by1>[^)]*)\))?\s*\((?P<inner>.*?)\)\s*(?:by\s*\((?P<by2>[^)]*)\))?\s*$', re.S)
SELECTOR = re.compile(r'^\s*(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)?\s*(?:\{(?P<matchers>.*)\})?\s*$', re.S)
MATCHER = re.compile(r'\s*(?P<label>[a-zA-Z_][a-zA-Z0-9_]*)\s*(?P<op>=~|!~|!=|=)\s*'
                     r'(?P<value>"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\')\s*(?:,|$)')
VARIABLE = re.compile(r'\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]')
STRING_ESCAPES = {"\\": "\\", '"': '"', "'": "'", "n": "\n", "t": "\t"}


def parse_string(quoted, expr):
    """A PromQL string literal without its quotes and escapes (only the escapes a label value needs)."""
    def unescape(m):
        if m.group(1) not in STRING_ESCAPES:
            raise Unsupported("unsupported escape \\%s in %s" % (m.group(1), expr))
        return STRING_ESCAPES[m.group(1)]
    return re.sub(r"\\(.)", unescape, quoted[1:-1])


def parse_matchers(text, expr, variables):
    """'a="x", b=~"$var"' -> [(label, op, value)], with dashboard variables replaced by the regex for "All"."""
    matchers, pos = [], 0
    while text[pos:].strip():
        m = MATCHER.match(text, pos)
        if not m:
            raise Unsupported("cannot parse the matchers of %s" % expr)
        value = parse_string(m.group("value"), expr)
        used = [next(g for g in v.groups() if g) for v in VARIABLE.finditer(value)]
        unknown = [name for name in used if name not in variables]
        if unknown:
            raise Unsupported("unknown template variable $%s in %s" % (unknown[0], expr))
        if used and m.group("op") in ("=", "!="):
            # "All" is the regex .*; in an equality matcher it would be the literal text ".*".
            raise Unsupported("template variable in a %s matcher (only =~ and !~ can mean All) in %s"
                            % (m.group("op"), expr))
        matchers.append((m.group("label"), m.group("op"), VARIABLE.sub(".*", value)))
        pos = m.end()
    return matchers


def parse_selector(text, expr, variables):
    m = SELECTOR.match(text)
    if not m or not (m.group("name") or m.group("matchers")):
        raise Unsupported("not a selector or sum by (...) (selector): %s" % expr)
    matchers = parse_matchers(m.group("matchers") or "", expr, variables)
    if m.group("name"):
        matchers.append(("__name__", "=", m.group("name")))
    return matchers


def parse_expr(expr, variables):
    """expr -> (matchers, by): by is None for a bare selector, else the tuple of labels kept by the sum."""
    m = AGGREGATION.match(expr)
    if m:
        if m.group("by1") is not None and m.group("by2") is not None:
            raise Unsupported("two by clauses in %s" % expr)
        by_text = m.group("by1") if m.group("by1") is not None else (m.group("by2") or "")
        by = tuple(label.strip() for label in by_text.split(",") if label.strip())
        return parse_selector(m.group("inner"), expr, variables), by
    return parse_selector(expr, expr, variables), None


def matches(labels, matchers):
    """Prometheus semantics: a missing label is the empty string; regexes match the whole value."""
    for label, op, value in matchers:
        actual = labels.get(label, "")
        if op == "=" and actual != value or op == "!=" and actual == value:
            return False
        if op in ("=~", "!~") and (re.fullmatch(value, actual) is not None) != (op == "=~"):
            return False
    return True


def evaluate(query, samples):
    """One instant: {labelset: value}. A bare selector keeps the metric name; sum by keeps only the by labels."""
    matchers, by = query
    result = {}
    for sample in samples:
        labels = dict(sample["labels"], __name__=sample["name"])
        if not matches(labels, matchers):
            continue
        if by is None:
            result[tuple(sorted(labels.items()))] = sample["value"]
        else:
            key = tuple(sorted((label, labels.get(label, "")) for label in by if labels.get(label, "")))
            result[key] = result.get(key, 0.0) + sample["value"]  # NaN propagates, as in Prometheus
    return result


def series_over_time(query, recording):
    """{labelset: [value per scrape]}; NaN where the series was absent, so the line has a gap like Grafana's."""
    times = [scrape["t"] for scrape in recording]
    series = {}
    for i, scrape in enumerate(recording):
        for key, value in evaluate(query, scrape["samples"]).items():
            series.setdefault(key, [math.nan] * len(times))[i] = value
    return series


def legend(legend_format, labels):
    """Grafana's legendFormat: {{label}} becomes its value (empty when absent); no format: name{labels}."""
    labels = dict(labels)
    if legend_format:
        return re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: labels.get(m.group(1), ""), legend_format).strip()
    name = labels.pop("__name__", "")
    return name + "{" + ", ".join('%s="%s"' % kv for kv in sorted(labels.items())) + "}"


# --- inputs ----------------------------------------------------------------------------------------------------

def load_recording(path):
    """record.py's JSON lines, values back to floats (NaN and the infinities travel as strings)."""
    recording = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                scrape = json.loads(line)
                for sample in scrape["samples"]:
                    sample["value"] = float(sample["value"])
                recording.append(scrape)
    if not recording:
        raise SystemExit("render.py: ERROR: %s holds no scrapes" % path)
    return recording


def dashboard_variables(dashboard):
    return {v["name"] for v in dashboard.get("templating", {}).get("list", [])}


def panel_series(panel, variables, recording, allow_empty):
    """[(legend, values)] for every series of every target; apart, the refIds that found nothing, as allowed."""
    drawn, empty = [], []
    for target in panel.get("targets", []):
        expr = target.get("expr", "")
        try:
            found = series_over_time(parse_expr(expr, variables), recording)
        except re.error as e:
            raise Unsupported("bad regex in %s: %s" % (expr, e))
        if not found:
            name = "%s/%s" % (panel.get("title", ""), target.get("refId", ""))
            if name not in allow_empty:
                raise NoSeries("panel %r target %s yields no series in the recording: %s"
                                  % (panel.get("title"), target.get("refId"), expr))
            empty.append(target.get("refId", ""))
        for key in sorted(found):
            drawn.append((legend(target.get("legendFormat", ""), key), found[key]))
    return drawn, empty


# --- drawing ---------------------------------------------------------------------------------------------------

def format_bytes(value, _pos=None):
    """Grafana's "bytes" unit: binary multiples, B to TiB; three significant digits, but 1010 MiB, not 1.01e+03."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            text = "%.*f" % (0 if abs(value) >= 100 else 1 if abs(value) >= 10 else 2, value)
            return "%s %s" % (text.rstrip("0").rstrip(".") if "." in text else text, unit)
        value /= 1024.0


def byte_ticks(ax):
    """Ticks at round numbers of the unit the axis is read in (256 MiB, 1 GiB), not at round decimal bytes."""
    lo, hi = ax.get_ylim()
    scale = 1
    while max(abs(lo), abs(hi)) / scale >= 1024 and scale < 1024 ** 4:
        scale *= 1024
    ticks = MaxNLocator(nbins=5, steps=[1, 2, 2.5, 4, 5, 10]).tick_values(lo / scale, hi / scale) * scale
    ax.set_yticks([t for t in ticks if lo <= t <= hi])
    ax.yaxis.set_major_formatter(FuncFormatter(format_bytes))


def legend_with_last(label, values, unit):
    """The legend with the series' last value, as Grafana's legend calculation "Last *" shows it: lines that lie
    on top of each other (two workloads with the same plan) stay readable in a still picture."""
    last = next((v for v in reversed(values) if not math.isnan(v)), math.nan)
    return "%s   %s" % (label, format_bytes(last) if unit == "bytes" else "%g" % last)


def legend_columns(labels, width_px):
    """As many columns as the longest label allows in the panel's width (about 7 px a character plus the key)."""
    longest = max((len(label) for label in labels), default=1)
    return max(1, min(len(labels), int((width_px - 16) // (longest * 7 + 36))))


def panel_box(grid_pos):
    """gridPos (24 columns, rows of ROW_PX) -> the panel's pixel box (left, top, width, height) below the header."""
    col_px = (WIDTH_PX - MARGIN_PX) / 24.0
    left = MARGIN_PX + grid_pos["x"] * col_px
    top = HEADER_PX + grid_pos["y"] * ROW_PX
    return left, top, grid_pos["w"] * col_px - MARGIN_PX, grid_pos["h"] * ROW_PX - MARGIN_PX


def fig_rect(fig, left, top, width, height):
    """Pixel box measured from the top-left -> matplotlib's figure fraction, measured from the bottom-left."""
    W, H = fig.get_size_inches() * DPI
    return [left / W, 1 - (top + height) / H, width / W, height / H]


def draw_panel(fig, panel, drawn, empty, times):
    left, top, width, height = panel_box(panel["gridPos"])
    x, y, w, h = fig_rect(fig, left, top, width, height)
    # zorder below the axes (0): a figure patch is drawn over them otherwise.
    fig.patches.append(Rectangle((x, y), w, h, transform=fig.transFigure, facecolor=PANEL, edgecolor=BORDER,
                                 zorder=-1))
    fig.text(*fig_rect(fig, left + 10, top + 8, 0, 0)[:2], panel.get("title", ""), color=TEXT, fontsize=11,
             fontweight="bold", va="top", ha="left")
    unit = panel.get("fieldConfig", {}).get("defaults", {}).get("unit", "short")
    labels = [legend_with_last(label, values, unit) for label, values in drawn] + ["%s: No data" % r for r in empty]
    columns = legend_columns(labels, width)
    legend_px = math.ceil(len(labels) / columns) * LEGEND_ROW_PX + 6
    plot_h = height - TITLE_PX - XAXIS_PX - legend_px
    ax = fig.add_axes(fig_rect(fig, left + YAXIS_PX, top + TITLE_PX, width - YAXIS_PX - 12, plot_h))
    style_axes(ax)
    for i, (label, values) in enumerate(drawn):
        ax.plot(times, values, color=PALETTE[i % len(PALETTE)], linewidth=1.6, label=labels[i])
    for ref in empty:
        ax.plot([], [], color=BORDER, linewidth=1.6, label="%s: No data" % ref)
    if not drawn:
        ax.text(0.5, 0.5, "No data", transform=ax.transAxes, color=TEXT, fontsize=14, ha="center", va="center")
    ax.set_xlim(times[0], times[-1])
    finish_y_axis(ax, unit, drawn)
    handles, texts = ax.get_legend_handles_labels()
    fig.legend(handles, texts, loc="upper left", ncol=columns, frameon=False, fontsize=9, labelcolor=TEXT,
               handlelength=1.4, columnspacing=1.2, borderaxespad=0, borderpad=0,
               bbox_to_anchor=fig_rect(fig, left + 10, top + height - legend_px + 2, 0, 0)[:2])


def style_axes(ax):
    ax.set_facecolor(PANEL)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.tick_params(colors=TEXT, labelsize=8.5, length=0)
    ax.grid(True, color=GRID, linewidth=0.8)
    # UTC, stated in the footer: the recording's epoch seconds have no time zone of their own.
    ax.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M", tz=datetime.timezone.utc))
    locator = mdates.AutoDateLocator(minticks=5, maxticks=8, tz=datetime.timezone.utc)
    locator.intervald[mdates.MINUTELY] = [1, 2, 5, 10, 15, 30]  # 2 minutes apart, not 5, for a 10-minute recording
    ax.xaxis.set_major_locator(locator)


def finish_y_axis(ax, unit, drawn):
    """From zero when nothing is negative: planned and observed are compared by height, and an automatic range
    would magnify a few MiB of noise into a cliff. Bytes panels get binary units; counts get whole numbers."""
    values = [v for _, vs in drawn for v in vs if not math.isnan(v)]
    top = max(values, default=1) or 1
    bottom = min(values, default=0)
    ax.set_ylim(min(0, bottom * 1.08), top * 1.12)
    if unit == "bytes":
        byte_ticks(ax)
    else:
        ax.yaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))


def render(dashboard, recording, allow_empty, out, source):
    variables = dashboard_variables(dashboard)
    panels = dashboard.get("panels", [])
    for panel in panels:
        if panel.get("type") != "timeseries":  # a hole in the layout would be a silent omission
            raise Unsupported("panel %r is a %s; only timeseries panels are drawn"
                              % (panel.get("title"), panel.get("type")))
    times = [datetime.datetime.fromtimestamp(s["t"], datetime.timezone.utc) for s in recording]
    drawn = [panel_series(p, variables, recording, allow_empty) for p in panels]
    rows = max(p["gridPos"]["y"] + p["gridPos"]["h"] for p in panels)
    fig = plt.figure(figsize=(WIDTH_PX / DPI, (HEADER_PX + rows * ROW_PX + FOOTER_PX) / DPI), dpi=DPI,
                     facecolor=BACKGROUND)
    fig.text(*fig_rect(fig, MARGIN_PX + 2, 12, 0, 0)[:2], dashboard.get("title", ""), color=TEXT, fontsize=14,
             va="top", ha="left")
    span = "%s to %s UTC" % (times[0].strftime("%Y-%m-%d %H:%M:%S"), times[-1].strftime("%H:%M:%S"))
    fig.text(*fig_rect(fig, WIDTH_PX - MARGIN_PX - 2, 14, 0, 0)[:2], "namespace: All   workload: All   " + span,
             color=TEXT, fontsize=10, va="top", ha="right")
    for panel, (series, empty) in zip(panels, drawn):
        draw_panel(fig, panel, series, empty, times)
    fig.text(*fig_rect(fig, MARGIN_PX + 2, HEADER_PX + rows * ROW_PX + 4, 0, 0)[:2],
             "Not a Grafana screenshot: rendered by src/scripts/dashboard/render.py from the dashboard's own panel "
             "queries over %d scrapes of %s" % (len(recording), source), color="#8e8e9e", fontsize=8.5, va="top")
    fig.savefig(out, dpi=DPI, facecolor=BACKGROUND)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dashboard", default="deploy/monitoring/grafana-dashboard.json")
    p.add_argument("--recording", required=True, help="JSON lines written by record.py")
    p.add_argument("--out", default="docs/dashboard.png")
    p.add_argument("--allow-empty", action="append", default=[], metavar="'PANEL TITLE/REFID'",
                   help="a target that may yield no series: drawn as No data instead of failing (repeatable)")
    p.add_argument("--source", default="a recording", help="what the footer says the figures come from")
    args = p.parse_args()
    try:
        with open(args.dashboard, encoding="utf-8") as f:
            dashboard = json.load(f)
        render(dashboard, load_recording(args.recording), set(args.allow_empty), args.out, args.source)
    except (OSError, ValueError, Unsupported) as e:
        sys.exit("render.py: ERROR: %s" % e)
    except NoSeries as e:
        print("render.py: ERROR: %s (nothing written; --allow-empty 'TITLE/REFID' draws it as No data)" % e,
              file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
