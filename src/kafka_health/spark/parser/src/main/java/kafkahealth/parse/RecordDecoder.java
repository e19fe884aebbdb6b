package kafkahealth.parse;

import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;

/**
 * One Kafka record (key, value) -> a log entry, as {@code parsing.envelope.decode_records}
 * gives it: the bad-input reason before any JSON is read, the envelope's message, broker id,
 * host, file and kind by the configured paths, the checked labels, the shipper, the lines.
 */
final class RecordDecoder {
    private final Spec spec;

    RecordDecoder(Spec spec) {
        this.spec = spec;
    }

    /** What decode_records writes for one record. */
    static final class Entry {
        String message, brokerId, host, file, kind, envelope, badReason;
        /** The host is the record's key as it is (Spark's text of its bytes, for the caller). */
        boolean hostIsKey;
        int nLines;
        /** The entry continues another (a file's entry cut at max_entry_lines; never a
         * record's). */
        boolean continued;
    }

    Entry decode(byte[] key, byte[] value) {
        Entry e = new Entry();
        int size = value == null ? 0 : value.length;
        String text = null;
        String preBad = null;
        boolean ascii = false;
        if (size == 0) {
            preBad = "empty";
        } else if (size > spec.maxEntryBytes) {
            preBad = "oversize";
        } else {
            ascii = SparkText.isAscii(value);
            text = ascii ? new String(value, StandardCharsets.ISO_8859_1)
                    : SparkText.decodeUtf8(value);
            if (text == null) {
                preBad = "not_utf8";
            } else if (isBinary(value, text)) {
                preBad = "binary";
            }
        }
        boolean isJson = text != null && SparkText.firstNonSpaceIs(text, '{');
        SparkJson.Doc doc = null;
        if (preBad == null && isJson) {
            doc = ascii ? spec.flatJson.read(value) : null;
            if (doc == null) {
                doc = SparkJson.fromJson(text, ascii ? value : null, spec.docIndex, spec.docKeys);
            }
        }
        Envelope env = doc == null ? null : new Envelope(spec, doc);
        String jsonMessage = env == null ? null : env.firstPath(spec.messagePaths, true);
        boolean parsedOk = doc != null && !doc.bad;
        boolean jsonOk = isJson && parsedOk;

        if (preBad != null) {
            e.message = null;
        } else if (jsonOk && env.isLayoutRecord()) {
            e.message = text;
        } else if (isJson) {
            e.message = jsonMessage;
        } else {
            e.message = text;
        }
        String bad = preBad;
        if (bad == null && isJson && !parsedOk) {
            bad = "bad_json";
        }
        if (bad == null && jsonOk && jsonMessage == null) {
            bad = "no_message";
        }

        String keyText = key == null ? null : SparkText.lenientUtf8(key);
        String keyBroker = null;
        boolean keyHost = false;
        if (keyText != null) {
            switch (spec.recordKey) {
                case "broker_id":
                    keyBroker = keyText;
                    break;
                case "host":
                    keyHost = true;
                    break;
                case "none":
                    break;
                default:
                    boolean isId = isDigitsKey(keyText);
                    if (isId) {
                        keyBroker = SparkText.trimSpaces(keyText);
                    } else {
                        keyHost = true;
                    }
            }
        }
        String file = jsonOk ? env.firstPath(spec.filePaths, false) : null;
        if (file == null && jsonOk && env.has("beat")) {
            file = env.path(spec.preEcsFile, false);
        }
        String broker = jsonOk ? env.firstPath(spec.brokerPaths, false) : null;
        if (broker == null) {
            broker = keyBroker;
        }
        broker = broker == null ? null : SparkText.trimSpaces(broker);
        String host = jsonOk ? env.firstPath(spec.hostPaths, false) : null;
        if (host == null && jsonOk && env.has("beat")) {
            host = env.path(spec.preEcsHost, false);
        }
        if (host == null && keyHost) {
            e.hostIsKey = true;
        }
        e.host = host;

        String given = jsonOk ? SparkText.lower(env.firstPath(spec.kindPaths, false)) : null;
        String kind = null;
        if (given != null && contains(spec.logKinds, given)) {
            kind = given;
        }
        if (kind == null) {
            kind = kindFromFile(file);
        }
        if (kind == null && given != null) {
            kind = "other";
        }
        boolean goodId = validBrokerId(broker);
        e.brokerId = goodId ? broker : null;
        if (bad == null && broker != null && !broker.isEmpty() && !goodId) {
            bad = "bad_broker_id";
        }
        e.file = file;
        e.kind = kind;
        e.badReason = bad;
        if (jsonOk) {
            e.envelope = env.shipper();
        } else if (preBad == null && !isJson) {
            e.envelope = "raw";
        }
        String msg = e.message == null ? "" : e.message;
        int lines = 1;
        if (msg.indexOf('\n') >= 0) {
            lines = 1;
            for (int i = 0; i < msg.length(); i++) {
                if (msg.charAt(i) == '\n') lines++;
            }
        }
        e.nLines = lines;
        return e;
    }

    /** The BINARY shape found in the text (by its bytes where the table decides). */
    private boolean isBinary(byte[] value, String text) {
        Boolean byBytes = spec.binaryBytes == null ? null : spec.binaryBytes.in(value);
        return byBytes != null ? byBytes : spec.binary.matcher(text).find();
    }

    /** The key matches {@code ^\s*\d+\s*$} (envelope._key_broker_and_host). */
    private static boolean isDigitsKey(String k) {
        int i = 0, n = k.length();
        while (i < n && isSpace(k.charAt(i))) i++;
        int digits = 0;
        while (i < n && k.charAt(i) >= '0' && k.charAt(i) <= '9') {
            i++;
            digits++;
        }
        if (digits == 0) {
            return false;
        }
        int j = i;
        while (j < n && isSpace(k.charAt(j))) j++;
        if (j == n) {
            return true;
        }
        // Java's "$" also matches before a final line terminator.
        String rest = k.substring(j);
        return rest.equals("\u0085") || rest.equals("\u2028") || rest.equals("\u2029");
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
    }

    private static boolean contains(String[] xs, String x) {
        for (String s : xs) {
            if (s.equals(x)) return true;
        }
        return false;
    }

    /** envelope.kind_from_file. */
    private String kindFromFile(String file) {
        if (file == null) {
            return null;
        }
        Matcher m = spec.kindFromFile.matcher(file);
        if (!m.find()) {
            return null;
        }
        String named = m.group(1);
        if (named != null && !named.isEmpty()) {
            return named;
        }
        String gc = m.group(2);
        return gc != null && !gc.isEmpty() ? "gc" : null;
    }

    /** One to nine ASCII digits, no leading zero but a lone "0": an id Kafka writes. */
    private boolean shortId(String text) {
        int n = text.length();
        if (n == 0 || n > Math.min(9, spec.brokerIdMaxDigits) || n > 1 && text.charAt(0) == '0') {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /** envelope.valid_broker_id: an int32 of at least 0 written as Kafka writes it. */
    private boolean validBrokerId(String text) {
        if (text != null && shortId(text)) {
            return true;
        }
        if (text == null || SparkText.utf8Length(text) > spec.brokerIdMaxDigits) {
            return false;
        }
        Integer n = SparkText.tryInt(text);
        return n != null && n >= 0 && Integer.toString(n).equals(text);
    }
}
