package jvmparser;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF1;

/**
 * Only the envelope's decode (part a): every top-level key the decode reads
 * ({@link Envelope#KEYS}, a string each) and bad_json (boolean), as from_json's struct gives them.
 */
public class EnvelopeKeysUdf implements UDF1<byte[], Row> {
    private static final long serialVersionUID = 1L;

    @Override
    public Row call(byte[] value) {
        Envelope.Doc d = Envelope.decode(value);
        Object[] out = new Object[Envelope.KEYS.length + 1];
        System.arraycopy(d.values, 0, out, 0, Envelope.KEYS.length);
        out[Envelope.KEYS.length] = d.bad;
        return RowFactory.create(out);
    }

    /** For the Python side: the keys and anchors this jar was built with. */
    public static String keys() {
        return String.join("\n", Envelope.KEYS);
    }

    public static String anchors() {
        return String.join("\n", KafkaLine.ANCHORS);
    }
}
