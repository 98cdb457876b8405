/* The built-in pure-Python packages (runtimes/python/packages.txt): each one
 * imports and does a real thing in a stateless call, their objects live in
 * sessions, the tree is read-only; and the operator's own package
 * directories (request `packages`, mounted at /packages/N). */
#include "harness.h"

/* Each package's snippet and what native python3.11 printed with the same
 * Debian packages (their compiled speed-ups removed, as in the image). */
static const snippet uses[] = {
    {"openpyxl",
     "import openpyxl, io\n"
     "wb = openpyxl.Workbook(); ws = wb.active; ws.title = 'S'\n"
     "ws.append(['name', 'qty']); ws.append(['a', 2]); ws.append(['b', 3]); ws['C1'] = '=SUM(B2:B3)'\n"
     "buf = io.BytesIO(); wb.save(buf); buf.seek(0)\n"
     "ws2 = openpyxl.load_workbook(buf)['S']\n"
     "print([[c.value for c in row] for row in ws2.iter_rows()])\n",
     "[['name', 'qty', '=SUM(B2:B3)'], ['a', 2, None], ['b', 3, None]]\n"},
    {"xlsxwriter",
     "import xlsxwriter, io, zipfile\n"
     "buf = io.BytesIO(); wb = xlsxwriter.Workbook(buf, {'in_memory': True}); ws = wb.add_worksheet('T')\n"
     "ws.write_row(0, 0, ['x', 1.5]); wb.close()\n"
     "print(sorted(n for n in zipfile.ZipFile(buf).namelist() if n.startswith('xl/worksheets')))\n",
     "['xl/worksheets/sheet1.xml']\n"},
    {"pypdf",
     "import pypdf, PyPDF2, io\n"
     "w = pypdf.PdfWriter(); w.add_blank_page(width=200, height=100); w.add_metadata({'/Title': 'T'})\n"
     "b = io.BytesIO(); w.write(b); b.seek(0)\n"
     "r = PyPDF2.PdfReader(b); print(len(r.pages), float(r.pages[0].mediabox.width), r.metadata.title)\n",
     "1 200.0 T\n"},
    {"odf",
     "from odf.opendocument import OpenDocumentText, load\n"
     "from odf.text import P\n"
     "import io, odf.teletype\n"
     "d = OpenDocumentText(); d.text.addElement(P(text='hello odf')); b = io.BytesIO(); d.write(b); b.seek(0)\n"
     "print(odf.teletype.extractText(load(b).text))\n",
     "hello odf\n"},
    {"tabulate",
     "from tabulate import tabulate\n"
     "print(tabulate([['a', 1], ['bb', 22]], headers=['k', 'v'], tablefmt='github'))\n",
     "| k   |   v |\n"
     "|-----|-----|\n"
     "| a   |   1 |\n"
     "| bb  |  22 |\n"},
    {"jinja2",
     "import jinja2\n"
     "t = jinja2.Environment(autoescape=True).from_string('{% for x in xs %}<{{ x|upper }}>{% endfor %} {{ h }}')\n"
     "print(t.render(xs=['a', 'b'], h='<b>'))\n",
     "<A><B> &lt;b&gt;\n"},
    {"markdown",
     "import markdown\n"
     "print(markdown.markdown('# T\\n\\n*a* and `b`\\n\\n- x\\n- y', extensions=['fenced_code', 'tables']))\n",
     "<h1>T</h1>\n"
     "<p><em>a</em> and <code>b</code></p>\n"
     "<ul>\n"
     "<li>x</li>\n"
     "<li>y</li>\n"
     "</ul>\n"},
    {"yaml",
     "import yaml\n"
     "d = yaml.safe_load('a: [1, 2]\\nb: {c: true, d: 2024-01-02}\\n')\n"
     "print(d, yaml.safe_dump({'k': [1, {'x': None}]}, sort_keys=True).strip(), yaml.__with_libyaml__)\n",
     "{'a': [1, 2], 'b': {'c': True, 'd': datetime.date(2024, 1, 2)}} k:\n"
     "- 1\n"
     "- x: null False\n"},
    {"bs4",
     "from bs4 import BeautifulSoup\n"
     "s = BeautifulSoup('<ul><li class=\"a\">x</li><li>y <b>z</b></li></ul>', 'html.parser')\n"
     "print([li.get_text() for li in s.select('li')], s.select_one('li.a').string, s.find('b').parent.name)\n",
     "['x', 'y z'] x li\n"},
    {"html5lib",
     "import html5lib\n"
     "t = html5lib.parse('<p>a<b>b</p>c', namespaceHTMLElements=False)\n"
     "print(html5lib.serialize(t, tree='etree'))\n",
     "<p>a<b>b</b></p><b>c</b>\n"},
    {"chardet",
     "import chardet, charset_normalizer\n"
     "b = 'Привет, мир! Это тест кодировки.'.encode('cp1251')\n"
     "print(chardet.detect(b)['encoding'], charset_normalizer.from_bytes(b).best().encoding)\n",
     "windows-1251 cp1251\n"},
    {"xmltodict",
     "import xmltodict\n"
     "print(xmltodict.parse('<a x=\"1\"><b>t</b><b>u</b></a>'))\n",
     "{'a': {'@x': '1', 'b': ['t', 'u']}}\n"},
    {"networkx",
     "import networkx as nx\n"
     "g = nx.Graph(); g.add_weighted_edges_from([(1, 2, 1), (2, 3, 2), (1, 3, 5), (3, 4, 1)])\n"
     "print(nx.shortest_path(g, 1, 4, weight='weight'), nx.shortest_path_length(g, 1, 4, weight='weight'),\n"
     "      sorted(nx.degree(g)), round(nx.average_clustering(g), 4))\n",
     "[1, 2, 3, 4] 4 [(1, 2), (2, 2), (3, 3), (4, 1)] 0.5833\n"},
    {"sympy",
     "import sympy as sp\n"
     "x = sp.symbols('x')\n"
     "print(sp.factor(x**3 - x), sp.integrate(sp.sin(x)**2, x), sp.solve(x**2 - 2, x), sp.Rational(1, 3) + sp.Rational(1, 6))\n",
     "x*(x - 1)*(x + 1) x/2 - sin(x)*cos(x)/2 [-sqrt(2), sqrt(2)] 1/2\n"},
    {"mpmath",
     "import mpmath\n"
     "mpmath.mp.dps = 30; print(mpmath.pi, mpmath.sqrt(2))\n",
     "3.14159265358979323846264338328 1.41421356237309504880168872421\n"},
    {"more_itertools",
     "import more_itertools as mi\n"
     "print(list(mi.chunked(range(7), 3)), mi.first([5, 6]), list(mi.windowed([1, 2, 3, 4], 2)))\n",
     "[[0, 1, 2], [3, 4, 5], [6]] 5 [(1, 2), (2, 3), (3, 4)]\n"},
    {"toolz",
     "import toolz\n"
     "print(toolz.groupby(len, ['a', 'bb', 'cc', 'd']), toolz.pipe(3, lambda v: v + 1, lambda v: v * 2))\n",
     "{1: ['a', 'd'], 2: ['bb', 'cc']} 8\n"},
    {"sortedcontainers",
     "from sortedcontainers import SortedList, SortedDict\n"
     "s = SortedList([5, 1, 3]); s.add(2); print(list(s), s.bisect_left(3), SortedDict({'b': 1, 'a': 2}).keys()[0])\n",
     "[1, 2, 3, 5] 2 a\n"},
    {"pyparsing",
     "import pyparsing as pp\n"
     "expr = pp.Word(pp.alphas) + pp.Suppress('=') + pp.pyparsing_common.integer\n"
     "print(expr.parse_string('width = 42').as_list())\n",
     "['width', 42]\n"},
    {"dateutil",
     "from dateutil import parser, relativedelta, rrule\n"
     "import datetime\n"
     "d = parser.parse('March 3, 2024 5:30 PM')\n"
     "print(d, d + relativedelta.relativedelta(months=+1, day=31),\n"
     "      [x.day for x in rrule.rrule(rrule.WEEKLY, count=3, dtstart=datetime.datetime(2024, 1, 1))])\n",
     "2024-03-03 17:30:00 2024-04-30 17:30:00 [1, 8, 15]\n"},
    {"pytz",
     "import pytz, datetime\n"
     "tz = pytz.timezone('Europe/Paris')\n"
     "print(tz.localize(datetime.datetime(2024, 7, 1, 12)).isoformat(), tz.localize(datetime.datetime(2024, 1, 1, 12)).tzname())\n",
     "2024-07-01T12:00:00+02:00 CET\n"},
    {"attrs",
     "import attr, attrs\n"
     "@attrs.define\n"
     "class P:\n"
     "    x: int\n"
     "    y: int = 0\n"
     "print(P(1), attrs.asdict(P(2, 3)), attr.__version__)\n",
     "P(x=1, y=0) {'x': 2, 'y': 3} 22.2.0\n"},
    {"pydantic",
     "import pydantic\n"
     "class U(pydantic.BaseModel):\n"
     "    name: str\n"
     "    age: int = 0\n"
     "print(U(name='a', age='7').dict())\n"
     "try:\n"
     "    U(age='x')\n"
     "except pydantic.ValidationError as e:\n"
     "    print(len(e.errors()), sorted(err['loc'][0] for err in e.errors()))\n",
     "{'name': 'a', 'age': 7}\n"
     "2 ['age', 'name']\n"},
    {"six",
     "import six, packaging.version, idna, certifi, jmespath, typing_extensions, defusedxml.ElementTree as ET\n"
     "print(six.PY3, packaging.version.parse('1.10') > packaging.version.parse('1.9'), idna.encode('bücher.de'),\n"
     "      certifi.where().endswith('.pem') or certifi.where().endswith('.crt'), jmespath.search('a[?b>`1`].b', {'a': [{'b': 1}, {'b': 2}]}),\n"
     "      ET.fromstring('<a><b/></a>')[0].tag)\n",
     "True True b'xn--bcher-kva.de' True [2] b\n"},
};

static void test_each_package_works(void **s) {
  (void)s;
  expect_snippets("package", uses, sizeof uses / sizeof uses[0]);
}

/* The manifest names every package; each of its modules imports, its
 * metadata is there, and no compiled file is left in the tree. */
static void test_manifest(void **s) {
  (void)s;
  expect_output(
      "import json, importlib, importlib.metadata, os\n"
      "root = '/usr/local/lib/python3.11/site-packages'\n"
      "m = json.load(open(root + '/wasmbox-packages.json'))\n"
      "for p in m:\n"
      "    for mod in p['modules']:\n"
      "        if not mod.startswith('_'):  # PyYAML's _yaml is a shim of its left-out C part\n"
      "            importlib.import_module(mod)\n"
      "    importlib.metadata.distribution(p['distribution'])\n"
      "so = [f for d, _, fs in os.walk(root) for f in fs if f.endswith('.so')]\n"
      "names = {p['debian_package'] for p in m}\n"
      "print(len(m) >= 30, so, {'python3-openpyxl', 'python3-sympy', 'python3-yaml'} <= names)\n"
      "print(importlib.metadata.version('openpyxl') == [p for p in m if p['distribution'] == "
      "'openpyxl'][0]['version'])\n",
      NULL, "True [] True\nTrue\n");
}

static void test_tree_is_read_only(void **s) {
  (void)s;
  wasmbox_result *r =
      expect_exception("open('/usr/local/lib/python3.11/site-packages/tabulate.py', 'w')", NULL, "OSError");
  assert_non_null(strstr(r->error_message, "Read-only file system"));
  wasmbox_result_free(r);
  r = expect_exception("import os\nos.mkdir('/usr/local/lib/python3.11/site-packages/x')", NULL, "OSError");
  assert_non_null(strstr(r->error_message, "Read-only file system"));
  wasmbox_result_free(r);
}

/* A package module changed by one call is as built in the next. */
static void test_stateless_calls_share_nothing(void **s) {
  (void)s;
  expect_output("import tabulate\ntabulate.tabulate = None\nprint('changed')", NULL, "changed\n");
  expect_output("import tabulate\nprint(callable(tabulate.tabulate))", NULL, "True\n");
}

static void test_objects_live_in_sessions(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX], fork[WASMBOX_ID_MAX], err[256];
  assert_int_equal(wasmbox_session_create(test_wb, NULL, id, err, sizeof err), WASMBOX_OK);
  wasmbox_request req = {.session_id = id,
                         .code =
                             "import openpyxl, networkx as nx, sympy as sp, yaml\n"
                             "wb = openpyxl.Workbook(); wb.active['A1'] = 5\n"
                             "g = nx.path_graph(4)\nx = sp.symbols('x'); e = (x + 1)**2\n"};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  wasmbox_result_free(r);
  req.code = "print(wb.active['A1'].value, g.number_of_edges(), sp.expand(e), yaml.safe_dump({'n': 1}).strip())";
  r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "5 3 x**2 + 2*x + 1 n: 1\n");
  wasmbox_result_free(r);
  /* a fork evolves apart; a failed call rolls back */
  assert_int_equal(wasmbox_session_fork(test_wb, id, fork, err, sizeof err), WASMBOX_OK);
  wasmbox_request freq = {.session_id = fork, .code = "g.add_edge(3, 4); print(g.number_of_edges())"};
  r = run_req(&freq);
  assert_string_equal(r->stdout_data, "4\n");
  wasmbox_result_free(r);
  req.code = "g.add_edge(9, 10)\nwhile True: pass";
  req.timeout_seconds = 0.5;
  r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_TIMEOUT);
  assert_true(r->session_rolled_back);
  wasmbox_result_free(r);
  req.code = "print(g.number_of_edges(), wb.active['A1'].value)";
  req.timeout_seconds = 0;
  r = run_req(&req);
  assert_string_equal(r->stdout_data, "3 5\n");
  wasmbox_result_free(r);
  assert_int_equal(wasmbox_session_destroy(test_wb, fork, err, sizeof err), WASMBOX_OK);
  assert_int_equal(wasmbox_session_destroy(test_wb, id, err, sizeof err), WASMBOX_OK);
}

/* An operator's directory: a package, a module shadowing a built-in one
 * that no snapshot imports, and a py3-none-any wheel (made by the sandbox
 * itself with zipfile). */
static char *operator_dir(void) {
  char *dir = make_dir(), *ws = make_dir(), path[4096];
  snprintf(path, sizeof path, "%s/opkg", dir);
  assert_int_equal(mkdir(path, 0755), 0);
  write_file(dir, "opkg/__init__.py", "VALUE = 7\n");
  write_file(dir, "xmltodict.py", "OPERATOR = True\n");
  expect_output(
      "import zipfile\n"
      "with zipfile.ZipFile('wheelmod-1.0-py3-none-any.whl', 'w') as z:\n"
      "    z.writestr('wheelmod/__init__.py', 'W = \"from a wheel\"\\n')\n"
      "    z.writestr('wheelmod-1.0.dist-info/METADATA', 'Name: wheelmod\\nVersion: 1.0\\n')\n"
      "print('made')\n",
      ws, "made\n");
  char from[4096], to[4096];
  snprintf(from, sizeof from, "%s/wheelmod-1.0-py3-none-any.whl", ws);
  snprintf(to, sizeof to, "%s/wheelmod-1.0-py3-none-any.whl", dir);
  assert_int_equal(rename(from, to), 0);
  rm_tree(ws);
  free(ws);
  return dir;
}

static void test_operator_packages(void **s) {
  (void)s;
  char *dir = operator_dir();
  const char *pk[] = {dir};
  wasmbox_request req = {.packages = pk,
                         .packages_len = 1,
                         .code =
                             "import opkg, wheelmod, xmltodict, sys\n"
                             "print(opkg.VALUE, wheelmod.W, xmltodict.OPERATOR, '/packages/0' in sys.path)\n"
                             "print(opkg.__file__)\n"};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "7 from a wheel True True\n/packages/0/opkg/__init__.py\n");
  wasmbox_result_free(r);
  /* read-only */
  req.code = "open('/packages/0/opkg/new.py', 'w')";
  r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_ERROR);
  assert_string_equal(r->error_type, "OSError");
  assert_non_null(strstr(r->error_message, "Read-only file system"));
  wasmbox_result_free(r);
  /* the next call without them has none of it */
  wasmbox_result *r2 = expect_exception("import opkg", NULL, "ModuleNotFoundError");
  wasmbox_result_free(r2);
  expect_output("import xmltodict\nprint(hasattr(xmltodict, 'OPERATOR'), xmltodict.parse('<a>1</a>'))", NULL,
                "False {'a': '1'}\n");
  /* a session has the packages it was created with, in every call */
  char id[WASMBOX_ID_MAX], err[512];
  wasmbox_session_options o = {.packages = pk, .packages_len = 1};
  assert_int_equal(wasmbox_session_create(test_wb, &o, id, err, sizeof err), WASMBOX_OK);
  wasmbox_request sreq = {.session_id = id, .code = "import opkg\nv = opkg.VALUE"};
  r = run_req(&sreq);
  expect_status(r, WASMBOX_STATUS_OK);
  wasmbox_result_free(r);
  sreq.code = "import wheelmod\nprint(v, wheelmod.W)";
  r = run_req(&sreq);
  assert_string_equal(r->stdout_data, "7 from a wheel\n");
  wasmbox_result_free(r);
  /* ... and a call cannot add others */
  sreq.packages = pk;
  sreq.packages_len = 1;
  assert_int_equal(wasmbox_run(test_wb, &sreq, &r, err, sizeof err), WASMBOX_EUSAGE);
  assert_non_null(strstr(err, "session's packages"));
  assert_int_equal(wasmbox_session_destroy(test_wb, id, err, sizeof err), WASMBOX_OK);
  rm_tree(dir);
  free(dir);
}

static void expect_usage(const wasmbox_request *req, const char *words) {
  wasmbox_result *r = NULL;
  char err[512] = "";
  assert_int_equal(wasmbox_run(test_wb, req, &r, err, sizeof err), WASMBOX_EUSAGE);
  assert_null(r);
  if (!strstr(err, words)) fail_msg("'%s' does not say '%s'", err, words);
}

static void test_operator_packages_refused(void **s) {
  (void)s;
  char *dir = make_dir();
  const char *five[] = {dir, dir, dir, dir, dir}, *missing[] = {"/nonexistent/packages"};
  wasmbox_request req = {.code = "pass", .packages = five, .packages_len = 5};
  expect_usage(&req, "at most 4 package directories");
  req.packages = missing;
  req.packages_len = 1;
  expect_usage(&req, "/nonexistent/packages is not a directory");
  req.packages = five;
  req.language = "javascript";
  expect_usage(&req, "package directories are Python's; this call runs javascript");
  /* they share the mounts' budget, and their paths */
  wasmbox_mount m[WASMBOX_MAX_MOUNTS];
  char paths[WASMBOX_MAX_MOUNTS][32];
  for (int i = 0; i < WASMBOX_MAX_MOUNTS; i++) {
    snprintf(paths[i], sizeof paths[i], "/data%d", i);
    m[i] = (wasmbox_mount){.host_dir = dir, .guest_path = paths[i]};
  }
  wasmbox_request full = {
      .code = "pass", .mounts = m, .mounts_len = WASMBOX_MAX_MOUNTS, .packages = five, .packages_len = 1};
  expect_usage(&full, "at most 16 mounts and package directories together");
  wasmbox_mount clash = {.host_dir = dir, .guest_path = "/packages/0"};
  wasmbox_request twice = {.code = "pass", .mounts = &clash, .mounts_len = 1, .packages = five, .packages_len = 1};
  expect_usage(&twice, "'/packages/0' is given twice");
  char id[WASMBOX_ID_MAX], err[512];
  wasmbox_session_options o = {.language = "javascript", .packages = five, .packages_len = 1};
  assert_int_equal(wasmbox_session_create(test_wb, &o, id, err, sizeof err), WASMBOX_EUSAGE);
  rm_tree(dir);
  free(dir);
}

/* A wheelhouse: two pure wheels (tinypkg needs tinydep and the built-in
 * six) and one with compiled code, made by the sandbox itself. */
static char *wheelhouse(void) {
  char *dir = make_dir();
  expect_output(
      "import zipfile\n"
      "def wheel(fn, name, ver, tag, files, requires=()):\n"
      "    with zipfile.ZipFile(fn, 'w') as z:\n"
      "        for p, c in files.items(): z.writestr(p, c)\n"
      "        di = f'{name}-{ver}.dist-info'\n"
      "        z.writestr(f'{di}/METADATA', f'Metadata-Version: 2.1\\nName: {name}\\nVersion: {ver}\\n'\n"
      "                   + ''.join(f'Requires-Dist: {r}\\n' for r in requires))\n"
      "        z.writestr(f'{di}/WHEEL', f'Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: {tag}\\n')\n"
      "        z.writestr(f'{di}/RECORD', '')\n"
      "wheel('tinypkg-1.0-py3-none-any.whl', 'tinypkg', '1.0', 'py3-none-any',\n"
      "      {'tinypkg/__init__.py': 'from tinydep import D\\nVALUE = D * 2\\n'}, ['tinydep>=2', 'six'])\n"
      "wheel('tinydep-2.0-py3-none-any.whl', 'tinydep', '2.0', 'py3-none-any', {'tinydep.py': 'D = 21\\n'})\n"
      "wheel('binpkg-1.0-cp311-cp311-manylinux_2_17_x86_64.whl', 'binpkg', '1.0',\n"
      "      'cp311-cp311-manylinux_2_17_x86_64', {'binpkg/__init__.py': ''})\n"
      "print('made')\n",
      dir, "made\n");
  return dir;
}

/* goodpkg needs zbroken, whose wheel cannot be unpacked (a file where its
 * package directory goes): the second wheel fails after the first went in. */
static char *broken_wheelhouse(void) {
  char *dir = make_dir();
  expect_output(
      "import zipfile\n"
      "def wheel(fn, name, files, requires=()):\n"
      "    with zipfile.ZipFile(fn, 'w') as z:\n"
      "        for p, c in files: z.writestr(p, c)\n"
      "        di = f'{name}-1.0.dist-info'\n"
      "        z.writestr(f'{di}/METADATA', f'Metadata-Version: 2.1\\nName: {name}\\nVersion: 1.0\\n'\n"
      "                   + ''.join(f'Requires-Dist: {r}\\n' for r in requires))\n"
      "        z.writestr(f'{di}/WHEEL', 'Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')\n"
      "        z.writestr(f'{di}/RECORD', '')\n"
      "wheel('goodpkg-1.0-py3-none-any.whl', 'goodpkg', [('goodpkg/__init__.py', 'V = 1\\n')], ['zbroken'])\n"
      "wheel('zbroken-1.0-py3-none-any.whl', 'zbroken', [('zbroken', 'a file'), ('zbroken/__init__.py', '')])\n"
      "print('made')\n",
      dir, "made\n");
  return dir;
}

static void install_fails(const char *id, const char *req, const char *index, const char *wh, int want,
                          const char *words) {
  char *out = NULL, err[1024] = "";
  assert_int_equal(wasmbox_session_install(test_wb, id, req, index, wh, &out, err, sizeof err), want);
  assert_null(out);
  if (!strstr(err, words)) fail_msg("install %s: '%s' does not say '%s'", req, err, words);
}

/* An install is one transaction of the session: when its second wheel
 * fails to unpack, the session is as it was (variables, files, and no
 * trace of the first wheel or of the wheels handed in). */
static void test_install_is_atomic(void **s) {
  (void)s;
  char *wh = broken_wheelhouse(), id[WASMBOX_ID_MAX], err[1024], *out = NULL;
  assert_int_equal(wasmbox_session_create(test_wb, NULL, id, err, sizeof err), WASMBOX_OK);
  wasmbox_request req = {.session_id = id, .code = "x = 5\nopen('/app/keep.txt', 'w').write('kept')"};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  wasmbox_result_free(r);
  int rc = wasmbox_session_install(test_wb, id, "goodpkg", NULL, wh, &out, err, sizeof err);
  assert_int_equal(rc, WASMBOX_EUSAGE);
  assert_null(out);
  if (!strstr(err, "unpacking in the session failed")) fail_msg("install: %s", err);
  wasmbox_file_info *files = NULL;
  size_t n = 0;
  assert_int_equal(wasmbox_session_list_files(test_wb, id, "/app", true, &files, &n, err, sizeof err), WASMBOX_OK);
  assert_int_equal(n, 1);
  assert_string_equal(files[0].path, "/app/keep.txt");
  wasmbox_file_info_free(files, n);
  req.code =
      "print(x)\n"
      "try:\n"
      "    import goodpkg\n"
      "except ModuleNotFoundError:\n"
      "    print('no goodpkg')\n";
  r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "5\nno goodpkg\n");
  wasmbox_result_free(r);
  assert_int_equal(wasmbox_session_destroy(test_wb, id, err, sizeof err), WASMBOX_OK);
  rm_tree(wh);
  free(wh);
}

static void test_install_package(void **s) {
  (void)s;
  char *wh = wheelhouse(), id[WASMBOX_ID_MAX], fork[WASMBOX_ID_MAX], err[1024], *out = NULL;
  assert_int_equal(wasmbox_session_create(test_wb, NULL, id, err, sizeof err), WASMBOX_OK);
  int rc = wasmbox_session_install(test_wb, id, "tinypkg", NULL, wh, &out, err, sizeof err);
  if (rc) fail_msg("install: %s", err);
  assert_string_equal(out,
                      "{\"installed\":[{\"name\":\"tinydep\",\"version\":\"2.0\"},{\"name\":\"tinypkg\","
                      "\"version\":\"1.0\"}],\"built_in\":[{\"name\":\"six\",\"version\":\"1.16.0\"}]}");
  free(out);
  /* the session's next calls import it; a fork has it; stateless calls do not */
  wasmbox_request req = {.session_id = id, .code = "import tinypkg\nprint(tinypkg.VALUE, tinypkg.__file__)"};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "42 /app/.site-packages/tinypkg/__init__.py\n");
  wasmbox_result_free(r);
  assert_int_equal(wasmbox_session_fork(test_wb, id, fork, err, sizeof err), WASMBOX_OK);
  req.session_id = fork;
  r = run_req(&req);
  assert_string_equal(r->stdout_data, "42 /app/.site-packages/tinypkg/__init__.py\n");
  wasmbox_result_free(r);
  r = expect_exception("import tinypkg", NULL, "ModuleNotFoundError");
  wasmbox_result_free(r);
  /* pip runs isolated in a directory of its own: a `pip` package in the
   * caller's working directory is not what runs */
  char *cwd = make_dir(), here[4096], pkg[1024];
  snprintf(pkg, sizeof pkg, "%s/pip", cwd);
  assert_int_equal(mkdir(pkg, 0700), 0);
  write_file(pkg, "__init__.py", "import os\nopen(os.path.join(os.path.dirname(__file__), '..', 'HIJACKED'), 'w')\n");
  write_file(pkg, "__main__.py", "import pip\n");
  assert_non_null(getcwd(here, sizeof here));
  assert_int_equal(chdir(cwd), 0);
  char other[WASMBOX_ID_MAX];
  assert_int_equal(wasmbox_session_create(test_wb, NULL, other, err, sizeof err), WASMBOX_OK);
  rc = wasmbox_session_install(test_wb, other, "tinydep", NULL, wh, &out, err, sizeof err);
  assert_int_equal(chdir(here), 0);
  if (rc) fail_msg("install from a directory holding a 'pip' package: %s", err);
  free(out);
  char *hijacked = read_file(cwd, "HIJACKED");
  assert_null(hijacked);
  assert_int_equal(wasmbox_session_destroy(test_wb, other, err, sizeof err), WASMBOX_OK);
  rm_tree(cwd);
  free(cwd);
  /* refusals, each saying why */
  install_fails(id, "binpkg", NULL, wh, WASMBOX_EUSAGE,
                "binpkg has compiled code (binpkg-1.0-cp311-cp311-manylinux_2_17_x86_64.whl)");
  install_fails(id, "nosuchpkg", NULL, wh, WASMBOX_EUSAGE, "No matching distribution found for nosuchpkg");
  install_fails(id, "tinypkg", NULL, NULL, WASMBOX_EUSAGE, "no package index is configured");
  install_fails(id, "tinypkg", "http://127.0.0.1:9/simple", wh, WASMBOX_EUSAGE, "not both");
  install_fails(id, "pyyaml", NULL, wh, WASMBOX_EUSAGE, "PyYAML is built in (version 6.0, import yaml)");
  install_fails(id, "six>=1.17", NULL, wh, WASMBOX_EUSAGE, "six is built in");
  static const char *const odd[] = {
      "../etc", "-r /etc/passwd", "/etc/passwd", "http://x/y.whl", "pkg @ file:///x", "git+https://x", ""};
  for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
    install_fails(id, odd[i], NULL, wh, WASMBOX_EUSAGE, "paths, URLs and options are refused");
  char js[WASMBOX_ID_MAX];
  wasmbox_session_options o = {.language = "javascript"};
  assert_int_equal(wasmbox_session_create(test_wb, &o, js, err, sizeof err), WASMBOX_OK);
  install_fails(js, "tinypkg", NULL, wh, WASMBOX_EUSAGE, "packages are Python's");
  install_fails("nosuchsession", "tinypkg", NULL, wh, WASMBOX_EUSAGE, "nosuchsession");
  assert_int_equal(wasmbox_session_destroy(test_wb, js, err, sizeof err), WASMBOX_OK);
  assert_int_equal(wasmbox_session_destroy(test_wb, fork, err, sizeof err), WASMBOX_OK);
  assert_int_equal(wasmbox_session_destroy(test_wb, id, err, sizeof err), WASMBOX_OK);
  rm_tree(wh);
  free(wh);
}

/* Our own kiwisolver (runtimes/python/kiwisolver.sh) is a built-in module:
 * a system with strengths and an edit variable solves as Debian's
 * python3-kiwisolver solves it natively (16.0 4.0), and an unsatisfiable
 * required constraint raises kiwisolver's exception. */
static void test_kiwisolver_built_in(void **s) {
  (void)s;
  expect_output(
      "import kiwisolver as kiwi, sys\n"
      "x, y = kiwi.Variable('x'), kiwi.Variable('y')\n"
      "s = kiwi.Solver()\n"
      "s.addConstraint(x + y == 20)\n"
      "s.addConstraint((x >= 2 * y) | 'strong')\n"
      "s.addConstraint((x == 5) | 'weak')\n"
      "s.addEditVariable(y, 'medium'); s.suggestValue(y, 4)\n"
      "s.updateVariables()\n"
      "print(kiwi.__version__[:2], x.value(), y.value())\n"
      "try:\n"
      "    s.addConstraint(x >= 100); s.addConstraint(x <= 10)\n"
      "except kiwi.UnsatisfiableConstraint:\n"
      "    print('UnsatisfiableConstraint')\n"
      "print('kiwisolver' in sys.builtin_module_names)\n",
      NULL, "1. 16.0 4.0\nUnsatisfiableConstraint\nTrue\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_each_package_works),        cmocka_unit_test(test_manifest),
      cmocka_unit_test(test_tree_is_read_only),         cmocka_unit_test(test_stateless_calls_share_nothing),
      cmocka_unit_test(test_objects_live_in_sessions),  cmocka_unit_test(test_operator_packages),
      cmocka_unit_test(test_operator_packages_refused), cmocka_unit_test(test_install_package),
      cmocka_unit_test(test_kiwisolver_built_in),       cmocka_unit_test(test_install_is_atomic),
  };
  /* sessions here live in a state directory of their own */
  char *home = make_dir();
  setenv("WASMBOX_HOME", home, 1);
  int rc = RUN("packages", tests);
  rm_tree(home);
  free(home);
  return rc;
}
