;; A guest that traps at once (an `unreachable`, as a Rust panic with panic=abort does).
(module
  (func (export "_start") unreachable)
  (memory (export "memory") 1))
