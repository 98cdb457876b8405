/* Python semantics inside the sandbox: the standard library works as it does
 * natively, files land in /app, results carry what the guest did. */
#include "harness.h"

static void test_print(void **s) {
  (void)s;
  expect_output("print(6*7)", NULL, "42\n");
}

static void test_json_re_datetime(void **s) {
  (void)s;
  expect_output(
      "import json, re, datetime\n"
      "d = json.loads('{\"a\": [1, 2.5, null, true], \"b\": \"\\\\u00e9\"}')\n"
      "assert d == {'a': [1, 2.5, None, True], 'b': '\\u00e9'}\n"
      "assert json.dumps(d, sort_keys=True) == '{\"a\": [1, 2.5, null, true], \"b\": \"\\\\u00e9\"}'\n"
      "m = re.match(r'(?P<y>\\d{4})-(?P<m>\\d\\d)', '2024-05-17')\n"
      "assert m.group('y') == '2024' and m['m'] == '05'\n"
      "assert re.sub(r'\\s+', ' ', 'a  b\\n\\tc') == 'a b c'\n"
      "t = datetime.datetime(2024, 2, 28, 12) + datetime.timedelta(days=2)\n"
      "assert t.isoformat() == '2024-03-01T12:00:00'\n"
      "assert datetime.date(2024, 1, 1).strftime('%A %j') == 'Monday 001'\n"
      "tz = datetime.timezone(datetime.timedelta(hours=2))\n"
      "assert datetime.datetime(2024, 1, 1, tzinfo=tz).astimezone(datetime.timezone.utc).hour == 22\n"
      "print('ok')\n",
      NULL, "ok\n");
}

static void test_numbers(void **s) {
  (void)s;
  expect_output(
      "from decimal import Decimal, getcontext\n"
      "from fractions import Fraction\n"
      "import statistics, math\n"
      "assert Decimal('0.1') + Decimal('0.2') == Decimal('0.3')\n"
      "getcontext().prec = 50\n"
      "assert str(Decimal(1) / Decimal(7))[:20] == '0.142857142857142857'\n"
      "assert Fraction(1, 3) + Fraction(1, 6) == Fraction(1, 2)\n"
      "assert statistics.mean([1, 2, 3, 4]) == 2.5\n"
      "assert statistics.median([5, 1, 3]) == 3\n"
      "assert round(statistics.stdev([2, 4, 4, 4, 5, 5, 7, 9]), 4) == 2.1381\n"
      "assert math.isclose(math.sqrt(2) ** 2, 2) and math.factorial(20) == 2432902008176640000\n"
      "assert 2 ** 200 % 1000007 == pow(2, 200, 1000007)\n"
      "print('ok')\n",
      NULL, "ok\n");
}

static void test_collections_itertools(void **s) {
  (void)s;
  expect_output(
      "from collections import Counter, defaultdict, deque, OrderedDict, namedtuple\n"
      "import itertools, functools\n"
      "assert Counter('abracadabra').most_common(2) == [('a', 5), ('b', 2)]\n"
      "d = defaultdict(list); d['x'].append(1); assert d == {'x': [1]}\n"
      "q = deque([1, 2, 3], maxlen=3); q.append(4); assert list(q) == [2, 3, 4]\n"
      "P = namedtuple('P', 'x y'); assert P(1, 2).y == 2\n"
      "assert list(itertools.permutations('abc', 2))[:2] == [('a', 'b'), ('a', 'c')]\n"
      "assert list(itertools.accumulate([1, 2, 3])) == [1, 3, 6]\n"
      "assert [k for k, _ in itertools.groupby('aabbbc')] == ['a', 'b', 'c']\n"
      "assert functools.reduce(lambda a, b: a * b, range(1, 6)) == 120\n"
      "print('ok')\n",
      NULL, "ok\n");
}

static void test_text_modules(void **s) {
  (void)s;
  expect_output(
      "import textwrap, difflib, base64, string\n"
      "assert textwrap.wrap('the quick brown fox', 10) == ['the quick', 'brown fox']\n"
      "assert textwrap.dedent('  a\\n  b') == 'a\\nb'\n"
      "d = list(difflib.unified_diff(['a\\n', 'b\\n'], ['a\\n', 'c\\n'], lineterm=''))\n"
      "assert d[-2:] == ['-b\\n', '+c\\n'], d\n"
      "assert difflib.SequenceMatcher(None, 'abcd', 'abxd').ratio() == 0.75\n"
      "assert base64.b64encode(b'wasmbox') == b'd2FzbWJveA=='\n"
      "assert base64.b64decode('d2FzbWJveA==') == b'wasmbox'\n"
      "assert string.Template('$a-$b').substitute(a=1, b=2) == '1-2'\n"
      "print('ok')\n",
      NULL, "ok\n");
}

static void test_hashlib(void **s) {
  (void)s;
  expect_output(
      "import hashlib, hmac\n"
      "assert hashlib.md5(b'abc').hexdigest() == '900150983cd24fb0d6963f7d28e17f72'\n"
      "assert hashlib.sha1(b'abc').hexdigest() == 'a9993e364706816aba3e25717850c26c9cd0d89d'\n"
      "assert hashlib.sha256(b'abc').hexdigest() == "
      "'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'\n"
      "assert hmac.new(b'k', b'm', 'sha256').hexdigest()[:8] == 'b60090e3'\n"
      "print('ok')\n",
      NULL, "ok\n");
}

static void test_compression(void **s) {
  (void)s;
  expect_output(
      "import zlib, gzip, bz2, lzma\n"
      "data = b'wasmbox ' * 1000\n"
      "for m in (zlib, gzip, bz2, lzma):\n"
      "    c = m.compress(data)\n"
      "    assert len(c) < len(data) // 10, m\n"
      "    assert m.decompress(c) == data, m\n"
      "assert zlib.crc32(b'abc') == 891568578\n"
      "with gzip.open('/app/t.gz', 'wt') as f: f.write('hello')\n"
      "with gzip.open('t.gz', 'rt') as f: assert f.read() == 'hello'\n"
      "print('ok')\n",
      NULL, "ok\n");
}

static void test_csv_sqlite_in_workspace(void **s) {
  (void)s;
  char *dir = make_dir();
  expect_output(
      "import csv, sqlite3\n"
      "with open('/app/people.csv', 'w', newline='') as f:\n"
      "    w = csv.writer(f); w.writerow(['name', 'age']); w.writerows([['ann', 31], ['bob', 27]])\n"
      "rows = list(csv.DictReader(open('people.csv')))\n"
      "assert rows == [{'name': 'ann', 'age': '31'}, {'name': 'bob', 'age': '27'}], rows\n"
      "db = sqlite3.connect('/app/people.db')\n"
      "db.execute('create table p (name text, age int)')\n"
      "db.executemany('insert into p values (?, ?)', [(r['name'], int(r['age'])) for r in rows])\n"
      "db.commit()\n"
      "assert db.execute('select sum(age), max(name) from p').fetchone() == (58, 'bob')\n"
      "db.close()\n"
      "print('ok')\n",
      dir, "ok\n");
  /* the files are really in the host workspace, and a second call sees them */
  char *csv = read_file(dir, "people.csv");
  assert_non_null(csv);
  assert_string_equal(csv, "name,age\r\nann,31\r\nbob,27\r\n");
  free(csv);
  expect_output("import sqlite3\nprint(sqlite3.connect('people.db').execute('select count(*) from p').fetchone()[0])",
                dir, "2\n");
  rm_tree(dir);
  free(dir);
}

static void test_pathlib_tempfile(void **s) {
  (void)s;
  char *dir = make_dir();
  expect_output(
      "import pathlib, tempfile, os, shutil\n"
      "p = pathlib.Path('/app/sub/dir'); p.mkdir(parents=True)\n"
      "(p / 'a.txt').write_text('alpha')\n"
      "assert sorted(x.name for x in pathlib.Path('/app/sub').rglob('*')) == ['a.txt', 'dir']\n"
      "assert (p / 'a.txt').stat().st_size == 5\n"
      "os.rename('/app/sub/dir/a.txt', '/app/b.txt')\n"
      "assert pathlib.Path('b.txt').read_text() == 'alpha'\n"
      "shutil.copy('b.txt', 'c.txt'); assert open('c.txt').read() == 'alpha'\n"
      "with tempfile.TemporaryDirectory(dir='/app') as t:\n"
      "    assert t.startswith('/app/')\n"
      "    open(os.path.join(t, 'x'), 'w').write('1')\n"
      "with tempfile.NamedTemporaryFile(dir='/app', delete=False) as f:\n"
      "    f.write(b'123'); name = f.name\n"
      "assert os.path.getsize(name) == 3; os.remove(name)\n"
      "shutil.rmtree('/app/sub')\n"
      "assert sorted(os.listdir('.')) == ['b.txt', 'c.txt'], os.listdir('.')\n"
      "print(os.getcwd())\n",
      dir, "/app\n");
  rm_tree(dir);
  free(dir);
}

static void test_stdin(void **s) {
  (void)s;
  wasmbox_request req = {.code = "import sys\nlines = sys.stdin.read().splitlines()\nprint(len(lines), lines[-1])",
                         .stdin_data = "one\ntwo\nthree\n",
                         .stdin_len = 14};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "3 three\n");
  wasmbox_result_free(r);
  /* no stdin given: end of file at once */
  expect_output("import sys\nprint(repr(sys.stdin.read()))", NULL, "''\n");
}

static void test_exception_reported(void **s) {
  (void)s;
  wasmbox_result *r = expect_exception("def f(x):\n    return 1 / x\nf(0)\n", NULL, "ZeroDivisionError");
  assert_string_equal(r->error_message, "division by zero");
  assert_non_null(strstr(r->error_traceback, "File \"<string>\", line 2, in f"));
  assert_non_null(strstr(r->error_traceback, "return 1 / x")); /* source lines shown */
  assert_non_null(strstr(r->stderr_data, "ZeroDivisionError: division by zero"));
  assert_null(strstr(r->error_traceback, "<wasmbox>")); /* our glue is not in it */
  assert_int_equal(r->exit_code, 1);
  wasmbox_result_free(r);

  r = expect_exception("class Custom(Exception): pass\nraise Custom('mine')", NULL, "__main__.Custom");
  assert_string_equal(r->error_message, "mine");
  wasmbox_result_free(r);

  r = expect_exception("x = (1,\n", NULL, "SyntaxError");
  assert_non_null(strstr(r->error_message, "never closed"));
  wasmbox_result_free(r);
}

static void test_filename_in_traceback(void **s) {
  (void)s;
  wasmbox_request req = {.code = "\n\nraise KeyError('k')\n", .filename = "job.py"};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_ERROR);
  assert_non_null(strstr(r->error_traceback, "File \"job.py\", line 3"));
  wasmbox_result_free(r);
}

static void test_exit_codes(void **s) {
  (void)s;
  wasmbox_result *r = run_py("import sys\nprint('bye')\nsys.exit(3)");
  expect_status(r, WASMBOX_STATUS_ERROR);
  assert_int_equal(r->exit_code, 3);
  assert_string_equal(r->stdout_data, "bye\n");
  wasmbox_result_free(r);

  expect_output("import sys\nprint('fine')\nsys.exit(0)", NULL, "fine\n");

  r = run_py("import sys\nsys.exit('fatal: no input')");
  expect_status(r, WASMBOX_STATUS_ERROR);
  assert_int_equal(r->exit_code, 1);
  assert_string_equal(r->stderr_data, "fatal: no input\n");
  wasmbox_result_free(r);

  r = run_py("import os\nprint('x', flush=True)\nos._exit(7)");
  expect_status(r, WASMBOX_STATUS_ERROR);
  assert_int_equal(r->exit_code, 7);
  assert_string_equal(r->stdout_data, "x\n");
  wasmbox_result_free(r);
}

static void test_files_changed(void **s) {
  (void)s;
  char *dir = make_dir();
  write_file(dir, "keep.txt", "k");
  write_file(dir, "gone.txt", "g");
  wasmbox_result *r = run_py_in(
      "import os\n"
      "open('new.txt', 'w').write('n')\n"
      "os.remove('gone.txt')\n"
      "os.mkdir('d')\n"
      "open('keep.txt').read()\n",
      dir);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_int_equal(r->files_changed_len, 3);
  assert_string_equal(r->files_changed[0], "/app/d");
  assert_string_equal(r->files_changed[1], "/app/gone.txt");
  assert_string_equal(r->files_changed[2], "/app/new.txt");
  wasmbox_result_free(r);
  rm_tree(dir);
  free(dir);
}

static void test_env_allowlist(void **s) {
  (void)s;
  setenv("WASMBOX_TEST_SECRET", "hunter2", 1);
  expect_output("import os\nprint(sorted(os.environ))", NULL, "[]\n");
  const char *env[] = {"GREETING=hi", "LANG_X=fr"};
  wasmbox_request req = {.code = "import os\nprint(os.environ['GREETING'], len(os.environ))", .env = env, .env_len = 2};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "hi 2\n");
  wasmbox_result_free(r);
}

static void test_time_sleep(void **s) {
  (void)s;
  expect_output(
      "import time\nt = time.monotonic()\ntime.sleep(0.15)\nd = time.monotonic() - t\n"
      "print(0.14 < d < 1.0)",
      NULL, "True\n");
}

static void test_stateless(void **s) {
  (void)s;
  expect_output("x = 41\nopen('f', 'w').write('1')\nprint(x + 1)", NULL, "42\n");
  /* a new call starts from nothing: no variable, no file */
  expect_output("print('x' in globals())\nimport os\nprint(os.listdir('.'))", NULL, "False\n[]\n");
}

static void test_calls_start_from_the_snapshot(void **s) {
  (void)s;
  /* every call finds the preloaded modules ready, and yet its own random
   * sequence, environment and working directory */
  expect_output("import sys\nprint(all(m in sys.modules for m in ('json', 're', 'decimal', 'statistics')))", NULL,
                "True\n");
  wasmbox_result *a = run_py("import random\nprint(random.random())");
  wasmbox_result *b = run_py("import random\nprint(random.random())");
  expect_status(a, WASMBOX_STATUS_OK);
  expect_status(b, WASMBOX_STATUS_OK);
  assert_string_not_equal(a->stdout_data, b->stdout_data);
  wasmbox_result_free(a);
  wasmbox_result_free(b);
  expect_output("import random\nrandom.seed(7)\nprint(random.randint(0, 10**9))", NULL, "347712782\n");
}

static void test_json_result(void **s) {
  (void)s;
  /* raw bytes that are not UTF-8 still give valid JSON (U+FFFD) */
  wasmbox_result *r = run_py("import sys\nsys.stdout.buffer.write(b'a\\x00b\\xff\"\\n')\nraise ValueError('v')");
  char *j = wasmbox_result_json(r);
  assert_non_null(j);
  assert_non_null(strstr(j, "\"status\":\"error\""));
  assert_non_null(strstr(j, "\"stdout\":\"a\\u0000b\xef\xbf\xbd\\\"\\n\""));
  assert_non_null(strstr(j, "\"error\":{\"type\":\"ValueError\",\"message\":\"v\""));
  assert_non_null(strstr(j, "\"session_id\":null"));
  free(j);
  wasmbox_result_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_print),
      cmocka_unit_test(test_json_re_datetime),
      cmocka_unit_test(test_numbers),
      cmocka_unit_test(test_collections_itertools),
      cmocka_unit_test(test_text_modules),
      cmocka_unit_test(test_hashlib),
      cmocka_unit_test(test_compression),
      cmocka_unit_test(test_csv_sqlite_in_workspace),
      cmocka_unit_test(test_pathlib_tempfile),
      cmocka_unit_test(test_stdin),
      cmocka_unit_test(test_exception_reported),
      cmocka_unit_test(test_filename_in_traceback),
      cmocka_unit_test(test_exit_codes),
      cmocka_unit_test(test_files_changed),
      cmocka_unit_test(test_env_allowlist),
      cmocka_unit_test(test_time_sleep),
      cmocka_unit_test(test_stateless),
      cmocka_unit_test(test_calls_start_from_the_snapshot),
      cmocka_unit_test(test_json_result),
  };
  return RUN("python", tests);
}
