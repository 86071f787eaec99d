#!/usr/bin/env bash
# The kda-orders application from its CloudFormation template, against moto's server on loopback
# (Kinesis, Firehose, S3; no AWS account needed): starts moto and `overjoin server` with AWS's
# variables pointing at moto (no endpoint in the SQL), creates what the template would, imports the
# template with `overjoin import`, runs the script through beeline, puts the events, and prints what
# the application wrote. Needs overjoin with its server extra, and moto (from the repository root):
#   pip install '.[server]' 'moto[server]'
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
WORK=$(mktemp -d /tmp/kda-orders-cfn.XXXXXX)
THRIFT_PORT=${THRIFT_PORT:-10094}
CONNECT_PORT=${CONNECT_PORT:-15094}
MOTO_PORT=${MOTO_PORT:-15095}
export AWS_ENDPOINT_URL=http://127.0.0.1:$MOTO_PORT
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1
BEELINE=$("$PY" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "bin", "beeline"))')
aws() { local cmd=$1; shift; "$PY" "$HERE/aws_io.py" "$cmd" "$AWS_ENDPOINT_URL" "$@"; }

echo "== starting moto on $AWS_ENDPOINT_URL"
"$PY" -m moto.server -H 127.0.0.1 -p "$MOTO_PORT" > "$WORK/moto.log" 2>&1 &
MOTO=$!
SERVER=
stop() {
  [ -n "$SERVER" ] && { kill -TERM "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null || true; }
  kill -TERM "$MOTO" 2>/dev/null; wait "$MOTO" 2>/dev/null || true
}
trap stop EXIT
until curl -s -o /dev/null "$AWS_ENDPOINT_URL"; do sleep 0.2; done
aws create "$HERE/../data/products.csv"

echo "== starting overjoin server (state in $WORK/state)"
"$PY" -m overjoin server --state-dir "$WORK/state" --thrift-port "$THRIFT_PORT" --connect-port "$CONNECT_PORT" \
  --conf spark.sql.session.timeZone=UTC > "$WORK/server.out" 2> "$WORK/server.err" &
SERVER=$!
until grep -qs "overjoin server ready" "$WORK/server.out"; do
  kill -0 $SERVER 2>/dev/null || { cat "$WORK/server.err"; exit 1; }
  sleep 0.2
done
cat "$WORK/server.out"

echo "== overjoin import template.yaml"
"$PY" -m overjoin import "$HERE/template.yaml" -o "$WORK/app.sql"
echo "(the script: $WORK/app.sql)"
"$BEELINE" -u "jdbc:hive2://127.0.0.1:$THRIFT_PORT/default" --silent=true -f "$WORK/app.sql" < /dev/null \
  > "$WORK/beeline.out" 2>&1 || { cat "$WORK/beeline.out"; exit 1; }

echo "== putting the events"
aws put "$HERE/events.json"
aws wait 3 1 4
aws show
