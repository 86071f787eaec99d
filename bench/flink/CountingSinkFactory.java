package overjoin.bench;

import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * A table sink for bench/flink_join.py: {@code 'connector' = 'overjoin-count'} discards its rows
 * like {@code blackhole} and counts them. Each writer adds its count to {@link #ROWS} when it is
 * closed, so the total is exact once the job has finished. The class must be on the JVM's own
 * class path (not a job jar) so that the driver reads the same static counter the tasks wrote.
 *
 * <p>With {@code 'checksum' = 'true'} (bench/flink_over.py's check run) it also adds up a hash of
 * every row's values into {@link #CHECKSUM}, which does not depend on the rows' order: per row,
 * {@code h = 17; h = 31 * h + bits(field)} over the fields in order ({@code bits}: an integer's
 * value, a DOUBLE's IEEE bits, a TIMESTAMP's microseconds since the epoch, NULL {@link #NULL_BITS}),
 * then {@link #mix(long)} of it, summed with 64-bit wrap-around. bench/bench_sliding.py computes the
 * same over Spark's output rows.
 */
public final class CountingSinkFactory implements DynamicTableSinkFactory {

    public static final ConfigOption<Boolean> CHECKSUM_OPTION =
            ConfigOptions.key("checksum").booleanType().defaultValue(false);

    /** What a NULL value adds to a row's hash. */
    public static final long NULL_BITS = 0x5bd1e995L;

    /** Rows written by every writer closed since the last {@link #reset()}. */
    public static final AtomicLong ROWS = new AtomicLong();

    /** The checksum of the rows written by every writer closed since the last {@link #reset()}. */
    public static final AtomicLong CHECKSUM = new AtomicLong();

    public static void reset() {
        ROWS.set(0);
        CHECKSUM.set(0);
    }

    public static long rows() {
        return ROWS.get();
    }

    public static long checksum() {
        return CHECKSUM.get();
    }

    /** A 64-bit finalizer (xor-shift, multiply, xor-shift) that spreads a row's hash. */
    public static long mix(long h) {
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return h;
    }

    @Override
    public String factoryIdentifier() {
        return "overjoin-count";
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Collections.emptySet();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Collections.singleton(CHECKSUM_OPTION);
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        if (!helper.getOptions().get(CHECKSUM_OPTION)) {
            return new CountingTableSink(null);
        }
        List<LogicalType> types = context.getCatalogTable().getResolvedSchema().toPhysicalRowDataType()
                .getLogicalType().getChildren();
        return new CountingTableSink(types.toArray(new LogicalType[0]));
    }

    static final class CountingTableSink implements DynamicTableSink {
        /** The row's field types when it checksums, else null. */
        private final LogicalType[] types;

        CountingTableSink(LogicalType[] types) {
            this.types = types;
        }

        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
            return requestedMode;
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
            return SinkV2Provider.of(new CountingSink(types));
        }

        @Override
        public DynamicTableSink copy() {
            return new CountingTableSink(types);
        }

        @Override
        public String asSummaryString() {
            return "overjoin-count";
        }
    }

    static final class CountingSink implements Sink<RowData> {
        private static final long serialVersionUID = 1L;
        private final LogicalType[] types;

        CountingSink(LogicalType[] types) {
            this.types = types;
        }

        @Override
        public SinkWriter<RowData> createWriter(WriterInitContext context) {
            return new CountingWriter(types);
        }
    }

    static final class CountingWriter implements SinkWriter<RowData> {
        private final LogicalType[] types;
        private long rows;
        private long checksum;

        CountingWriter(LogicalType[] types) {
            this.types = types;
        }

        @Override
        public void write(RowData element, Context context) {
            rows++;
            if (types != null) {
                checksum += mix(hash(element));
            }
        }

        private long hash(RowData row) {
            long h = 17;
            for (int i = 0; i < types.length; i++) {
                h = 31 * h + bits(row, i);
            }
            return h;
        }

        private long bits(RowData row, int i) {
            if (row.isNullAt(i)) {
                return NULL_BITS;
            }
            LogicalType type = types[i];
            switch (type.getTypeRoot()) {
                case INTEGER:
                    return row.getInt(i);
                case BIGINT:
                    return row.getLong(i);
                case DOUBLE:
                    return Double.doubleToLongBits(row.getDouble(i));
                case TIMESTAMP_WITHOUT_TIME_ZONE:
                    TimestampData t = row.getTimestamp(i, ((TimestampType) type).getPrecision());
                    return t.getMillisecond() * 1000L + t.getNanoOfMillisecond() / 1000;
                default:
                    throw new UnsupportedOperationException("no checksum of " + type);
            }
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public void close() {
            ROWS.addAndGet(rows);
            CHECKSUM.addAndGet(checksum);
            rows = 0;
            checksum = 0;
        }
    }
}
