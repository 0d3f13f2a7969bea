#!/bin/bash
# Times, in one go: the networked linked run (3 serving parties + S +
# synthesizer over loopback mTLS), the same files linked and published in one
# process, and the linkage alone in one process (dppub link).
set -e
D=${DIR:-/tmp/dppub-link}/c
B=${DPPUB:-dppub}
O=${DIR:-/tmp/dppub-link}/out.$$
mkdir -p $O
pids=()
peers=()
for m in party-1:owner party-2:owner party-3:owner third-party:third-party; do
  name=${m%%:*}; role=${m##*:}
  rm -f $O/$name.addr
  $B serve $role --member $name --config $D/consortium.json --listen 127.0.0.1:0 --ready-file $O/$name.addr >$O/$name.log 2>&1 &
  pids+=($!)
done
for name in party-1 party-2 party-3 third-party; do
  until [ -s $O/$name.addr ]; do sleep 0.1; done
  peers+=(--peer $name=$(cat $O/$name.addr))
done
echo "load before: $(cut -d' ' -f1 /proc/loadavg)"
/usr/bin/time -f "networked linked run: %e s wall, %M KB max RSS (synthesizer)" $B run pdp-mvds --config $D/consortium.json --listen 127.0.0.1:0 "${peers[@]}" --out $O/net.csv >$O/run.out 2>$O/run.err || { cat $O/run.err; }
tail -1 $O/run.err
echo "load after networked: $(cut -d' ' -f1 /proc/loadavg)"
grep -h "records linked\|starting" $O/party-*.log | head -8
for p in ${pids[@]}; do kill $p; done
wait 2>/dev/null || true
/usr/bin/time -f "in-process publish --link: %e s wall, %M KB max RSS" $B publish pdp-mvds --schema $D/adult.linked.schema.json --link --delta 1e-10 --budgets 0.5 \
  --input $D/data/party-1.csv --input $D/data/party-2.csv --input $D/data/party-3.csv --out $O/local.csv >$O/local.out 2>$O/local.err
tail -1 $O/local.err
grep -A12 "Protocol cost per phase" $O/local.out | head -8
grep "records every owner holds" $O/local.out
echo "load after in-process: $(cut -d' ' -f1 /proc/loadavg)"
for k in 1 2 3; do python3 -c "
import json; s=json.load(open('$D/adult.party-$k.schema.json')); s.pop('id'); json.dump(s, open('$O/p$k.json','w'))"; done
/usr/bin/time -f "in-process dppub link (PSI only): %e s wall, %M KB max RSS" $B link --id person --out-dir $O/linked \
  --input $D/data/party-1.csv --schema $O/p1.json --input $D/data/party-2.csv --schema $O/p2.json --input $D/data/party-3.csv --schema $O/p3.json >$O/link.out 2>$O/link.err
tail -1 $O/link.err
head -1 $O/link.out
echo "load at end: $(cut -d' ' -f1 /proc/loadavg)"
echo "outputs in $O"
