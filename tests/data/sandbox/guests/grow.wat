;; Grows its memory one 64 KiB page at a time until refused, then traps the way an allocator's abort does.
(module
  (func (export "_start")
    (loop $l
      (if (i32.eq (memory.grow (i32.const 1)) (i32.const -1))
        (then unreachable))
      (br $l)))
  (memory (export "memory") 1))
