"""fontlist.py OUT: the font list matplotlib's font_manager builds when it
finds no cache (FontManager()), written to OUT as its json_dump writes
fontlist-v330.json (matplotlib.sh). Run natively with the matplotlib
package being shipped (and an ft2font built for the host) first on
sys.path, so the list comes from the same code over the same fonts.

The guest sees only matplotlib's own fonts (mpl-data/fonts): the host's
system fonts are left out, and every path is relative to mpl-data, as
json_dump stores the fonts matplotlib ships."""
import json
import os
import sys

import matplotlib
from matplotlib import font_manager


def only_given_paths(find):
    def find_in(fontpaths=None, fontext='ttf'):
        return find(fontpaths, fontext) if fontpaths is not None else []
    return find_in


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: fontlist.py OUT')
    font_manager.findSystemFonts = only_given_paths(font_manager.findSystemFonts)
    fm = font_manager.FontManager()
    font_manager.json_dump(fm, sys.argv[1])
    data = matplotlib.get_data_path()
    with open(sys.argv[1]) as f:
        entries = json.load(f)['ttflist']
    outside = [e['fname'] for e in entries if os.path.isabs(e['fname'])]
    if outside or not any(e['name'] == 'DejaVu Sans' for e in entries):
        sys.exit('fontlist: fonts outside %s (%s) or no DejaVu Sans' % (data, outside))
    print('fontlist: %d TrueType and %d AFM fonts' % (len(entries), len(fm.afmlist)))


if __name__ == '__main__':
    main()
