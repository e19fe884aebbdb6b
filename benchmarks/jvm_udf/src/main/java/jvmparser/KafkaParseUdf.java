package jvmparser;

import java.nio.charset.StandardCharsets;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF1;

/**
 * One Kafka record value -> (broker_id, kind, file, ts, level, logger, is_candidate, bad_json):
 * the envelope's top-level keys (Jackson streaming), the message's log4j head, and whether the
 * message holds one of the Kafka prefilter anchors (String.contains each).
 *
 * <p>Return type: {@link #DDL}.
 */
public class KafkaParseUdf implements UDF1<byte[], Row> {
    private static final long serialVersionUID = 1L;

    public static final String DDL = "broker_id string, kind string, file string, ts string, "
            + "level string, logger string, is_candidate boolean, bad_json boolean";

    protected boolean candidate(String message) {
        return KafkaLine.anyAnchor(message);
    }

    @Override
    public Row call(byte[] value) {
        Envelope.Doc d = Envelope.decode(value);
        String message, broker = null, file = null, kind = null;
        if (d.bad) {
            // Not JSON at all: the record is the raw line (the decode's "raw" envelope).
            message = Envelope.isRaw(value) ? new String(value, StandardCharsets.UTF_8) : null;
        } else {
            message = Envelope.message(d);
            broker = Envelope.brokerId(d);
            file = Envelope.file(d);
            kind = Envelope.kind(d, file);
        }
        String[] head = KafkaLine.head(message);
        return RowFactory.create(broker, kind, file, head[0], head[1], head[2],
                candidate(message), d.bad);
    }
}
