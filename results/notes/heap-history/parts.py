import sys, time, subprocess, os
sys.path.insert(0, "scripts")
from hotbench.manifest import Manifest
from hotbench.compare import isolation, trials
from hotbench.compare.engine import Options
from hotbench.selection import selection_filter
b = os.path.abspath(sys.argv[1])
m = Manifest.from_binary(b)
s = Options().settings()
s["isolate"] = isolation.isolate_filter(m)
bf = selection_filter(m, "select")
env = dict(os.environ); env.update(s["env"])
tot = 0
for k, part in enumerate(isolation.parts(b, s, bf)):
    cmd = trials.command(b, s, part, os.environ.get("OUTD", "/var/tmp/cost") + "/p%d.json" % k)
    t0 = time.monotonic()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dt = time.monotonic() - t0; tot += dt
    print("%6.2f s  %s" % (dt, part[:90]), flush=True)
print("total %.1f s" % tot)
