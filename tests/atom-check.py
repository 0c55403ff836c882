#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Checks that FILE is a valid Atom feed (RFC 4287: the feed's id, title,
# updated, author name and self link; each entry's id, title, updated,
# link and content; RFC 3339 times; unique entry ids) and prints the
# number of entries and their category terms, comma-separated.
#   atom-check.py FILE
import re, sys, xml.etree.ElementTree as ET
A = "{http://www.w3.org/2005/Atom}"
feed = ET.parse(sys.argv[1]).getroot()
assert feed.tag == A + "feed", feed.tag
for t in ("id", "title", "updated", "author"):
    assert feed.find(A + t) is not None, "feed lacks " + t
assert feed.find(A + "author/" + A + "name").text
assert any(l.get("rel") == "self" for l in feed.findall(A + "link"))
rfc3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
assert rfc3339.match(feed.find(A + "updated").text)
ids = set()
for e in feed.findall(A + "entry"):
    for t in ("id", "title", "updated", "link", "content"):
        assert e.find(A + t) is not None, "entry lacks " + t
    assert rfc3339.match(e.find(A + "updated").text)
    assert e.find(A + "link").get("href").startswith("http")
    ids.add(e.find(A + "id").text)
entries = feed.findall(A + "entry")
assert len(ids) == len(entries), "entry ids are not unique"
print(len(entries), ",".join(c.get("term") for e in entries
                             for c in e.findall(A + "category")))
