;; Loops forever: stopped by fuel (deterministic) or by the deadline.
(module
  (func (export "_start") (loop $l (br $l)))
  (memory (export "memory") 1))
