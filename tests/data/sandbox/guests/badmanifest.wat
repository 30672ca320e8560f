(module (func (export "_start")) (memory (export "memory") 1))
