// Written by Beaker beside a Node.js program and loaded before it with `-r`: stdout and stderr block, as a C
// program's do, when the pipe to Beaker is full. Node.js otherwise queues what a full pipe refuses in its heap,
// flushed only when the event loop runs: a program that writes 300 kB and calls process.exit() lost all but the
// first 64 kB, and a flood in a busy loop grew the heap until V8 died instead of meeting the output limit.
for (const stream of [process.stdout, process.stderr]) stream._handle?.setBlocking?.(true);
// Gone before the program runs, so its folder holds what the call put there and nothing else.
try { require("fs").unlinkSync(__filename); } catch {}
