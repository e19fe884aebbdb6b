package jvmparser;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;

/** {@link KafkaParseUdf} with the anchors found in one pass ({@link KafkaLine#anyAnchorScan}).
 * (UDF1 named again: Spark looks for the interface on the class itself.) */
public class KafkaParseScanUdf extends KafkaParseUdf implements UDF1<byte[], Row> {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean candidate(String message) {
        return KafkaLine.anyAnchorScan(message);
    }
}
