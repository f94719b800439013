#!/bin/bash
# A/B of the isolation on the bufgrow groups' gate selection: bufgrow/httpcore slowed 10% in the
# head (gate-power's environments), every other bufgrow strategy unchanged; pairs alternate
# isolated / --no-isolate, the order of each pair alternating too. One binary (build-test).
cd /work/wt/power
F='^(bufgrow/[^/]+/size:(65536|262144|1048576|4194304|16777216)/|bufgrow-gzip/[^/]+/size:(65536|262144|1048576|4194304|16777216)/|bufgrow-cliff/httpcore/width:24/size:(1048576|4194304|4456448)/)'
end=$(( $(date +%s) + ${AB_SECONDS:-3000} ))
i=0
while [ $(date +%s) -lt $end ]; do
  if [ $(( (i / 2 + i) % 2 )) -eq 0 ]; then iso=""; else iso="--no-isolate"; fi
  out=/var/tmp/ab/$(printf %02d $i)${iso:+-no}
  rm -rf $out; mkdir -p /var/tmp/ab
  /usr/bin/python3 scripts/compare.py --build build-test \
    --base-env 'HB_INJECT=slowdown:0.1' --base-env 'HB_INJECT_SELECT=^(bufgrow/httpcore)$$x' \
    --head-env 'HB_INJECT=slowdown:0.1' --head-env 'HB_INJECT_SELECT=(^(bufgrow/httpcore)$)' \
    --filter "$F" --no-instructions --no-complexity --no-explain $iso --out $out > $out.log 2>&1
  rc=$?
  false=$(/usr/bin/python3 -c "
import json,sys
c=json.load(open('$out/compare.json'))
bad=[r['name'] for r in c['rows'] if r['verdict']=='regressed' and not r['name'].startswith('bufgrow/httpcore/')]
hit=[r['name'] for r in c['rows'] if r['verdict']=='regressed' and r['name'].startswith('bufgrow/httpcore/')]
print('detected=%d false=%d %s' % (len(hit), len(bad), ' '.join(bad)))" 2>&1)
  echo "$(date +%H:%M) $i iso=${iso:-on} rc=$rc $false | $(grep -E '^verdict' $out.log) | load $(cut -d' ' -f1-3 /proc/loadavg)"
  i=$((i + 1))
done
