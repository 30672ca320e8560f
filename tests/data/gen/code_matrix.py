"""Writes tests/data/code/matrix.jsonl: issue 40's hostile-program matrix, every language execute_code runs
(go when installed) against every attack the native sandbox must stop, each with the verdict it must get:
hello world, a time limit, a memory limit, an output flood, one big write before an exit or a spin, the network, writes outside /tmp, host files.
The expected verdicts and outputs are the sandbox's contract (docs/ARCHITECTURE.md's threat model), written
here, not Beaker's output. The suite `code::matrix` runs each case through execute_code with the limits given.

Needs nothing beyond the standard library. Run: python3 tests/data/gen/code_matrix.py
"""

import json
import os

# One snippet per language and attack. "blocked" is printed when the attack failed as it must.
PROGRAMS = {
    "python": {
        "hello": "print('hello')",
        "time_limit": "while True:\n    pass",
        "memory_limit": "b = bytearray(2 << 30)\nprint(len(b))",
        "output_flood": "while True:\n    print('x' * 100)",
        "big_write_then_exit": "import sys\nsys.stdout.write('x' * 300000 + '\\n')\nsys.stderr.write('e' * 200000)\nsys.exit(3)",
        "big_write_then_spin": "import sys\nsys.stdout.write('x' * 300000)\nsys.stdout.flush()\nwhile True:\n    pass",
        "network": "import socket\ntry:\n    socket.create_connection(('1.1.1.1', 80), timeout=2)\n    print('connected')\nexcept OSError:\n    print('blocked')",
        "write_outside_tmp": "ok = 0\nfor p in ('/usr/beaker-probe', '/beaker-probe', '/dev/beaker-probe'):\n    try:\n        open(p, 'w').write('x')\n    except OSError:\n        ok += 1\nprint('blocked' if ok == 3 else 'WROTE')",
        "host_files": "import os\nseen = [p for p in ('/etc/passwd', '/etc/shadow', '/root', '/home', '/work') if os.path.exists(p)]\nprint('blocked' if not seen else seen)",
    },
    "c": {
        "hello": '#include <stdio.h>\nint main(void){puts("hello");return 0;}',
        "time_limit": "int main(void){volatile unsigned long i=0;for(;;)i++;}",
        "memory_limit": '#include <stdlib.h>\n#include <string.h>\n#include <stdio.h>\nint main(void){size_t n=(size_t)2<<30;char*p=malloc(n);if(!p){fputs("no memory\\n",stderr);return 3;}memset(p,1,n);printf("%d\\n",p[n-1]);return 0;}',
        "output_flood": '#include <stdio.h>\nint main(void){for(;;)puts("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");}',
        "big_write_then_exit": "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\nstatic char o[300001],e[200000];\nint main(void){memset(o,'x',300000);o[300000]='\\n';memset(e,'e',200000);fwrite(o,1,300001,stdout);fwrite(e,1,200000,stderr);exit(3);}",
        "big_write_then_spin": "#include <stdio.h>\n#include <string.h>\nstatic char o[300000];\nint main(void){memset(o,'x',300000);fwrite(o,1,300000,stdout);fflush(stdout);for(volatile unsigned long i=0;;i++);}",
        "network": '#include <stdio.h>\n#include <sys/socket.h>\n#include <netinet/in.h>\n#include <arpa/inet.h>\nint main(void){int s=socket(AF_INET,SOCK_STREAM,0);struct sockaddr_in a={0};a.sin_family=AF_INET;a.sin_port=htons(80);inet_pton(AF_INET,"1.1.1.1",&a.sin_addr);puts(connect(s,(struct sockaddr*)&a,sizeof a)<0?"blocked":"connected");return 0;}',
        "write_outside_tmp": '#include <stdio.h>\nint main(void){const char*p[]={"/usr/beaker-probe","/beaker-probe","/dev/beaker-probe"};int ok=0;for(int i=0;i<3;i++){FILE*f=fopen(p[i],"w");if(!f)ok++;else fclose(f);}puts(ok==3?"blocked":"WROTE");return 0;}',
        "host_files": '#include <stdio.h>\n#include <unistd.h>\nint main(void){const char*p[]={"/etc/passwd","/etc/shadow","/root","/home","/work"};int seen=0;for(int i=0;i<5;i++)if(access(p[i],F_OK)==0)seen++;puts(seen?"SEEN":"blocked");return 0;}',
    },
    "cpp": {
        "hello": '#include <iostream>\nint main(){std::cout<<"hello\\n";}',
        "time_limit": "int main(){volatile unsigned long i=0;for(;;)i++;}",
        "memory_limit": '#include <vector>\n#include <iostream>\nint main(){std::vector<char> v((size_t)2<<30,1);std::cout<<(int)v.back()<<"\\n";}',
        "output_flood": '#include <iostream>\nint main(){for(;;)std::cout<<"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\\n";}',
        "big_write_then_exit": "#include <iostream>\n#include <string>\n#include <cstdlib>\nint main(){std::cout<<std::string(300000,'x')<<'\\n';std::cerr<<std::string(200000,'e');std::cout.flush();std::exit(3);}",
        "big_write_then_spin": "#include <iostream>\n#include <string>\nint main(){std::cout<<std::string(300000,'x')<<std::flush;for(volatile unsigned long i=0;;i++);}",
        "network": '#include <cstdio>\n#include <sys/socket.h>\n#include <netinet/in.h>\n#include <arpa/inet.h>\nint main(){int s=socket(AF_INET,SOCK_STREAM,0);sockaddr_in a{};a.sin_family=AF_INET;a.sin_port=htons(80);inet_pton(AF_INET,"1.1.1.1",&a.sin_addr);std::puts(connect(s,(sockaddr*)&a,sizeof a)<0?"blocked":"connected");}',
        "write_outside_tmp": '#include <fstream>\n#include <iostream>\nint main(){int ok=0;for(auto p:{"/usr/beaker-probe","/beaker-probe","/dev/beaker-probe"}){std::ofstream f(p);if(!f)ok++;}std::cout<<(ok==3?"blocked":"WROTE")<<"\\n";}',
        "host_files": '#include <filesystem>\n#include <iostream>\nint main(){int seen=0;for(auto p:{"/etc/passwd","/etc/shadow","/root","/home","/work"})if(std::filesystem::exists(p))seen++;std::cout<<(seen?"SEEN":"blocked")<<"\\n";}',
    },
    "rust": {
        "hello": 'fn main() { println!("hello"); }',
        "time_limit": "fn main() { let mut i: u64 = 0; loop { unsafe { std::ptr::write_volatile(&mut i, std::ptr::read_volatile(&i) + 1) } } }",
        "memory_limit": 'fn main() { let v = vec![1u8; 2 << 30]; println!("{}", v[v.len() - 1]); }',
        "output_flood": 'fn main() { loop { println!("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"); } }',
        "big_write_then_exit": 'use std::io::Write;\nfn main() { std::io::stdout().write_all(&[b\'x\'; 300000]).unwrap(); std::io::stdout().write_all(b"\\n").unwrap(); std::io::stdout().flush().unwrap(); std::io::stderr().write_all(&[b\'e\'; 200000]).unwrap(); std::process::exit(3); }',
        "big_write_then_spin": "use std::io::Write;\nfn main() { std::io::stdout().write_all(&[b'x'; 300000]).unwrap(); std::io::stdout().flush().unwrap(); let mut i: u64 = 0; loop { unsafe { std::ptr::write_volatile(&mut i, std::ptr::read_volatile(&i) + 1) } } }",
        "network": 'use std::net::*;\nfn main() { let a: SocketAddr = "1.1.1.1:80".parse().unwrap(); println!("{}", if TcpStream::connect_timeout(&a, std::time::Duration::from_secs(2)).is_err() { "blocked" } else { "connected" }); }',
        "write_outside_tmp": 'fn main() { let ok = ["/usr/beaker-probe", "/beaker-probe", "/dev/beaker-probe"].iter().filter(|p| std::fs::write(p, "x").is_err()).count(); println!("{}", if ok == 3 { "blocked" } else { "WROTE" }); }',
        "host_files": 'fn main() { let seen = ["/etc/passwd", "/etc/shadow", "/root", "/home", "/work"].iter().filter(|p| std::path::Path::new(p).exists()).count(); println!("{}", if seen == 0 { "blocked" } else { "SEEN" }); }',
    },
    "go": {
        "hello": 'package main\nimport "fmt"\nfunc main() { fmt.Println("hello") }',
        "time_limit": "package main\nfunc main() { i := 0; for { i++ } }",
        "memory_limit": 'package main\nimport "fmt"\nfunc main() { b := make([]byte, 2<<30); for i := range b { b[i] = 1 }; fmt.Println(b[len(b)-1]) }',
        "output_flood": 'package main\nimport "fmt"\nfunc main() { for { fmt.Println("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx") } }',
        "big_write_then_exit": 'package main\nimport ("os"; "strings")\nfunc main() { os.Stdout.WriteString(strings.Repeat("x", 300000) + "\\n"); os.Stderr.WriteString(strings.Repeat("e", 200000)); os.Exit(3) }',
        "big_write_then_spin": 'package main\nimport ("os"; "strings")\nfunc main() { os.Stdout.WriteString(strings.Repeat("x", 300000)); i := 0; for { i++ } }',
        "network": 'package main\nimport ("fmt"; "net"; "time")\nfunc main() { if _, err := net.DialTimeout("tcp", "1.1.1.1:80", 2*time.Second); err != nil { fmt.Println("blocked") } else { fmt.Println("connected") } }',
        "write_outside_tmp": 'package main\nimport ("fmt"; "os")\nfunc main() { ok := 0; for _, p := range []string{"/usr/beaker-probe", "/beaker-probe", "/dev/beaker-probe"} { if os.WriteFile(p, []byte("x"), 0644) != nil { ok++ } }; if ok == 3 { fmt.Println("blocked") } else { fmt.Println("WROTE") } }',
        "host_files": 'package main\nimport ("fmt"; "os")\nfunc main() { seen := 0; for _, p := range []string{"/etc/passwd", "/etc/shadow", "/root", "/home", "/work"} { if _, err := os.Stat(p); err == nil { seen++ } }; if seen == 0 { fmt.Println("blocked") } else { fmt.Println("SEEN") } }',
    },
    "java": {
        "hello": 'public class Main { public static void main(String[] a) { System.out.println("hello"); } }',
        "time_limit": "public class Main { public static void main(String[] a) { long i = 0; while (true) { i++; if (i == -1) break; } } }",
        "memory_limit": "public class Main { public static void main(String[] a) { byte[][] b = new byte[64][]; for (int i = 0; i < 64; i++) b[i] = new byte[32 << 20]; System.out.println(b.length); } }",
        "output_flood": 'public class Main { public static void main(String[] a) { while (true) System.out.println("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"); } }',
        "big_write_then_exit": 'public class Main { public static void main(String[] a) { System.out.print("x".repeat(300000) + "\\n"); System.out.flush(); System.err.print("e".repeat(200000)); System.err.flush(); System.exit(3); } }',
        "big_write_then_spin": 'public class Main { public static void main(String[] a) { System.out.print("x".repeat(300000)); System.out.flush(); long i = 0; while (true) { i++; if (i == -1) break; } } }',
        "network": 'import java.net.*;\npublic class Main { public static void main(String[] a) { try (Socket s = new Socket()) { s.connect(new InetSocketAddress("1.1.1.1", 80), 2000); System.out.println("connected"); } catch (Exception e) { System.out.println("blocked"); } } }',
        "write_outside_tmp": 'import java.io.*;\npublic class Main { public static void main(String[] a) { int ok = 0; for (String p : new String[]{"/usr/beaker-probe", "/beaker-probe", "/dev/beaker-probe"}) { try (FileWriter w = new FileWriter(p)) { w.write("x"); } catch (IOException e) { ok++; } } System.out.println(ok == 3 ? "blocked" : "WROTE"); } }',
        "host_files": 'import java.io.*;\npublic class Main { public static void main(String[] a) { int seen = 0; for (String p : new String[]{"/etc/passwd", "/etc/shadow", "/root", "/home", "/work"}) if (new File(p).exists()) seen++; System.out.println(seen == 0 ? "blocked" : "SEEN"); } }',
    },
    "nodejs": {
        "hello": "console.log('hello')",
        "time_limit": "for (;;) {}",
        "memory_limit": "const a = []; for (;;) a.push(new Array(1 << 20).fill(1.5));",
        "output_flood": "const s = 'x'.repeat(100) + '\\n'; for (;;) process.stdout.write(s);",
        "big_write_then_exit": "process.stdout.write('x'.repeat(300000) + '\\n');\nprocess.stderr.write('e'.repeat(200000));\nprocess.exit(3);",
        "big_write_then_spin": "process.stdout.write('x'.repeat(300000));\nfor (;;) {}",
        "network": "const n = require('net'); const c = n.connect(80, '1.1.1.1'); c.on('connect', () => { console.log('connected'); c.destroy(); }); c.on('error', () => console.log('blocked'));",
        "write_outside_tmp": "const fs = require('fs'); let ok = 0; for (const p of ['/usr/beaker-probe', '/beaker-probe', '/dev/beaker-probe']) { try { fs.writeFileSync(p, 'x'); } catch (e) { ok++; } } console.log(ok === 3 ? 'blocked' : 'WROTE');",
        "host_files": "const fs = require('fs'); const seen = ['/etc/passwd', '/etc/shadow', '/root', '/home', '/work'].filter(p => fs.existsSync(p)); console.log(seen.length ? 'SEEN' : 'blocked');",
    },
    "typescript": {
        "hello": "const greeting: string = 'hello';\nconsole.log(greeting);",
        "time_limit": "let i: number = 0;\nfor (;;) { i++; }",
        "memory_limit": "const a: number[][] = [];\nfor (;;) a.push(new Array<number>(1 << 20).fill(1.5));",
        "output_flood": "const s: string = 'x'.repeat(100) + '\\n';\nfor (;;) process.stdout.write(s);",
        "big_write_then_exit": "const out: string = 'x'.repeat(300000);\nprocess.stdout.write(out + '\\n');\nprocess.stderr.write('e'.repeat(200000));\nprocess.exit(3);",
        "big_write_then_spin": "const out: string = 'x'.repeat(300000);\nprocess.stdout.write(out);\nfor (;;) {}",
        "network": "import * as net from 'net';\nconst c: net.Socket = net.connect(80, '1.1.1.1');\nc.on('connect', () => { console.log('connected'); c.destroy(); });\nc.on('error', () => console.log('blocked'));",
        "write_outside_tmp": "import * as fs from 'fs';\nlet ok: number = 0;\nfor (const p of ['/usr/beaker-probe', '/beaker-probe', '/dev/beaker-probe']) { try { fs.writeFileSync(p, 'x'); } catch (e: unknown) { ok++; } }\nconsole.log(ok === 3 ? 'blocked' : 'WROTE');",
        "host_files": "import * as fs from 'fs';\nconst seen: string[] = ['/etc/passwd', '/etc/shadow', '/root', '/home', '/work'].filter((p: string) => fs.existsSync(p));\nconsole.log(seen.length ? 'SEEN' : 'blocked');",
    },
    "bash": {
        "hello": "echo hello",
        "time_limit": "while :; do :; done",
        "memory_limit": "x=$(head -c 600000000 /dev/zero | tr '\\0' a); echo ${#x}",
        "output_flood": "yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "big_write_then_exit": "head -c 300000 /dev/zero | tr '\\0' x; echo; head -c 200000 /dev/zero | tr '\\0' e >&2; exit 3",
        "big_write_then_spin": "head -c 300000 /dev/zero | tr '\\0' x; while :; do :; done",
        "network": "(exec 3<>/dev/tcp/1.1.1.1/80) 2>/dev/null && echo connected || echo blocked",
        "write_outside_tmp": "ok=0; for p in /usr/beaker-probe /beaker-probe /dev/beaker-probe; do (echo x > $p) 2>/dev/null || ok=$((ok+1)); done; [ $ok = 3 ] && echo blocked || echo WROTE",
        "host_files": "seen=0; for p in /etc/passwd /etc/shadow /root /home /work; do [ -e $p ] && seen=$((seen+1)); done; [ $seen = 0 ] && echo blocked || echo SEEN",
    },
}

# What each attack must get: a verdict (or one of several where languages differ in how they die) and stdout.
EXPECT = {
    "hello": {"status": ["ok"], "stdout": "hello\n"},
    "time_limit": {"status": ["time_limit"], "run_timeout_ms": 500},
    # Over 256 MiB: killed by the memory cgroup, or a failed allocation the runtime reports as it does.
    "memory_limit": {"status": ["memory_limit", "runtime_error"], "max_memory_bytes": 256 << 20},
    "output_flood": {"status": ["output_limit"], "max_output_bytes": 100_000},
    # A program that writes more than a pipe holds and exits at once: every byte reaches the caller, as through
    # a shell's pipe (Node.js queues what a full pipe refuses in its heap and drops it at exit unless stdio blocks).
    "big_write_then_exit": {"status": ["runtime_error"], "stdout_bytes": 300_001, "stderr_bytes": 200_000},
    # One write past the output limit, then a spin: the limit is met, not the time limit.
    "big_write_then_spin": {"status": ["output_limit"], "max_output_bytes": 100_000, "run_timeout_ms": 3000},
    "network": {"status": ["ok"], "stdout": "blocked\n"},
    "write_outside_tmp": {"status": ["ok"], "stdout": "blocked\n"},
    "host_files": {"status": ["ok"], "stdout": "blocked\n"},
}

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "code", "matrix.jsonl")
n = 0
with open(out, "w") as f:
    for language, programs in PROGRAMS.items():
        for attack, expect in EXPECT.items():
            case = {"name": f"{language}/{attack}", "language": language, "code": programs[attack], **expect}
            f.write(json.dumps(case) + "\n")
            n += 1
print(f"wrote {n} cases to {os.path.normpath(out)}")
