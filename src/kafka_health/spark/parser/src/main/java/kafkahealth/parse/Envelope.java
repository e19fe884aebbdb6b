package kafkahealth.parse;

/**
 * Reads of one record's parsed top-level keys ({@link SparkJson.Doc}): envelope.json_path and
 * first_path (a dotted path's scalar: the top key's value, deeper levels by get_json_object),
 * jsonlayout.is_layout_record and envelope.envelope_name.
 */
final class Envelope {
    private static final String[] ROOT = new String[0];
    private static final String[] MESSAGE = {"message"};

    private final Spec spec;
    private final SparkJson.Doc doc;

    Envelope(Spec spec, SparkJson.Doc doc) {
        this.spec = spec;
        this.doc = doc;
    }

    /** The top-level key's value (null when absent, JSON null, or not a key the decode reads). */
    String top(String key) {
        Integer at = spec.docIndex.get(key);
        return at == null ? null : doc.values[at];
    }

    boolean has(String key) {
        return top(key) != null;
    }

    /** json_path(doc, path, layouts). */
    String path(String dotted, boolean layouts) {
        int dot = dotted.indexOf('.');
        String value;
        if (dot < 0) {
            value = top(dotted);
        } else {
            String[] rest = dotted.substring(dot + 1).split("\\.", -1);
            value = SparkJson.getJsonObject(top(dotted.substring(0, dot)), rest);
        }
        if (value == null) {
            return null;
        }
        boolean brackets = (value.startsWith("[") || value.startsWith("{"))
                && (value.endsWith("]") || value.endsWith("}"));
        boolean structured = brackets && SparkJson.getJsonObject(value, ROOT) != null;
        if (layouts) {
            structured = structured && SparkJson.getJsonObject(value, MESSAGE) == null;
        }
        return !structured && !value.isEmpty() ? value : null;
    }

    /** first_path(doc, paths, layouts). */
    String firstPath(String[] paths, boolean layouts) {
        for (String p : paths) {
            String v = path(p, layouts);
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    private boolean hasAny(String[][] paths) {
        for (String[] p : paths) {
            if (p.length == 1 && has(p[0])) {
                return true;
            }
        }
        return false;
    }

    /** jsonlayout.is_layout_record: a message, a level and a logger at the top. */
    boolean isLayoutRecord() {
        return hasAny(spec.layout.get("message")) && hasAny(spec.layout.get("level"))
                && hasAny(spec.layout.get("logger"));
    }

    /** envelope.envelope_name. */
    String shipper() {
        String schema = top("schema");
        if (schema != null && schema.startsWith("kafka-health/log/")) {
            return "kafka-health";
        }
        if (isLayoutRecord()) {
            return "log4j-json";
        }
        if (has("@metadata") || has("agent") || has("ecs") || has("beat")) {
            return "filebeat";
        }
        if (has("source_type")) {
            return "vector";
        }
        if (has("syslogtag") || has("syslog-tag") || has("programname")) {
            return "rsyslog";
        }
        if (has("log") && !has("message")) {
            return "fluent-bit";
        }
        return "json";
    }
}
