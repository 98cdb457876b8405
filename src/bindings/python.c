/* Python 3.11 (runtimes/python): binds the translated module to the engine.
 * Including imports.h (through module_glue.h) beside the generated header
 * makes the compiler check that our WASI functions have the signatures the
 * module imports. */
#include <pthread.h>
#include <stdio.h>

#include "python.h"
#include "bindings/module_glue.h"

WB_MODULE_GLUE(python)

/* Built into the binary (Makefile: images.S): the stdlib as .py + .pyc, the
 * built-in pure-Python packages (runtimes/python/packages.txt) where site.py
 * looks for them, Debian's tzdata so zoneinfo works, and Debian's DejaVu
 * fonts (fonts-dejavu-core) where Linux keeps them, so that Pillow's
 * ImageFont.truetype("DejaVuSans.ttf") finds one by name. */
extern const uint8_t wb_python_stdlib[], wb_python_stdlib_end[];
extern const uint8_t wb_python_packages[], wb_python_packages_end[];
extern const uint8_t wb_zoneinfo[], wb_zoneinfo_end[];
extern const uint8_t wb_fonts[], wb_fonts_end[];

static wb_image stdlib, packages, zoneinfo, fonts;
static wb_runtime_mount images[] = {
    {"/usr/local/lib/python3.11", &stdlib},
    {"/usr/local/lib/python3.11/site-packages", &packages},
    {"/usr/share/zoneinfo", &zoneinfo},
    {"/usr/share/fonts", &fonts},
};
static char prepare_error[256];

static void prepare_once(void) {
  wasm_rt_init();
  init_modules();
  char err[200];
  if (!wb_image_open_built(&stdlib, wb_python_stdlib, (size_t)(wb_python_stdlib_end - wb_python_stdlib), err,
                           sizeof err))
    snprintf(prepare_error, sizeof prepare_error, "python stdlib: %s", err);
  else if (!wb_image_open_built(&packages, wb_python_packages, (size_t)(wb_python_packages_end - wb_python_packages),
                                err, sizeof err))
    snprintf(prepare_error, sizeof prepare_error, "python packages: %s", err);
  else if (!wb_image_open_built(&zoneinfo, wb_zoneinfo, (size_t)(wb_zoneinfo_end - wb_zoneinfo), err, sizeof err))
    snprintf(prepare_error, sizeof prepare_error, "zoneinfo: %s", err);
  else if (!wb_image_open_built(&fonts, wb_fonts, (size_t)(wb_fonts_end - wb_fonts), err, sizeof err))
    snprintf(prepare_error, sizeof prepare_error, "fonts: %s", err);
  else if (!open_base_snapshot(err, sizeof err)) snprintf(prepare_error, sizeof prepare_error, "%s", err);
}

WB_MODULE_PREPARE

/* signal.alarm's delivery (runtimes/python/alarm.h) */
static void raise_signal(void *inst, int sig) { Z_pythonZ_wasmbox_raise(inst, (uint32_t)sig); }

const wb_runtime wb_runtime_python = {
    .language = "python",
    .version = "3.11.2",
    .default_name = "<string>",
    .oom_error_type = "MemoryError",
    /* the modules most code starts with, what error reports need, and the
     * built-in packages worth it: each of these costs a call 5-100 ms to
     * import, together ~300 ms and 14 MB of heap (shared copy-on-write by
     * every call); numpy, built into the module, is among them (docs/runtimes.md,
     * "The data stack"), and so are Pillow's Image (openpyxl imports it
     * anyway: 6 pages), ImageDraw and ImageFont (3.5 ms a call that draws;
     * no page more, the same print(1)), and matplotlib.pyplot: a stateless
     * plot through MCP took 196 ms with its import, 78 ms without, for 12 MB
     * more snapshot heap (34.5 -> 46.5 MB; print(1) 0.45 -> 0.41 ms and the
     * whole process 7.5 -> 7.9 ms, within the noise of one run), and
     * pandas: 200 ms a call that imports it, for 14 MB more (45 -> 59 MB).
     * Left to import on demand: sympy
     * (220 ms, 22 MB), networkx (65 ms, 6 MB), pypdf/PyPDF2 (35 ms, 3 MB
     * each), html5lib, mpmath...
     * The heap is then frozen: the collector never walks it, so a call
     * dirties no page of it. (docs/runtimes.md, "Python packages") LC_CTYPE is
     * C.UTF-8, as CPython's coercion of the C locale leaves a native
     * process whose environment names none (PEP 538). */
    .preload =
        "for m in ('json', 're', 'math', 'datetime', 'collections', 'itertools', 'functools',\n"
        "          'random', 'statistics', 'csv', 'decimal', 'traceback', 'linecache', 'typing',\n"
        "          'dataclasses', 'pathlib', 'string', 'textwrap', 'hashlib', 'base64', 'copy',\n"
        "          'openpyxl', 'xlsxwriter', 'tabulate', 'jinja2', 'markdown', 'yaml', 'bs4',\n"
        "          'dateutil.parser', 'dateutil.relativedelta', 'dateutil.tz', 'dateutil.rrule', 'pytz',\n"
        "          'pydantic', 'attrs', 'six', 'asyncio', 'concurrent.futures', 'numpy',\n"
        "          'PIL.Image', 'PIL.ImageDraw', 'PIL.ImageFont', 'matplotlib.pyplot', 'pandas'):\n"
        "    __import__(m)\n"
        "del m\n"
        "import locale\n"
        "locale.setlocale(locale.LC_CTYPE, 'C.UTF-8')\n"
        "del locale\n"
        "import gc\n"
        "gc.collect()\n"
        "gc.freeze()\n"
        "del gc\n",
    .prepare = prepare,
    .mounts = mounts,
    .raise = raise_signal,
    WB_MODULE_FIELDS(python),
};
