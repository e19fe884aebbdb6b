package jvmparser;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * kafka-health's envelope decode, the top-level keys part, with Jackson's streaming parser
 * (a measurement prototype).
 *
 * <p>Semantics follow the project's {@code parse_doc} (Spark's {@code from_json} into a struct of
 * strings, PERMISSIVE, with a corrupt-record column): a string value as its text, any other value
 * (number, boolean, object, array) as the JSON text Jackson's generator copies (what Spark's
 * JacksonParser writes for a string field), a JSON null as null, the last of a repeated key, and
 * every field null when the record is not one JSON object.
 */
public final class Envelope {
    private Envelope() {}

    /** {@code kafka_health.parsing.envelope.doc_keys(MonitorConfig().parsing.fields)}. */
    public static final String[] KEYS = {
        "message", "log", "msg", "broker_id", "fields", "kafka", "host", "hostname", "path",
        "file", "filename", "kind", "schema", "@metadata", "agent", "ecs", "source_type",
        "syslogtag", "syslog-tag", "programname", "level", "log.level", "loggerName",
        "log.logger", "logger_name", "logger",
    };

    public static final int MESSAGE = 0, LOG = 1, MSG = 2, BROKER_ID = 3, FIELDS = 4, KAFKA = 5,
            PATH = 8, FILE = 9, FILENAME = 10, KIND = 11;

    private static final HashMap<String, Integer> INDEX = new HashMap<>();

    static {
        for (int i = 0; i < KEYS.length; i++) {
            INDEX.put(KEYS[i], i);
        }
    }

    /** Spark's JSONOptions defaults that change what parses: single quotes, NaN/Infinity. */
    @SuppressWarnings("deprecation")
    static final JsonFactory FACTORY = new JsonFactory()
            .enable(JsonParser.Feature.ALLOW_SINGLE_QUOTES)
            .enable(JsonParser.Feature.ALLOW_NON_NUMERIC_NUMBERS);

    /** A decoded record: each key's value (null when absent or JSON null). */
    public static final class Doc {
        public final String[] values = new String[KEYS.length];
        /** Whether the value was a JSON object (1) or array (2), not a string or number. */
        public final byte[] shape = new byte[KEYS.length];
        /** Not one JSON object (Spark's corrupt-record column set). */
        public boolean bad;
    }

    public static Doc decode(byte[] value) {
        Doc doc = new Doc();
        if (value == null) {
            doc.bad = true; // from_json(null) is null; the decode never gives it a null text
            return doc;
        }
        try (JsonParser p = FACTORY.createParser(value)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                doc.bad = true;
                return doc;
            }
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                Integer at = INDEX.get(p.currentName());
                JsonToken v = p.nextToken();
                if (at == null) {
                    p.skipChildren(); // a scalar: no-op
                    continue;
                }
                int i = at;
                doc.shape[i] = 0;
                switch (v) {
                    case VALUE_STRING:
                        doc.values[i] = p.getText();
                        break;
                    case VALUE_NULL:
                        doc.values[i] = null;
                        break;
                    default:
                        doc.shape[i] = (byte) (v == JsonToken.START_OBJECT ? 1
                                : v == JsonToken.START_ARRAY ? 2 : 0);
                        doc.values[i] = copy(p);
                }
            }
            if (t != JsonToken.END_OBJECT) {
                throw new IOException("not an object");
            }
        } catch (IOException | RuntimeException e) {
            java.util.Arrays.fill(doc.values, null);
            java.util.Arrays.fill(doc.shape, (byte) 0);
            doc.bad = true;
        }
        return doc;
    }

    /** The current value as JSON text, as Spark's JacksonParser writes a non-string value. */
    private static String copy(JsonParser p) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.copyCurrentStructure(p);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    // ---- the decode's json_path / first_path over the decoded keys ----

    /**
     * {@code json_path(doc, key)} for a top-level key: the value unless it is empty, or an
     * object/array (Spark's text of one, or a string holding one: brackets at both ends and
     * valid JSON); with {@code layouts}, an object with a non-null {@code message} is kept.
     */
    public static String scalar(Doc d, int i, boolean layouts) {
        String v = d.values[i];
        if (v == null || v.isEmpty()) {
            return null;
        }
        if (d.shape[i] == 0) {
            char a = v.charAt(0), z = v.charAt(v.length() - 1);
            if (!((a == '[' || a == '{') && (z == ']' || z == '}')) || !isJson(v)) {
                return v;
            }
        }
        if (layouts && v.charAt(0) == '{' && nested(v, "message") != null) {
            return v;
        }
        return null;
    }

    /** {@code json_path(doc, "key.rest")}: the scalar at a dotted path inside key's JSON text. */
    public static String scalarAt(Doc d, int i, String... rest) {
        String v = d.values[i];
        if (v == null || v.isEmpty() || v.charAt(0) != '{') {
            return null;
        }
        String found = v;
        for (String key : rest) {
            found = nested(found, key);
            if (found == null) {
                return null;
            }
        }
        if (found.isEmpty()) {
            return null;
        }
        char a = found.charAt(0), z = found.charAt(found.length() - 1);
        if ((a == '[' || a == '{') && (z == ']' || z == '}') && isJson(found)) {
            return null;
        }
        return found;
    }

    /** {@code get_json_object(json, '$.key')} (one level): a string's text, else JSON text. */
    static String nested(String json, String key) {
        try (JsonParser p = FACTORY.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            String found = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                boolean hit = key.equals(p.currentName());
                JsonToken v = p.nextToken();
                if (!hit) {
                    p.skipChildren();
                } else if (v == JsonToken.VALUE_STRING) {
                    found = p.getText();
                } else if (v == JsonToken.VALUE_NULL) {
                    found = null;
                } else {
                    found = copy(p);
                }
            }
            return found;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    static boolean isJson(String text) {
        try (JsonParser p = FACTORY.createParser(text)) {
            if (p.nextToken() == null) {
                return false;
            }
            p.skipChildren();
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** The first of the values that is not null. */
    static String first(String... values) {
        for (String v : values) {
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    /** {@code first_path(doc, fields.message, layouts=True)}: message, log, msg. */
    public static String message(Doc d) {
        String m = scalar(d, MESSAGE, true);
        if (m == null) m = scalar(d, LOG, true);
        if (m == null) m = scalar(d, MSG, true);
        return m;
    }

    /** {@code first_path(doc, fields.broker_id)}: broker_id, fields.broker_id, kafka.broker_id. */
    public static String brokerId(Doc d) {
        String b = scalar(d, BROKER_ID, false);
        if (b == null) b = scalarAt(d, FIELDS, "broker_id");
        if (b == null) b = scalarAt(d, KAFKA, "broker_id");
        return b;
    }

    /** {@code first_path(doc, fields.file)}: path, log.file.path, file, filename, file.path. */
    public static String file(Doc d) {
        String f = scalar(d, PATH, false);
        if (f == null) f = scalarAt(d, LOG, "file", "path");
        if (f == null) f = scalar(d, FILE, false);
        if (f == null) f = scalar(d, FILENAME, false);
        if (f == null) f = scalarAt(d, FILE, "path");
        return f;
    }

    /** envelope.KIND_FROM_FILE. */
    static final Pattern KIND_FROM_FILE = Pattern.compile(
            "(?:^|/)(?:(server|controller|state-change)\\.log|"
                    + "[^/]*?(?<![A-Za-z])(gc)(?![A-Za-z])[^/]*\\.log)(?:[.\\d-]*)?$");

    /** lower(first_path(doc, fields.kind)), else kind_from_file(file). */
    public static String kind(Doc d, String file) {
        String k = scalar(d, KIND, false);
        if (k == null) k = scalarAt(d, FIELDS, "kind");
        if (k == null) k = scalarAt(d, FIELDS, "log_kind");
        if (k != null) {
            return k.toLowerCase(Locale.ROOT);
        }
        if (file == null) {
            return null;
        }
        Matcher m = KIND_FROM_FILE.matcher(file);
        if (!m.find()) {
            return null;
        }
        if (m.group(1) != null && !m.group(1).isEmpty()) return m.group(1);
        if (m.group(2) != null && !m.group(2).isEmpty()) return "gc";
        return null;
    }

    /** A record that is not JSON at all (its first non-space byte not "{"): a raw log line. */
    public static boolean isRaw(byte[] value) {
        if (value == null) {
            return false;
        }
        for (byte b : value) {
            if (b != ' ') {
                return b != '{';
            }
        }
        return true;
    }
}
