package kafkahealth.parse;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF3;

/**
 * The whole parse of one Kafka record as a Spark Java UDF: (key, value, the record's Kafka
 * timestamp in ms) -> decode_records then parse_entries, as one struct. The table and the
 * settings arrive as the JSON {@link Spec} the Python side writes from the checkout; the UDF
 * object carries that text to the executors, where it is compiled once per JVM.
 *
 * <p>The struct: [message] (when the spec keeps it), host, host_is_key, file, kind, envelope,
 * bad_reason, n_lines, outcome, reason, type, the event fields in the spec's order, event_ms,
 * keep_letter. The caller puts the record's own columns around it (kafka_health.parsing.udf).
 */
public class ParseUdf implements UDF3<byte[], byte[], Long, Row> {
    private static final long serialVersionUID = 1L;

    private final String specJson;
    private transient RecordDecoder decoder;
    private transient EntryParser parser;
    private transient Spec spec;

    public ParseUdf(String specJson) {
        this.specJson = specJson;
        init();
    }

    private void init() {
        spec = Spec.of(specJson);
        decoder = new RecordDecoder(spec);
        parser = new EntryParser(spec);
    }

    @Override
    public Row call(byte[] key, byte[] value, Long sourceMs) {
        if (spec == null) {
            init();
        }
        RecordDecoder.Entry e = decoder.decode(key, value);
        EntryParser.Parsed p = parser.parse(e, sourceMs);
        int head = spec.keepMessage ? 1 : 0;
        Object[] out = new Object[head + 10 + p.fields.length + 2];
        int i = 0;
        if (spec.keepMessage) {
            out[i++] = e.message;
        }
        out[i++] = e.host;
        out[i++] = e.hostIsKey;
        out[i++] = p.keepLetter ? e.file : null;
        out[i++] = e.kind;
        out[i++] = e.envelope;
        out[i++] = e.badReason;
        out[i++] = e.nLines;
        out[i++] = p.outcome;
        out[i++] = p.reason;
        out[i++] = p.type;
        for (Object f : p.fields) {
            out[i++] = f;
        }
        out[i++] = p.eventMs;
        out[i] = p.keepLetter;
        return RowFactory.create(out);
    }

    /** For the Python side: the table format this jar reads. */
    public static int specVersion() {
        return Spec.VERSION;
    }
}
