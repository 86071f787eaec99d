#!/usr/bin/env bash
# The kda-orders application with Kinesis data streams in and out, against moto's Kinesis server
# on loopback (no AWS account needed): starts moto and `overjoin server` (state in a temporary
# folder), creates the Kinesis streams, sends app.sql through beeline, puts the input records, and
# prints the records the pumps wrote to the output streams. Needs overjoin with its server extra,
# and moto:   pip install '.[server]' 'moto[server]'     (from the repository root)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DATAFILES=$HERE/../data
PY=${PYTHON:-python3}
WORK=$(mktemp -d /tmp/kda-orders-kinesis.XXXXXX)
DATA=$WORK/data
THRIFT_PORT=${THRIFT_PORT:-10092}
CONNECT_PORT=${CONNECT_PORT:-15092}
MOTO_PORT=${MOTO_PORT:-15093}
ENDPOINT=http://127.0.0.1:$MOTO_PORT
# moto accepts any credentials; the server's Kinesis clients read these from the environment.
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_DEFAULT_REGION=us-east-1
BEELINE=$("$PY" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "bin", "beeline"))')
mkdir -p "$DATA/products"
cp "$DATAFILES/products.csv" "$DATA/products/"
kio() { "$PY" "$HERE/kinesis_io.py" "$ENDPOINT" "$@"; }

bl() {  # beeline, quiet, one result row per line (see ../run.sh)
  "$BEELINE" -u "jdbc:hive2://127.0.0.1:$THRIFT_PORT/default" --silent=true --showHeader=false \
    --outputformat=tsv2 "$@" < /dev/null 2>>"$WORK/beeline.err" \
    | tr '\r' '\n' | sed -E 's/^null[[:space:]]*//; s/^[0-9]+: jdbc:hive2:[^>]*> //' | grep -a -v '^[[:space:]]*$' || true
}

echo "== starting moto's Kinesis server on $ENDPOINT"
"$PY" -m moto.server -H 127.0.0.1 -p "$MOTO_PORT" > "$WORK/moto.log" 2>&1 &
MOTO=$!
SERVER=
stop() {
  [ -n "$SERVER" ] && { kill -TERM "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null || true; }
  kill -TERM "$MOTO" 2>/dev/null; wait "$MOTO" 2>/dev/null || true
}
trap stop EXIT
kio wait
kio create orders shipments fast_shipments shipments_per_hour

echo "== starting overjoin server (state in $WORK/state)"
"$PY" -m overjoin server --state-dir "$WORK/state" --thrift-port "$THRIFT_PORT" --connect-port "$CONNECT_PORT" \
  --conf spark.sql.session.timeZone=UTC > "$WORK/server.out" 2> "$WORK/server.err" &
SERVER=$!
until grep -qs "overjoin server ready" "$WORK/server.out"; do
  kill -0 $SERVER 2>/dev/null || { cat "$WORK/server.err"; exit 1; }
  sleep 0.2
done
cat "$WORK/server.out"

echo "== app.sql"
sed "s#\${DATA}#$DATA#g; s#\${ENDPOINT}#$ENDPOINT#g" "$HERE/app.sql" > "$WORK/app.sql"
bl -f "$WORK/app.sql"

echo "== putting the input records"
# The orders first, taken into a micro-batch of their own (fast_pump reads them); then each file of
# shipments, taken into a micro-batch of its own (fast_pump and HOURLY_PUMP read them): `kio taken`
# waits until the pumps' checkpoints have planned a batch through the stream's last record.
for f in "$DATAFILES"/orders-*.json; do kio put orders "$f"; done
kio taken orders "$WORK/state" 1
for f in "$DATAFILES"/shipments-*.json; do kio put shipments "$f"; kio taken shipments "$WORK/state" 2; done

echo "== waiting for the pumps to catch up"
kio counts fast_shipments=3 shipments_per_hour=4
echo "== SHOW PUMPS"
bl -e "SHOW PUMPS"
echo "== fast_shipments (Kinesis records)"
kio print fast_shipments ROWTIME orderId product warehouse orderTime
echo "== shipments_per_hour (Kinesis records)"
kio print shipments_per_hour ROWTIME warehouse shipments
