package kafkahealth.parse;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * Spark's two JSON readers as the decode uses them, made of the same Jackson calls on the same
 * Jackson (Spark's own, on the classpath) so that they give what Spark gives, broken input
 * included.
 *
 * <ul>
 *   <li>{@link #fromJson}: {@code from_json(text, struct<key string, ...>, PERMISSIVE with a
 *       corrupt-record column)} (Spark's JacksonParser root struct, StringType fields, and its
 *       FailureSafeParser: a record that breaks inside a field keeps the fields read so far).
 *   <li>{@link #getJsonObject}: {@code get_json_object(json, "$.a.b")} for a path of names
 *       (GetJsonObjectEvaluator: the first field of the name that is not JSON null; a string
 *       raw, anything else as Jackson copies it).
 * </ul>
 */
final class SparkJson {
    private SparkJson() {}

    /** JSONOptions.buildJsonFactory() with from_json's default options. */
    static final JsonFactory FROM_JSON = new JsonFactoryBuilder()
            .configure(JsonReadFeature.ALLOW_JAVA_COMMENTS, false)
            .configure(JsonReadFeature.ALLOW_UNQUOTED_FIELD_NAMES, false)
            .configure(JsonReadFeature.ALLOW_SINGLE_QUOTES, true)
            .configure(JsonReadFeature.ALLOW_LEADING_ZEROS_FOR_NUMBERS, false)
            .configure(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS, true)
            .configure(JsonReadFeature.ALLOW_BACKSLASH_ESCAPING_ANY_CHARACTER, false)
            .configure(JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS, false)
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(1000).maxNumberLength(1000).maxStringLength(20_000_000).build())
            .build();

    /** get_json_object's SharedFactory. */
    static final JsonFactory GET_JSON = new JsonFactoryBuilder()
            .enable(JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS)
            .enable(JsonReadFeature.ALLOW_SINGLE_QUOTES)
            .build();

    /** A record's top-level keys as from_json reads them. */
    static final class Doc {
        final String[] values;
        /** The corrupt-record column is set: not one JSON object (some fields may be set). */
        boolean bad;

        Doc(int n) {
            values = new String[n];
        }
    }

    /**
     * Null for a text with no JSON token at all (from_json gives null). {@code ascii}: the
     * text's bytes when every one is ASCII (else null), read by Jackson's byte parser, which
     * gives the same tokens as its character parser on them without copying the text.
     */
    static Doc fromJson(String text, byte[] ascii, Map<String, Integer> keys, int n) {
        Doc doc = new Doc(n);
        try (JsonParser p = ascii != null && noZeroLead(ascii) ? FROM_JSON.createParser(ascii)
                : FROM_JSON.createParser(text)) {
            JsonToken t = p.nextToken();
            if (t == null) {
                return null;
            }
            while (t == JsonToken.FIELD_NAME) { // parseJsonToken's leading names
                t = p.nextToken();
            }
            if (t != JsonToken.START_OBJECT) {
                // VALUE_NULL: the root converter's null; an array or a scalar: not a struct.
                throw new IOException("not an object");
            }
            Exception badField = null;
            while (nextUntil(p, JsonToken.END_OBJECT)) {
                Integer at = keys.get(p.currentName());
                if (at == null) {
                    p.skipChildren();
                    continue;
                }
                try {
                    doc.values[at] = stringField(p);
                } catch (Exception e) { // convertObject (isRoot): NonFatal, the record is bad
                    if (badField == null) {
                        badField = e;
                    }
                    p.skipChildren();
                }
            }
            if (badField != null) {
                doc.bad = true; // PartialResultException: the row so far, and the corrupt record
            }
        } catch (Exception e) {
            Arrays.fill(doc.values, null);
            doc.bad = true;
        }
        return doc;
    }

    /** No zero byte among the first four, from which Jackson would guess UTF-16 or -32. */
    private static boolean noZeroLead(byte[] bytes) {
        for (int i = 0; i < Math.min(4, bytes.length); i++) {
            if (bytes[i] == 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean nextUntil(JsonParser p, JsonToken stop) throws IOException {
        JsonToken t = p.nextToken();
        return t != null && t != stop;
    }

    /** JacksonParser's StringType converter (no exact-string parsing from a Reader's text). */
    private static String stringField(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        while (t == JsonToken.FIELD_NAME) {
            t = p.nextToken();
        }
        if (t == null || t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t == JsonToken.VALUE_STRING) {
            return SparkText.utf8RoundTrip(p.getText());
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = FROM_JSON.createGenerator(out, JsonEncoding.UTF8)) {
            g.copyCurrentStructure(p);
        }
        return new String(out.toByteArray(), StandardCharsets.UTF_8);
    }

    /**
     * {@code get_json_object(json, path)} for a path of names ({@code "$"} when empty): null when
     * nothing matched or the text breaks first.
     */
    static String getJsonObject(String json, String[] names) {
        if (json == null || names.length > 0 && !opensObject(json)) {
            return null; // a name is looked up in an object only; Jackson would throw first
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonParser p = GET_JSON.createParser(json)) {
            boolean matched;
            try (JsonGenerator g = GET_JSON.createGenerator(out, JsonEncoding.UTF8)) {
                p.nextToken();
                matched = evaluate(p, g, names, 0, false);
            }
            return matched ? new String(out.toByteArray(), StandardCharsets.UTF_8) : null;
        } catch (JsonProcessingException e) {
            return null;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether the first character past JSON's white space is '{'. */
    private static boolean opensObject(String json) {
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return c == '{';
            }
        }
        return false;
    }

    /**
     * GetJsonObjectEvaluator.evaluatePath, RawStyle, for {@code Key :: Named(n) :: ...}:
     * {@code atName} says the next instruction is the Named one (the Key was taken).
     */
    private static boolean evaluate(JsonParser p, JsonGenerator g, String[] names, int i,
            boolean atName) throws IOException {
        JsonToken t = p.currentToken();
        if (i == names.length) {
            if (t == JsonToken.VALUE_STRING) {
                if (p.hasTextCharacters()) {
                    g.writeRaw(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
                } else {
                    g.writeRaw(p.getText());
                }
            } else {
                g.copyCurrentStructure(p);
            }
            return true;
        }
        if (!atName) { // Key :: xs
            if (t == JsonToken.START_OBJECT) {
                boolean dirty = false;
                while (p.nextToken() != JsonToken.END_OBJECT) {
                    if (dirty) {
                        p.skipChildren();
                    } else {
                        dirty = evaluate(p, g, names, i, true);
                    }
                }
                return dirty;
            }
            p.skipChildren();
            return false;
        }
        if (t == JsonToken.FIELD_NAME && names[i].equals(p.currentName())) {
            if (p.nextToken() != JsonToken.VALUE_NULL) {
                return evaluate(p, g, names, i + 1, false);
            }
            return false;
        }
        p.skipChildren();
        return false;
    }
}
