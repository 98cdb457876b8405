/* pandas built into the Python runtime (runtimes/python/pandas.sh), on the
 * built-in numpy 1.19.5: what native pandas prints for the same code (the
 * reference: the same generated C built natively for python3.11 against
 * the same numpy, tests/conformance/pandas_native.sh), its 44 extension
 * modules built in, the limits (memory, timeout, fuel) inside pandas'
 * own loops, and frames in sessions. */
#include "harness.h"

/* Each snippet and what native pandas 2.2.3 on numpy 1.19.5 printed. */
static const snippet uses[] = {
    {"a CSV grouped by month, resampled, pivoted",
     "import io, pandas as pd\n"
     "csv = \"date,city,sales\\n2024-01-05,A,10\\n2024-01-20,B,5\\n2024-02-03,A,7\\n2024-02-28,B,1\\n\"\n"
     "df = pd.read_csv(io.StringIO(csv), parse_dates=[\"date\"])\n"
     "print(df.groupby(df.date.dt.to_period(\"M\"))[\"sales\"].sum().to_dict())\n"
     "print(df.set_index(\"date\").resample(\"MS\")[\"sales\"].mean().tolist())\n"
     "print(df.pivot_table(index=\"city\", values=\"sales\", aggfunc=\"sum\").to_dict())\n"
     "print(df.groupby(\"city\").agg(total=(\"sales\", \"sum\"), avg=(\"sales\", \"mean\")).to_string())\n",
     "{Period('2024-01', 'M'): 15, Period('2024-02', 'M'): 8}\n"
     "[7.5, 4.0]\n"
     "{'sales': {'A': 17, 'B': 6}}\n"
     "      total  avg\n"
     "city            \n"
     "A        17  8.5\n"
     "B         6  3.0\n"},
    {"pandas' own dtypes beside numpy 1.19's (patch 0107)",
     "import io, pandas as pd, numpy as np\n"
     "df = pd.DataFrame({\"a\": [1, None, 3], \"b\": [\"x\", \"y\", None]})\n"
     "print(df.dropna().to_dict(\"list\"), df.any().tolist())\n"
     "print(df.a.astype(\"Int64\").tolist(), df.b.astype(\"category\").cat.categories.tolist(), df.b.astype(\"string\").isna().sum())\n"
     "print(pd.read_json(io.StringIO(df.to_json(orient=\"records\")), orient=\"records\").shape, np.dtype(\"bool\") == \"boolean\")\n",
     "{'a': [1.0], 'b': ['x']} [True, True]\n"
     "[1, <NA>, 3] ['x', 'y'] 1\n"
     "(3, 2) False\n"},
    {"statistics, windows, ranks",
     "import pandas as pd, numpy as np\n"
     "s = pd.Series(np.random.default_rng(0).normal(size=1000))\n"
     "print(s.quantile([0.1, 0.5, 0.9]).round(6).tolist(), s.describe().round(6).tolist())\n"
     "print(s.rolling(10).mean().iloc[-3:].round(6).tolist(), s.ewm(span=5).mean().iloc[-1].round(6), s.rank().iloc[:3].tolist())\n"
     "print(pd.DataFrame({\"x\": s, \"y\": s * 2 + 1}).corr().round(6).values.tolist())\n"
     "print(s.rolling(10).max().iloc[-2:].round(6).tolist(), s.rolling(10).median().iloc[-1].round(6))\n",
     "[-1.256431, -0.074822, 1.229526] [1000.0, -0.048028, 0.977242, -3.899422, -0.690434, -0.074822, 0.615146, 3.066037]\n"
     "[-0.054898, -0.161599, -0.152045] -0.046525 [579.0, 479.0, 759.0]\n"
     "[[1.0, 1.0], [1.0, 1.0]]\n"
     "[1.882338, 1.882338] -0.334219\n"},
    {"dates, time zones, offsets",
     "import pandas as pd\n"
     "t = pd.to_datetime([\"2024-03-01 12:00\", \"2024-03-30 23:30\"]).tz_localize(\"Europe/Paris\")\n"
     "print(t.tz_convert(\"UTC\").strftime(\"%Y-%m-%d %H:%M\").tolist(), pd.date_range(\"2024-01-01\", periods=3, freq=\"W\").day.tolist())\n"
     "print(pd.Timestamp(\"2024-01-05\") + pd.offsets.BusinessDay(2), pd.period_range(\"2024-01\", periods=2, freq=\"M\").tolist())\n",
     "['2024-03-01 11:00', '2024-03-30 22:30'] [7, 14, 21]\n"
     "2024-01-09 00:00:00 [Period('2024-01', 'M'), Period('2024-02', 'M')]\n"},
    {"merges, reshapes, text",
     "import pandas as pd\n"
     "a = pd.DataFrame({\"k\": [\"a\", \"b\", \"c\"], \"v\": [1, 2, 3]}); b = pd.DataFrame({\"k\": [\"a\", \"c\"], \"w\": [10, 30]})\n"
     "print(pd.merge(a, b, on=\"k\", how=\"left\").fillna(0).to_dict(\"list\"), a.melt(id_vars=\"k\").shape, a.set_index(\"k\").T.to_dict())\n"
     "print(pd.Series([\"a b\", \"c d e\"]).str.split().str.len().tolist(), a.to_csv(index=False).splitlines(), pd.cut([1, 5, 9], 3).codes.tolist())\n",
     "{'k': ['a', 'b', 'c'], 'v': [1, 2, 3], 'w': [10.0, 0.0, 30.0]} (3, 3) {'a': {'v': 1}, 'b': {'v': 2}, 'c': {'v': 3}}\n"
     "[2, 3] ['k,v', 'a,1', 'b,2', 'c,3'] [0, 1, 2]\n"},
    {"merges on the int keys numpy types intc on wasm32 (patch 0005)",
     "import pandas as pd, numpy as np\n"
     "a = pd.DataFrame({\"k\": np.arange(6) % 3, \"v\": range(6)})\n"
     "print(a.merge(a.groupby(\"k\", as_index=False).v.sum(), on=\"k\").v_y.tolist())\n",
     "[3, 5, 7, 3, 5, 7]\n"},
    {"Excel and Markdown through the built-in openpyxl, xlsxwriter and tabulate (patch 0006)",
     "import pandas as pd\n"
     "df = pd.DataFrame({\"k\": [\"a\", \"b\"], \"v\": [1.5, 2]})\n"
     "df.to_excel(\"t.xlsx\", index=False); print(pd.read_excel(\"t.xlsx\").to_dict(\"list\"))\n"
     "df.to_excel(\"w.xlsx\", index=False, engine=\"xlsxwriter\"); print(pd.read_excel(\"w.xlsx\").v.sum())\n"
     "print(df.to_markdown(index=False))\n",
     "{'k': ['a', 'b'], 'v': [1.5, 2.0]}\n"
     "3.5\n"
     "| k   |   v |\n"
     "|:----|----:|\n"
     "| a   | 1.5 |\n"
     "| b   | 2   |\n"},
};

static void test_pandas_prints_what_native_pandas_prints(void **s) {
  (void)s;
  expect_snippets("pandas", uses, sizeof uses / sizeof uses[0]);
}

/* The extensions are built-in modules under the dotted names native pandas
 * gives its .so files, all 44; the package's metadata is there. */
static void test_extensions_are_built_in(void **s) {
  (void)s;
  expect_output(
      "import pandas, sys, importlib.metadata\n"
      "import pandas._libs.lib as l, pandas._libs.tslibs.offsets as o\n"
      "import pandas._libs.window.aggregations as a, pandas._libs.json as j\n"
      "print(pandas.__version__, importlib.metadata.version('pandas'), l.__name__, o.__name__, a.__name__, "
      "j.__name__)\n"
      "print(sum(m.startswith('pandas.') for m in sys.builtin_module_names))\n",
      NULL,
      "2.2.3 2.2.3 pandas._libs.lib pandas._libs.tslibs.offsets pandas._libs.window.aggregations "
      "pandas._libs.json\n"
      "44\n");
}

/* A frame too big for the call's memory is out_of_memory, and a long
 * pandas operation (C loops in groupby and merges) is stopped by the
 * deadline and by the fuel budget; the next call runs. */
static void test_limits_stop_pandas(void **s) {
  (void)s;
  expect_out_of_memory("import pandas as pd, numpy as np\npd.DataFrame(np.zeros((20000, 20000)))");
  expect_out_of_memory("import pandas as pd\ns = pd.Series(range(10**9))");
  const char *loop =
      "import pandas as pd, numpy as np\n"
      "df = pd.DataFrame({'k': np.arange(10**5) % 97, 'v': np.ones(10**5)})\n"
      "while True:\n    df = df.merge(df.groupby('k', as_index=False).v.sum(), on='k').iloc[:, :2]\n"
      "    df.columns = ['k', 'v']\n";
  wasmbox_request req = {.code = loop, .timeout_seconds = 1};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_TIMEOUT);
  wasmbox_result_free(r);
  req.timeout_seconds = 0;
  req.fuel = 300000000;
  r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OUT_OF_FUEL);
  wasmbox_result_free(r);
  expect_output("import pandas as pd\nprint(pd.Series([1, 2, 3]).sum())", NULL, "6\n");
}

/* Frames live in sessions, fork with them and roll back with them. */
static void test_frames_live_in_sessions(void **s) {
  (void)s;
  char id[WASMBOX_ID_MAX], fork[WASMBOX_ID_MAX], err[256];
  assert_int_equal(wasmbox_session_create(test_wb, NULL, id, err, sizeof err), WASMBOX_OK);
  wasmbox_request req = {.session_id = id,
                         .code = "import pandas as pd\ndf = pd.DataFrame({'k': ['a', 'b', 'a'], 'v': [1, 2, 3]})\n"};
  wasmbox_result *r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  wasmbox_result_free(r);
  assert_int_equal(wasmbox_session_fork(test_wb, id, fork, err, sizeof err), WASMBOX_OK);
  wasmbox_request freq = {.session_id = fork, .code = "df['v'] *= 10\nprint(df.groupby('k').v.sum().to_dict())"};
  r = run_req(&freq);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "{'a': 40, 'b': 20}\n");
  wasmbox_result_free(r);
  req.code = "df.loc[3] = ['c', 4]\nwhile True: pass";
  req.timeout_seconds = 0.5;
  r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_TIMEOUT);
  assert_true(r->session_rolled_back);
  wasmbox_result_free(r);
  req.timeout_seconds = 0;
  req.code = "df.to_csv('df.csv', index=False)\nprint(len(df), pd.read_csv('df.csv').v.sum())";
  r = run_req(&req);
  expect_status(r, WASMBOX_STATUS_OK);
  assert_string_equal(r->stdout_data, "3 6\n");
  wasmbox_result_free(r);
  assert_int_equal(wasmbox_session_destroy(test_wb, fork, err, sizeof err), WASMBOX_OK);
  assert_int_equal(wasmbox_session_destroy(test_wb, id, err, sizeof err), WASMBOX_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pandas_prints_what_native_pandas_prints),
      cmocka_unit_test(test_extensions_are_built_in),
      cmocka_unit_test(test_limits_stop_pandas),
      cmocka_unit_test(test_frames_live_in_sessions),
  };
  /* sessions here live in a state directory of their own */
  char *home = make_dir();
  setenv("WASMBOX_HOME", home, 1);
  int rc = RUN("pandas", tests);
  rm_tree(home);
  free(home);
  return rc;
}
