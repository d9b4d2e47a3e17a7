#!/usr/bin/env python3
"""CPU seconds by kind of process while a command runs (make test, say): samples every process in /proc every 2 s until
the stop file exists, then writes the totals, largest first, to the output file. A process already running
at the start counts only what it uses after; one that lives less than 2 s may be missed. Usage:
  python3 src/scripts/cpu-by-process.py OUT [STOP_FILE]   (default STOP_FILE /tmp/cpu-by-process.stop)
"""
import os, time, collections, sys
HZ = os.sysconf('SC_CLK_TCK')
seen = {}  # pid -> [key, cpu ticks, ticks at first sight if present at start]
first = True
def key_of(pid):
    try:
        args = open(f'/proc/{pid}/cmdline','rb').read().split(b'\0')
    except OSError:
        return None
    args = [a.decode(errors='replace') for a in args if a]
    if not args: return None
    exe = os.path.basename(args[0])
    if exe != 'java':
        return exe
    skip = False
    for i, a in enumerate(args[1:]):
        if skip: skip = False; continue
        if a in ('-cp','-classpath','--class-path','-p','--module-path','--add-opens','--add-exports'): skip = True; continue
        if a == '-jar':
            j = args[i+2] if i+2 < len(args) else '?'
            if 'surefire' in j:
                parts = j.split('/src/')
                mod = parts[1].split('/')[0] if len(parts) > 1 else '?'
                return f'java surefire {mod}'
            return 'java -jar ' + os.path.basename(j)
        if a.startswith('-'): continue
        if 'surefire' in a or 'failsafe' in a:
            return 'java surefire ' + a
        if 'plexus' in a or 'classworlds' in a: return 'java maven'
        return 'java ' + a
    return 'java ?'
out = sys.argv[1]
stop = sys.argv[2] if len(sys.argv) > 2 else '/tmp/cpu-by-process.stop'
while not os.path.exists(stop):
    for d in os.listdir('/proc'):
        if not d.isdigit(): continue
        pid = int(d)
        try:
            f = open(f'/proc/{pid}/stat').read()
            rest = f[f.rindex(')')+2:].split()
            ticks = int(rest[11]) + int(rest[12])
        except (OSError, ValueError):
            continue
        start = rest[19]
        k = (pid, start)
        if k not in seen:
            kk = key_of(pid)
            if kk is None: continue
            seen[k] = [kk, ticks, ticks if first else 0]
        else:
            seen[k][1] = ticks
    first = False
    time.sleep(2)
tot = collections.Counter()
for kk, t, b in seen.values(): tot[kk] += (t - b) / HZ
with open(out, 'w') as o:
    for kk, s in tot.most_common(40): o.write(f'{s:9.1f}  {kk}\n')
    o.write(f'{sum(tot.values()):9.1f}  all\n')
