# wasmbox build. Heavy steps (guest runtimes, their native translation) are
# scripts under runtimes/ that cache their output outside the clone, keyed by
# a hash of their recipe; this Makefile records where each result lives in
# build/*.dir and builds our own C on top.
#
#   make            build build/wasmbox
#   make run        a 30-second demo
#   make test       all tests (unit, end to end, CLI), then under ASan+UBSan
#   make bench      benchmarks against native python3.11
#   make conformance  CPython's own regression tests inside wasmbox

BUILD   ?= build
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror
CPPFLAGS := -D_GNU_SOURCE -Iinclude -Isrc
LDLIBS  := -lzstd -lpthread -lm
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

SRC_LIB := $(wildcard src/util/*.c src/wasi/*.c src/engine/*.c src/session/*.c src/api/*.c) src/runtimes/registry.c
SRC_RT  := src/runtimes/python.c
SRC_CLI := src/cli/main.c

.PHONY: all deps run test test-unit test-e2e test-cli test-asan bench conformance clean
.DELETE_ON_ERROR:

all: $(BUILD)/wasmbox

deps:
	@bash scripts/deps.sh

# ---- guest runtimes (cached outside the clone) ---------------------------
$(BUILD)/python.dir: runtimes/lib.sh runtimes/python/build.sh runtimes/python/wasmbox_main.c \
                     runtimes/python/wasi_shims.c runtimes/python/wasi_shims.h runtimes/python/fastmem.c runtimes/common/guest_libc.c runtimes/common/guest_libc.h | deps
	@mkdir -p $(BUILD)
	bash runtimes/python/build.sh > $@.tmp && mv $@.tmp $@

$(BUILD)/python-native.dir: $(BUILD)/python.dir runtimes/native.sh tools/w2c_split.py
	bash runtimes/native.sh python "$$(cat $(BUILD)/python.dir)/python.wasm" > $@.tmp && mv $@.tmp $@

$(BUILD)/mkimage: tools/mkimage.c src/wasi/image.h
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) $< -o $@

$(BUILD)/python-stdlib.img: $(BUILD)/python.dir $(BUILD)/mkimage
	$(BUILD)/mkimage "$$(cat $(BUILD)/python.dir)/stdlib" $@

# Debian's tzdata, links resolved (images hold no symlinks); posix/ and right/
# are duplicates and leap-second variants.
$(BUILD)/zoneinfo.img: $(BUILD)/mkimage | deps
	rm -rf $(BUILD)/zoneinfo
	cp -rL /usr/share/zoneinfo $(BUILD)/zoneinfo
	rm -rf $(BUILD)/zoneinfo/posix $(BUILD)/zoneinfo/right
	$(BUILD)/mkimage $(BUILD)/zoneinfo $@

# Read-only images linked into the binary: SYMBOL=FILE pairs.
IMAGES := wb_python_stdlib=$(BUILD)/python-stdlib.img wb_zoneinfo=$(BUILD)/zoneinfo.img
$(BUILD)/images.o: $(BUILD)/python-stdlib.img $(BUILD)/zoneinfo.img
	for i in $(IMAGES); do \
	  printf '.section .rodata\n.balign 4096\n.global %s\n%s:\n.incbin "%s"\n.global %s_end\n%s_end:\n' \
	    "$${i%%=*}" "$${i%%=*}" "$(abspath .)/$${i#*=}" "$${i%%=*}" "$${i%%=*}"; \
	done > $(BUILD)/images.S
	printf '.section .note.GNU-stack,"",@progbits\n' >> $(BUILD)/images.S
	$(CC) -c $(BUILD)/images.S -o $@

# Which native module this build holds (snapshots record and check it).
$(BUILD)/gen/build_id.h: $(BUILD)/python-native.dir
	@mkdir -p $(dir $@)
	printf '#define WB_PYTHON_BUILD_ID "%s"\n' "$$(basename "$$(cat $<)")" > $@

# ---- our C ----------------------------------------------------------------
# $(1): object dir, $(2): extra flags
define objects
$(1)/%.o: src/%.c $(wildcard src/*/*.h) include/wasmbox.h $(BUILD)/gen/build_id.h | $(BUILD)/python-native.dir
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS) $(2) $$(WARN) $$(CPPFLAGS) -I$(BUILD)/gen -I"$$$$(cat $(BUILD)/python-native.dir)" -c $$< -o $$@
endef
$(eval $(call objects,$(BUILD)/obj,))
$(eval $(call objects,$(BUILD)/asan,$(SAN)))

OBJ_LIB  = $(SRC_LIB:src/%.c=$(BUILD)/obj/%.o) $(SRC_RT:src/%.c=$(BUILD)/obj/%.o)
ASAN_LIB = $(SRC_LIB:src/%.c=$(BUILD)/asan/%.o) $(SRC_RT:src/%.c=$(BUILD)/asan/%.o)
NATIVE   = $$(cat $(BUILD)/python-native.dir)/python.o

# Base snapshots: mksnapshot (the library without snapshots) starts each
# runtime, preloads it and writes its state; the final library embeds that.
# (an archive member is linked only to satisfy a reference, so both libraries
# define the snapshot symbols: empty here, the real ones below)
$(BUILD)/nosnapshots.o:
	@mkdir -p $(BUILD)
	printf '.section .rodata\n.global wb_python_snapshot\nwb_python_snapshot:\n.global wb_python_snapshot_end\nwb_python_snapshot_end:\n.section .note.GNU-stack,"",@progbits\n' > $(BUILD)/nosnapshots.S
	$(CC) -c $(BUILD)/nosnapshots.S -o $@

$(BUILD)/libwasmbox-nosnap.a: $(OBJ_LIB) $(BUILD)/images.o $(BUILD)/nosnapshots.o $(BUILD)/python-native.dir
	rm -f $@
	ar rcs $@ $(OBJ_LIB) $(BUILD)/images.o $(BUILD)/nosnapshots.o "$$(cat $(BUILD)/python-native.dir)/python.o"

$(BUILD)/mksnapshot: tools/mksnapshot.c $(BUILD)/libwasmbox-nosnap.a
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) $< $(BUILD)/libwasmbox-nosnap.a -o $@ $(LDLIBS)

$(BUILD)/python.snap: $(BUILD)/mksnapshot
	$(BUILD)/mksnapshot python $@

$(BUILD)/snapshots.o: $(BUILD)/python.snap
	printf '.section .rodata\n.balign 65536\n.global wb_python_snapshot\nwb_python_snapshot:\n.incbin "%s"\n.global wb_python_snapshot_end\nwb_python_snapshot_end:\n.section .note.GNU-stack,"",@progbits\n' \
	  "$(abspath $(BUILD)/python.snap)" > $(BUILD)/snapshots.S
	$(CC) -c $(BUILD)/snapshots.S -o $@

$(BUILD)/libwasmbox.a: $(OBJ_LIB) $(BUILD)/images.o $(BUILD)/snapshots.o $(BUILD)/python-native.dir
	rm -f $@
	ar rcs $@ $(OBJ_LIB) $(BUILD)/images.o $(BUILD)/snapshots.o "$$(cat $(BUILD)/python-native.dir)/python.o"

$(BUILD)/libwasmbox-asan.a: $(ASAN_LIB) $(BUILD)/images.o $(BUILD)/snapshots.o $(BUILD)/python-native.dir
	rm -f $@
	ar rcs $@ $(ASAN_LIB) $(BUILD)/images.o $(BUILD)/snapshots.o "$$(cat $(BUILD)/python-native.dir)/python.o"

$(BUILD)/wasmbox: $(BUILD)/obj/cli/main.o $(BUILD)/libwasmbox.a
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/wasmbox-asan: $(BUILD)/asan/cli/main.o $(BUILD)/libwasmbox-asan.a
	$(CC) $(CFLAGS) $(SAN) $^ -o $@ $(LDLIBS)

# ---- tests ------------------------------------------------------------------
TESTS := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))

$(BUILD)/tests/%: tests/%.c tests/harness.h $(BUILD)/libwasmbox.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) -I$(BUILD)/gen $< $(BUILD)/libwasmbox.a -o $@ $(LDLIBS) -lcmocka

$(BUILD)/tests-asan/%: tests/%.c tests/harness.h $(BUILD)/libwasmbox-asan.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(WARN) $(CPPFLAGS) -I$(BUILD)/gen $< $(BUILD)/libwasmbox-asan.a -o $@ $(LDLIBS) -lcmocka

test: deps $(BUILD)/wasmbox $(TESTS:%=$(BUILD)/tests/%)
	@bash tests/run.sh $(BUILD)/tests $(BUILD)/wasmbox $(TESTS)
	@$(MAKE) --no-print-directory test-asan

test-asan: deps $(BUILD)/wasmbox-asan $(TESTS:%=$(BUILD)/tests-asan/%)
	@ASAN_OPTIONS=detect_leaks=1:handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1:use_sigaltstack=0 \
	  UBSAN_OPTIONS=print_stacktrace=1 bash tests/run.sh $(BUILD)/tests-asan $(BUILD)/wasmbox-asan $(TESTS)

run: $(BUILD)/wasmbox
	@bash scripts/demo.sh $(BUILD)/wasmbox

bench: $(BUILD)/wasmbox
	@bash bench/run.sh $(BUILD)/wasmbox

conformance: $(BUILD)/wasmbox
	@bash tests/conformance/run.sh $(BUILD)/wasmbox "$$(cat $(BUILD)/python.dir)/test"

clean:
	rm -rf $(BUILD)
