"""Writes tests/data/code/problems.jsonl: stdin/stdout problems in the form competitive-programming datasets use
(CodeContests, TACO, APPS), each solved in every language execute_code runs, with expected outputs computed here
by a Python reference solution on the host's CPython (never by Beaker). The suite `code::problems` runs each
solution through execute_code's `tests` and requires `accepted`.

Needs nothing beyond the standard library. Run: python3 tests/data/gen/code_problems.py
Several problems are chosen for the traps of 32-bit Python and 32-bit integers: sums past 2**31, a grid's path
count (137846528820), products past 2**53 in JavaScript (BigInt).
"""

import json
import math
import os
import random

rng = random.Random(20261128)


def sieve_count(n):
    if n < 2:
        return 0
    s = bytearray([1]) * (n + 1)
    s[0] = s[1] = 0
    for i in range(2, int(n ** 0.5) + 1):
        if s[i]:
            s[i * i :: i] = bytearray(len(s[i * i :: i]))
    return sum(s)


def kadane(xs):
    best = cur = xs[0]
    for x in xs[1:]:
        cur = max(x, cur + x)
        best = max(best, cur)
    return best


def nums(n, lo, hi):
    return [rng.randint(lo, hi) for _ in range(n)]


PROBLEMS = {}

# Each: inputs (stdin texts), reference (stdin -> stdout), solutions by language, optional tolerance.
PROBLEMS["aplusb"] = dict(
    inputs=["1 2\n", "3000000000 4000000000\n", "-9000000000000000000 -200000000000000000\n"],
    reference=lambda s: f"{sum(map(int, s.split()))}\n",
    solutions={
        "python": "a, b = map(int, input().split())\nprint(a + b)\n",
        "c": '#include <stdio.h>\nint main(void){long long a,b;scanf("%lld %lld",&a,&b);printf("%lld\\n",a+b);return 0;}\n',
        "cpp": "#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<'\\n';}\n",
        "java": "import java.util.*;\npublic class Main{public static void main(String[] x){Scanner s=new Scanner(System.in);long a=s.nextLong(),b=s.nextLong();System.out.println(a+b);}}\n",
        "nodejs": "const [a,b]=require('fs').readFileSync(0,'utf8').trim().split(/\\s+/).map(BigInt);console.log((a+b).toString());\n",
        "rust": "use std::io::*;\nfn main(){let mut s=String::new();stdin().read_to_string(&mut s).unwrap();let v:Vec<i64>=s.split_whitespace().map(|x|x.parse().unwrap()).collect();println!(\"{}\",v[0]+v[1]);}\n",
        "bash": "read a b\necho $((a + b))\n",
    },
)

sum_inputs = []
for n in (1, 10, 1000):
    xs = nums(n, -10**12, 10**12)
    sum_inputs.append(f"{n}\n{' '.join(map(str, xs))}\n")
PROBLEMS["sum_of_n"] = dict(
    inputs=sum_inputs,
    reference=lambda s: f"{sum(map(int, s.split()[1:]))}\n",
    solutions={
        "python": "import sys\nd = sys.stdin.read().split()\nprint(sum(map(int, d[1:int(d[0]) + 1])))\n",
        "c": '#include <stdio.h>\nint main(void){int n;long long s=0,x;scanf("%d",&n);for(int i=0;i<n;i++){scanf("%lld",&x);s+=x;}printf("%lld\\n",s);return 0;}\n',
        "cpp": "#include <bits/stdc++.h>\nint main(){int n;std::cin>>n;long long s=0,x;while(n--){std::cin>>x;s+=x;}std::cout<<s<<'\\n';}\n",
        "java": "import java.io.*;import java.util.*;\npublic class Main{public static void main(String[] a)throws IOException{BufferedReader r=new BufferedReader(new InputStreamReader(System.in));StringBuilder sb=new StringBuilder();String l;while((l=r.readLine())!=null)sb.append(l).append(' ');String[] p=sb.toString().trim().split(\"\\\\s+\");int n=Integer.parseInt(p[0]);long s=0;for(int i=1;i<=n;i++)s+=Long.parseLong(p[i]);System.out.println(s);}}\n",
        "nodejs": "const d=require('fs').readFileSync(0,'utf8').trim().split(/\\s+/);const n=Number(d[0]);let s=0n;for(let i=1;i<=n;i++)s+=BigInt(d[i]);console.log(s.toString());\n",
        "rust": "use std::io::*;\nfn main(){let mut s=String::new();stdin().read_to_string(&mut s).unwrap();let mut it=s.split_whitespace();let n:usize=it.next().unwrap().parse().unwrap();let t:i64=it.take(n).map(|x|x.parse::<i64>().unwrap()).sum();println!(\"{}\",t);}\n",
        "bash": "read n\nread -a xs\ns=0\nfor x in \"${xs[@]}\"; do s=$((s + x)); done\necho $s\n",
    },
)

PROBLEMS["reverse_words"] = dict(
    inputs=["hello world\n", "one\n", "the quick brown fox jumps\n"],
    reference=lambda s: " ".join(reversed(s.split())) + "\n",
    solutions={
        "python": "print(' '.join(reversed(input().split())))\n",
        "c": '#include <stdio.h>\n#include <string.h>\nint main(void){char w[100][64];int n=0;while(n<100&&scanf("%63s",w[n])==1)n++;for(int i=n-1;i>=0;i--)printf("%s%s",w[i],i?" ":"\\n");return 0;}\n',
        "cpp": "#include <bits/stdc++.h>\nint main(){std::vector<std::string> w;std::string x;while(std::cin>>x)w.push_back(x);std::reverse(w.begin(),w.end());for(size_t i=0;i<w.size();i++)std::cout<<w[i]<<(i+1<w.size()?' ':'\\n');}\n",
        "java": "import java.util.*;\npublic class Main{public static void main(String[] a){Scanner s=new Scanner(System.in);List<String> w=new ArrayList<>();while(s.hasNext())w.add(s.next());Collections.reverse(w);System.out.println(String.join(\" \",w));}}\n",
        "nodejs": "console.log(require('fs').readFileSync(0,'utf8').trim().split(/\\s+/).reverse().join(' '));\n",
        "rust": "use std::io::*;\nfn main(){let mut s=String::new();stdin().read_to_string(&mut s).unwrap();let w:Vec<&str>=s.split_whitespace().rev().collect();println!(\"{}\",w.join(\" \"));}\n",
        "bash": "read -a w\nout=()\nfor ((i=${#w[@]}-1; i>=0; i--)); do out+=(\"${w[i]}\"); done\necho \"${out[*]}\"\n",
    },
)

PROBLEMS["count_primes"] = dict(
    inputs=["10\n", "1\n", "1000000\n"],
    reference=lambda s: f"{sieve_count(int(s))}\n",
    solutions={
        "python": "n = int(input())\ns = bytearray([1]) * (n + 1)\ns[0] = 0\nif n >= 1: s[1] = 0\ni = 2\nwhile i * i <= n:\n    if s[i]: s[i*i::i] = bytearray(len(s[i*i::i]))\n    i += 1\nprint(sum(s))\n",
        "c": '#include <stdio.h>\n#include <stdlib.h>\nint main(void){int n;scanf("%d",&n);char*s=calloc(n+2,1);int c=0;for(long long i=2;i<=n;i++){if(!s[i]){c++;for(long long j=i*i;j<=n;j+=i)s[j]=1;}}printf("%d\\n",c);return 0;}\n',
        "cpp": "#include <bits/stdc++.h>\nint main(){int n;std::cin>>n;std::vector<bool> s(n+2,false);int c=0;for(long long i=2;i<=n;i++)if(!s[i]){c++;for(long long j=i*i;j<=n;j+=i)s[j]=true;}std::cout<<c<<'\\n';}\n",
        "java": "import java.util.*;\npublic class Main{public static void main(String[] a){int n=new Scanner(System.in).nextInt();boolean[] s=new boolean[n+2];int c=0;for(long i=2;i<=n;i++)if(!s[(int)i]){c++;for(long j=i*i;j<=n;j+=i)s[(int)j]=true;}System.out.println(c);}}\n",
        "nodejs": "const n=Number(require('fs').readFileSync(0,'utf8').trim());const s=new Uint8Array(n+2);let c=0;for(let i=2;i<=n;i++)if(!s[i]){c++;for(let j=i*i;j<=n;j+=i)s[j]=1;}console.log(c);\n",
        "rust": "use std::io::*;\nfn main(){let mut t=String::new();stdin().read_to_string(&mut t).unwrap();let n:usize=t.trim().parse().unwrap();let mut s=vec![false;n+2];let mut c=0;let mut i=2;while i<=n{if !s[i]{c+=1;let mut j=i*i;while j<=n{s[j]=true;j+=i;}}i+=1;}println!(\"{}\",c);}\n",
    },
)

M = 10**9 + 7


def fib_mod(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, (a + b) % M
    return a


PROBLEMS["fibonacci_mod"] = dict(
    inputs=["0\n", "10\n", "100000\n"],
    reference=lambda s: f"{fib_mod(int(s))}\n",
    solutions={
        "python": "n = int(input())\na, b = 0, 1\nfor _ in range(n):\n    a, b = b, (a + b) % 1000000007\nprint(a)\n",
        "c": '#include <stdio.h>\nint main(void){int n;scanf("%d",&n);long long a=0,b=1,t;for(int i=0;i<n;i++){t=(a+b)%1000000007LL;a=b;b=t;}printf("%lld\\n",a);return 0;}\n',
        "cpp": "#include <iostream>\nint main(){int n;std::cin>>n;long long a=0,b=1;for(int i=0;i<n;i++){long long t=(a+b)%1000000007LL;a=b;b=t;}std::cout<<a<<'\\n';}\n",
        "java": "import java.util.*;\npublic class Main{public static void main(String[] x){int n=new Scanner(System.in).nextInt();long a=0,b=1;for(int i=0;i<n;i++){long t=(a+b)%1000000007L;a=b;b=t;}System.out.println(a);}}\n",
        "nodejs": "const n=Number(require('fs').readFileSync(0,'utf8').trim());let a=0,b=1;for(let i=0;i<n;i++){const t=(a+b)%1000000007;a=b;b=t;}console.log(a);\n",
        "rust": "use std::io::*;\nfn main(){let mut t=String::new();stdin().read_to_string(&mut t).unwrap();let n:u64=t.trim().parse().unwrap();let(mut a,mut b)=(0u64,1u64);for _ in 0..n{let c=(a+b)%1_000_000_007;a=b;b=c;}println!(\"{}\",a);}\n",
        "bash": "read n\na=0; b=1\nfor ((i=0; i<n; i++)); do t=$(( (a + b) % 1000000007 )); a=$b; b=$t; done\necho $a\n",
    },
)

PROBLEMS["gcd_lcm"] = dict(
    inputs=["12 18\n", "17 5\n", "600000000 400000000\n"],
    reference=lambda s: (lambda a, b: f"{math.gcd(a, b)} {a * b // math.gcd(a, b)}\n")(*map(int, s.split())),
    solutions={
        "python": "import math\na, b = map(int, input().split())\ng = math.gcd(a, b)\nprint(g, a * b // g)\n",
        "c": '#include <stdio.h>\nlong long g(long long a,long long b){return b?g(b,a%b):a;}\nint main(void){long long a,b;scanf("%lld %lld",&a,&b);long long d=g(a,b);printf("%lld %lld\\n",d,a/d*b);return 0;}\n',
        "cpp": "#include <iostream>\n#include <numeric>\nint main(){long long a,b;std::cin>>a>>b;long long d=std::gcd(a,b);std::cout<<d<<' '<<a/d*b<<'\\n';}\n",
        "java": "import java.util.*;\npublic class Main{static long g(long a,long b){return b==0?a:g(b,a%b);}public static void main(String[] x){Scanner s=new Scanner(System.in);long a=s.nextLong(),b=s.nextLong();long d=g(a,b);System.out.println(d+\" \"+(a/d*b));}}\n",
        "nodejs": "const [a,b]=require('fs').readFileSync(0,'utf8').trim().split(/\\s+/).map(BigInt);const g=(x,y)=>y?g(y,x%y):x;const d=g(a,b);console.log(d+' '+(a/d*b));\n",
        "rust": "use std::io::*;\nfn g(a:u64,b:u64)->u64{if b==0{a}else{g(b,a%b)}}\nfn main(){let mut s=String::new();stdin().read_to_string(&mut s).unwrap();let v:Vec<u64>=s.split_whitespace().map(|x|x.parse().unwrap()).collect();let d=g(v[0],v[1]);println!(\"{} {}\",d,v[0]/d*v[1]);}\n",
        "bash": "read a b\nx=$a; y=$b\nwhile (( y != 0 )); do t=$((x % y)); x=$y; y=$t; done\necho $x $((a / x * b))\n",
    },
)

sort_inputs = []
for n in (1, 8, 500):
    xs = nums(n, -10**9, 10**9)
    sort_inputs.append(f"{n}\n{' '.join(map(str, xs))}\n")
PROBLEMS["sort_numbers"] = dict(
    inputs=sort_inputs,
    reference=lambda s: " ".join(map(str, sorted(map(int, s.split()[1:])))) + "\n",
    solutions={
        "python": "import sys\nd = list(map(int, sys.stdin.read().split()))\nprint(*sorted(d[1:d[0] + 1]))\n",
        "c": '#include <stdio.h>\n#include <stdlib.h>\nint c(const void*a,const void*b){long long x=*(long long*)a,y=*(long long*)b;return (x>y)-(x<y);}\nint main(void){int n;scanf("%d",&n);long long*v=malloc(sizeof(long long)*n);for(int i=0;i<n;i++)scanf("%lld",&v[i]);qsort(v,n,sizeof(long long),c);for(int i=0;i<n;i++)printf("%lld%c",v[i],i+1<n?\' \':\'\\n\');return 0;}\n',
        "cpp": "#include <bits/stdc++.h>\nint main(){int n;std::cin>>n;std::vector<long long> v(n);for(auto&x:v)std::cin>>x;std::sort(v.begin(),v.end());for(int i=0;i<n;i++)std::cout<<v[i]<<(i+1<n?' ':'\\n');}\n",
        "java": "import java.util.*;\npublic class Main{public static void main(String[] a){Scanner s=new Scanner(System.in);int n=s.nextInt();long[] v=new long[n];for(int i=0;i<n;i++)v[i]=s.nextLong();Arrays.sort(v);StringBuilder b=new StringBuilder();for(int i=0;i<n;i++){if(i>0)b.append(' ');b.append(v[i]);}System.out.println(b);}}\n",
        "nodejs": "const d=require('fs').readFileSync(0,'utf8').trim().split(/\\s+/).map(Number);const v=d.slice(1,d[0]+1).sort((a,b)=>a-b);console.log(v.join(' '));\n",
        "rust": "use std::io::*;\nfn main(){let mut s=String::new();stdin().read_to_string(&mut s).unwrap();let mut it=s.split_whitespace().map(|x|x.parse::<i64>().unwrap());let n=it.next().unwrap() as usize;let mut v:Vec<i64>=it.take(n).collect();v.sort();let o:Vec<String>=v.iter().map(|x|x.to_string()).collect();println!(\"{}\",o.join(\" \"));}\n",
        "bash": "read n\nread -a xs\nprintf '%s\\n' \"${xs[@]}\" | sort -n | paste -sd' '\n",
    },
)

kad_inputs = []
for n in (1, 9, 2000):
    xs = nums(n, -10**9, 10**9)
    kad_inputs.append(f"{n}\n{' '.join(map(str, xs))}\n")
PROBLEMS["max_subarray"] = dict(
    inputs=kad_inputs,
    reference=lambda s: f"{kadane(list(map(int, s.split()[1:])))}\n",
    solutions={
        "python": "import sys\nd = list(map(int, sys.stdin.read().split()))\nxs = d[1:d[0] + 1]\nbest = cur = xs[0]\nfor x in xs[1:]:\n    cur = max(x, cur + x)\n    best = max(best, cur)\nprint(best)\n",
        "c": '#include <stdio.h>\nint main(void){int n;scanf("%d",&n);long long x,cur,best;scanf("%lld",&x);cur=best=x;for(int i=1;i<n;i++){scanf("%lld",&x);cur=cur+x>x?cur+x:x;if(cur>best)best=cur;}printf("%lld\\n",best);return 0;}\n',
        "cpp": "#include <bits/stdc++.h>\nint main(){int n;std::cin>>n;long long x,cur,best;std::cin>>x;cur=best=x;for(int i=1;i<n;i++){std::cin>>x;cur=std::max(x,cur+x);best=std::max(best,cur);}std::cout<<best<<'\\n';}\n",
        "java": "import java.util.*;\npublic class Main{public static void main(String[] a){Scanner s=new Scanner(System.in);int n=s.nextInt();long x=s.nextLong(),cur=x,best=x;for(int i=1;i<n;i++){x=s.nextLong();cur=Math.max(x,cur+x);best=Math.max(best,cur);}System.out.println(best);}}\n",
        "nodejs": "const d=require('fs').readFileSync(0,'utf8').trim().split(/\\s+/).map(Number);let cur=d[1],best=d[1];for(let i=2;i<=d[0];i++){cur=Math.max(d[i],cur+d[i]);best=Math.max(best,cur);}console.log(best);\n",
        "rust": "use std::io::*;\nfn main(){let mut s=String::new();stdin().read_to_string(&mut s).unwrap();let v:Vec<i64>=s.split_whitespace().map(|x|x.parse().unwrap()).collect();let n=v[0] as usize;let(mut cur,mut best)=(v[1],v[1]);for &x in &v[2..n+1]{cur=x.max(cur+x);best=best.max(cur);}println!(\"{}\",best);}\n",
    },
)

PROBLEMS["grid_paths"] = dict(
    inputs=["2\n", "20\n", "30\n"],
    reference=lambda s: f"{math.comb(2 * int(s), int(s))}\n",
    solutions={
        "python": "n = int(input())\ng = [[1] * (n + 1) for _ in range(n + 1)]\nfor i in range(1, n + 1):\n    for j in range(1, n + 1):\n        g[i][j] = g[i - 1][j] + g[i][j - 1]\nprint(g[n][n])\n",
        "c": '#include <stdio.h>\nint main(void){int n;scanf("%d",&n);long long g[32][32];for(int i=0;i<=n;i++)for(int j=0;j<=n;j++)g[i][j]=(i==0||j==0)?1:g[i-1][j]+g[i][j-1];printf("%lld\\n",g[n][n]);return 0;}\n',
        "cpp": "#include <bits/stdc++.h>\nint main(){int n;std::cin>>n;std::vector<std::vector<long long>> g(n+1,std::vector<long long>(n+1,1));for(int i=1;i<=n;i++)for(int j=1;j<=n;j++)g[i][j]=g[i-1][j]+g[i][j-1];std::cout<<g[n][n]<<'\\n';}\n",
        "java": "import java.util.*;\npublic class Main{public static void main(String[] a){int n=new Scanner(System.in).nextInt();long[][] g=new long[n+1][n+1];for(int i=0;i<=n;i++)for(int j=0;j<=n;j++)g[i][j]=(i==0||j==0)?1:g[i-1][j]+g[i][j-1];System.out.println(g[n][n]);}}\n",
        "nodejs": "const n=Number(require('fs').readFileSync(0,'utf8').trim());const g=[];for(let i=0;i<=n;i++){g.push([]);for(let j=0;j<=n;j++)g[i].push(i===0||j===0?1n:g[i-1][j]+g[i][j-1]);}console.log(g[n][n].toString());\n",
        "rust": "use std::io::*;\nfn main(){let mut s=String::new();stdin().read_to_string(&mut s).unwrap();let n:usize=s.trim().parse().unwrap();let mut g=vec![vec![1u64;n+1];n+1];for i in 1..=n{for j in 1..=n{g[i][j]=g[i-1][j]+g[i][j-1];}}println!(\"{}\",g[n][n]);}\n",
        "bash": "read n\ndeclare -A g\nfor ((i=0;i<=n;i++)); do for ((j=0;j<=n;j++)); do if ((i==0||j==0)); then g[$i,$j]=1; else g[$i,$j]=$(( g[$((i-1)),$j] + g[$i,$((j-1))] )); fi; done; done\necho ${g[$n,$n]}\n",
    },
)

PROBLEMS["circle_area"] = dict(
    inputs=["1\n", "2.5\n", "1000\n"],
    reference=lambda s: f"{math.pi * float(s) ** 2:.6f}\n",
    tolerance=1e-6,
    solutions={
        "python": "import math\nr = float(input())\nprint(f'{math.pi * r * r:.10f}')\n",
        "c": '#include <stdio.h>\n#include <math.h>\nint main(void){double r;scanf("%lf",&r);printf("%.10f\\n",M_PI*r*r);return 0;}\n',
        "cpp": "#include <cstdio>\n#include <cmath>\nint main(){double r;std::scanf(\"%lf\",&r);std::printf(\"%.10f\\n\",M_PI*r*r);}\n",
        "java": "import java.util.*;\npublic class Main{public static void main(String[] a){double r=new Scanner(System.in).nextDouble();System.out.printf(\"%.10f%n\",Math.PI*r*r);}}\n",
        "nodejs": "const r=Number(require('fs').readFileSync(0,'utf8').trim());console.log((Math.PI*r*r).toFixed(10));\n",
        "rust": "use std::io::*;\nfn main(){let mut s=String::new();stdin().read_to_string(&mut s).unwrap();let r:f64=s.trim().parse().unwrap();println!(\"{:.10}\",std::f64::consts::PI*r*r);}\n",
    },
)

# TypeScript, with the types a TypeScript solution writes (esbuild strips them, as tsx does in SandboxFusion).
TYPESCRIPT = {
    "aplusb": "import * as fs from 'fs';\nconst [a, b]: bigint[] = fs.readFileSync(0, 'utf8').trim().split(/\\s+/).map(BigInt);\nconsole.log((a + b).toString());\n",
    "sum_of_n": "const d: string[] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/);\nconst n: number = Number(d[0]);\nlet s: bigint = 0n;\nfor (let i = 1; i <= n; i++) s += BigInt(d[i]);\nconsole.log(s.toString());\n",
    "reverse_words": "const words: string[] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/);\nconsole.log(words.reverse().join(' '));\n",
    "count_primes": "function count(n: number): number {\n  const s = new Uint8Array(n + 2);\n  let c = 0;\n  for (let i = 2; i <= n; i++) if (!s[i]) { c++; for (let j = i * i; j <= n; j += i) s[j] = 1; }\n  return c;\n}\nconsole.log(count(Number(require('fs').readFileSync(0, 'utf8').trim())));\n",
    "grid_paths": "type Grid = bigint[][];\nconst n: number = Number(require('fs').readFileSync(0, 'utf8').trim());\nconst g: Grid = [];\nfor (let i = 0; i <= n; i++) { g.push([]); for (let j = 0; j <= n; j++) g[i].push(i === 0 || j === 0 ? 1n : g[i - 1][j] + g[i][j - 1]); }\nconsole.log(g[n][n].toString());\n",
    "max_subarray": "interface Best { cur: number; best: number }\nconst d: number[] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconst r: Best = { cur: d[1], best: d[1] };\nfor (let i = 2; i <= d[0]; i++) { r.cur = Math.max(d[i], r.cur + d[i]); r.best = Math.max(r.best, r.cur); }\nconsole.log(r.best);\n",
}
for name, code in TYPESCRIPT.items():
    PROBLEMS[name]["solutions"]["typescript"] = code

out_path = os.path.join(os.path.dirname(__file__), "..", "code", "problems.jsonl")
count = 0
with open(out_path, "w") as f:
    for name, p in PROBLEMS.items():
        tests = [{"stdin": i, "expected_stdout": p["reference"](i)} for i in p["inputs"]]
        for lang, code in p["solutions"].items():
            case = {"name": f"{name}/{lang}", "language": lang, "code": code, "tests": tests}
            if "tolerance" in p:
                case["tolerance"] = p["tolerance"]
            f.write(json.dumps(case) + "\n")
            count += 1
print(f"wrote {count} solutions of {len(PROBLEMS)} problems to {os.path.normpath(out_path)}")
