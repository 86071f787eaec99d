#!/usr/bin/env bash
# Runs the KDA-style application in app.sql on `overjoin server`: starts the server on loopback
# (state in a temporary folder), sends app.sql through beeline, feeds input files, prints the
# destination streams, and stops the server.  Needs overjoin installed with its server extra:
#   pip install '.[server]'          (from the repository root)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
WORK=$(mktemp -d /tmp/kda-orders.XXXXXX)
DATA=$WORK/data
THRIFT_PORT=${THRIFT_PORT:-10091}
CONNECT_PORT=${CONNECT_PORT:-15091}
BEELINE=$("$PY" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "bin", "beeline"))')
mkdir -p "$DATA/orders" "$DATA/shipments" "$DATA/products"
cp "$HERE/data/products.csv" "$DATA/products/"

bl() {  # beeline, quiet, one result row per line (tab-separated); without a terminal beeline
        # prints `\rnull` where its prompts would go: removed
  "$BEELINE" -u "jdbc:hive2://127.0.0.1:$THRIFT_PORT/default" --silent=true --showHeader=false \
    --outputformat=tsv2 "$@" < /dev/null 2>>"$WORK/beeline.err" \
    | tr '\r' '\n' | sed -E 's/^null[[:space:]]*//; s/^[0-9]+: jdbc:hive2:[^>]*> //' | grep -a -v '^[[:space:]]*$' || true
}

echo "== starting overjoin server (state in $WORK/state)"
"$PY" -m overjoin server --state-dir "$WORK/state" --thrift-port "$THRIFT_PORT" --connect-port "$CONNECT_PORT" \
  --conf spark.sql.session.timeZone=UTC > "$WORK/server.out" 2> "$WORK/server.err" &
SERVER=$!
trap 'kill -TERM $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true' EXIT
alive() { kill -0 $SERVER 2>/dev/null || { cat "$WORK/server.err"; exit 1; }; }
until grep -qs "overjoin server ready" "$WORK/server.out"; do alive; sleep 0.2; done
cat "$WORK/server.out"

echo "== app.sql"
sed "s#\${DATA}#$DATA#g" "$HERE/app.sql" > "$WORK/app.sql"
bl -f "$WORK/app.sql"

# taken FILE N: waits until N pumps have taken the input file FILE into a micro-batch (its name is
# in their checkpoints' file-source logs, <state>/checkpoints/<pump>/sources/<n>/<batch>). A file
# fed after that goes into a later micro-batch, which runs with the watermark this one moved.
taken() {
  local deadline=$((SECONDS + 600))
  until [ "$(grep -ls "/$1\"" "$WORK"/state/checkpoints/*/sources/*/* 2>/dev/null | sed 's#/sources/.*##' | sort -u | wc -l)" -ge "$2" ]; do
    alive; [ $SECONDS -lt $deadline ] || { echo "no $2 pumps took $1 in 10 minutes" >&2; exit 1; }
    sleep 0.2
  done
}
# rows_out PUMP: the rows PUMP has written to its target stream, from the server's log (the pump's
# sink logs `pump PUMP: batch N wrote R rows to ...` once a batch's rows are visible to readers).
rows_out() {
  sed -nE "s/.* PumpSink: pump $1: batch [0-9]+ wrote ([0-9]+) rows .*/\1/p" "$WORK/state/server.log" | awk '{n += $1} END {print n + 0}'
}

echo "== feeding input files"
# The orders first, in a micro-batch of their own (fast_pump reads them); then each shipments file
# in a micro-batch of its own (fast_pump and HOURLY_PUMP read them).
for f in "$HERE"/data/orders-*.json; do cp "$f" "$DATA/orders/.tmp" && mv "$DATA/orders/.tmp" "$DATA/orders/$(basename "$f")"; done
taken "$(basename "$f")" 1  # the last orders file: the others were moved before it
for f in "$HERE"/data/shipments-*.json; do
  cp "$f" "$DATA/shipments/.tmp" && mv "$DATA/shipments/.tmp" "$DATA/shipments/$(basename "$f")"
  taken "$(basename "$f")" 2
done

echo "== waiting for the pumps to catch up"
# Until big_fast_shipments holds its 2 rows and shipments_per_hour its 4 (their pumps are their only writers).
deadline=$((SECONDS + 600))
until [ "$(rows_out big_pump)/$(rows_out HOURLY_PUMP)" = "2/4" ]; do
  alive; [ $SECONDS -lt $deadline ] || { echo "the pumps did not catch up in 10 minutes" >&2; break; }
  sleep 0.2
done
echo "== SHOW PUMPS"
bl -e "SHOW PUMPS"
echo "== the windowed join's shuffle partitions (the server's default: its cores)"
bl -e "DESCRIBE PUMP fast_pump" | grep -a '^shuffle_partitions'
echo "== fast_shipments"
bl -e "SELECT ROWTIME, orderId, product, warehouse, orderTime FROM fast_shipments ORDER BY orderId"
echo "== big_fast_shipments"
bl -e "SELECT ROWTIME, orderId, product, amount FROM big_fast_shipments ORDER BY orderId"
echo "== shipments_per_hour"
bl -e "SELECT ROWTIME, warehouse, shipments FROM shipments_per_hour ORDER BY ROWTIME, warehouse"
