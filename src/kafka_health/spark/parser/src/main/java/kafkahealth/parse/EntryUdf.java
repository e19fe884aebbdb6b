package kafkahealth.parse;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF6;

/**
 * The parse of one log entry already assembled from a file's lines ({@code kafka-health parse}
 * and {@code replay}: {@code parsing.offline.read_entries}) as a Spark Java UDF: (message,
 * bad_reason, kind, broker_id, continued, the source time in ms) -> the struct of outcome,
 * reason, type, the event fields in the spec's order and event_ms. The same {@link EntryParser}
 * as {@link ParseUdf}, past the record's decode.
 */
public class EntryUdf implements UDF6<String, String, String, String, Boolean, Long, Row> {
    private static final long serialVersionUID = 1L;

    private final String specJson;
    private transient EntryParser parser;

    public EntryUdf(String specJson) {
        this.specJson = specJson;
        parser = new EntryParser(Spec.of(specJson));
    }

    @Override
    public Row call(String message, String badReason, String kind, String brokerId,
            Boolean continued, Long sourceMs) {
        if (parser == null) {
            parser = new EntryParser(Spec.of(specJson));
        }
        RecordDecoder.Entry e = new RecordDecoder.Entry();
        e.message = message;
        e.badReason = badReason;
        e.kind = kind;
        e.brokerId = brokerId;
        e.continued = continued != null && continued;
        EntryParser.Parsed p = parser.parse(e, sourceMs);
        Object[] out = new Object[3 + p.fields.length + 1];
        int i = 0;
        out[i++] = p.outcome;
        out[i++] = p.reason;
        out[i++] = p.type;
        for (Object f : p.fields) {
            out[i++] = f;
        }
        out[i] = p.eventMs;
        return RowFactory.create(out);
    }
}
