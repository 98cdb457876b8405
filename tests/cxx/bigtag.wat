;; tests/cxx.sh: exceptions whose values pass the runtime's bound (256
;; bytes) trap, thrown or caught; a small one still works. The same exports
;; and imports as the C++ guest, for the same host.
(module
  (import "wasi_snapshot_preview1" "fd_close" (func (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_seek" (func (param i32 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (tag $small (param i32))
  ;; 33 i64: 264 bytes
  (tag $big (param i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64
                   i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64))
  (func $throw_big
    (throw $big (i64.const 1) (i64.const 2) (i64.const 3) (i64.const 4) (i64.const 5) (i64.const 6)
      (i64.const 7) (i64.const 8) (i64.const 9) (i64.const 10) (i64.const 11) (i64.const 12) (i64.const 13)
      (i64.const 14) (i64.const 15) (i64.const 16) (i64.const 17) (i64.const 18) (i64.const 19) (i64.const 20)
      (i64.const 21) (i64.const 22) (i64.const 23) (i64.const 24) (i64.const 25) (i64.const 26) (i64.const 27)
      (i64.const 28) (i64.const 29) (i64.const 30) (i64.const 31) (i64.const 32) (i64.const 33)))
  (func (export "_initialize"))
  (func (export "handler_entered") (result i32) (i32.const 0))
  (func (export "scenario") (param i32) (result i32)
    (if (i32.eqz (local.get 0)) (then (call $throw_big)))
    (if (i32.eq (local.get 0) (i32.const 1))
      (then (try (do (call $throw_big)) (catch_all (return (i32.const 1))))))
    (try (result i32) (do (throw $small (i32.const 5))) (catch $small))))
