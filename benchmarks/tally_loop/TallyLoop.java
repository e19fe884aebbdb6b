package kafkahealth.parse;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * benchmarks/tally_loop.py's JVM side: {@link BatchTally}'s task loop over a corpus of Kafka
 * records held in memory, pass after pass on one thread, with no Spark around it. Prints each
 * pass's microseconds a record, its groups, entries and dead letters (a check that the work
 * ran).
 *
 * <p>Arguments: spec.json settings.json records.bin passes
 */
public final class TallyLoop {
    private TallyLoop() {}

    public static void main(String[] args) throws IOException {
        String spec = Files.readString(Paths.get(args[0]));
        String settings = Files.readString(Paths.get(args[1]));
        List<InternalRow> rows = read(args[2]);
        int passes = Integer.parseInt(args[3]);
        BatchTally tally = new BatchTally(spec, settings);
        long entries = 0, dead = 0;
        for (int pass = 0; pass < passes; pass++) {
            long start = System.nanoTime();
            Iterator<BatchTally.Group> groups = tally.call(rows.iterator());
            long took = System.nanoTime() - start;
            entries = 0;
            dead = 0;
            int n = 0;
            while (groups.hasNext()) {
                BatchTally.Group g = groups.next();
                entries += g.entries;
                dead += g.dead;
                n++;
            }
            System.out.printf("pass %d: %.3f us a record (%d groups, %d entries, %d dead)%n",
                    pass, took / 1e3 / rows.size(), n, entries, dead);
        }
    }

    /** The corpus: per record its key and value (length -1: null), topic and timestamp. */
    private static List<InternalRow> read(String path) throws IOException {
        List<InternalRow> rows = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(
                new BufferedInputStream(new FileInputStream(path), 1 << 20))) {
            int count = in.readInt();
            for (int i = 0; i < count; i++) {
                byte[] key = bytes(in);
                byte[] value = bytes(in);
                byte[] topic = bytes(in);
                long micros = in.readLong();
                rows.add(new GenericInternalRow(new Object[] {key, value,
                    UTF8String.fromString(new String(topic, StandardCharsets.UTF_8)), 0,
                    (long) i, micros}));
            }
        }
        return rows;
    }

    private static byte[] bytes(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            return null;
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }
}
