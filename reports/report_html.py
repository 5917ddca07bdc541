"""The page model of a kvlab report and its two renderings: one self-contained HTML file (styles
inline, images as data: URIs, no script, no external asset) and Markdown (images as files next
to it).

A page is: a title, a subtitle naming the run, commit and machine, warnings, the summary (the
verdict's sentences and a summary table), a table of contents, then sections of blocks:
paragraphs, bullet lists, tables and figures.
"""

import base64
import html


class Cell:
    """A table cell: text, optionally muted (a difference that is not significant), a tooltip,
    or a colour swatch."""

    def __init__(self, text, muted=False, title=None, swatch=None, strong=False):
        self.text = text
        self.muted = muted
        self.title = title
        self.swatch = swatch
        self.strong = strong


class Table:
    def __init__(self, columns, rows, caption=None, numeric=None):
        self.columns = columns
        self.rows = rows
        self.caption = caption
        # Columns aligned right (numbers); default: every column but the first.
        self.numeric = numeric if numeric is not None else set(range(1, len(columns)))


class Figure:
    def __init__(self, name, png, caption, alt):
        self.name = name  # file name, e.g. "study-criteria.png"
        self.png = png  # bytes
        self.caption = caption
        self.alt = alt


class Section:
    def __init__(self, sid, title, blocks=None, level=2):
        self.id = sid
        self.title = title
        self.blocks = blocks or []
        self.level = level


class Page:
    def __init__(self, title):
        self.title = title
        self.subtitle = []
        self.warnings = []
        self.summary = []  # blocks
        self.sections = []


def text_of(cell):
    return cell.text if isinstance(cell, Cell) else str(cell)


STYLE = """
body{font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;max-width:1180px;margin:1.2em auto;
padding:0 1em;color:#1d1d1d;line-height:1.45}
h1{font-size:1.55em;margin-bottom:.2em}h2{font-size:1.25em;border-bottom:1px solid #ddd;padding-bottom:.2em;
margin-top:1.8em}h3{font-size:1.05em;margin-top:1.4em}
.subtitle{color:#555;font-size:.9em;margin:.1em 0}
.warning{background:#fff4e5;border-left:4px solid #f0a020;padding:.4em .8em;margin:.5em 0}
.summary{background:#f3f7fb;border:1px solid #cfe0f0;border-radius:6px;padding:.4em 1.1em;margin:1em 0}
table{border-collapse:collapse;margin:.6em 0;font-size:.86em}
th,td{border:1px solid #d8d8d8;padding:.22em .55em;vertical-align:top}
th{background:#f2f2f2;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.muted{color:#9a9a9a}td.strong{font-weight:600}
caption{caption-side:top;text-align:left;font-size:.95em;color:#444;padding-bottom:.2em}
.swatch{display:inline-block;width:.9em;height:.9em;border-radius:2px;margin-right:.35em;vertical-align:-.1em}
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #eee}
figcaption{font-size:.85em;color:#444}
nav.toc{font-size:.92em}nav.toc ul{margin:.2em 0}
code{background:#f4f4f4;padding:0 .2em}
"""


def _inline(text):
    """Escapes text; `code` spans become <code>."""
    parts = str(text).split("`")
    out = []
    for i, p in enumerate(parts):
        out.append(("<code>%s</code>" if i % 2 else "%s") % html.escape(p))
    return "".join(out)


def _html_block(block, out):
    kind = block[0]
    if kind == "p":
        out.append("<p>%s</p>" % _inline(block[1]))
    elif kind == "list":
        out.append("<ul>" + "".join("<li>%s</li>" % _inline(i) for i in block[1]) + "</ul>")
    elif kind == "table":
        t = block[1]
        out.append("<table>")
        if t.caption:
            out.append("<caption>%s</caption>" % _inline(t.caption))
        out.append("<tr>" + "".join("<th>%s</th>" % _inline(c) for c in t.columns) + "</tr>")
        for row in t.rows:
            cells = []
            for i, c in enumerate(row):
                classes = []
                if i in t.numeric:
                    classes.append("num")
                attrs = ""
                content = _inline(text_of(c))
                if isinstance(c, Cell):
                    if c.muted:
                        classes.append("muted")
                    if c.strong:
                        classes.append("strong")
                    if c.title:
                        attrs += ' title="%s"' % html.escape(c.title)
                    if c.swatch:
                        content = ('<span class="swatch" style="background:%s"></span>'
                                   % html.escape(c.swatch)) + content
                if classes:
                    attrs += ' class="%s"' % " ".join(classes)
                cells.append("<td%s>%s</td>" % (attrs, content))
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</table>")
    elif kind == "figure":
        f = block[1]
        data = base64.b64encode(f.png).decode("ascii")
        out.append('<figure><img src="data:image/png;base64,%s" alt="%s">'
                   '<figcaption>%s</figcaption></figure>'
                   % (data, html.escape(f.alt), _inline(f.caption)))
    else:
        raise ValueError("unknown block kind " + kind)


def render_html(page):
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           "<title>%s</title>" % html.escape(page.title), "<style>%s</style>" % STYLE,
           "</head><body>", "<h1>%s</h1>" % _inline(page.title)]
    for s in page.subtitle:
        out.append('<p class="subtitle">%s</p>' % _inline(s))
    for w in page.warnings:
        out.append('<div class="warning">%s</div>' % _inline(w))
    out.append('<section class="summary" id="summary"><h2>Summary</h2>')
    for b in page.summary:
        _html_block(b, out)
    out.append("</section>")
    out.append('<nav class="toc" id="contents"><h2>Contents</h2><ul>')
    for s in page.sections:
        indent = "&nbsp;&nbsp;&nbsp;&nbsp;" if s.level > 2 else ""
        out.append('<li>%s<a href="#%s">%s</a></li>' % (indent, html.escape(s.id), _inline(s.title)))
    out.append("</ul></nav>")
    for s in page.sections:
        out.append('<section id="%s"><h%d>%s</h%d>' % (html.escape(s.id), s.level, _inline(s.title),
                                                      s.level))
        for b in s.blocks:
            _html_block(b, out)
        out.append("</section>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _md_escape(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _md_block(block, out):
    kind = block[0]
    if kind == "p":
        out += [block[1], ""]
    elif kind == "list":
        out += ["- " + i for i in block[1]] + [""]
    elif kind == "table":
        t = block[1]
        if t.caption:
            out += ["**%s**" % t.caption, ""]
        out.append("| " + " | ".join(_md_escape(c) for c in t.columns) + " |")
        out.append("|" + "|".join("---:" if i in t.numeric else "---"
                                  for i in range(len(t.columns))) + "|")
        for row in t.rows:
            out.append("| " + " | ".join(_md_escape(text_of(c)) for c in row) + " |")
        out.append("")
    elif kind == "figure":
        f = block[1]
        out += ["![%s](%s)" % (f.alt, f.name), "", "*%s*" % f.caption, ""]


def render_markdown(page):
    out = ["# " + page.title, ""]
    for s in page.subtitle:
        out += [s + "  "]
    out.append("")
    for w in page.warnings:
        out += ["> **Warning:** " + w, ""]
    out += ["## Summary", ""]
    for b in page.summary:
        _md_block(b, out)
    out += ["## Contents", ""]
    for s in page.sections:
        indent = "  " if s.level > 2 else ""
        out.append("%s- [%s](#%s)" % (indent, s.title, s.id))
    out.append("")
    for s in page.sections:
        out += ['<a id="%s"></a>' % s.id, "", "#" * s.level + " " + s.title, ""]
        for b in s.blocks:
            _md_block(b, out)
    return "\n".join(out) + "\n"


def figures_of(page):
    for blocks in [page.summary] + [s.blocks for s in page.sections]:
        for b in blocks:
            if b[0] == "figure":
                yield b[1]
