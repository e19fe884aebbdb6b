package kafkahealth.parse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * {@link SparkJson#fromJson} of a flat ASCII envelope in one pass without Jackson (whose
 * parser was a quarter of the tally's samples, JFR, benchmarks/tally_loop.py): an object whose
 * keys have no escape and whose values are strings, or numbers and literals under keys the
 * decode does not read. Anything else it leaves to Jackson by answering null: a nested value,
 * a read key's value that is not a string, a {@code \\u} escape, single quotes, a control
 * character, a malformed number or literal, the input ending inside the object. What it
 * answers is what Jackson's reading gives, as tests/spark/test_flat_json.py checks.
 */
public final class FlatJson {
    private static final int SLOTS = 128;
    private static final String[] LITERALS = {"true", "false", "null"};
    /** Per slot (a key's hash, String.hashCode of its text, masked; probed linearly): the
     * key's bytes and its index in the document, null where free. */
    private final byte[][] names = new byte[SLOTS][];
    private final int[] indexes = new int[SLOTS];
    private final int keys;

    FlatJson(Map<String, Integer> index) {
        keys = index.size();
        if (keys > SLOTS / 2) {
            throw new IllegalArgumentException("more than " + SLOTS / 2 + " envelope keys");
        }
        for (Map.Entry<String, Integer> e : index.entrySet()) {
            int slot = e.getKey().hashCode() & (SLOTS - 1);
            while (names[slot] != null) {
                slot = (slot + 1) & (SLOTS - 1);
            }
            names[slot] = e.getKey().getBytes(StandardCharsets.UTF_8);
            indexes[slot] = e.getValue();
        }
    }

    /** The document of the ASCII {@code b}, or null where Jackson must decide. */
    SparkJson.Doc read(byte[] b) {
        int n = b.length;
        int i = space(b, 0);
        if (i >= n || b[i] != '{') {
            return null;
        }
        SparkJson.Doc doc = new SparkJson.Doc(keys);
        i = space(b, i + 1);
        if (i < n && b[i] == '}') {
            return doc;
        }
        while (true) {
            if (i >= n || b[i] != '"') {
                return null;
            }
            int start = ++i;
            int hash = 0;
            for (; i < n && b[i] != '"'; i++) {
                if (b[i] == '\\' || b[i] < 0x20) {
                    return null;
                }
                hash = 31 * hash + b[i];
            }
            if (i >= n) {
                return null;
            }
            int at = lookup(b, start, i - start, hash);
            i = space(b, i + 1);
            if (i >= n || b[i] != ':') {
                return null;
            }
            i = space(b, i + 1);
            if (i >= n) {
                return null;
            }
            if (b[i] == '"') {
                i = string(b, i + 1, doc, at);
            } else if (at < 0) {
                i = scalar(b, i);
            } else {
                return null; // a read key's number, literal or structure: Jackson writes it
            }
            if (i < 0) {
                return null;
            }
            i = space(b, i);
            if (i >= n) {
                return null;
            }
            if (b[i] == '}') {
                return doc;
            }
            if (b[i] != ',') {
                return null;
            }
            i = space(b, i + 1);
        }
    }

    /** The document index of the key {@code b[start, start + len)}, or -1. */
    private int lookup(byte[] b, int start, int len, int hash) {
        for (int slot = hash & (SLOTS - 1); names[slot] != null; slot = (slot + 1) & (SLOTS - 1)) {
            byte[] name = names[slot];
            if (name.length == len && Arrays.equals(name, 0, len, b, start, start + len)) {
                return indexes[slot];
            }
        }
        return -1;
    }

    /** Past JSON's white space from {@code i}. */
    private static int space(byte[] b, int i) {
        while (i < b.length && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) {
            i++;
        }
        return i;
    }

    /**
     * The string whose text starts at {@code i} (past its quote): its value set at {@code at}
     * of {@code doc} (unless -1); the index past its closing quote, or -1 for Jackson.
     */
    private static int string(byte[] b, int i, SparkJson.Doc doc, int at) {
        int start = i;
        int n = b.length;
        StringBuilder escaped = null;
        int from = start;
        for (; i < n; i++) {
            if (i + 8 <= n) { // eight bytes at a time while none is a quote, backslash or control
                long x = ByteWords.at(b, i);
                if ((ByteWords.equal(x, '"') | ByteWords.equal(x, '\\')
                        | ByteWords.below(x, 0x20)) == 0) {
                    i += 7;
                    continue;
                }
            }
            byte c = b[i];
            if (c == '"') {
                break;
            }
            if (c < 0x20) {
                return -1;
            }
            if (c != '\\') {
                continue;
            }
            if (i + 1 >= n) {
                return -1;
            }
            char plain = unescaped(b[i + 1]);
            if (plain == 0) {
                return -1;
            }
            if (at >= 0) {
                if (escaped == null) {
                    escaped = new StringBuilder(n - start);
                }
                escaped.append(new String(b, from, i - from, StandardCharsets.ISO_8859_1));
                escaped.append(plain);
            }
            i++;
            from = i + 1;
        }
        if (i >= n) {
            return -1;
        }
        if (at >= 0) {
            String tail = new String(b, from, i - from, StandardCharsets.ISO_8859_1);
            doc.values[at] = escaped == null ? tail : escaped.append(tail).toString();
        }
        return i + 1;
    }

    /** The character of JSON's two-character escape {@code \c}, or 0 (Jackson decides). */
    private static char unescaped(byte c) {
        switch (c) {
            case '"':
                return '"';
            case '\\':
                return '\\';
            case '/':
                return '/';
            case 'b':
                return '\b';
            case 'f':
                return '\f';
            case 'n':
                return '\n';
            case 'r':
                return '\r';
            case 't':
                return '\t';
            default:
                return 0;
        }
    }

    /**
     * Past the number or literal from {@code i} in JSON's strict grammar (no leading zero, no
     * bare sign or point, at most 100 characters), or -1 for Jackson.
     */
    private static int scalar(byte[] b, int i) {
        int n = b.length;
        for (String literal : LITERALS) {
            if (b[i] == literal.charAt(0)) {
                int end = i + literal.length();
                if (end > n) {
                    return -1;
                }
                for (int j = 1; j < literal.length(); j++) {
                    if (b[i + j] != literal.charAt(j)) {
                        return -1;
                    }
                }
                return end;
            }
        }
        int start = i;
        if (i < n && b[i] == '-') {
            i++;
        }
        if (i >= n || !digit(b[i])) {
            return -1;
        }
        if (b[i] == '0') {
            i++;
            if (i < n && digit(b[i])) {
                return -1;
            }
        } else {
            i = digits(b, i);
        }
        if (i < n && b[i] == '.') {
            int d = digits(b, i + 1);
            if (d == i + 1) {
                return -1;
            }
            i = d;
        }
        if (i < n && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            if (i < n && (b[i] == '+' || b[i] == '-')) {
                i++;
            }
            int d = digits(b, i);
            if (d == i) {
                return -1;
            }
            i = d;
        }
        return i - start > 100 ? -1 : i;
    }

    private static boolean digit(byte c) {
        return c >= '0' && c <= '9';
    }

    private static int digits(byte[] b, int i) {
        while (i < b.length && digit(b[i])) {
            i++;
        }
        return i;
    }

    /**
     * For the tests: each ASCII text of the JSON array {@code texts} read by this and by
     * Jackson ({@link SparkJson#fromJson}) with the JSON array {@code keys} as the keys read.
     * Returns JSON: how many texts this read ({@code "read"}), and those it read otherwise
     * ({@code "differ"}: the text, and both documents).
     */
    public static String differences(String texts, String keys) throws IOException {
        ObjectMapper json = new ObjectMapper();
        Map<String, Integer> index = new HashMap<>();
        for (JsonNode k : json.readTree(keys)) {
            index.put(k.asText(), index.size());
        }
        FlatJson flat = new FlatJson(index);
        int read = 0;
        ObjectNode out = json.createObjectNode();
        ArrayNode differ = out.putArray("differ");
        for (JsonNode t : json.readTree(texts)) {
            byte[] bytes = t.asText().getBytes(StandardCharsets.UTF_8);
            if (!SparkText.isAscii(bytes)) {
                continue;
            }
            SparkJson.Doc mine = flat.read(bytes);
            if (mine == null) {
                continue;
            }
            read++;
            SparkJson.Doc jackson = SparkJson.fromJson(t.asText(), bytes, index, index.size());
            boolean same = jackson != null && jackson.bad == mine.bad
                    && Arrays.equals(jackson.values, mine.values);
            if (!same) {
                ArrayNode d = differ.addArray();
                d.add(t.asText());
                d.add(Arrays.toString(mine.values));
                d.add(jackson == null ? "null" : jackson.bad + " " + Arrays.toString(
                        jackson.values));
            }
        }
        out.put("read", read);
        return json.writeValueAsString(out);
    }
}
