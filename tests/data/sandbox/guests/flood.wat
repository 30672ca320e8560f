;; Writes 1 KiB to stdout over and over (iovec at 0, 1 KiB of 'x' at 16), forever.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "\10\00\00\00\00\04\00\00")
  (func (export "_start")
    (memory.fill (i32.const 16) (i32.const 120) (i32.const 1024))
    (loop $l
      (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
      (br $l))))
