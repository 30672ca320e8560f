;; A module that exports nothing: not a WASI command, refused at load.
(module)
