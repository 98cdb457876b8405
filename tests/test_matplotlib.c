/* matplotlib built into the Python runtime (runtimes/python/matplotlib.sh):
 * pyplot draws with Agg and saves a PNG (mathtext and FreeType included),
 * the font list comes with the runtime (nothing is built at the call), every
 * method of every extension can be called (none traps on its signature),
 * C++ exceptions thrown in each C++ module arrive as the Python exceptions
 * native matplotlib 3.3.4 raises (outputs as it prints them, on Debian's
 * python3.11; a missing file's errno is WASI's ENOENT, 44), and qhull's
 * errors (a longjmp) are RuntimeError and ValueError, not a trap. */
#include "harness.h"

static const char plot[] =
    "import matplotlib, os\n"
    "matplotlib.use('Agg')\n"
    "import matplotlib.pyplot as plt\n"
    "from matplotlib import font_manager\n"
    "from PIL import Image\n"
    "plt.plot([1, 2, 3], [3, 1, 2])\n"
    "plt.title(r'$\\alpha^2 + \\sqrt{x}$ wasmbox')\n"
    "plt.savefig('p.png')\n"
    "im = Image.open('p.png').convert('RGB')\n"
    "blue = sum(1 for p in im.getdata() if p == (31, 119, 180))\n"
    "print(matplotlib.__version__, matplotlib.get_backend(), im.size, blue > 300)\n"
    "print(len(font_manager.fontManager.ttflist), font_manager.findfont('DejaVu Sans').rsplit('/', 1)[1],\n"
    "      os.path.exists(os.path.join(matplotlib.get_cachedir(), 'fontlist-v330.json')))\n"
    "print(sorted(os.listdir('.')))\n";

static const char expected[] = "3.3.4 agg (640, 480) True\n38 DejaVuSans.ttf False\n['p.png']\n";

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The plot as native matplotlib draws it (640x480 at 100 dpi, the line in
 * C0 blue); the guest reads only matplotlib's own fonts (38 TrueType files),
 * from the list built with the runtime, and writes no cache of its own: the
 * workspace (the home) holds the PNG alone. */
static void test_pyplot_saves_a_png(void **s) {
  (void)s;
  char *dir = make_dir();
  wasmbox_result *r = run_py_in(plot, dir);
  expect_status(r, WASMBOX_STATUS_OK);
  if (strcmp(r->stdout_data, expected) != 0 || r->stderr_len) dump(r);
  assert_string_equal(r->stdout_data, expected);
  assert_int_equal(r->stderr_len, 0);
  wasmbox_result_free(r);
  char path[4096];
  snprintf(path, sizeof path, "%s/p.png", dir);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  unsigned char b[24];
  assert_int_equal(fread(b, 1, sizeof b, f), sizeof b);
  fclose(f);
  assert_memory_equal(b, "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
  assert_int_equal(be32(b + 16), 640);
  assert_int_equal(be32(b + 20), 480);
  rm_tree(dir);
  free(dir);
}

/* The modules are built in under their dotted names (_qhull's and _ttconv's
 * __name__ is "qhull" and "ttconv", as natively). Every callable of the
 * modules and of an instance of each type, called
 * without arguments: 67 calls, what native matplotlib counts, each returning
 * or raising as there (a method whose function pointer had another signature
 * would trap instead). */
static void test_every_method_can_be_called(void **s) {
  (void)s;
  expect_output(
      "import numpy as np, matplotlib, os, sys\n"
      "from matplotlib import _path, _image, _contour, _tri, _qhull, ft2font, _ttconv\n"
      "from matplotlib.backends import _backend_agg\n"
      "mods = [_path, _image, _contour, _tri, _qhull, ft2font, _ttconv, _backend_agg]\n"
      "names = ['matplotlib.' + n for n in ('_path', '_image', '_contour', '_tri', '_qhull', 'ft2font', '_ttconv',\n"
      "  'backends._backend_agg')]\n"
      "print(all(n in sys.builtin_module_names for n in names))\n"
      "font = ft2font.FT2Font(os.path.join(matplotlib.get_data_path(), 'fonts/ttf/DejaVuSans.ttf'))\n"
      "objs = mods + [font, _backend_agg.RendererAgg(10, 10, 72),\n"
      "  _tri.Triangulation(np.array([0., 1, 0]), np.array([0., 0, 1]), np.array([[0, 1, 2]], np.int32),\n"
      "    np.array([False]), np.zeros((0, 2), np.int32), np.zeros((0, 3), np.int32), True),\n"
      "  _contour.QuadContourGenerator(np.array([[0., 1], [0, 1]]), np.array([[0., 0], [1, 1]]),\n"
      "    np.array([[0., 1], [1, 2]]), None, True, 0)]\n"
      "calls, raised = 0, {}\n"
      "for o in objs:\n"
      "    for name in sorted(dir(o)):\n"
      "        f = getattr(o, name)\n"
      "        if name.startswith('__') or not callable(f) or isinstance(f, type):\n"
      "            continue\n"
      "        calls += 1\n"
      "        try:\n"
      "            f()\n"
      "        except Exception as e:\n"
      "            raised[type(e).__name__] = raised.get(type(e).__name__, 0) + 1\n"
      "print(calls, sorted(raised.items()))\n",
      NULL, "True\n67 [('TypeError', 49), ('ValueError', 2)]\n");
}

/* A C++ exception from each C++ module, caught by matplotlib's wrapper as
 * natively. The canvas too big for wasm32's memory is the one difference:
 * natively it is allocated; here it is std::bad_alloc, MemoryError. */
static void test_cxx_exceptions_are_python_exceptions(void **s) {
  (void)s;
  char *dir = make_dir();
  expect_output(
      "import numpy as np\n"
      "from matplotlib import _path, _image, ft2font\n"
      "from matplotlib.backends import _backend_agg\n"
      "import matplotlib.tri as mtri\n"
      "open('text.ttf', 'w').write('not a font\\n')\n"
      "def show(what, f):\n"
      "    try:\n"
      "        f(); print(what, 'no error')\n"
      "    except Exception as e:\n"
      "        print(what, type(e).__name__, e)\n"
      "show('ft2font', lambda: ft2font.FT2Font('text.ttf'))\n"
      "show('ft2font missing', lambda: ft2font.FT2Font('missing.ttf'))\n"
      "show('_path', lambda: _path.affine_transform(np.zeros((3, 3)), np.eye(3)))\n"
      "show('_image', lambda: _image.pcolor(np.zeros(2, np.float32), np.zeros(2, np.float32),\n"
      "                                     np.zeros((2, 2, 4), np.uint8), 0, 0, (0, 1, 0, 1), 0))\n"
      "show('_backend_agg', lambda: _backend_agg.RendererAgg(40000, 40000, 72))\n"
      "tri = mtri.Triangulation([0, 1, 0, 1], [0, 0, 1, 1], [[0, 1, 2], [0, 1, 3]])\n"
      "show('_tri', lambda: mtri.TrapezoidMapTriFinder(tri))\n"
      "show('_tri ok', lambda: print(mtri.TrapezoidMapTriFinder(mtri.Triangulation([0, 1, 0, 1], [0, 0, 1, "
      "1]))(0.2, 0.2)))\n",
      dir,
      "ft2font RuntimeError In FT2Font: Can not load face (error code 0x55)\n"
      "ft2font missing FileNotFoundError [Errno 44] No such file or directory: 'missing.ttf'\n"
      "_path RuntimeError In affine_transform: Invalid vertices array.\n"
      "_image RuntimeError In pcolor: Cannot scale to zero size\n"
      "_backend_agg MemoryError In RendererAgg: Out of memory\n"
      "_tri RuntimeError In initialize: Triangulation is invalid\n"
      "0\n"
      "_tri ok no error\n");
  rm_tree(dir);
  free(dir);
}

/* Points on a line: qhull's error (its longjmp to qh_new_qhull) is the
 * RuntimeError native matplotlib raises; too few points are ValueError;
 * the next triangulation works. */
static void test_qhull_errors_are_exceptions(void **s) {
  (void)s;
  expect_output(
      "import numpy as np\n"
      "import matplotlib.tri as mtri\n"
      "from matplotlib import _qhull\n"
      "x = np.linspace(0.0, 10.0, 11)\n"
      "for xs, ys in ((x, x), ([1, 2, 1], [5, 6, 5]), (np.append(x, 2.0), np.append(x, 8.0))):\n"
      "    try:\n"
      "        t = mtri.Triangulation(xs, ys); print(len(t.triangles), t.triangles.min(), "
      "t.triangles.max())\n"
      "    except Exception as e:\n"
      "        print(type(e).__name__, e)\n"
      "print(_qhull.version())\n",
      NULL,
      "RuntimeError Error in qhull Delaunay triangulation calculation: singular input data "
      "(exitcode=2); use python verbose option (-v) to see original qhull error.\n"
      "ValueError x and y arrays must consist of at least 3 unique points\n"
      "10 0 11\n"
      "b'2020.2.r 2020/08/31'\n");
  wasmbox_result *r =
      expect_exception("import matplotlib.tri as mtri\nmtri.Triangulation([0, 1, 2], [0, 1, 2])", NULL, "RuntimeError");
  wasmbox_result_free(r);
}

/* Code run in a new workspace must finish ok, print exactly `out` and
 * write nothing to stderr (no warning either). */
static void expect_quiet_output(const char *code, const char *out) {
  char *dir = make_dir();
  wasmbox_result *r = run_py_in(code, dir);
  if (r->status != WASMBOX_STATUS_OK || strcmp(r->stdout_data, out) || r->stderr_len) dump(r);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, out);
  assert_int_equal(r->stderr_len, 0);
  wasmbox_result_free(r);
  rm_tree(dir);
  free(dir);
}

/* No screen: plt.show() saves each open figure as /app/figure_N.png (N its
 * number, or the next free one) and closes them, as closing their windows
 * would; fig.show() saves one and keeps it; in interactive mode (plt.ion())
 * plt.show() does not close, as it does not block natively. */
static void test_show_saves_each_figure(void **s) {
  (void)s;
  expect_quiet_output(
      "import matplotlib.pyplot as plt, os\n"
      "from PIL import Image\n"
      "plt.plot([1, 2, 3], [3, 1, 2]); plt.figure(); plt.bar([1, 2], [2, 1]); plt.show()\n"
      "fig = plt.figure(); fig.gca().plot([1, 2]); fig.show()\n"
      "print(plt.get_fignums()); plt.show(); print(plt.get_fignums())\n"
      "plt.ion(); plt.plot([1, 2]); plt.show(); print(plt.get_fignums())\n"
      "print(sorted(os.listdir('.')), Image.open('figure_2.png').size)\n",
      "[1]\n[]\n[1]\n"
      "['figure_1.png', 'figure_2.png', 'figure_3.png', 'figure_4.png', 'figure_5.png'] "
      "(640, 480)\n");
}

/* PostScript's text through ttconv: its default Type 3 fonts (each glyph a
 * procedure; clang-19 had merged a variadic virtual call with another into
 * one of the wrong type, a trap, until matplotlib.sh turned that merge off)
 * and Type 42. The glyph H as native matplotlib 3.3.4 writes it. */
static void test_postscript_fonts(void **s) {
  (void)s;
  expect_quiet_output(
      "import matplotlib.pyplot as plt\n"
      "plt.plot([1, 2]); plt.title('Hi')\n"
      "plt.savefig('t3.ps'); plt.savefig('t3.eps')\n"
      "plt.rcParams['ps.fonttype'] = 42\n"
      "plt.savefig('t42.ps')\n"
      "for n in ('t3.ps', 't3.eps', 't42.ps'):\n"
      "    d = open(n).read()\n"
      "    print(n, d.split('\\n')[0], '/FontType 3 def' in d, '/FontType 42 def' in d)\n"
      "d = open('t3.ps').read()\n"
      "print(d[d.index('/H{'):d.index('}_d', d.index('/H{')) + 3].replace('\\n', ' '))\n",
      "t3.ps %!PS-Adobe-3.0 True False\n"
      "t3.eps %!PS-Adobe-3.0 EPSF-3.0 True False\n"
      "t42.ps %!PS-Adobe-3.0 True True\n"
      "/H{752 0 98 0 654 729 _sc 98 729 _m 197 729 _l 197 430 _l 555 430 _l 555 729 _l 654 729 _l "
      "654 0 _l 555 0 _l 555 347 _l 197 347 _l 197 0 _l 98 0 _l 98 729 _l _cl}_d\n");
}

/* pandas' Series and Index as a plot's data (patch 0007): pandas 2 raises
 * for x[:, None], which matplotlib 3.3.4's _check_1d tried on them, so
 * plt.plot(df.index, df['value']) and bar(df['year'], ...) raised
 * ValueError. A frame's index, its columns and a date index plot as their
 * values (the dates as days since 1970, the axis 5 % wider). */
static void test_pandas_objects_plot(void **s) {
  (void)s;
  expect_quiet_output(
      "import matplotlib.pyplot as plt, pandas as pd\n"
      "df = pd.DataFrame({'year': [2018, 2019, 2020], 'value': [3, 1, 2]})\n"
      "fig, ax = plt.subplots()\n"
      "line, = ax.plot(df.index, df['value'])\n"
      "bars = ax.bar(df['year'], df['value'])\n"
      "ts = pd.Series([1.0, 2.0], index=pd.date_range('2024-01-01', periods=2))\n"
      "fig2, ax2 = plt.subplots()\n"
      "dates, = ax2.plot(ts.index, ts.values)\n"
      "print(list(line.get_xdata()), list(line.get_ydata()), [float(b.get_x() + b.get_width() / 2) for b in bars])\n"
      "print(dates.get_xdata().dtype, [round(x, 2) for x in ax2.get_xlim()])\n",
      "[0, 1, 2] [3, 1, 2] [2018.0, 2019.0, 2020.0]\n"
      "datetime64[ns] [19722.95, 19724.05]\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pyplot_saves_a_png),
      cmocka_unit_test(test_every_method_can_be_called),
      cmocka_unit_test(test_cxx_exceptions_are_python_exceptions),
      cmocka_unit_test(test_qhull_errors_are_exceptions),
      cmocka_unit_test(test_show_saves_each_figure),
      cmocka_unit_test(test_postscript_fonts),
      cmocka_unit_test(test_pandas_objects_plot),
  };
  return RUN("matplotlib", tests);
}
