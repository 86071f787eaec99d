package overjoin.bench;

import java.util.Collections;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;

/**
 * A table sink for bench/flink_join.py: {@code 'connector' = 'overjoin-count'} discards its rows
 * like {@code blackhole} and counts them. Each writer adds its count to {@link #ROWS} when it is
 * closed, so the total is exact once the job has finished. The class must be on the JVM's own
 * class path (not a job jar) so that the driver reads the same static counter the tasks wrote.
 */
public final class CountingSinkFactory implements DynamicTableSinkFactory {

    /** Rows written by every writer closed since the last {@link #reset()}. */
    public static final AtomicLong ROWS = new AtomicLong();

    public static void reset() {
        ROWS.set(0);
    }

    public static long rows() {
        return ROWS.get();
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
        return Collections.emptySet();
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        return new CountingTableSink();
    }

    static final class CountingTableSink implements DynamicTableSink {
        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
            return requestedMode;
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
            return SinkV2Provider.of(new CountingSink());
        }

        @Override
        public DynamicTableSink copy() {
            return new CountingTableSink();
        }

        @Override
        public String asSummaryString() {
            return "overjoin-count";
        }
    }

    static final class CountingSink implements Sink<RowData> {
        private static final long serialVersionUID = 1L;

        @Override
        public SinkWriter<RowData> createWriter(WriterInitContext context) {
            return new CountingWriter();
        }
    }

    static final class CountingWriter implements SinkWriter<RowData> {
        private long rows;

        @Override
        public void write(RowData element, Context context) {
            rows++;
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public void close() {
            ROWS.addAndGet(rows);
            rows = 0;
        }
    }
}
