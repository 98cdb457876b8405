#!/usr/bin/env python3
"""python_packages_h.py PACKAGES_H STDLIB: the host's table of built-in
Python packages (build/gen/python_packages.h): packages.sh's table of the
pure-Python ones, with the packages built into python.wasm (numpy) added
from their .dist-info in the runtime's tree: import name, distribution,
version, as install (pinning) and guidance read them. And the runtime's
Python version (WB_PYTHON_VERSION, "3.11"), from its own sysconfig data,
for the wheels install asks pip for: one source, the runtime as built."""
import glob
import os
import re
import sys

table, stdlib = sys.argv[1], sys.argv[2]
rows = []
for info in sorted(glob.glob(os.path.join(stdlib, '*.dist-info'))):
    meta = dict(line.split(': ', 1) for line in open(os.path.join(info, 'METADATA')).read().splitlines()
                if ': ' in line)
    for module in open(os.path.join(info, 'top_level.txt')).read().split():
        rows.append('    {"%s", "%s", "%s"},\n' % (module, meta['Name'], meta['Version']))
if not rows:
    sys.exit('python_packages_h.py: no .dist-info in %s' % stdlib)
version = set()
for data in glob.glob(os.path.join(stdlib, '_sysconfigdata_*.py')):
    version.update(re.findall(r"'VERSION': '(\d+\.\d+)'", open(data).read()))
if len(version) != 1:
    sys.exit('python_packages_h.py: no one VERSION in %s/_sysconfigdata_*.py: %s' % (stdlib, sorted(version)))
text = open(table).read()
end = text.rindex('};')
sys.stdout.write(text[:end] + ''.join(rows) + text[end:])
sys.stdout.write('\n/* the runtime\'s Python, major.minor (its sysconfig VERSION) */\n'
                 '#define WB_PYTHON_VERSION "%s"\n' % version.pop())
