#!/usr/bin/env bash
# train.sh TRAINER RUNTIME_DIR: the training run of the profile-guided native
# build of python (runtimes/native.sh --train). The workload is the one
# CPython's own PGO build uses (Lib/test/libregrtest/pgo.py, PGO_TESTS), as
# Debian's python3.11, the baseline of `make bench`, is built that way too;
# left out: test_embed and test_tabnanny (they start subprocesses),
# test_sqlite3 (needs a shim), test_xml_etree* and test_time (slow, and
# little of the interpreter), test_datetime, test_decimal, test_pickle,
# test_statistics, test_bz2 and test_lzma (the slowest: together about as long
# as all the rest). Under a minute on 2 cores.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
trainer=$1 runtime=$2
modules=(test_array test_base64 test_binascii test_binop test_bisect test_bytes test_cmath test_codecs
         test_collections test_complex test_dataclasses test_difflib test_float test_fstring test_functools
         test_generators test_hashlib test_heapq test_int test_itertools test_json test_long test_math
         test_memoryview test_operator test_ordered_dict test_patma test_pprint test_re test_set test_struct
         test_unicode)
# WB_JOBS trainers, modules dealt round-robin; the counters of all are merged
# into the profile as each exits.
pids=()
for ((j = 0; j < WB_JOBS; j++)); do
  share=()
  for ((i = j; i < ${#modules[@]}; i += WB_JOBS)); do share+=("${modules[i]}"); done
  [ ${#share[@]} -gt 0 ] || continue
  "$trainer" python "$runtime:/cpython" "$here/train.py" "${share[@]}" &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
[ "$status" -eq 0 ] || die "python training failed"
