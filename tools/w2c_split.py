#!/usr/bin/env python3
"""Split one wasm2c (wabt 1.0.32) output file into files that compile in parallel.

usage: w2c_split.py MODULE.c OUTDIR CHUNK_BYTES [COLD]
       w2c_split.py --registers-if

wasm2c writes a single .c: a prelude (macros, static inline helpers), the
function-type table, forward declarations of every function (static), data and
element segments with the init functions, the function bodies, and finally the
exports and instantiate/free. We write:
  OUTDIR/common.h    prelude + `extern` type table + non-static declarations
  OUTDIR/init.c      type table, segments, init code, exports
  OUTDIR/funcs_N.c   function bodies, about CHUNK_BYTES each
  OUTDIR/cold_N.c    with COLD (a file of positions in the code section,
                     0 for the first body, one per line): those bodies, which
                     runtimes/native.sh compiles once, without a profile
Functions lose `static` so the files can call each other; the build links them
with `ld -r` and keeps only the module's API symbols global, so nothing leaks
between modules. The split is purely textual and checked: every function body
must land in exactly one file.

--registers-if prints the preprocessor condition under which the split code
keeps the fuel counter and the memory base in registers (below), for
runtimes/native.sh to ask the compiler before translating.

Snapshot support, generated from the module's own header: functions that
save and load the instance's globals (Z_<mod>_wb_globals_*), a flag saying
whether its tables can change at run time, and a LOAD_DATA that leaves memory
alone when our wasm-rt mapped it from a snapshot (the data segments are in
the snapshot already; copying them would dirty every page they cover).

One rewrite on the way: loads and stores take the memory base from `wb_mb`,
instead of `instance->w2c_memory.data` at every access. A byte store may
alias anything, so the compiler must otherwise reload the base after every
store. On x86-64 with gcc the base lives in a register, r14, set by every
export (as the fuel counter below), and `wb_mb` is r14 itself: reading it
from the instance at every function entry was a load on the way to the
function's first memory access, and the register, although gcc has one fewer
to allocate, made the Python compute suite 3 % faster (make bench). Elsewhere
`wb_mb` is a local read once from the instance. (A local copy of r14 held a
register of its own, callee-saved in every function that calls, because gcc
must assume a callee may change r14: CPython's eval loop spilled a fifth
more, and the compute suite ran 4 % slower, paired runs of PGO builds.)
This is sound only because our wasm-rt (src/wasm_rt/wasm_rt.c) never moves a
memory: growth changes protection inside a reservation made once, and
snapshots remap at the same address; and because no guest code runs but
through an export (neither module has a start function).

Another: the fuel counter (tools/wasm_fuel) lives in a register, r15, while
guest code runs (x86-64 with gcc, which has global register variables;
elsewhere it stays in the instance). Every charge was a read-modify-write of
the instance's global, a chain through memory: metering cost about 13% on
the Python compute benchmarks against an unmetered build, 8% with the
register. The instance's counter is what the host reads, so it is written
back where the host can look: when an export returns, before every import
call (proc_exit never returns) and in every trap the code raises itself (so
out of fuel is exact). A fault or a timeout unwinds from a signal handler,
which takes the counter from the interrupted r15 when the interrupted code
is the module's (src/wasm_rt/guest.c; native.sh brackets the module's code
with Z_<mod>_wb_code_start/end, and Z_<mod>_wb_fuel_in_register says whether
this build keeps the counter in r15). Writing it back at every loop header
instead cost 1-3 % of compute time (make bench). r15 is callee-saved, so
host code called from the guest keeps it; an export saves the host's value
and restores it; siglongjmp restores it on a trap.
A charge of a constant cost is one instruction pair, `sub $cost, %r15;
jl` (WB_FUEL_CHARGE), which the processor fuses into one micro-op; the
`test; js` it replaced after a subtraction in C was two. (JavaScript's
compute suite against a build without charges: +6.9 % -> +5.5 %, paired
runs.) runtimes/native.sh then has the pass charge r15 itself in loops too
(--cache none): a loop's local copy of a counter that is already in a
register only added moves and a register (+5.2 % -> +3.8 %).

And one more: call_indirect through a table that never changes (no table
instruction in any body, element segments only at constant offsets, every
entry this module's own function) reads a constant table made here, a
function pointer beside a signature number, instead of the instance's
table: wasm2c's check loads the table's size, its data pointer, the entry's
function, type and instance and the registered type, a chain of dependent
loads on every indirect call (CPython makes one for every Py_DECREF that
frees). The checks stay: an index past the end or an entry of another
signature traps exactly as before. Signatures are numbered by their shape,
as the runtime's registry compares them. The table is written in assembly,
each function as its distance from its entry, which the link resolves: a
table of addresses is relocated by every process of a position-independent
program when it starts (Python's: 20 000 relocations, 320 KB of pages then
private to each process). When nothing else reads a table (no body once
rewritten, no export), the instance's own table is left unfilled, all null:
its element segments were another 480 KB of relocated addresses, and
filling it wrote 490 KB more in every instance.

And the interpreters' loops are threaded: where wasm2c writes a loop whose
head is a switch of 64 cases or more (CPython's eval loop, QuickJS's; the
C had computed gotos natively, a switch on wasm), the switch becomes a
computed goto through a table of label offsets, and every jump back to the
head a copy of the head (its fuel charge, the dispatch), so each handler
has its own indirect jump, as natively. Measured: JavaScript's compute
suite 1.19x -> 1.16x native QuickJS (fib 1.76x -> 1.61x); Python's within
noise (its eval loop is not bound by the dispatch). See threaded_dispatch.

Modules with exceptions (wasm2c --enable-exceptions: C++ built with
-fwasm-exceptions) get more, and only they: a try is a setjmp and a throw a
longjmp to the innermost try's buffer (src/wasm_rt/wasm_rt.c). In each
function with a try, the locals and parameters become volatile: one changed
in a try and read in its handler or after it otherwise came back at -O2 with
its value at the setjmp (C11 7.13.2.1; C++ cleanups clear a flag this way).
The fuel counter, in r15, came back the same way: a throw writes it to the
instance and where the throw lands it is read back. A try saves no signal
mask (no system call per try): an exception never leaves the export it was
thrown in (every export starts with no handler), so never a signal handler.
And wasm2c 1.0.32 leaves a try body by a goto without giving the unwind
target back (it does for return): a later throw landed in a try that had
ended, or in a frame that had returned; before each goto that leaves try
bodies, the target is restored. A branch to a try's own label, which wasm2c
writes as a goto to a label it never defines, gets its label, after the try.
The tags, numbered at init, are shared between the files.

"""
import os
import re
import sys

BODY = re.compile(r'^static (?:u32|u64|f32|f64|void) (w2c_\w+)\(Z_\w+_instance_t\* instance\b')
DECL = re.compile(r'^static ((?:u32|u64|f32|f64|void) w2c_\w+\(.*\);)$')
ACCESS = re.compile(r'\b((?:i32|i64|f32|f64)_(?:load|store)(?:8|16|32)?(?:_[su])?)\(&instance->w2c_memory, ')
ACCESSORS = ['i32_load', 'i64_load', 'f32_load', 'f64_load', 'i32_load8_s', 'i64_load8_s', 'i32_load8_u',
             'i64_load8_u', 'i32_load16_s', 'i64_load16_s', 'i32_load16_u', 'i64_load16_u', 'i64_load32_s',
             'i64_load32_u', 'i32_store', 'i64_store', 'f32_store', 'f64_store', 'i32_store8', 'i32_store16',
             'i64_store8', 'i64_store16', 'i64_store32']
# Base-pointer variants of wasm2c's DEFINE_LOAD / DEFINE_STORE (little-endian).
BASE_ACCESSORS = r'''
#define DEFINE_LOAD_B(name, t1, t2, t3)                    \
  static inline t3 name##_b(u8* base, u64 addr) {          \
    t1 result;                                             \
    wasm_rt_memcpy(&result, base + addr, sizeof(t1));      \
    wasm_asm("" ::"r"(result));                            \
    return (t3)(t2)result;                                 \
  }
#define DEFINE_STORE_B(name, t1, t2)                            \
  static inline void name##_b(u8* base, u64 addr, t2 value) {   \
    t1 wrapped = (t1)value;                                     \
    wasm_rt_memcpy(base + addr, &wrapped, sizeof(t1));          \
  }
DEFINE_LOAD_B(i32_load, u32, u32, u32)
DEFINE_LOAD_B(i64_load, u64, u64, u64)
DEFINE_LOAD_B(f32_load, f32, f32, f32)
DEFINE_LOAD_B(f64_load, f64, f64, f64)
DEFINE_LOAD_B(i32_load8_s, s8, s32, u32)
DEFINE_LOAD_B(i64_load8_s, s8, s64, u64)
DEFINE_LOAD_B(i32_load8_u, u8, u32, u32)
DEFINE_LOAD_B(i64_load8_u, u8, u64, u64)
DEFINE_LOAD_B(i32_load16_s, s16, s32, u32)
DEFINE_LOAD_B(i64_load16_s, s16, s64, u64)
DEFINE_LOAD_B(i32_load16_u, u16, u32, u32)
DEFINE_LOAD_B(i64_load16_u, u16, u64, u64)
DEFINE_LOAD_B(i64_load32_s, s32, s64, u64)
DEFINE_LOAD_B(i64_load32_u, u32, u64, u64)
DEFINE_STORE_B(i32_store, u32, u32)
DEFINE_STORE_B(i64_store, u64, u64)
DEFINE_STORE_B(f32_store, f32, f32)
DEFINE_STORE_B(f64_store, f64, f64)
DEFINE_STORE_B(i32_store8, u8, u32)
DEFINE_STORE_B(i32_store16, u16, u32)
DEFINE_STORE_B(i64_store8, u8, u64)
DEFINE_STORE_B(i64_store16, u16, u64)
DEFINE_STORE_B(i64_store32, u32, u64)
'''


PRELOAD = r'''
/* wasmbox: memory mapped from a snapshot already holds the data segments */
int wasm_rt_memory_preloaded(const wasm_rt_memory_t* mem);
#undef LOAD_DATA
#define LOAD_DATA(m, o, i, s)                   \
  do {                                          \
    if (!wasm_rt_memory_preloaded(&(m))) {      \
      RANGE_CHECK((&m), o, s);                  \
      load_data(&(m.data[o]), i, s);            \
    }                                           \
  } while (0)
'''
# Where the guest's registers are reserved: runtimes/native.sh asks the
# compiler this same condition (`w2c_split.py --registers-if`) to choose how
# tools/wasm_fuel charges loops, before there is any C to compile.
REGISTERS_IF = '#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)'
# Declared before every function of a file (gcc reserves the register only in
# code it compiles after the declaration).
GUEST_REGISTERS = '\n' + REGISTERS_IF + r'''
/* wasmbox: while guest code runs, the fuel counter lives in r15 and the
 * memory base in r14 (tools/w2c_split.py); exports set and restore both */
#define WB_FUEL_IN_REGISTER 1
register u64 wb_fuel __asm__("r15");
register u8* wb_mb_reg __asm__("r14");
#define WB_MEMORY_BASE_LOCAL
#define wb_mb wb_mb_reg
#define WB_EXPORT_ENTER(inst)                                    \
  u64 wb_saved_fuel = wb_fuel;                                   \
  u8* wb_saved_mb = wb_mb_reg;                                   \
  wb_fuel = (inst)->w2c_wasmbox_fuel;                            \
  wb_mb_reg = WB_MEMORY_BASE(inst)
#define WB_EXPORT_LEAVE(inst)                                    \
  (inst)->w2c_wasmbox_fuel = wb_fuel;                            \
  wb_fuel = wb_saved_fuel;                                       \
  wb_mb_reg = wb_saved_mb
/* Out of fuel: the value (a loop's copy, maybe) into r15, then SIGILL at
 * the ud2, which src/wasm_rt/guest.c turns into the trap. The compiler sees
 * no branch, and no write of r15: none returns from there. The trap is out
 * of line (a section of its own, inside the module's code range), so the
 * check is a test and a branch never taken (after a charge of a computed
 * cost: a bulk operation's). */
#define WB_FUEL_CHECK(x)                                                   \
  __asm__ volatile("test %0, %0\n\tjs 1f\n"                                \
                   ".pushsection .text.wb_fuel_trap,\"ax\",@progbits\n"     \
                   "1:\tmov %0, %%r15\n\tud2\n"                             \
                   ".popsection"                                           \
                   :                                                       \
                   : "r"(x)                                                \
                   : "cc")
/* A charge of a constant: the subtraction and the check in one, so that
 * they fuse into one micro-op (sub with jl does; sub with js does not,
 * which cost a test as well). jl is "the counter was below the cost": the
 * same as "the result is negative" for every counter that is not within
 * the cost of INT64_MIN, and the counter never goes below zero without
 * trapping. */
#define WB_FUEL_CHARGE(counter, cost)                                      \
  __asm__ volatile("sub %1, %0\n\tjl 1f\n"                                 \
                   ".pushsection .text.wb_fuel_trap,\"ax\",@progbits\n"     \
                   "1:\tmov %0, %%r15\n\tud2\n"                             \
                   ".popsection"                                           \
                   : "+r"(counter)                                         \
                   : "er"((s64)(cost))                                     \
                   : "cc")
#else
#define WB_FUEL_IN_REGISTER 0
#define wb_fuel (instance->w2c_wasmbox_fuel)
#define wb_mb_reg (instance->w2c_memory.data)
#define WB_MEMORY_BASE_LOCAL u8* const wb_mb = wb_mb_reg;
#define WB_EXPORT_ENTER(inst)
#define WB_EXPORT_LEAVE(inst)
#define WB_FUEL_CHECK(x)        \
  do {                          \
    if ((s64)(x) < 0) {         \
      wb_fuel = (x);            \
      UNREACHABLE;              \
    }                           \
  } while (0)
#define WB_FUEL_CHARGE(counter, cost) \
  do {                                \
    (counter) -= (cost);              \
    WB_FUEL_CHECK(counter);           \
  } while (0)
#endif
'''
# The functions threaded_dispatch rewrote (see there) stay in one section.
THREADED = r'''
#if defined(__GNUC__) && !defined(__clang__)
#define WB_THREADED __attribute__((optimize("no-reorder-blocks-and-partition")))
#else
#define WB_THREADED
#endif
'''
# After the prelude's helpers (which keep the plain TRAP): traps raised in a
# function body write the counter back first.
FUEL_TRAP = r'''
#undef TRAP
#define TRAP(x) (instance->w2c_wasmbox_fuel = wb_fuel, wasm_rt_trap(WASM_RT_TRAP_##x), 0)
'''
# Modules with exceptions only (wasm2c --enable-exceptions; see the top).
EXCEPTIONS = r'''
/* wasmbox: exceptions (tools/w2c_split.py). A try saves no signal mask (no
 * system call per try: an exception never leaves the export it was thrown
 * in, so never a signal handler); where a throw lands, the fuel counter the
 * longjmp put back to its value at the try is taken from the instance, where
 * the throw wrote it (the setjmp stays alone in its if's condition, where
 * C11 7.13.1.1 allows it). An export starts with no handler. */
#undef wasm_rt_try
#define wasm_rt_try(target) sigsetjmp(target, 0)
#define WB_THROW_LANDED (wb_fuel = instance->w2c_wasmbox_fuel)
#define wasm_rt_throw() (instance->w2c_wasmbox_fuel = wb_fuel, wasm_rt_throw())
#define WB_EH_ENTER                                                       \
  WASM_RT_UNWIND_TARGET* wb_saved_target = wasm_rt_get_unwind_target(); \
  wasm_rt_set_unwind_target(NULL)
#define WB_EH_LEAVE wasm_rt_set_unwind_target(wb_saved_target)
'''
TRY = 'wasm_rt_try('
RELOAD = 'WB_THROW_LANDED;'
LOCALS = re.compile(r'^  ((?:u32|u64|f32|f64) w2c_l\d+ = )', re.M)
PARAM = re.compile(r'(, )((?:u32|u64|f32|f64) w2c_p\d+)')
FUEL = 'instance->w2c_wasmbox_fuel'
SYNC = FUEL + ' = wb_fuel;'
IMPORT_CALL = re.compile(r'\(\*Z_\w+\)\(instance->')
EXPORT = re.compile(r'^(\w+\*?) (Z_\w+)\((.*)\) \{\n  return (w2c_\w+\(instance\b.*\));$', re.M)
GLOBAL_FIELD = re.compile(r'^  (u32|u64|f32|f64) (w2c_\w+);$')
TABLE_MUTATORS = re.compile(r'\bwasm_rt_grow_(?:funcref|externref)_table\b|\b(?:funcref|externref)_table_(?:set|fill|copy|init)\(')


FUNC_TYPE = re.compile(r'^  func_types\[(\d+)\] = wasm_rt_register_func_type\((.*)\);$')
ELEM_ARRAY = re.compile(r'^static const wasm_elem_segment_expr_t (elem_segment_exprs_w2c_\w+)\[\] = \{$')
ELEM_ENTRY = re.compile(r'^  \{(\d+), \(wasm_rt_function_ptr_t\)&(w2c_\w+), (\d+)\},$')
TABLE_ALLOC = re.compile(r'^  wasm_rt_allocate_funcref_table\(&instance->(w2c_\w+), (\d+), (\d+)\);$')
TABLE_INIT = re.compile(r'^  funcref_table_init\(&instance->(w2c_\w+), (elem_segment_exprs_w2c_\w+), (\d+), (\d+)u, 0, (\d+), '
                        r'instance, func_types\);$')
CALL_INDIRECT = re.compile(r'CALL_INDIRECT\(instance->(w2c_T\d+), ((?:u32|u64|f32|f64|void) \(\*\)\([^)]*\)), (\d+), '
                           r'(w2c_\w+), instance->\1\.data\[\4\]\.module_instance(, |\))')


def constant_tables(lines, bodies_text):
    """{table: (size, entries)} for the tables call_indirect may read from a
    constant copy (see the top), and the canonical number of every type;
    `lines`: the module's lines outside the function bodies."""
    canon, shapes = {}, {}
    for l in lines:
        m = FUNC_TYPE.match(l)
        if m:
            canon[int(m.group(1))] = shapes.setdefault(m.group(2), len(shapes))
    if TABLE_MUTATORS.search(bodies_text):
        return {}, canon
    arrays, name = {}, None
    for l in lines:
        m = ELEM_ARRAY.match(l)
        if m:
            name = m.group(1)
            arrays[name] = []
            continue
        if name:
            if l == '};':
                name = None
                continue
            e = ELEM_ENTRY.match(l)
            if not e or e.group(3) != '0':
                return {}, canon  # a foreign or unparsed entry: leave every table alone
            arrays[name].append((canon[int(e.group(1))], e.group(2)))
    sizes, inits = {}, {}
    for l in lines:
        m = TABLE_ALLOC.match(l)
        if m:
            sizes[m.group(1)] = int(m.group(2))
        m = TABLE_INIT.match(l)
        if m:
            inits.setdefault(m.group(1), []).append(m.groups()[1:])
        elif l.lstrip().startswith('funcref_table_init('):
            return {}, canon  # a segment at a computed offset: leave every table alone
    tables = {}
    for table, size in sizes.items():
        entries = {}
        for array, src_size, dest, n in inits.get(table, []):
            segment = arrays.get(array)
            dest, n = int(dest), int(n)
            if segment is None or int(src_size) != len(segment) or n > len(segment) or dest + n > size:
                break
            for i in range(n):
                entries[dest + i] = segment[i]
        else:
            tables[table] = (size, entries)
    return tables, canon


def constant_table_decls(tables):
    out = ['', '/* wasmbox: call_indirect through constant tables (tools/w2c_split.py) */',
           'typedef struct { u32 type_plus_one; s32 rel; } wb_table_entry;',
           '#define WB_TABLE_FUNC(e) ((wasm_rt_function_ptr_t)(uintptr_t)((const char*)&(e).rel + (e).rel))']
    for table, (size, _) in sorted(tables.items()):
        out += ['extern const wb_table_entry wb_const_%s[%d] __attribute__((visibility("hidden")));' % (table, size),
                '#define WB_CALL_INDIRECT_%s(t, ft, x, ...) \\' % table,
                '  (LIKELY((x) < %du && wb_const_%s[x].type_plus_one == (ft) + 1) || TRAP(CALL_INDIRECT), \\' % (size, table),
                '   ((t)WB_TABLE_FUNC(wb_const_%s[x]))(__VA_ARGS__))' % table]
    return '\n'.join(out) + '\n'


def constant_table_defs(tables):
    """The tables in assembly: each function as its distance from the entry
    (`f - .`, resolved when the program is linked), where C can only write
    its address, which a position-independent program relocates when it
    starts: 20 000 relocations for Python's table, and its pages written in
    every process, so private to each."""
    out = []
    for table, (size, entries) in sorted(tables.items()):
        name = 'wb_const_' + table
        asm = ['.pushsection .rodata.%s,"a",@progbits' % name, '.p2align 3', '.globl ' + name, '.hidden ' + name,
               '.type %s, @object' % name, '.size %s, %d' % (name, size * 8), name + ':']
        empty = 0
        for i in range(size):
            if i not in entries:
                empty += 1
                continue
            if empty:
                asm.append('.zero %d' % (empty * 8))
                empty = 0
            t, f = entries[i]
            asm += ['.long %d' % (t + 1), '.long %s - .' % f]
        if empty:
            asm.append('.zero %d' % (empty * 8))
        asm.append('.popsection')
        out.append('__asm__(\n' + '\n'.join('  "%s\\n"' % a.replace('"', '\\"') for a in asm) + ');')
    return '\n'.join(out) + '\n'


def unread_tables(tables, bodies_text, exports_text):
    """The constant tables nothing reads but call_indirect, once rewritten:
    their element segments need not fill the instance's table (a private
    copy of the whole table in every process, and the time to write it)."""
    rewritten = CALL_INDIRECT.sub(lambda m: '' if m.group(1) in tables else m.group(0), bodies_text)
    unread = set()
    for table in tables:
        uses = [l for l in exports_text.split('\n') if re.search(r'\b%s\b' % table, l)]
        if re.search(r'\b%s\b' % table, rewritten) is None and \
                all(l.strip() == 'wasm_rt_free_funcref_table(&instance->%s);' % table for l in uses):
            unread.add(table)
    return unread


def drop_table_inits(lines, unread):
    """The module's init code without the element segments of the unread
    tables (their instance tables stay allocated, all null)."""
    drop, kept = set(), []
    for l in lines:
        m = TABLE_INIT.match(l)
        if m and m.group(1) in unread:
            drop.add(m.group(2))
        else:
            kept.append(l)
    out, skipping = [], False
    for l in kept:
        m = ELEM_ARRAY.match(l)
        if m and m.group(1) in drop:
            skipping = True
        elif skipping:
            skipping = l != '};'
        else:
            out.append(l)
    return out


def constant_indirect_calls(text, tables, canon):
    def sub(m):
        table, ctype, ft, x, end = m.groups()
        if table not in tables:
            return m.group(0)
        return 'WB_CALL_INDIRECT_%s(%s, %d, %s, instance%s' % (table, ctype, canon[int(ft)], x, end)
    return CALL_INDIRECT.sub(sub, text)


def snapshot_support(header, module, bodies_text):
    """C for the Z_<module>_wb_* snapshot helpers, from the instance struct."""
    m = re.search(r'typedef struct Z_%s_instance_t \{\n(.*?)\n\} Z_%s_instance_t;' % (module, module), header, re.S)
    if not m:
        sys.exit('w2c_split: no instance struct in the header')
    fields = [GLOBAL_FIELD.match(l).groups() for l in m.group(1).split('\n') if GLOBAL_FIELD.match(l)]
    size = {'u32': 4, 'u64': 8, 'f32': 4, 'f64': 8}
    t = 'Z_%s_instance_t' % module
    out = ['', '/* wasmbox snapshot support (tools/w2c_split.py) */',
           'const int Z_%s_wb_tables_mutable = %d;' % (module, 1 if TABLE_MUTATORS.search(bodies_text) else 0),
           'const int Z_%s_wb_fuel_in_register = WB_FUEL_IN_REGISTER;' % module,
           'u32 Z_%s_wb_globals_size(void) { return %d; }' % (module, sum(size[k] for k, _ in fields)),
           'void Z_%s_wb_globals_save(const %s* instance, u8* out) {' % (module, t)]
    off = 0
    for kind, name in fields:
        out.append('  memcpy(out + %d, &instance->%s, %d);' % (off, name, size[kind]))
        off += size[kind]
    out += ['}', 'void Z_%s_wb_globals_load(%s* instance, const u8* in) {' % (module, t)]
    off = 0
    for kind, name in fields:
        out.append('  memcpy(&instance->%s, in + %d, %d);' % (name, off, size[kind]))
        off += size[kind]
    out.append('}')
    return '\n'.join(out) + '\n'


def hoist_memory_base(text):
    """Rewrite one function body to take the memory base from wb_mb."""
    def sub(m):
        if m.group(1) not in ACCESSORS:
            sys.exit(f'w2c_split: unknown accessor {m.group(1)}')
        return m.group(1) + '_b(wb_mb, '
    body = ACCESS.sub(sub, text)
    if body is text or body == text:
        return text
    brace = body.index(') {\n') + len(') {\n')
    return body[:brace] + '  WB_MEMORY_BASE_LOCAL\n' + body[brace:]


def fuel_in_register(text):
    """Rewrite one function body to charge wb_fuel, writing it back to the
    instance before import calls (see the top)."""
    out = []
    for line in text.split('\n'):
        indent = line[:len(line) - len(line.lstrip())]
        if IMPORT_CALL.search(line):
            out += [indent + SYNC, line]
        else:
            out.append(line.replace(FUEL, 'wb_fuel'))
    return '\n'.join(out)


# The fuel pass's check after a charge (`counter < 0: unreachable`), as
# wasm2c writes it once fuel_in_register has run: on the counter itself, or
# on a loop's local copy (stored back to the counter before the trap).
CHECK_GLOBAL = re.compile(r'^( *)wb_fuel = (w2c_j\d+);\n\1\2 = wb_fuel;\n\1(w2c_j\d+) = 0ull;\n'
                          r'\1(w2c_i\d+) = \(u64\)\(\(s64\)\2 < \(s64\)\3\);\n\1if \(\4\) \{\n'
                          r'\1  UNREACHABLE;\n\1\}$', re.M)
CHECK_COPY = re.compile(r'^( *)(w2c_l\d+) = (w2c_j\d+);\n\1(w2c_j\d+) = 0ull;\n'
                        r'\1(w2c_i\d+) = \(u64\)\(\(s64\)\3 < \(s64\)\4\);\n\1if \(\5\) \{\n'
                        r'\1  \3 = \2;\n\1  wb_fuel = \3;\n\1  UNREACHABLE;\n\1\}$', re.M)
# what is left of either if the two above missed one (a wasm2c of another shape)
CHECK_LEFT = re.compile(r'^ *w2c_j\d+ = wb_fuel;\n *w2c_j\d+ = 0ull;$|'
                        r'^ *(w2c_l\d+) = (w2c_j\d+);\n *w2c_j\d+ = 0ull;\n *w2c_i\d+ = \(u64\)\(\(s64\)\2 < .*\n'
                        r' *if \(w2c_i\d+\) \{\n *\2 = \1;\n', re.M)


# A charge of a constant cost, its check made WB_FUEL_CHECK above: the
# counter (or the loop's copy) read, the cost subtracted, written back.
CHARGE = re.compile(r'^( *)(w2c_j\d+) = (wb_fuel|w2c_l\d+);\n\1(w2c_j\d+) = (\d+)ull;\n'
                    r'\1\2 -= \4;\n\1\3 = \2;\n\1WB_FUEL_CHECK\(\2\);$', re.M)


def fuel_checks(text):
    """Each check after a charge becomes WB_FUEL_CHECK(value): in register
    builds a test and a ud2 the branch predictor never takes, not a branch
    to a trap that the compiler must keep every value alive for. (That
    branch was why the host ran a second copy of the module, without checks,
    for calls without a budget.) A charge of a constant cost, with its
    check, becomes WB_FUEL_CHARGE(counter, cost): a sub and a jl."""
    text = CHECK_GLOBAL.sub(r'\1wb_fuel = \2;\n\1WB_FUEL_CHECK(\2);', text)
    text = CHECK_COPY.sub(r'\1\2 = \3;\n\1WB_FUEL_CHECK(\3);', text)
    text = CHARGE.sub(r'\1WB_FUEL_CHARGE(\3, \5ull);', text)
    left = CHECK_LEFT.search(text)
    if left:
        sys.exit('w2c_split: a fuel check of a shape this script does not know:\n' + left.group(0))
    return text


# An interpreter's dispatch as wasm2c writes it: a loop's label, a few plain
# statements (its fuel charge, moves), then a switch of many cases, each a goto.
DISPATCH = re.compile(r'^( *)(w2c_L\d+): \n((?:\1  [^{}\n:]*;\n){0,24})\1  switch \((w2c_i\d+)\) \{\n'
                      r'((?:\1    case \d+: goto w2c_\w+;\n){64,})\1    default: goto (w2c_\w+);\n\1  \}\n', re.M)
CASE = re.compile(r'case (\d+): goto (w2c_\w+);')


def threaded_dispatch(text):
    """Thread an interpreter's dispatch loop (see the top): the statements
    run in the same order as before, with the same fuel charges; only where
    the code is changes. The table holds label offsets, not addresses (no
    relocations), so gcc must not split such a function into hot and cold
    sections, as -fprofile-use does: an offset between labels in two
    sections has no value (WB_THREADED)."""
    if TRY in text:
        return text, 0
    done, pos = 0, 0
    while m := DISPATCH.search(text, pos):
        pos = m.end()
        indent, loop, head, index, cases, default = m.groups()
        targets = CASE.findall(cases)
        before, after = text[:m.start()], text[m.end():]
        if [int(n) for n, _ in targets] != list(range(len(targets))) or f'goto {loop};' in before:
            continue  # not numbered 0..n-1, or a jump to the head from above it: left alone
        table = f'wb_dispatch_{loop[4:]}'
        offsets = ', '.join(f'&&{t} - &&{loop}' for _, t in targets)
        jump = f'if ({index} >= {len(targets)}u) goto {default}; goto *(&&{loop} + {table}[{index}]);'
        copy = '{ ' + ' '.join(line.strip() for line in head.split('\n') if line.strip()) + ' ' + jump + ' }'
        brace = before.index(') {\n') + len(') {\n')
        before = before[:brace] + f'  static const int {table}[{len(targets)}] = {{{offsets}}};\n' + before[brace:]
        head = f'{indent}{loop}: \n{head}{indent}  {jump}\n'
        text = before + head + after.replace(f'goto {loop};', copy)
        pos = len(before) + len(head)
        done += 1
    if done:
        text = 'static WB_THREADED ' + text[len('static '):]
    return text, done


TRY_OPEN = re.compile(r'^( *)if \(!wasm_rt_try\((w2c_T\w+)_unwind_target\)\) \{$')
LABEL = re.compile(r'^ *(w2c_\w+):;?\s*$')
TAG = re.compile(r'^static (u32 w2c_e\w+;)$')
GOTO = re.compile(r'goto (w2c_\w+);')


def define_try_labels(lines):
    """wasm2c 1.0.32 writes a branch to a try's own label as a goto to a
    label it never defines: defined here, where the try ends (after its
    handlers), as for a block."""
    defined = {m.group(1) for l in lines for m in [LABEL.match(l)] if m}
    wanted = {m.group(1) for l in lines if 'goto ' in l for m in GOTO.finditer(l)} - defined
    ends = []
    for name in wanted:
        head = '  WASM_RT_UNWIND_TARGET *%s_outer_target = wasm_rt_get_unwind_target();' % name
        start = next((i for i, l in enumerate(lines) if l.endswith(head) and i > 0 and lines[i - 1].strip() == '{'), None)
        if start is None:
            continue  # not a try: reported with the goto
        indent = lines[start - 1][:-1]
        end = next((i for i in range(start, len(lines)) if lines[i] == indent + '}'), None)
        if end is None:
            sys.exit('w2c_split: try %s without its end in\n%s' % (name, lines[0]))
        ends.append((end, indent + name + ':;'))
    for end, label in sorted(ends, reverse=True):
        lines.insert(end + 1, label)
    return lines


def leave_tries(text):
    """A branch out of a try body: wasm2c 1.0.32 writes the goto without
    giving the unwind target back (it does for return), so a later throw
    would jump into the try's frame after it ended, or after its function
    returned. Before every goto that leaves try bodies, the target the
    outermost of them found is restored. And where a throw lands (the try's
    else, before the label a rethrow in this function jumps to), the fuel
    counter is taken back from the instance."""
    lines = define_try_labels(text.split('\n'))
    labels = {m.group(1): i for i, l in enumerate(lines) for m in [LABEL.match(l)] if m}
    regions, open_ = [], []  # try bodies: (first line, last line, its name)
    for i, l in enumerate(lines):
        m = TRY_OPEN.match(l)
        if m:
            open_.append((m.group(1), i, m.group(2)))
        elif open_ and l == open_[-1][0] + '} else {':
            indent, start, name = open_.pop()
            regions.append((start, i, name))
    if open_:
        sys.exit('w2c_split: a try without its handler in\n' + lines[0])

    def restore(i):
        def sub(m):
            target = labels.get(m.group(1))
            if target is None:
                sys.exit('w2c_split: goto %s without its label in\n%s' % (m.group(1), lines[0]))
            left = [r for r in regions if r[0] < i < r[1] and not r[0] < target < r[1]]
            if not left:
                return m.group(0)
            return 'wasm_rt_set_unwind_target(%s_outer_target); %s' % (min(left)[2], m.group(0))
        return sub
    lines = [GOTO.sub(restore(i), l) if 'goto ' in l else l for i, l in enumerate(lines)]
    for landing in sorted((r[1] for r in regions), reverse=True):
        lines.insert(landing + 1, lines[landing][:-len('} else {')] + '  ' + RELOAD)
    return '\n'.join(lines)


def volatile_locals(text):
    """In a function with a try (a setjmp): its locals and parameters
    volatile. A value changed in a try and read in its handler is otherwise
    whatever a register held at the setjmp, once the compiler optimises (C11
    7.13.2.1). Only these functions: the rest keep their registers."""
    head, body = text.split('\n', 1)
    return PARAM.sub(r'\1volatile \2', head) + '\n' + LOCALS.sub(r'  volatile \1', body)


def enter_exports(text, eh):
    """Exports load the counter and the memory base into their registers,
    store the counter back and restore the host's registers (and, with
    exceptions, start with no handler and give the caller's back)."""
    enter, leave = ('  WB_EH_ENTER;\n', '\n  WB_EH_LEAVE;') if eh else ('', '')

    def sub(m):
        ret, name, params, call = m.groups()
        head = '%s %s(%s) {\n  WB_EXPORT_ENTER(instance);\n%s' % (ret, name, params, enter)
        if ret == 'void':
            return head + '  %s;%s\n  WB_EXPORT_LEAVE(instance);' % (call, leave)
        return head + '  %s wb_result = %s;%s\n  WB_EXPORT_LEAVE(instance);\n  return wb_result;' % (ret, call, leave)
    text, n = EXPORT.subn(sub, text)
    if not n:
        sys.exit('w2c_split: no exported function found')
    return text


def main():
    if sys.argv[1:] == ['--registers-if']:
        print(REGISTERS_IF)
        return
    if len(sys.argv) not in (4, 5):
        sys.exit('usage: w2c_split.py MODULE.c OUTDIR CHUNK_BYTES [COLD] | --registers-if')
    src, outdir, chunk = sys.argv[1], sys.argv[2], int(sys.argv[3])
    cold = set()
    if len(sys.argv) == 5:
        with open(sys.argv[4]) as f:
            cold = {int(line) for line in f if line.strip()}
    with open(src) as f:
        lines = f.read().split('\n')

    def find(pred, start=0, what=''):
        for i in range(start, len(lines)):
            if pred(lines[i]):
                return i
        sys.exit(f'w2c_split: cannot find {what} in {src} (is this wabt 1.0.32 output?)')

    inited = find(lambda l: l == 'static bool s_module_initialized = false;', 0, 's_module_initialized')
    types = find(lambda l: l.startswith('static u32 func_types['), inited, 'func_types')
    decl_start = find(lambda l: DECL.match(l) is not None, types, 'declarations')
    decl_end = decl_start
    while DECL.match(lines[decl_end]):
        decl_end += 1
    first_body = find(lambda l: BODY.match(l) is not None, decl_end, 'first function body')
    exports = find(lambda l: l.startswith('/* export: '), first_body, 'exports')

    header_name = os.path.basename(src)[:-2] + '.h'
    prelude = [l.replace(f'#include "{header_name}"', f'#include "../{header_name}"' + GUEST_REGISTERS)
               for l in lines[:inited]]
    if not any(GUEST_REGISTERS in l for l in prelude):
        sys.exit('w2c_split: no include of the module header in the prelude')
    types_decl = lines[types].replace('static ', 'extern ', 1)
    decls = [DECL.match(l).group(1) for l in lines[decl_start:decl_end]]
    # exception tags, numbered at init, read by the bodies, and the structs
    # of those with several values (each guarded by its #ifndef: init.c
    # skips its own copy)
    tags = [TAG.match(l).group(1) for l in lines[types + 1:decl_start] if TAG.match(l)]
    tag_structs, inside = [], False
    for l in lines[types + 1:decl_start]:
        inside = inside or l.startswith('#ifndef wasm_tag_')
        if inside:
            tag_structs.append(l)
            inside = not l.startswith('#endif')

    inst = re.search(r'^void Z_\w+_instantiate\(.*?^\}', '\n'.join(lines[exports:]), re.M | re.S)
    if not inst or re.search(r'\bw2c_\w+\(', inst.group(0)):
        sys.exit('w2c_split: the module runs code when instantiated (a start function); its code would run '
                 'before an export sets the memory base and fuel registers')
    bodies_text = '\n'.join(lines[first_body:exports])
    eh = TRY in bodies_text or 'wasm_rt_throw(' in bodies_text  # a throw without a try traps, with the fuel
    tables, canon = constant_tables(lines[:first_body] + lines[exports:], bodies_text)
    os.makedirs(outdir, exist_ok=True)
    module = os.path.basename(src)[:-2]
    with open(src[:-2] + '.h') as f:
        header = f.read()
    if 'WABT_BIG_ENDIAN' not in '\n'.join(prelude):
        sys.exit('w2c_split: prelude without the expected endianness switch')
    # the memory the accessors' base comes from (wasm2c names it after its export)
    memory_base = ('#define WB_MEMORY_BASE(inst) ((inst)->w2c_memory.data)\n'
                   if re.search(r'^  wasm_rt_memory_t w2c_memory;$', header, re.M) else
                   '#define WB_MEMORY_BASE(inst) ((u8*)0)\n')
    with open(os.path.join(outdir, 'common.h'), 'w') as f:
        f.write('\n'.join(prelude) + '\n' + memory_base + BASE_ACCESSORS + PRELOAD + FUEL_TRAP + THREADED +
                (EXCEPTIONS if eh else '') + '\n' + types_decl + '\n' +
                '\n'.join(decls) + '\n' + ''.join(l + '\n' for l in tag_structs) +
                ''.join('extern %s\n' % t for t in tags) + constant_table_decls(tables))

    with open(os.path.join(outdir, 'init.c'), 'w') as f:
        f.write('#include "common.h"\n')
        f.write('\n'.join(lines[inited:types]) + '\n')
        f.write(lines[types].replace('static ', '', 1) + '\n')
        f.write('\n'.join(TAG.sub(r'\1', l) for l in lines[types + 1:decl_start]) + '\n')
        unread = unread_tables(tables, bodies_text, '\n'.join(lines[exports:]))
        f.write('\n'.join(drop_table_inits(lines[decl_end:first_body], unread)) + '\n')
        f.write(enter_exports('\n'.join(lines[exports:]), eh) + '\n')
        f.write(snapshot_support(header, module, bodies_text))
        f.write(constant_table_defs(tables))

    # Function bodies: each runs from its header to the line before the next.
    starts = [i for i in range(first_body, exports) if BODY.match(lines[i])]
    starts.append(exports)
    # per kind (hot, cold): the finished files, the one being filled, its size
    files, current, size = [[], []], [[], []], [0, 0]
    bodies, tries, threaded = 0, 0, 0
    for a, b in zip(starts, starts[1:]):
        text = '\n'.join(lines[a:b]) + '\n'
        if TRY in text:
            text = leave_tries(volatile_locals(text))
            tries += 1
        text = fuel_checks(fuel_in_register(hoist_memory_base(constant_indirect_calls(text, tables, canon))))
        text, n = threaded_dispatch(text)
        threaded += n
        kind = int(bodies in cold)
        current[kind].append(text[len('static '):])
        size[kind] += len(text)
        bodies += 1
        if size[kind] >= chunk:
            files[kind].append(current[kind])
            current[kind], size[kind] = [], 0
    for kind in (0, 1):
        if current[kind]:
            files[kind].append(current[kind])
    for kind, stem in ((0, 'funcs'), (1, 'cold')):
        for n, parts in enumerate(files[kind]):
            with open(os.path.join(outdir, f'{stem}_{n:03d}.c'), 'w') as f:
                f.write('#include "common.h"\n\n' + ''.join(parts))
    if bodies != len(decls):
        sys.exit(f'w2c_split: {bodies} bodies for {len(decls)} declarations')
    if cold and max(cold) >= bodies:
        sys.exit(f'w2c_split: cold function {max(cold)} past the last of {bodies}')
    print(f'{len(files[0])} function files, {len(files[1])} cold, {bodies} functions ({len(cold)} cold, '
          f'{tries} with a try, {threaded} dispatch loops threaded), constant tables: '
          + (', '.join(f'{t} ({len(e)} of {n} entries' + (", the instance's left unfilled)" if t in unread else ')')
                       for t, (n, e) in sorted(tables.items())) or 'none'))


if __name__ == '__main__':
    main()
