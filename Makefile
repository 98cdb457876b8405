# wasmbox build. Heavy steps (guest runtimes, their native translation) are
# scripts under runtimes/ that cache their output outside the clone, keyed by
# a hash of their recipe; this Makefile records where each result lives in
# build/*.dir and builds our own C on top.
#
#   make            build build/wasmbox
#   make run        a 30-second demo
#   make test       all tests (unit, end to end, CLI, MCP transports, the documents' examples), then under ASan+UBSan
#   make test-mcp   MCP conformance suite, Inspector and SDK clients (npm),
#                   the TypeScript client
#   make npm-package  the TypeScript client, build/npm/wasmbox-VERSION.tgz
#   make shared     build/libwasmbox.so.VERSION and its worker program (make install has them)
#   make cluster    three servers behind HAProxy on loopback (packaging/deploy/); make test-cluster
#   make deb        Debian packages in build/deb (wasmbox, libwasmbox0, libwasmbox-dev),
#                   lintian-clean; make test-deb tries them
#   make soak       100000 mixed and hostile calls through MCP HTTP, then leak
#                   checks (SOAK_CALLS=N for fewer)
#   make bench      benchmarks against native python3.11, native QuickJS and
#                   the peers users would pick (Pyodide, node:wasi, bubblewrap),
#                   MCP round trips (alone: make bench-mcp); QUICK=1 for fewer rounds;
#                   make test-peers runs each peer once (CI)
#   make conformance  CPython's and QuickJS's own tests inside wasmbox (and the
#                   data stack's: numpy, Pillow, matplotlib, pandas' CI selection)
#   make conformance-full  the same, pandas' seven subsets whole

BUILD   ?= build
VERSION := $(shell sed -n 's/^\#define WASMBOX_VERSION "\(.*\)"/\1/p' include/wasmbox.h)
SOVERSION := 0
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror
CXX     ?= g++
# gcc 12 under -fsanitize sees libstdc++'s std::regex (valijson's "pattern")
# as maybe uninitialised: a known false positive in system headers
CXXWARN := -std=c++17 -Wall -Wextra -Werror -Wno-maybe-uninitialized
CPPFLAGS := -D_GNU_SOURCE -Iinclude -Isrc -I/usr/include/postgresql
LDFLAGS ?=
LDLIBS  := -lcjson -lzstd -lpthread -lm
# libstdc++ (the schema checker's) linked in: loading the shared one costs
# every `wasmbox run` 0.4 ms; libmicrohttpd, libcurl and libcrypto are
# opened when needed (src/mcp/libs.h)
MCP_LIBS := -lcjson -static-libgcc -Wl,-Bstatic -lstdc++ -Wl,-Bdynamic
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

# Guest runtimes: each is runtimes/NAME/build.sh (-> NAME.wasm) plus the glue
# src/bindings/NAME.c; everything below is generic over this list.
RUNTIMES := python javascript

SRC_LIB := $(wildcard src/util/*.c src/wasm_rt/*.c src/wasi/*.c src/engine/*.c src/session/*.c src/jail/*.c src/api/*.c) \
  src/bindings/registry.c
SRC_RT  := $(RUNTIMES:%=src/bindings/%.c)
SRC_CLI := src/cli/main.c
SRC_MCP := $(wildcard src/mcp/*.c)
SRC_MCP_CXX := $(wildcard src/mcp/*.cc)
# Fuel metering, run on every module before wasm2c (runtimes/native.sh).
# FUEL=counter-only: the unmetered baseline build `make bench` compares with.
FUEL ?= on
FUEL_TOOL_SRC := tools/wasm_fuel.c tools/wasm_fuel_body.c tools/wasm_fuel_fold.c tools/wasm_fuel_emit.c tools/wasm_fuel_data.c \
  tools/wasm_fuel.h
NATIVE_DIRS := $(RUNTIMES:%=$(BUILD)/%-native.dir)

.PHONY: all deps run test test-asan test-kiwisolver test-mcp test-peers soak check-layers format check-format fuzz bench bench-mcp conformance conformance-full clean install npm-package shared deb test-deb cluster test-cluster
.DELETE_ON_ERROR:

all: $(BUILD)/wasmbox

deps:
	@bash scripts/deps.sh

# ---- guest runtimes (cached outside the clone) ---------------------------
# Profile-guided optimisation of a runtime's native code, for each runtime
# with a runtimes/NAME/train.sh: runtimes/native.sh compiles it instrumented
# and calls `make pgo-train` in BUILD/pgo-NAME with PGO_STAGE=NAME, which
# builds the library on that object, links tools/pgo_train.c to it and runs
# the training; native.sh then compiles the module with the profile.
PGO_RUNTIMES := $(patsubst runtimes/%/train.sh,%,$(wildcard runtimes/*/train.sh))
PGO_SRC := tools/pgo_train.c
# $(1): runtime name. NAME.dir: the recipe's output directory (NAME.wasm and
# its files); NAME-native.dir: the directory with NAME.o and NAME.h.
# Files beside a recipe that are not part of it (they have rules of their
# own below): changing them must not send make through the recipe again.
# (numpy/, pillow/, kiwisolver/, matplotlib/ and pandas/ are directories: their
# files, the recipes numpy.sh, pillow.sh, kiwisolver.sh, matplotlib.sh and
# pandas_source.sh read, are named one by one; matplotlib.sh and pandas.sh
# also build with runtimes/cxx.sh.)
NOT_RECIPE := runtimes/python/lib runtimes/python/patches runtimes/python/numpy runtimes/python/pillow runtimes/python/kiwisolver \
  runtimes/python/matplotlib runtimes/python/pandas runtimes/python/stdlib.sh runtimes/python/packages.sh \
  runtimes/python/packages.txt runtimes/javascript/packages.sh runtimes/javascript/packages runtimes/javascript/intl.js
define runtime
$(BUILD)/$(1).dir: runtimes/lib.sh $(filter-out $(NOT_RECIPE),$(wildcard runtimes/$(1)/*)) $(wildcard runtimes/common/* runtimes/common/sjlj/*) \
  runtimes/freetype.sh \
  $(wildcard runtimes/$(1)/numpy/*.* runtimes/$(1)/numpy/patches/* runtimes/$(1)/pillow/* runtimes/$(1)/kiwisolver/*) \
  $(wildcard runtimes/$(1)/matplotlib/*.* runtimes/$(1)/matplotlib/patches/*) \
  $(wildcard runtimes/$(1)/pandas/*.* runtimes/$(1)/pandas/patches/*) $(if $(filter python,$(1)),runtimes/cxx.sh) | deps
	@mkdir -p $(BUILD)
	bash scripts/recipe.sh $$@ bash runtimes/$(1)/build.sh

ifeq ($(PGO_STAGE),$(1))
# inside pgo-train: the module is the instrumented build native.sh made
$(BUILD)/$(1)-native.dir: FORCE
	@mkdir -p $(BUILD)
	echo "$$$$WB_PGO_DIR" > $$@
else
$(BUILD)/$(1)-native.dir: $(BUILD)/$(1).dir runtimes/native.sh tools/w2c_split.py $(FUEL_TOOL_SRC) $(if $(filter $(1),$(PGO_RUNTIMES)),$(PGO_SRC) $(wildcard runtimes/$(1)/train.*))
	WB_FUEL=$(FUEL) bash scripts/recipe.sh $$@ bash runtimes/native.sh $(1) "$$$$(cat $(BUILD)/$(1).dir)/$(1).wasm" \
	  $(if $(filter $(1),$(PGO_RUNTIMES)),--train '$(MAKE) --no-print-directory BUILD=$(BUILD)/pgo-$(1) PGO_STAGE=$(1) FUEL=$(FUEL) pgo-train')
endif
endef
$(foreach r,$(RUNTIMES),$(eval $(call runtime,$(r))))

.PHONY: pgo-train FORCE
pgo-train: $(BUILD)/pgo_train
	bash runtimes/$(PGO_STAGE)/train.sh $(abspath $(BUILD)/pgo_train) "$$(cat $(BUILD)/$(PGO_STAGE).dir)"

$(BUILD)/pgo_train: $(PGO_SRC) $(BUILD)/libwasmbox-nosnap.a
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) $< $(BUILD)/libwasmbox-nosnap.a -o $@ $(LDLIBS) -lgcov

$(BUILD)/pgo_train-asan: $(PGO_SRC) $(BUILD)/libwasmbox-asan.a
	$(CC) $(CFLAGS) $(SAN) $(WARN) $(CPPFLAGS) $< $(BUILD)/libwasmbox-asan.a -o $@ $(LDLIBS)

$(BUILD)/mkimage: tools/mkimage.c src/wasi/image.c src/wasi/image.h
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) tools/mkimage.c src/wasi/image.c -o $@

# The stdlib with our patches and guest modules (runtimes/python/stdlib.sh).
PY_STDLIB_SRC := runtimes/python/stdlib.sh $(shell find runtimes/python/lib runtimes/python/patches -type f 2>/dev/null)
$(BUILD)/python-stdlib.img: $(BUILD)/python.dir $(BUILD)/mkimage $(PY_STDLIB_SRC)
	bash runtimes/python/stdlib.sh "$$(cat $(BUILD)/python.dir)/stdlib" $(BUILD)/python-stdlib
	$(BUILD)/mkimage $(BUILD)/python-stdlib $@

# The built-in pure-Python packages (runtimes/python/packages.txt), cached
# outside the clone like a runtime; the guest sees them at
# /usr/local/lib/python3.11/site-packages.
$(BUILD)/python-packages.dir: runtimes/lib.sh runtimes/python/packages.sh runtimes/python/packages.txt | deps
	@mkdir -p $(BUILD)
	bash scripts/recipe.sh $@ bash runtimes/python/packages.sh

$(BUILD)/python-packages.img: $(BUILD)/python-packages.dir $(BUILD)/mkimage
	$(BUILD)/mkimage "$$(cat $<)/site-packages" $@

# The pure-Python packages' table, then the packages built into python.wasm
# (numpy), named by their .dist-info in the runtime's tree.
$(BUILD)/gen/python_packages.h: $(BUILD)/python-packages.dir $(BUILD)/python.dir scripts/python_packages_h.py
	@mkdir -p $(dir $@)
	python3 scripts/python_packages_h.py "$$(cat $<)/packages.h" "$$(cat $(BUILD)/python.dir)/stdlib" > $@

# The built-in npm packages' names, for guidance (JS_NPM_PACKAGES)
$(BUILD)/gen/javascript_packages.h: runtimes/javascript/packages/package.json
	@mkdir -p $(dir $@)
	python3 -c 'import json, sys; print("#define JS_NPM_PACKAGES \"%s\"" % ", ".join(json.load(open(sys.argv[1]))["dependencies"]))' $< > $@

# The built-in npm packages (runtimes/javascript/packages), cached outside
# the clone like a runtime; the guest finds them at /usr/lib/node_modules.
JS_PACKAGES_SRC := runtimes/lib.sh runtimes/javascript/packages.sh runtimes/javascript/intl.js runtimes/javascript/packages/package.json \
  runtimes/javascript/packages/package-lock.json
$(BUILD)/javascript-packages.dir: $(JS_PACKAGES_SRC) | deps
	@mkdir -p $(BUILD)
	bash scripts/recipe.sh $@ bash runtimes/javascript/packages.sh

$(BUILD)/javascript-packages.img: $(BUILD)/javascript-packages.dir $(BUILD)/mkimage
	$(BUILD)/mkimage "$$(cat $<)/node_modules" $@

# Debian's tzdata, links resolved (images hold no symlinks); posix/ and right/
# are duplicates and leap-second variants.
$(BUILD)/zoneinfo.img: $(BUILD)/mkimage | deps
	rm -rf $(BUILD)/zoneinfo
	cp -rL /usr/share/zoneinfo $(BUILD)/zoneinfo
	rm -rf $(BUILD)/zoneinfo/posix $(BUILD)/zoneinfo/right
	$(BUILD)/mkimage $(BUILD)/zoneinfo $@

# Debian's fonts-dejavu-core (its TrueType files), as tzdata is taken: the
# guest sees them at /usr/share/fonts/truetype/dejavu (src/bindings/python.c).
$(BUILD)/fonts.img: $(BUILD)/mkimage | deps
	rm -rf $(BUILD)/fonts
	mkdir -p $(BUILD)/fonts/truetype/dejavu
	dpkg -L fonts-dejavu-core | grep '^/usr/share/fonts/truetype/dejavu/.*\.ttf$$' | xargs cp -L -t $(BUILD)/fonts/truetype/dejavu
	test -f $(BUILD)/fonts/truetype/dejavu/DejaVuSans.ttf
	$(BUILD)/mkimage $(BUILD)/fonts $@

# Read-only images linked into the binary: SYMBOL=FILE pairs.
IMAGES := wb_python_stdlib=$(BUILD)/python-stdlib.img wb_python_packages=$(BUILD)/python-packages.img \
  wb_zoneinfo=$(BUILD)/zoneinfo.img wb_fonts=$(BUILD)/fonts.img wb_javascript_packages=$(BUILD)/javascript-packages.img
$(BUILD)/images.o: scripts/embed.sh $(BUILD)/python-stdlib.img $(BUILD)/python-packages.img $(BUILD)/zoneinfo.img \
  $(BUILD)/fonts.img $(BUILD)/javascript-packages.img
	bash scripts/embed.sh "$(CC)" $@ 4096 $(IMAGES)

# Which native modules this build holds (snapshots record and check them):
# WB_BUILD_ID_<name> for each runtime.
$(BUILD)/gen/build_id.h: $(NATIVE_DIRS)
	@mkdir -p $(dir $@)
	for r in $(RUNTIMES); do \
	  printf '#define WB_BUILD_ID_%s "%s"\n' "$$r" "$$(basename "$$(cat $(BUILD)/$$r-native.dir)")"; \
	done > $@

# The worker's seccomp filter, compiled by libseccomp here rather than in
# every worker (tools/mkseccomp.c holds the allowlist and says why).
$(BUILD)/mkseccomp: tools/mkseccomp.c src/wasm_rt/tracker.c src/wasm_rt/tracker.h
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) tools/mkseccomp.c src/wasm_rt/tracker.c -o $@ -lseccomp -lpthread
$(BUILD)/gen/seccomp_program.h: $(BUILD)/mkseccomp
	@mkdir -p $(dir $@)
	$(BUILD)/mkseccomp $@

GEN_HEADERS := $(BUILD)/gen/build_id.h $(BUILD)/gen/python_packages.h $(BUILD)/gen/javascript_packages.h \
  $(BUILD)/gen/seccomp_program.h

# ---- our C ----------------------------------------------------------------
# $(1): object dir, $(2): extra flags. Each object depends on the headers it
# includes (-MMD: the compiler lists them in a .d file beside it); the
# generated headers must exist before the first compile.
define objects
$(1)/%.o: src/%.c | $(GEN_HEADERS) $(NATIVE_DIRS)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS) $(2) $$(WARN) $$(CPPFLAGS) -MMD -MP -I$(BUILD)/gen $(foreach d,$(NATIVE_DIRS),-I"$$$$(cat $(d))") -c $$< -o $$@

$(1)/mcp/%.o: src/mcp/%.c
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS) $(2) $$(WARN) $$(CPPFLAGS) -MMD -MP -c $$< -o $$@

# the one C++ file: valijson (a header-only C++ library) behind a C function
$(1)/mcp/%.o: src/mcp/%.cc
	@mkdir -p $$(dir $$@)
	$$(CXX) $$(CFLAGS) $(2) $$(CXXWARN) $$(CPPFLAGS) -MMD -MP -c $$< -o $$@
endef
$(eval $(call objects,$(BUILD)/obj,))
$(eval $(call objects,$(BUILD)/asan,$(SAN)))
$(eval $(call objects,$(BUILD)/pic,-fPIC -ftls-model=initial-exec -DWB_SHARED))
-include $(wildcard $(BUILD)/obj/*/*.d $(BUILD)/asan/*/*.d $(BUILD)/pic/*/*.d)

OBJ_LIB  = $(SRC_LIB:src/%.c=$(BUILD)/obj/%.o) $(SRC_RT:src/%.c=$(BUILD)/obj/%.o)
ASAN_LIB = $(SRC_LIB:src/%.c=$(BUILD)/asan/%.o) $(SRC_RT:src/%.c=$(BUILD)/asan/%.o)
NATIVE_OBJ = $(foreach r,$(RUNTIMES),"$$(cat $(BUILD)/$(r)-native.dir)/$(r).o")

# Base snapshots: mksnapshot (the library without snapshots) starts each
# runtime, preloads it and writes its state; the final library embeds that.
# (an archive member is linked only to satisfy a reference, so both libraries
# define the snapshot symbols wb_<name>_snapshot[_end]: empty here, the real
# ones below)
$(BUILD)/nosnapshots.o: scripts/embed.sh Makefile
	@mkdir -p $(BUILD)
	bash scripts/embed.sh "$(CC)" $@ 16 $(RUNTIMES:%=wb_%_snapshot=)

$(BUILD)/libwasmbox-nosnap.a: $(OBJ_LIB) $(BUILD)/images.o $(BUILD)/nosnapshots.o $(NATIVE_DIRS)
	rm -f $@
	ar rcs $@ $(OBJ_LIB) $(BUILD)/images.o $(BUILD)/nosnapshots.o $(NATIVE_OBJ)

$(BUILD)/mksnapshot: tools/mksnapshot.c $(BUILD)/libwasmbox-nosnap.a
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) $< $(BUILD)/libwasmbox-nosnap.a -o $@ $(LDLIBS)

$(BUILD)/%.snap: $(BUILD)/mksnapshot
	$(BUILD)/mksnapshot $* $@

$(BUILD)/snapshots.o: scripts/embed.sh $(RUNTIMES:%=$(BUILD)/%.snap)
	bash scripts/embed.sh "$(CC)" $@ 65536 $(foreach r,$(RUNTIMES),wb_$(r)_snapshot=$(BUILD)/$(r).snap)

$(BUILD)/libwasmbox.a: $(OBJ_LIB) $(BUILD)/images.o $(BUILD)/snapshots.o $(NATIVE_DIRS)
	rm -f $@
	ar rcs $@ $(OBJ_LIB) $(BUILD)/images.o $(BUILD)/snapshots.o $(NATIVE_OBJ)

$(BUILD)/libwasmbox-asan.a: $(ASAN_LIB) $(BUILD)/images.o $(BUILD)/snapshots.o $(NATIVE_DIRS)
	rm -f $@
	ar rcs $@ $(ASAN_LIB) $(BUILD)/images.o $(BUILD)/snapshots.o $(NATIVE_OBJ)

# The shared library, for programs in other languages (Python's ctypes, ...):
# our C built position-independent (its 32 bytes of thread-locals in the
# initial-exec model, which a library loaded later may use), the runtimes'
# native code as it is (Debian's gcc builds it PIE), only wasmbox_* exported
# (packaging/install/libwasmbox.map). Its workers start from libwasmbox/wasmbox-worker in its
# own directory, a program linked to it (wasmbox.h: wasmbox_options).
PIC_LIB = $(SRC_LIB:src/%.c=$(BUILD)/pic/%.o) $(SRC_RT:src/%.c=$(BUILD)/pic/%.o)
SHARED  = $(BUILD)/libwasmbox.so.$(VERSION) $(BUILD)/libwasmbox/wasmbox-worker
shared: $(SHARED)
$(BUILD)/libwasmbox.so.$(VERSION): $(PIC_LIB) $(BUILD)/images.o $(BUILD)/snapshots.o packaging/install/libwasmbox.map $(NATIVE_DIRS)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libwasmbox.so.$(SOVERSION) -Wl,--version-script=packaging/install/libwasmbox.map \
	  -Wl,-z,defs -Wl,-z,noexecstack $(PIC_LIB) $(BUILD)/images.o $(BUILD)/snapshots.o $(NATIVE_OBJ) -o $@ $(LDLIBS)
	ln -sf libwasmbox.so.$(VERSION) $(BUILD)/libwasmbox.so.$(SOVERSION)
	ln -sf libwasmbox.so.$(SOVERSION) $(BUILD)/libwasmbox.so
$(BUILD)/libwasmbox/wasmbox-worker: tools/wasmbox_worker.c $(BUILD)/libwasmbox.so.$(VERSION)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) $(LDFLAGS) $< -o $@ -L$(BUILD) -l:libwasmbox.so.$(SOVERSION) -Wl,-rpath,'$$ORIGIN/..'

# The playground page of wasmbox serve: our files and the editor (CodeMirror,
# fetched from npm by editor.sh, cached outside the clone like a runtime)
PLAYGROUND := src/mcp/playground
$(BUILD)/playground-editor.dir: runtimes/lib.sh $(PLAYGROUND)/editor.sh $(PLAYGROUND)/package.json \
  $(PLAYGROUND)/package-lock.json | deps
	@mkdir -p $(BUILD)
	bash scripts/recipe.sh $@ bash $(PLAYGROUND)/editor.sh
$(BUILD)/playground.o: scripts/embed.sh $(BUILD)/playground-editor.dir $(PLAYGROUND)/index.html \
  $(PLAYGROUND)/app.js $(PLAYGROUND)/app.css
	bash scripts/embed.sh "$(CC)" $@ 16 wb_playground_index=$(PLAYGROUND)/index.html \
	  wb_playground_app_js=$(PLAYGROUND)/app.js wb_playground_app_css=$(PLAYGROUND)/app.css \
	  wb_playground_editor_js="$$(cat $(BUILD)/playground-editor.dir)/editor.js" \
	  wb_playground_editor_css="$$(cat $(BUILD)/playground-editor.dir)/editor.css"

# the MCP server (src/mcp) is part of the command, a client of the library
OBJ_MCP  = $(SRC_MCP:src/%.c=$(BUILD)/obj/%.o) $(SRC_MCP_CXX:src/%.cc=$(BUILD)/obj/%.o) $(BUILD)/playground.o
ASAN_MCP = $(SRC_MCP:src/%.c=$(BUILD)/asan/%.o) $(SRC_MCP_CXX:src/%.cc=$(BUILD)/asan/%.o) $(BUILD)/playground.o

# -z now: every symbol bound at start, once, and the GOT read-only after.
# Lazily, each of a call's three processes (the CLI, the worker, its pid 1)
# bound the functions it used first and wrote the GOT's pages again after
# its fork: `wasmbox run -c 'print(1)'` took 0.1-0.2 ms longer (A/B, 3x150).
$(BUILD)/wasmbox: $(BUILD)/obj/cli/main.o $(OBJ_MCP) $(BUILD)/libwasmbox.a
	$(CC) $(CFLAGS) $(LDFLAGS) -Wl,-z,now $^ -o $@ $(MCP_LIBS) $(LDLIBS)

$(BUILD)/wasmbox-asan: $(BUILD)/asan/cli/main.o $(ASAN_MCP) $(BUILD)/libwasmbox-asan.a
	$(CC) $(CFLAGS) $(SAN) $^ -o $@ $(MCP_LIBS) $(LDLIBS)

# ---- tests ------------------------------------------------------------------
TESTS := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))

# -lseccomp: test_faults fails system calls with a filter of its own
$(BUILD)/tests/%: tests/%.c tests/harness.h $(BUILD)/libwasmbox.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) -I$(BUILD)/gen $< $(BUILD)/libwasmbox.a -o $@ $(LDLIBS) -lcmocka -lseccomp

$(BUILD)/tests-asan/%: tests/%.c tests/harness.h $(BUILD)/libwasmbox-asan.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(WARN) $(CPPFLAGS) -I$(BUILD)/gen $< $(BUILD)/libwasmbox-asan.a -o $@ $(LDLIBS) -lcmocka -lseccomp

# test_kiwisolver is the Python runtime's constraint solver alone (pure C,
# included by the test, which makes its allocations fail on cue)
KIWI := runtimes/python/kiwisolver
$(BUILD)/tests/test_kiwisolver: tests/test_kiwisolver.c $(KIWI)/solver.c $(KIWI)/solver.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -I$(KIWI) $< -o $@ -lcmocka -lm

$(BUILD)/tests-asan/test_kiwisolver: tests/test_kiwisolver.c $(KIWI)/solver.c $(KIWI)/solver.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(WARN) -I$(KIWI) $< -o $@ -lcmocka -lm

# the solver and its Python module against Debian's python3-kiwisolver (tests/kiwisolver_diff.py)
test-kiwisolver: $(BUILD)/tests/test_kiwisolver $(BUILD)/tests-asan/test_kiwisolver
	@$(BUILD)/tests/test_kiwisolver && $(BUILD)/tests-asan/test_kiwisolver && python3 tests/kiwisolver_diff.py $(BUILD)

# test_mcp also links the MCP server's objects
$(BUILD)/tests/test_mcp: tests/test_mcp.c tests/harness.h $(OBJ_MCP) $(BUILD)/libwasmbox.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) $< $(OBJ_MCP) $(BUILD)/libwasmbox.a -o $@ $(MCP_LIBS) $(LDLIBS) -lcmocka

$(BUILD)/tests-asan/test_mcp: tests/test_mcp.c tests/harness.h $(ASAN_MCP) $(BUILD)/libwasmbox-asan.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(WARN) $(CPPFLAGS) $< $(ASAN_MCP) $(BUILD)/libwasmbox-asan.a -o $@ $(MCP_LIBS) $(LDLIBS) -lcmocka

# The metering pass on its own (runtimes/native.sh builds its own copy).
$(BUILD)/wasm_fuel: $(FUEL_TOOL_SRC)
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(filter %.c,$^) -o $@

$(BUILD)/wasm_fuel-asan: $(FUEL_TOOL_SRC)
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS) $(SAN) $(WARN) $(filter %.c,$^) -o $@

# The runtimes (and so build/wasmbox) are built one recipe at a time, each
# using every core; then the test programs of both passes, our C three ways
# and 50 links of the whole library, on every core (a sub-make with -j: by
# then every recipe is up to date, so none runs in parallel with another).
TEST_PROGRAMS := $(SHARED) $(BUILD)/npm/wasmbox-$(VERSION).tgz $(BUILD)/wasm_fuel $(BUILD)/pgo_train $(TESTS:%=$(BUILD)/tests/%)
ASAN_TEST_PROGRAMS := $(BUILD)/wasmbox-asan $(BUILD)/wasm_fuel-asan $(BUILD)/pgo_train-asan $(TESTS:%=$(BUILD)/tests-asan/%)
.PHONY: test-programs
test-programs: $(TEST_PROGRAMS) $(ASAN_TEST_PROGRAMS)

test: deps check-layers check-format $(BUILD)/wasmbox
	@$(MAKE) --no-print-directory -j$(shell nproc) test-programs
	@bash tests/run.sh $(BUILD)/tests $(BUILD)/wasmbox $(BUILD)/wasm_fuel $(BUILD)/pgo_train $(TESTS)
	@$(MAKE) --no-print-directory test-asan

test-asan: deps $(ASAN_TEST_PROGRAMS)
	@ASAN_OPTIONS=detect_leaks=1:handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1:use_sigaltstack=0 \
	  UBSAN_OPTIONS=print_stacktrace=1 bash tests/run.sh $(BUILD)/tests-asan $(BUILD)/wasmbox-asan \
	  $(BUILD)/wasm_fuel-asan $(BUILD)/pgo_train-asan $(TESTS)

# ---- fuzzing ------------------------------------------------------------------
# libFuzzer harnesses (tests/fuzz/fuzz_*.c) against the library and the MCP
# server compiled by clang with coverage, ASan and UBSan; the runtimes' native
# code is linked as it is. make fuzz FUZZ_SECONDS=N runs each for N seconds
# from its committed corpus (tests/fuzz/corpus/NAME) and fails on a finding.
FUZZ_CC     := clang-19
FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_SECONDS ?= 60
FUZZERS     := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_OBJ     = $(SRC_LIB:src/%.c=$(BUILD)/fuzz-obj/%.o) $(SRC_RT:src/%.c=$(BUILD)/fuzz-obj/%.o) \
               $(SRC_MCP:src/%.c=$(BUILD)/fuzz-obj/%.o) $(SRC_MCP_CXX:src/%.cc=$(BUILD)/fuzz-obj/%.o)

$(BUILD)/fuzz-obj/%.o: src/%.c | $(GEN_HEADERS) $(NATIVE_DIRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link $(WARN) $(CPPFLAGS) -MMD -MP -I$(BUILD)/gen \
	  $(foreach d,$(NATIVE_DIRS),-I"$$(cat $(d))") -c $< -o $@
# (the harnesses link with the C driver: no C++ UBSan runtime, so no vptr check)
$(BUILD)/fuzz-obj/%.o: src/%.cc
	@mkdir -p $(dir $@)
	clang++-19 -g -O1 $(FUZZ_SAN) -fno-sanitize=vptr -fsanitize=fuzzer-no-link -std=c++17 -Wall -Wextra -Werror \
	  $(CPPFLAGS) -MMD -MP -c $< -o $@
-include $(wildcard $(BUILD)/fuzz-obj/*/*.d)

$(BUILD)/libwasmbox-fuzz.a: $(FUZZ_OBJ) $(BUILD)/images.o $(BUILD)/snapshots.o $(BUILD)/playground.o $(NATIVE_DIRS)
	rm -f $@
	ar rcs $@ $(FUZZ_OBJ) $(BUILD)/images.o $(BUILD)/snapshots.o $(BUILD)/playground.o $(NATIVE_OBJ)

$(BUILD)/fuzz/%: tests/fuzz/%.c $(BUILD)/libwasmbox-fuzz.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer $(WARN) $(CPPFLAGS) $< $(BUILD)/libwasmbox-fuzz.a -o $@ \
	  $(MCP_LIBS) $(LDLIBS)

# fuzz_oauth signs the tokens it makes up: libcrypto linked (the server opens it at run time)
$(BUILD)/fuzz/fuzz_oauth: tests/fuzz/fuzz_oauth.c $(BUILD)/libwasmbox-fuzz.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer $(WARN) $(CPPFLAGS) $< $(BUILD)/libwasmbox-fuzz.a -o $@ \
	  $(MCP_LIBS) $(LDLIBS) -lcrypto

# tools/wasm_fuel inside its harness: main is called per input, and exit (a
# refusal) returns to the harness instead of ending the process
FUEL_FUZZ_OBJ = $(patsubst tools/%.c,$(BUILD)/fuzz-obj/tools/%.o,$(filter %.c,$(FUEL_TOOL_SRC)))
$(BUILD)/fuzz-obj/tools/%.o: tools/%.c tools/wasm_fuel.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link $(WARN) -Dmain=wasm_fuel_main -Dexit=wasm_fuel_exit \
	  -c $< -o $@
$(BUILD)/fuzz/fuzz_wasm_fuel: tests/fuzz/fuzz_wasm_fuel.c $(FUEL_FUZZ_OBJ) $(BUILD)/libwasmbox-fuzz.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer $(WARN) $(CPPFLAGS) $< $(FUEL_FUZZ_OBJ) \
	  $(BUILD)/libwasmbox-fuzz.a -o $@ $(MCP_LIBS) $(LDLIBS)

fuzz: deps $(FUZZERS:%=$(BUILD)/fuzz/%)
	@bash tests/fuzz/run.sh $(BUILD)/fuzz $(FUZZ_SECONDS) $(FUZZERS)

# ---- install ----------------------------------------------------------------------
# make install PREFIX=/usr/local LIBDIR=PREFIX/lib DESTDIR=: the command, the
# C library (shared, with its worker program, and static) and its header, a
# pkg-config file, the man page (help2man, from the commands' own --help) and
# bash completion.
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
$(BUILD)/wasmbox.1: $(BUILD)/wasmbox packaging/install/manpage.sh | deps
	bash packaging/install/manpage.sh $(BUILD)/wasmbox > $@.tmp && mv $@.tmp $@

install: $(BUILD)/wasmbox $(BUILD)/libwasmbox.a $(SHARED) $(BUILD)/wasmbox.1 packaging/install/wasmbox.pc.in packaging/install/completion.bash
	install -Dm755 $(BUILD)/wasmbox $(DESTDIR)$(PREFIX)/bin/wasmbox
	install -Dm644 $(BUILD)/libwasmbox.a $(DESTDIR)$(LIBDIR)/libwasmbox.a
	install -Dm755 $(BUILD)/libwasmbox.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libwasmbox.so.$(VERSION)
	ln -sf libwasmbox.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libwasmbox.so.$(SOVERSION)
	ln -sf libwasmbox.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libwasmbox.so
	install -Dm755 $(BUILD)/libwasmbox/wasmbox-worker $(DESTDIR)$(LIBDIR)/libwasmbox/wasmbox-worker
	install -Dm644 include/wasmbox.h $(DESTDIR)$(PREFIX)/include/wasmbox.h
	install -Dm644 $(BUILD)/wasmbox.1 $(DESTDIR)$(PREFIX)/share/man/man1/wasmbox.1
	install -Dm644 packaging/install/completion.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/wasmbox
	mkdir -p $(DESTDIR)$(LIBDIR)/pkgconfig
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBS@|$(LDLIBS)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(VERSION)|' packaging/install/wasmbox.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/wasmbox.pc
	@# the dynamic linker's cache, so that programs (and Python's ctypes) find the new library
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig; fi

# The TypeScript client as an npm package (clients/typescript/README.md):
# npm install ./build/npm/wasmbox-VERSION.tgz
TS_SRC  := $(wildcard clients/typescript/src/*.ts) $(addprefix clients/typescript/,package.json package-lock.json tsconfig.json README.md)
npm-package: $(BUILD)/npm/wasmbox-$(VERSION).tgz
$(BUILD)/npm/wasmbox-$(VERSION).tgz: $(TS_SRC) include/wasmbox.h
	@grep -q '"version": "$(VERSION)"' clients/typescript/package.json || \
	  { echo "clients/typescript/package.json: version is not $(VERSION) (include/wasmbox.h)"; exit 1; }
	mkdir -p $(BUILD)/npm
	cd clients/typescript && npm ci --no-audit --no-fund --loglevel=error && \
	  npm pack --silent --pack-destination $(abspath $(BUILD)/npm) >/dev/null

# The Debian packages (packaging/debian/) in build/deb: wasmbox (the command and a
# systemd unit for wasmbox serve), libwasmbox0 and libwasmbox-dev, built with
# dpkg-buildpackage and debhelper in build/deb-tree (Debian's hardening
# flags), then checked with lintian (warnings fail). build/wasmbox first:
# the runtimes' recipes then run one at a time, each on every core, and the
# package's build (make -j, our C only) finds them in the cache.
deb: deps $(BUILD)/wasmbox
	bash -c '. runtimes/lib.sh && wb_apt_install debhelper lintian fakeroot'
	mkdir -p $(BUILD)/deb
	# dpkg-buildpackage reads ./debian: a link to packaging/debian while it runs
	rm -f debian && ln -s packaging/debian debian
	dpkg-buildpackage -b -nc -uc -us -J$(shell nproc) --buildinfo-option=-u$(BUILD)/deb --changes-option=-u$(BUILD)/deb \
	  --buildinfo-file=$(BUILD)/deb/wasmbox_$(VERSION)_amd64.buildinfo \
	  --changes-file=$(BUILD)/deb/wasmbox_$(VERSION)_amd64.changes; rc=$$?; rm debian; exit $$rc
	lintian --fail-on error,warning $(BUILD)/deb/wasmbox_$(VERSION)_amd64.changes

# the packages used as a user would (tests/deb.sh; WASMBOX_TEST_APT=1 also
# installs them on this machine with apt-get, and purges them)
test-deb: deb
	@bash tests/deb.sh .

# Several servers behind HAProxy on this machine (packaging/deploy/cluster.sh): three
# `wasmbox serve` with their sessions in a PostgreSQL of their own, a session
# key in common, in CLUSTER_DIR (PostgreSQL's user must reach it); Ctrl-C
# ends it.
CLUSTER_DIR ?= /tmp/wasmbox-cluster
cluster: $(BUILD)/wasmbox
	@WASMBOX=$(BUILD)/wasmbox bash packaging/deploy/cluster.sh start $(CLUSTER_DIR) && \
	  trap 'bash packaging/deploy/cluster.sh stop $(CLUSTER_DIR)' EXIT && trap 'kill $$! 2>/dev/null; exit 0' INT TERM && \
	  echo "Ctrl-C stops it" && while :; do sleep 3600 & wait $$!; done

# the cluster used as a team would (tests/cluster.py)
test-cluster: deps $(BUILD)/wasmbox $(BUILD)/tests/test_sessions
	@python3 tests/cluster.py $(BUILD)/wasmbox && python3 tests/store.py $(BUILD)/wasmbox && python3 tests/store_faults.py $(BUILD)/wasmbox

# the layer map of ARCHITECTURE.md
check-layers:
	@python3 scripts/check_layers.py
	@out=$$(bash tests/check_layers.sh) || { echo "$$out"; exit 1; }; echo "check-layers: its own test: $$(echo "$$out" | tail -1)"

# the style of .clang-format
FORMATTED = $(wildcard src/*/*.[ch] include/*.h tests/*.[ch] tests/fuzz/*.c bench/*.c)
format:
	clang-format-19 -i $(FORMATTED)
check-format: deps
	@clang-format-19 --dry-run --Werror $(FORMATTED) && echo "check-format: ok ($(words $(FORMATTED)) files)"

# Mixed and hostile traffic through wasmbox serve, then leak checks
# (tests/soak.py); CI runs a short form.
SOAK_CALLS ?= 100000
soak: deps $(BUILD)/wasmbox
	@python3 tests/soak.py $(BUILD)/wasmbox --calls $(SOAK_CALLS)

test-mcp: deps $(BUILD)/wasmbox
	@bash tests/mcp/run.sh $(BUILD)/wasmbox

run: $(BUILD)/wasmbox
	@bash scripts/demo.sh $(BUILD)/wasmbox

# The unmetered baseline for make bench: the same modules with the fuel
# counter but no charges, built like the product in its own directory (the
# recipes' caches make everything but the native translation a copy).
.PHONY: unmetered
unmetered:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/unmetered FUEL=counter-only $(BUILD)/unmetered/wasmbox

# make bench [QUICK=1]: every figure next to native and the peers (Pyodide,
# node:wasi, bubblewrap; bench/README.md), one table at the end. The clock
# starts when make reads this file, so the wall time printed includes building.
ifneq ($(filter bench,$(MAKECMDGOALS)),)
BENCH_T0 := $(shell date +%s.%N)
endif
bench: $(BUILD)/wasmbox unmetered $(BUILD)/mcpload $(BUILD)/bench-warm $(BUILD)/bench-load
	@WB_BENCH_T0=$(BENCH_T0) bash bench/run.sh $(BUILD)/wasmbox --unmetered $(BUILD)/unmetered/wasmbox --jsnative "$$(cat $(BUILD)/javascript.dir)/jsnative" \
	  $(if $(QUICK),--quick)

# The peers step of make bench, each contender once (CI: a peer that stops
# working, node:wasi on a new import of ours, fails here, not at bench time)
test-peers: deps $(BUILD)/wasmbox $(BUILD)/bench-load
	@python3 bench/peers.py $(BUILD)/wasmbox --load $(BUILD)/bench-load --python-dir "$$(cat $(BUILD)/python.dir)" \
	  --pyodide "$$(bash bench/peers/install.sh)" --jsnative "$$(cat $(BUILD)/javascript.dir)/jsnative" --smoke

# MCP round trips (HTTP, stdio) next to the library's own figure
$(BUILD)/mcpload: bench/mcpload.c
	$(CC) $(CFLAGS) $(WARN) -D_GNU_SOURCE $< -o $@ -lpthread

$(BUILD)/bench-warm: bench/warm.c $(BUILD)/libwasmbox.a
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) $< $(BUILD)/libwasmbox.a -o $@ $(LDLIBS)

# calls/s at 1, 2, 8 threads, session calls, memory of idle sessions
$(BUILD)/bench-load: bench/load.c $(BUILD)/libwasmbox.a
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) $< $(BUILD)/libwasmbox.a -o $@ $(LDLIBS)

bench-mcp: $(BUILD)/wasmbox $(BUILD)/mcpload $(BUILD)/bench-warm
	@python3 bench/mcp.py $(BUILD)/wasmbox $(BUILD)/mcpload $(BUILD)/bench-warm

conformance: $(BUILD)/wasmbox
	@bash tests/conformance/run.sh $(BUILD)/wasmbox "$$(cat $(BUILD)/python.dir)/test" "$$(cat $(BUILD)/javascript.dir)" \
	  "$$(cat $(BUILD)/python-packages.dir)" "$$(cat $(BUILD)/python.dir)/numpy-tests" "$$(cat $(BUILD)/python.dir)/pillow-tests" \
	  "$$(cat $(BUILD)/python.dir)/matplotlib-tests" "$$(cat $(BUILD)/python.dir)/pandas-tests"

# the same, with pandas' seven subsets whole rather than CI's selection
conformance-full: $(BUILD)/wasmbox
	@WB_CONFORMANCE_FULL=1 $(MAKE) --no-print-directory conformance

clean:
	rm -rf $(BUILD)
