#!/usr/bin/env python3
"""svg_check: read the SVG charts gnuplot drew and fail where a reader would be misled.

  svg_check.py FILE.svg...

- Each panel's plot area is its border (common.gp's left and bottom axes, drawn by gnuplot as
  one path through the area's corners); two panels whose areas overlap are drawn on top of each
  other (what compare.gp did with common.gp's fixed margins). A chart with no area found fails:
  the check cannot see it.
- A fault window's translucent fill (#d62728, opacity < 0.5) drawn after a filled series it
  covers tints that series away from the colour its legend names (what stacked bars got).
Prints one line per problem; exit 1 if any.
"""
import re
import sys

BORDER = re.compile(r"d='M([\d.]+),([\d.]+) L\1,([\d.]+) L([\d.]+),\3 M\4,\2 M\1,\2\s*'")
POLY = re.compile(r"<polygon fill = 'rgb\(\s*(\d+),\s*(\d+),\s*(\d+)\)'"
                  r"(?: fill-opacity = '([\d.]+)')? points = '([^']*)'")
FAULT = (214, 39, 40)


def bbox(points):
    xy = [tuple(map(float, p.split(','))) for p in points.split()]
    xs, ys = [p[0] for p in xy], [p[1] for p in xy]
    return min(xs), min(ys), max(xs), max(ys)


def overlap(a, b):
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w > 0.5 and h > 0.5


def check(path):
    text = open(path, encoding='utf-8').read()
    bad = []
    # a panel's plots start at its gnuplot_plot_1 group (1a, 1b... in a multiplot); its area is
    # the last border drawn before, after the previous panel's start
    starts = [m.start() for m in re.finditer(r'id="gnuplot_plot_1[a-z]?"', text)]
    borders = [(m.start(), (float(m[1]), float(m[2]), float(m[4]), float(m[3])))
               for m in BORDER.finditer(text)]
    areas = []
    for i, s in enumerate(starts):
        lo = starts[i - 1] if i else -1
        mine = [b for at, b in borders if lo < at < s]
        if mine:
            areas.append(mine[-1])
        else:
            bad.append(f"{path}: panel {i + 1}: no plot area found (the check cannot see it)")
    if not starts:
        bad.append(f"{path}: no plot found (the check cannot see this chart)")
    for i, a in enumerate(areas):
        for b in areas[i + 1:]:
            if overlap(a, b):
                bad.append(f"{path}: two panels overlap: {a} and {b}")
    drawn = []  # filled series so far: (bbox, rgb)
    for m in POLY.finditer(text):
        rgb = tuple(int(m[k]) for k in (1, 2, 3))
        alpha = float(m[4]) if m[4] else 1.0
        box = bbox(m[5])
        if rgb == FAULT and alpha < 0.5:  # a series may be drawn in that red at 0.8
            hit = next((d for d in drawn if overlap(d[0], box)), None)
            if hit:
                bad.append(f"{path}: a fault window's fill is drawn over the series of colour "
                           f"rgb{hit[1]} at x {box[0]:.0f}-{box[2]:.0f}: its legend no longer "
                           f"names the colour shown")
        elif alpha >= 0.5:
            drawn.append((box, rgb))
    return bad, len(areas)


def main():
    problems, panels = [], 0
    for p in sys.argv[1:]:
        b, n = check(p)
        problems += b
        panels += n
    for p in problems:
        print(p)
    print(f"svg_check: {len(sys.argv) - 1} charts, {panels} panels, {len(problems)} problems")
    return 1 if problems or len(sys.argv) < 2 else 0


if __name__ == '__main__':
    sys.exit(main())
