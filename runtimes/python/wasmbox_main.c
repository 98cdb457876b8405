/* Guest side of the Python runtime: replaces Programs/python.c.
 *
 * The module is a WASI reactor. The host calls, in order:
 *   _initialize()                    C constructors (wasi-libc)
 *   wasmbox_init() -> 0 | -1         start the interpreter, import the helper
 *   wasmbox_alloc(n) -> ptr          room for the code and its file name
 *   wasmbox_run(code, len, name, len) -> exit status (0 ok, 1 exception, N exit)
 *   wasmbox_fresh()                  refresh a copy of a snapshot (see below)
 * wasmbox_run may be called again on the same instance: __main__ keeps its
 * globals, which is what a session is. An instance may be a copy of a memory
 * snapshot taken after wasmbox_init; the host calls wasmbox_fresh() on each
 * fresh copy: it takes this call's environment and mounts (guest_libc.c),
 * shows the environment in os.environ, and reseeds `random` and numpy's
 * global generator so that copies do not share one sequence. An uncaught
 * exception is printed to stderr as CPython would and reported to the host
 * through the import wasmbox.report_error (type, message, traceback), so
 * the host never parses guest output. Tool requests (the module `wasmbox`, lib/wasmbox.py) go to
 * the host through wasmbox.tool_request / wasmbox.tool_reply, exposed here as
 * _wasmbox.tool_request(bytes) -> bytes. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <wasi/libc-environ.h>

#include "guest_libc.h"

#define WB_EXPORT(name) __attribute__((export_name(#name)))

__attribute__((import_module("wasmbox"), import_name("report_error")))
void wb_report_error(const char *type, uint32_t type_len, const char *msg,
                     uint32_t msg_len, const char *tb, uint32_t tb_len);

/* A JSON request in, the host's JSON reply out (its length first; the reply
 * is held by the host until taken). */
__attribute__((import_module("wasmbox"), import_name("tool_request")))
uint32_t wb_tool_request(const char *req, uint32_t len);
__attribute__((import_module("wasmbox"), import_name("tool_reply")))
void wb_tool_reply(char *buf, uint32_t len);

static PyObject *tool_request(PyObject *self, PyObject *arg) {
  (void)self;
  Py_buffer req;
  if (PyObject_GetBuffer(arg, &req, PyBUF_SIMPLE) != 0) return NULL;
  if ((size_t)req.len > UINT32_MAX) {
    PyBuffer_Release(&req);
    return PyErr_Format(PyExc_ValueError, "tool request too large");
  }
  uint32_t n = wb_tool_request(req.buf, (uint32_t)req.len);
  PyBuffer_Release(&req);
  /* on MemoryError the host drops the reply at the next request */
  PyObject *out = PyBytes_FromStringAndSize(NULL, n);
  if (out) wb_tool_reply(PyBytes_AS_STRING(out), n);
  return out;
}

static PyMethodDef helper_natives[] = {
    {"tool_request", tool_request, METH_O, "Send a JSON tool request to the host; its JSON reply."},
    {NULL, NULL, 0, NULL},
};

/* Runs in the module _wasmbox. Kept in Python: it is glue over the
 * interpreter's own compile/exec/traceback machinery. */
static const char helper_source[] =
    "import sys, __main__\n"
    "_HELPER = __file__\n"
    /* sources of the code run so far, for tracebacks: registered with
       linecache only when one is formatted, so a call that does not fail
       never imports linecache, tokenize and re */
    "_sources = {}\n"
    "def run(src, filename):\n"
    "    _sources[filename] = src\n"
    "    exec(compile(src, filename, 'exec'), __main__.__dict__)\n"
    "def fresh(env, seed):\n"
    "    import os\n"
    "    os.environ._data.clear()\n"
    "    for item in env:\n"
    "        k, _, v = item.partition('=')\n"
    "        os.environ._data[os.environ.encodekey(k)] = os.environ.encodevalue(v)\n"
    "    r = sys.modules.get('random')\n"
    "    if r is not None:\n"
    "        r.seed(int.from_bytes(seed, 'little'))\n"
    "def exit_status(exc):\n"
    "    code = exc.code\n"
    "    if code is None:\n"
    "        return 0\n"
    "    if isinstance(code, int):\n"
    "        return code & 0xff\n"
    "    print(code, file=sys.stderr)\n"
    "    return 1\n"
    "def describe(exc):\n"
    "    import linecache, traceback\n"
    "    for name, src in _sources.items():\n"
    "        linecache.cache[name] = (len(src), None, src.splitlines(True), name)\n"
    "    tb = exc.__traceback__\n"
    "    while tb is not None and tb.tb_frame.f_code.co_filename == _HELPER:\n"
    "        tb = tb.tb_next\n"
    /* the last 1000 entries, as CPython's own printer shows: formatting
       every frame of a deep recursion would take seconds */
    "    text = ''.join(traceback.format_exception(type(exc), exc, tb, limit=-1000))\n"
    "    sys.stderr.write(text)\n"
    "    t = type(exc)\n"
    /* numpy's _ArrayMemoryError and the like: still out of memory */
    "    if isinstance(exc, MemoryError):\n"
    "        t = MemoryError\n"
    "    name = t.__qualname__ if t.__module__ == 'builtins' else t.__module__ + '.' + t.__qualname__\n"
    "    try:\n"
    "        msg = str(exc)\n"
    "    except Exception:\n"
    "        msg = '<unprintable ' + name + '>'\n"
    "    return name, msg, text\n";

static PyObject *helper_run, *helper_exit_status, *helper_describe, *helper_fresh;

static void flush_stdio(void) {
  static const char *names[] = {"stdout", "stderr"};
  for (int i = 0; i < 2; i++) {
    PyObject *f = PySys_GetObject(names[i]); /* borrowed */
    if (f && f != Py_None) {
      PyObject *r = PyObject_CallMethod(f, "flush", NULL);
      Py_XDECREF(r);
    }
    PyErr_Clear();
  }
}

/* The extension modules linked in (build.sh generates it from numpy.sh's
 * list): registered as built-ins before the interpreter starts. */
int wb_python_extensions_register(void);

WB_EXPORT(wasmbox_init) int wasmbox_init(void) {
  if (wb_python_extensions_register() != 0) return -1;
  PyPreConfig pre;
  PyPreConfig_InitIsolatedConfig(&pre);
  pre.utf8_mode = 1;
  if (PyStatus_Exception(Py_PreInitialize(&pre))) return -1;

  PyConfig config;
  PyConfig_InitIsolatedConfig(&config);
  config.install_signal_handlers = 0;
  config.write_bytecode = 0;
  config.site_import = 1;
  config.buffered_stdio = 0; /* output written before a timeout is kept */
  config.parse_argv = 0;
  wchar_t *argv[] = {L""};
  PyStatus st = PyConfig_SetString(&config, &config.home, L"/usr/local");
  if (!PyStatus_Exception(st)) st = PyConfig_SetString(&config, &config.program_name, L"python3");
  if (!PyStatus_Exception(st)) st = PyConfig_SetArgv(&config, 1, argv);
  if (!PyStatus_Exception(st)) st = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(st)) return -1;

  PyObject *code = Py_CompileString(helper_source, "<wasmbox>", Py_file_input);
  PyObject *mod = code ? PyImport_ExecCodeModuleEx("_wasmbox", code, "<wasmbox>") : NULL;
  Py_XDECREF(code);
  if (!mod || PyModule_AddFunctions(mod, helper_natives) != 0) { PyErr_Print(); return -1; }
  helper_run = PyObject_GetAttrString(mod, "run");
  helper_exit_status = PyObject_GetAttrString(mod, "exit_status");
  helper_describe = PyObject_GetAttrString(mod, "describe");
  helper_fresh = PyObject_GetAttrString(mod, "fresh");
  Py_DECREF(mod);
  if (!helper_run || !helper_exit_status || !helper_describe || !helper_fresh) { PyErr_Print(); return -1; }
  wb_guest_note_preopens();
  /* The workspace is the working directory (relative paths land in it). */
  if (chdir("/app") != 0) return -1;
  return 0;
}

WB_EXPORT(wasmbox_alloc) void *wasmbox_alloc(uint32_t size) { return malloc(size ? size : 1); }

/* A signal from the host (the timer of signal.alarm/setitimer, alarm.h), at
 * whatever point the guest's code is: as a POSIX signal handler runs.
 * CPython's handler only marks the signal (it is async-signal-safe, and uses
 * no memory but its flags); the Python-level handler runs at the
 * interpreter's next check. Without a handler the program ends, as SIGALRM
 * ends a process: exit status 128 + the signal. */
WB_EXPORT(wasmbox_raise) void wasmbox_raise(int sig) {
  void (*handler)(int) = signal(sig, SIG_IGN);
  signal(sig, handler);
  if (handler == SIG_IGN) return;
  if (handler == SIG_DFL) {
    static const char type[] = "Alarm", msg[] = "Alarm clock: signal.alarm or signal.setitimer expired and SIGALRM "
                                                "has no handler (its default action ends the program)";
    wb_report_error(type, sizeof type - 1, msg, sizeof msg - 1, "", 0);
    _Exit(128 + sig);
  }
  handler(sig);
}

/* Each fresh copy's seeds: 256 bits of the host's entropy for `random`
 * (seed(int)) and 256 for numpy's global generator, where seed() with no
 * argument read 2.5 KB for each (the whole Mersenne Twister state) and
 * numpy's own seed() takes 128 bits. Reading them was 4-6 % of a warm
 * call's time (perf), most of it the kernel generating the bytes. */
#define SEED_WORDS 8

/* numpy's global RandomState (np.random.rand and the like) gets a new key
 * from its seed words, set as seed(array) sets it (init_by_array), straight
 * into its MT19937 state: seed() builds a SeedSequence in Python, 0.35 ms
 * per call. The layouts are numpy 1.19.5's: a BitGenerator's capsule holds
 * a bitgen_t (numpy/random/bitgen.h) whose first member is the state, and
 * MT19937's state is mt19937_state (src/mt19937/mt19937.h). A copy of the
 * base snapshot has drawn no gaussian, so there is no cached one to drop. */
typedef struct {
  uint32_t key[624];
  int pos;
} numpy_mt19937_state;

/* numpy's (src/mt19937/mt19937.c, linked in with numpy.random._mt19937) */
void mt19937_init_by_array(numpy_mt19937_state *state, uint32_t *init_key, int key_length);

static int reseed_numpy(uint32_t *seed) {
  PyObject *mtrand = PyImport_ImportModule("numpy.random.mtrand");
  PyObject *rand = mtrand ? PyObject_GetAttrString(mtrand, "_rand") : NULL;
  PyObject *bitgen = rand ? PyObject_GetAttrString(rand, "_bit_generator") : NULL;
  PyObject *capsule = bitgen ? PyObject_GetAttrString(bitgen, "capsule") : NULL;
  int ok = capsule && strcmp(Py_TYPE(bitgen)->tp_name, "numpy.random._mt19937.MT19937") == 0;
  void **bitgen_state = ok ? PyCapsule_GetPointer(capsule, "BitGenerator") : NULL;
  Py_XDECREF(capsule);
  Py_XDECREF(bitgen);
  Py_XDECREF(rand);
  Py_XDECREF(mtrand);
  if (!bitgen_state) return -1;
  mt19937_init_by_array(*bitgen_state, seed, SEED_WORDS); /* sets key[0]'s top bit and pos as seed() does */
  return 0;
}

WB_EXPORT(wasmbox_fresh) int wasmbox_fresh(void) {
  uint32_t seeds[2 * SEED_WORDS];
  if (wb_guest_refresh_libc() != 0 || getentropy(seeds, sizeof seeds) != 0) return -1;
  PyObject *env = PyList_New(0);
  for (char **e = __wasilibc_get_environ(); env && e && *e; e++) {
    PyObject *s = PyUnicode_DecodeFSDefault(*e);
    if (!s || PyList_Append(env, s) != 0) Py_CLEAR(env);
    Py_XDECREF(s);
  }
  PyObject *seed = PyBytes_FromStringAndSize((const char *)seeds, SEED_WORDS * sizeof *seeds);
  PyObject *r = env && seed ? PyObject_CallFunctionObjArgs(helper_fresh, env, seed, NULL) : NULL;
  Py_XDECREF(seed);
  Py_XDECREF(env);
  if (!r || reseed_numpy(seeds + SEED_WORDS) != 0) {
    Py_XDECREF(r);
    PyErr_Clear();
    return -1;
  }
  Py_DECREF(r);
  return 0;
}

/* Report the pending exception and return the exit status. SystemExit is a
 * normal exit; anything else is printed and reported. When formatting itself
 * fails (memory is full) the bare type name is reported. */
static int report_exception(void) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (value && tb) PyException_SetTraceback(value, tb);
  int status = 1;
  if (value && PyErr_GivenExceptionMatches(type, PyExc_SystemExit)) {
    PyObject *r = PyObject_CallOneArg(helper_exit_status, value);
    if (r) status = (int)PyLong_AsLong(r);
    Py_XDECREF(r);
    PyErr_Clear();
  } else {
    PyObject *d = value ? PyObject_CallOneArg(helper_describe, value) : NULL;
    Py_ssize_t n[3];
    const char *s[3] = {0};
    if (d && PyTuple_Check(d) && PyTuple_GET_SIZE(d) == 3) {
      for (int i = 0; i < 3; i++) {
        s[i] = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(d, i), &n[i]);
        if (!s[i]) break;
      }
    }
    if (s[0] && s[1] && s[2]) {
      wb_report_error(s[0], (uint32_t)n[0], s[1], (uint32_t)n[1], s[2], (uint32_t)n[2]);
    } else {
      /* Formatting failed (no memory, or no descriptor left to import
       * traceback with): CPython's C printer needs neither. */
      PyErr_Clear();
      const char *tn = type ? ((PyTypeObject *)type)->tp_name : "SystemError";
      PyObject *str = value ? PyObject_Str(value) : NULL;
      Py_ssize_t mlen = 0;
      const char *m = str ? PyUnicode_AsUTF8AndSize(str, &mlen) : NULL;
      PyErr_Clear();
      if (type) PyErr_Display(type, value, tb);
      wb_report_error(tn, (uint32_t)strlen(tn), m ? m : "", m ? (uint32_t)mlen : 0, "", 0);
      Py_XDECREF(str);
    }
    Py_XDECREF(d);
  }
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  return status;
}

WB_EXPORT(wasmbox_run) int wasmbox_run(char *code, uint32_t code_len, char *name, uint32_t name_len) {
  PyObject *src = PyUnicode_DecodeUTF8(code, code_len, "surrogateescape");
  PyObject *fname = PyUnicode_DecodeUTF8(name, name_len, "surrogateescape");
  free(code);
  free(name);
  int status = 0;
  PyObject *r = (src && fname) ? PyObject_CallFunctionObjArgs(helper_run, src, fname, NULL) : NULL;
  Py_XDECREF(src);
  Py_XDECREF(fname);
  if (r) {
    Py_DECREF(r);
  } else {
    status = report_exception();
  }
  flush_stdio();
  return status;
}
